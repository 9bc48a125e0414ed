package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentcli/agent/rollout"
)

// ForHome is the store of the agent home: $AGENT_HOME/checkpoints, the
// home itself never kept.
func ForHome(home string) *Store {
	return &Store{Dir: filepath.Join(home, "checkpoints"), Exclude: []string{home}}
}

// Turn is one turn of a session as undo and rewind see it.
type Turn struct {
	// N counts the session's turns from 1, over its whole life.
	N int
	// Prompt is what the user asked.
	Prompt string
	// Checkpoint names the snapshots undoing the turn's files restores
	// from; nil: the turn wrote nothing (or its checkpoint failed).
	Checkpoint *Checkpoint
	// Undone says its files were restored already.
	Undone bool
	// RolledBack says the conversation was rewound to before it.
	RolledBack bool
}

// Checkpoint names a turn's snapshots of the workspace Cwd: before its
// first call that may write, and at its end.
type Checkpoint struct {
	Cwd, Before, After string
}

// Turns folds a session's recorded events into its turns.
func Turns(events []rollout.EventMsg) []Turn {
	var turns []Turn
	for _, ev := range events {
		turns = Fold(turns, ev)
	}
	return turns
}

// Fold applies one recorded event to turns.
func Fold(turns []Turn, ev rollout.EventMsg) []Turn {
	switch ev.Type {
	case rollout.EventTurnStarted:
		turns = append(turns, Turn{N: len(turns) + 1})
	case rollout.EventUserMessage:
		if n := len(turns); n > 0 && turns[n-1].Prompt == "" {
			turns[n-1].Prompt = ev.Message
		}
	case rollout.EventCheckpoint:
		if n := len(turns); n > 0 && ev.Checkpoint != nil {
			c := Checkpoint(*ev.Checkpoint)
			turns[n-1].Checkpoint = &c
		}
	case rollout.EventUndo:
		for i := range turns {
			if c := turns[i].Checkpoint; c != nil && ev.Checkpoint != nil && c.After == ev.Checkpoint.After {
				turns[i].Undone = true
			}
		}
	case rollout.EventRolledBack:
		left := ev.NumTurns
		for i := len(turns) - 1; i >= 0 && left > 0; i-- {
			if !turns[i].RolledBack {
				turns[i].RolledBack = true
				left--
			}
		}
	}
	return turns
}

// ErrNothingToUndo says no turn of the session has files left to undo.
var ErrNothingToUndo = errors.New("nothing to undo: no turn of this session changed files that are not undone already")

// Pick chooses the turn to undo: n, or (n == 0) the latest with files not
// undone yet.
func Pick(turns []Turn, n int) (Turn, error) {
	if n == 0 {
		for i := len(turns) - 1; i >= 0; i-- {
			if turns[i].Checkpoint != nil && !turns[i].Undone {
				return turns[i], nil
			}
		}
		return Turn{}, ErrNothingToUndo
	}
	if n < 1 || n > len(turns) {
		return Turn{}, fmt.Errorf("no turn %d: the session has %d", n, len(turns))
	}
	t := turns[n-1]
	switch {
	case t.Checkpoint == nil:
		return t, fmt.Errorf("turn %d changed no files agent kept a checkpoint of: nothing to undo", n)
	case t.Undone:
		return t, fmt.Errorf("turn %d is undone already", n)
	}
	return t, nil
}

// Undone is what undoing a turn's files did.
type Undone struct {
	Turn Turn
	Result
}

// String says it in one line: "turn 3 undone (the prompt): restored a.go; removed new.txt".
func (u Undone) String() string {
	var parts []string
	if len(u.Restored) > 0 {
		parts = append(parts, "restored "+strings.Join(u.Restored, ", "))
	}
	if len(u.Removed) > 0 {
		parts = append(parts, "removed "+strings.Join(u.Removed, ", "))
	}
	if len(parts) == 0 {
		parts = append(parts, "its files were already as they were before it")
	}
	return fmt.Sprintf("turn %d undone (%s): %s", u.Turn.N, oneLine(u.Turn.Prompt), strings.Join(parts, "; "))
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 40 {
		s = string(r[:39]) + "…"
	}
	return s
}

// Undo restores turn t's files and records the undo with record (nil:
// not recorded).
func (s *Store) Undo(ctx context.Context, t Turn, record func(Checkpoint) error) (Undone, error) {
	c := t.Checkpoint
	if c == nil {
		return Undone{Turn: t}, fmt.Errorf("turn %d has no checkpoint", t.N)
	}
	res, err := s.Restore(ctx, c.Cwd, c.Before, c.After)
	if err != nil {
		return Undone{Turn: t}, fmt.Errorf("turn %d: %w", t.N, err)
	}
	t.Undone = true
	if record != nil {
		if err := record(*c); err != nil {
			return Undone{Turn: t, Result: res}, fmt.Errorf("turn %d was undone but could not be recorded: %w", t.N, err)
		}
	}
	return Undone{Turn: t, Result: res}, nil
}

// UndoRecorded is `agent undo`: turn n of the recorded session at path
// (0: the latest with files not undone yet) restored, and the undo
// recorded in its file. A session open in a running agent is refused:
// undo it there (/undo).
func (s *Store) UndoRecorded(ctx context.Context, path string, n int) (Undone, error) {
	ro, err := rollout.Load(path)
	if err != nil {
		return Undone{}, err
	}
	t, err := Pick(Turns(ro.Events), n)
	if err != nil {
		return Undone{Turn: t}, err
	}
	r, err := rollout.Open(ctx, path)
	if err != nil {
		var inUse *rollout.InUseError
		if errors.As(err, &inUse) {
			return Undone{Turn: t}, fmt.Errorf("session %s is open in a running agent (%v): use /undo there", ro.Meta.ID, err)
		}
		return Undone{Turn: t}, err
	}
	defer r.Close()
	return s.Undo(ctx, t, func(c Checkpoint) error {
		rc := rollout.Checkpoint(c)
		if err := r.AppendEvent(rollout.EventMsg{Type: rollout.EventUndo, Checkpoint: &rc}); err != nil {
			return err
		}
		return r.Sync()
	})
}
