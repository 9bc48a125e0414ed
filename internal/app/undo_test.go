package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/session"
)

// inputOf is the text of request r's input items.
func inputOf(r rt.Request) string {
	b, _ := json.Marshal(r.JSON["input"])
	return string(b)
}

// TestRewindAndResume: /rewind to before turn 2 restores the file turn 2's
// patch made and cuts the conversation back: the next request sends turn
// 1 alone; the rollout keeps every turn and records the rewind, so the
// resumed session sends the rewound conversation too.
func TestRewindAndResume(t *testing.T) {
	patch, _ := json.Marshal(map[string]string{"input": "*** Begin Patch\n*** Add File: made.txt\n+by turn two\n*** End Patch\n"})
	srv := rt.NewServer(t, rt.Script{
		rt.Reply("r1", "m1", "answer one"),
		rt.Stream(rt.Created("r2"), rt.FunctionCallDone("f2", "call_2", "apply_patch", string(patch)), rt.Completed("r2")),
		rt.Reply("r2b", "m2b", "answer two"),
		rt.Reply("r3", "m3", "answer three"),
		rt.Reply("r4", "m4", "answer four"),
		rt.Reply("r5", "m5", "answer five"),
		rt.Reply("r6", "m6", "answer six"),
	})
	a, _ := testApp(t, fakeConfig(srv.URL, false), false)
	s, err := a.Open(t.Context(), Spec{Sandbox: "workspace-write", ApprovalPolicy: "never"})
	if err != nil {
		t.Fatal(err)
	}
	ws := s.Workspace().Cwd
	turn(t, s, "question one")
	turn(t, s, "question two")
	turn(t, s, "question three")
	if _, err := os.Stat(filepath.Join(ws, "made.txt")); err != nil {
		t.Fatalf("the patch did not run: %v", err)
	}
	var undone []session.FilesUndone
	if err := s.RewindTo(t.Context(), 2, true, true, func(ev session.Event) {
		if u, ok := ev.(session.FilesUndone); ok {
			undone = append(undone, u)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(ws, "made.txt")); !os.IsNotExist(err) || len(undone) != 1 {
		t.Errorf("made.txt after the rewind: %v (undone %v)", err, undone)
	}
	turn(t, s, "question four")
	in := inputOf(srv.Requests()[4])
	if !strings.Contains(in, "question one") || strings.Contains(in, "question two") || strings.Contains(in, "answer three") {
		t.Errorf("the request after the rewind sends:\n%s", in)
	}
	path := s.Path()
	s.Close()

	r, err := a.Open(t.Context(), Spec{From: path})
	if err != nil {
		t.Fatal(err)
	}
	turn(t, r, "question five")
	in = inputOf(srv.Requests()[5])
	if !strings.Contains(in, "question one") || !strings.Contains(in, "question four") || strings.Contains(in, "question two") || strings.Contains(in, "question three") {
		t.Errorf("the resumed session sends:\n%s", in)
	}
	turns := r.TurnList()
	if len(turns) != 5 || !turns[1].RolledBack || !turns[2].RolledBack || turns[3].RolledBack || !turns[1].Undone {
		t.Errorf("turns after resume: %+v", turns)
	}
	raw, _ := os.ReadFile(path)
	if !strings.Contains(string(raw), "question two") || !strings.Contains(string(raw), `"thread_rolled_back"`) {
		t.Error("the rollout lost the rewound turns or the rewind")
	}
	turns = r.TurnList()
	r.Close()

	// As agent exec resumes it: the events are not kept, the turns and
	// the conversation are the same.
	e, err := a.Open(t.Context(), Spec{From: path, NoTranscript: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.Recorded.Events != nil || !reflect.DeepEqual(e.TurnList(), turns) {
		t.Errorf("resumed without its transcript: %d events kept, turns %+v; want none, and %+v", len(e.Recorded.Events), e.TurnList(), turns)
	}
	turn(t, e, "question six")
	in = inputOf(srv.Requests()[6])
	if !strings.Contains(in, "question five") || !strings.Contains(in, "answer five") || strings.Contains(in, "question two") {
		t.Errorf("the session resumed without its transcript sends:\n%s", in)
	}
}

// TestUndoRightAfterCompaction: /undo right after /compact puts back the
// history from before it: the next request sends the answers the summary
// had replaced, and a resumed session does too.
func TestUndoRightAfterCompaction(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{
		rt.Reply("r1", "m1", "answer one"),
		rt.Reply("r2", "m2", "answer two"),
		rt.Reply("s", "ms", "the summary"),
		rt.Reply("r3", "m3", "answer three"),
		rt.Reply("r4", "m4", "answer four"),
	})
	a, _ := testApp(t, fakeConfig(srv.URL, false), false)
	s, err := a.Open(t.Context(), Spec{})
	if err != nil {
		t.Fatal(err)
	}
	turn(t, s, "question one")
	turn(t, s, "question two")
	if err := s.Compact(t.Context(), func(session.Event) {}); err != nil {
		t.Fatal(err)
	}
	var back session.CompactionUndone
	if err := s.Undo(t.Context(), 0, func(ev session.Event) {
		if u, ok := ev.(session.CompactionUndone); ok {
			back = u
		}
	}); err != nil {
		t.Fatal(err)
	}
	if back.After == 0 {
		t.Fatal("Undo did not undo the compaction")
	}
	turn(t, s, "question three")
	if in := inputOf(srv.Requests()[3]); !strings.Contains(in, "answer one") || strings.Contains(in, "the summary") {
		t.Errorf("the request after undoing the compaction sends:\n%s", in)
	}
	if err := s.Undo(t.Context(), 0, func(session.Event) {}); err == nil || !strings.Contains(err.Error(), "nothing to undo") {
		t.Errorf("a second undo: %v", err)
	}
	path := s.Path()
	s.Close()
	r, err := a.Open(t.Context(), Spec{From: path})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	turn(t, r, "question four")
	if in := inputOf(srv.Requests()[4]); !strings.Contains(in, "answer one") || !strings.Contains(in, "answer three") || strings.Contains(in, "the summary") {
		t.Errorf("the resumed session sends:\n%s", in)
	}
}

// TestCompactionListsShellWrites: the files a command wrote (seen by the
// turn's checkpoints) are in the compaction's list of files touched, as a
// patch's are.
func TestCompactionListsShellWrites(t *testing.T) {
	// The longest yield: on a loaded machine the command may take more
	// than the default 10 s to start, and a command still running when the
	// turn ends has written nothing the checkpoint could see.
	cmd, _ := json.Marshal(map[string]any{"cmd": "printf x > shell.txt", "yield_time_ms": 30000})
	srv := rt.NewServer(t, rt.Script{
		rt.Reply("r0", "m0", strings.Repeat("a long answer ", 400)),
		rt.Stream(rt.Created("r1"), rt.FunctionCallDone("f1", "call_1", "exec_command", string(cmd)), rt.Completed("r1")),
		rt.Reply("r1b", "m1b", "wrote it"),
		rt.Reply("s", "ms", "the summary"),
	})
	a, _ := testApp(t, fakeConfig(srv.URL, false), false)
	s, err := a.Open(t.Context(), Spec{Sandbox: "danger-full-access", ApprovalPolicy: "never"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	turn(t, s, "explain at length")
	turn(t, s, "write a file")
	if err := s.Compact(t.Context(), func(session.Event) {}); err != nil {
		t.Fatal(err)
	}
	h := s.History()
	var summary string
	for _, it := range h {
		if strings.Contains(it.Text(), session.FilesTouchedHeader) {
			summary = it.Text()
		}
	}
	if !strings.Contains(summary, session.FilesTouchedHeader+"\n- shell.txt") {
		t.Errorf("the compacted history does not list shell.txt:\n%s", summary)
	}
}
