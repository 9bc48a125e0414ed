package session

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/agentcli/agent/session/checkpoint"
	"sync"
)

// Checkpointed says the turn that is ending wrote (or may have written)
// to the workspace, and names the snapshots of before its first such call
// and of its end: what undoing it restores from.
type Checkpointed struct {
	Workspace     string
	Before, After string
}

func (Checkpointed) isEvent() {}

// turnCheckpoint is the running turn's snapshot taken before it first
// wrote.
type turnCheckpoint struct {
	mu     sync.Mutex
	tried  bool
	before string
	warned string // the last failure said: a lasting one (no git) is said once
}

// failed says a checkpoint failed, once for the same reason.
func (cp *turnCheckpoint) failed(err error, emit func(Event)) {
	msg := err.Error() + "; this turn's changes cannot be undone"
	if msg != cp.warned {
		cp.warned = msg
		emit(Warning{Message: msg})
	}
}

// checkpointBefore takes the turn's snapshot before its first call that
// may write (a tool that is not parallel-safe: commands, patches, MCP
// tools). A snapshot that fails says so and the call still runs: a
// checkpoint never costs the user's work, only its undo.
func (s *Session) checkpointBefore(ctx context.Context, name string, emit func(Event)) {
	if s.opts.Checkpoints == nil {
		return
	}
	if t, ok := s.opts.Tools.Lookup(name); ok && t.ParallelSafe() {
		return // reads only
	}
	cp := &s.cp
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if cp.tried {
		return
	}
	cp.tried = true
	id, err := s.opts.Checkpoints.Snapshot(ctx, s.opts.CheckpointRoot)
	if err != nil {
		if ctx.Err() == nil {
			cp.failed(err, emit)
		}
		return
	}
	cp.before = id
}

// checkpointAfter ends the turn's checkpoint: the snapshot of the turn's
// end (taken even when the turn was interrupted), announced with the one
// of before it wrote.
func (s *Session) checkpointAfter(ctx context.Context, emit func(Event)) {
	cp := &s.cp
	cp.mu.Lock()
	before := cp.before
	cp.tried, cp.before = false, ""
	cp.mu.Unlock()
	if before == "" {
		return
	}
	after, err := s.opts.Checkpoints.Snapshot(context.WithoutCancel(ctx), s.opts.CheckpointRoot)
	if err != nil {
		cp.mu.Lock()
		cp.failed(err, emit)
		cp.mu.Unlock()
		return
	}
	c := checkpoint.Checkpoint{Cwd: s.opts.CheckpointRoot, Before: before, After: after}
	s.turnsMu.Lock()
	if n := len(s.turns); n > 0 {
		s.turns[n-1].Checkpoint = &c
	}
	s.turnsMu.Unlock()
	emit(Checkpointed{Workspace: c.Cwd, Before: before, After: after})
	// What the turn's commands wrote joins the files a compaction lists.
	if paths, err := s.opts.Checkpoints.Touched(context.WithoutCancel(ctx), c.Cwd, before, after); err == nil {
		for _, p := range paths {
			if !slices.Contains(s.written, p) {
				s.written = append(s.written, p)
			}
		}
	}
}

// RolledBack says the conversation was cut back by Turns turns
// ([Session.Rewind]): the next request sends the history as it was
// before them.
type RolledBack struct {
	Turns int
}

func (RolledBack) isEvent() {}

// ErrCompactedSince refuses a rewind of the conversation past a
// compaction: the turns before it are in its summary, no longer apart.
var ErrCompactedSince = errors.New("the conversation was compacted since that turn; its files can still be restored")

// Turns is how many turns of the conversation [Session.Rewind] can cut
// back: those since the last compaction.
func (s *Session) Turns() int {
	n := 0
	for i := len(s.turnStarts) - 1; i >= 0 && s.turnStarts[i] >= 0; i-- {
		n++
	}
	return n
}

// Rewind cuts the conversation back by its last n turns: the history the
// next turn sends is what it was before them. The recording keeps
// everything and records the rewind (a [RolledBack] event), so a resumed
// session sees the conversation rewound. It runs between turns.
func (s *Session) Rewind(n int, emit func(Event)) error {
	if n <= 0 {
		return nil
	}
	if n > s.Turns() {
		return ErrCompactedSince
	}
	at := s.turnStarts[len(s.turnStarts)-n]
	s.history = s.history[:at:at]
	s.turnStarts = s.turnStarts[:len(s.turnStarts)-n]
	s.beforeCompaction = nil
	s.turnsMu.Lock()
	left := n
	for i := len(s.turns) - 1; i >= 0 && left > 0; i-- {
		if !s.turns[i].RolledBack {
			s.turns[i].RolledBack = true
			left--
		}
	}
	s.turnsMu.Unlock()
	ev := RolledBack{Turns: n}
	if s.opts.Recorder != nil {
		s.noteSave(s.opts.Recorder.RecordEvent(ev))
		s.sync()
	}
	emit(ev)
	return nil
}

// CanUndoCompaction reports whether the last thing the session did was a
// compaction, which [Session.UndoCompaction] would take back.
func (s *Session) CanUndoCompaction() bool { return s.beforeCompaction != nil }

// UndoCompaction puts back the history from before the last compaction,
// right after it (no turn since): the full history, kept in the
// recording, is recorded again as the history from here on.
func (s *Session) UndoCompaction(emit func(Event)) error {
	prev := s.beforeCompaction
	if prev == nil {
		return errors.New("nothing to undo: no compaction since the last turn")
	}
	before := len(s.history)
	if cr, ok := s.opts.Recorder.(CompactionRecorder); ok {
		s.noteSave(cr.RecordCompacted("the compaction was undone: the history before it", prev))
		s.sync()
	}
	s.history, s.turnStarts = prev, s.startsBeforeCompaction
	s.beforeCompaction, s.startsBeforeCompaction = nil, nil
	emit(CompactionUndone{Before: before, After: len(prev)})
	return nil
}

// CompactionUndone says the history from before the last compaction is
// back: Before and After are the history lengths, in items.
type CompactionUndone struct {
	Before, After int
}

func (CompactionUndone) isEvent() {}

// FilesUndone says a turn's files were restored from its checkpoint
// ([Session.Undo], [Session.Rewind]).
type FilesUndone struct {
	checkpoint.Undone
}

func (FilesUndone) isEvent() {}

// TurnList is the session's turns, over its whole life (a resumed
// session's included), as undo and rewind see them.
func (s *Session) TurnList() []checkpoint.Turn {
	s.turnsMu.Lock()
	defer s.turnsMu.Unlock()
	return append([]checkpoint.Turn(nil), s.turns...)
}

// Undo restores the files of turn n (0: the latest with files not undone
// yet) as they were before it, unless one was changed since (a
// [*checkpoint.ConflictError] naming it: nothing is written); the undo is
// recorded. Right after a compaction (no turn since), n == 0 undoes the
// compaction instead ([Session.UndoCompaction]). It runs between turns.
func (s *Session) Undo(ctx context.Context, n int, emit func(Event)) error {
	if n == 0 && s.CanUndoCompaction() {
		return s.UndoCompaction(emit)
	}
	t, err := checkpoint.Pick(s.TurnList(), n)
	if err != nil {
		return err
	}
	return s.undoTurn(ctx, t, emit)
}

func (s *Session) undoTurn(ctx context.Context, t checkpoint.Turn, emit func(Event)) error {
	if s.opts.Checkpoints == nil {
		return errors.New("this session keeps no checkpoints")
	}
	u, err := s.opts.Checkpoints.Undo(ctx, t, nil)
	if err != nil {
		return err
	}
	s.turnsMu.Lock()
	s.turns[t.N-1].Undone = true
	s.turnsMu.Unlock()
	ev := FilesUndone{u}
	if s.opts.Recorder != nil {
		s.noteSave(s.opts.Recorder.RecordEvent(ev))
		s.sync()
	}
	emit(ev)
	return nil
}

// RewindTo goes back to before turn n: its files and every later turn's
// restored (latest first; a file changed since stops it there, naming
// it), and/or the conversation cut back so that the next turn sends the
// history as it was before turn n ([Session.Rewind]). The recording keeps
// every turn and records both.
func (s *Session) RewindTo(ctx context.Context, n int, files, conversation bool, emit func(Event)) error {
	turns := s.TurnList()
	if n < 1 || n > len(turns) {
		return fmt.Errorf("no turn %d: the session has %d", n, len(turns))
	}
	later := 0
	for _, t := range turns[n-1:] {
		if !t.RolledBack {
			later++
		}
	}
	if conversation && later > s.Turns() {
		return fmt.Errorf("rewind to turn %d: %w", n, ErrCompactedSince)
	}
	if files {
		for i := len(turns) - 1; i >= n-1; i-- {
			if turns[i].Checkpoint == nil || turns[i].Undone {
				continue
			}
			if err := s.undoTurn(ctx, turns[i], emit); err != nil {
				return err
			}
		}
	}
	if conversation {
		return s.Rewind(later, emit)
	}
	return nil
}
