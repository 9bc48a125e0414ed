package rollout_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/rollout"
)

// codexRollouts are sessions the real Codex CLI recorded (codex exec
// against the fake Responses server): 0.169 and 0.171 keep the user's
// prompt and the answer only as item_completed events, with no
// user_message or agent_message.
var codexRollouts = []struct {
	file, id, prompt string
}{
	{"rollout-0.169.jsonl", "01a23d63-acb4-79d1-bbfe-5318a8ffd435", "codex169 prompt"},
	{"rollout-0.171.jsonl", "01a23d5f-8b61-7090-8ff8-b625388897fa", "codex first prompt"},
}

// copyCodexRollout puts a Codex rollout where Codex writes it in home.
func copyCodexRollout(t *testing.T, home, file, id string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "codex", file))
	must(t, err)
	dir := filepath.Join(home, "sessions", "2026", "12", "03")
	must(t, os.MkdirAll(dir, 0o755))
	path := filepath.Join(dir, "rollout-2026-12-03T19-26-41-"+id+".jsonl")
	must(t, os.WriteFile(path, data, 0o600))
	return path
}

// TestCodexSessionsListed: in a home shared with Codex, the sessions Codex
// records after agent built its index are listed too (the index yields
// agent's own, which used to hide them), titled with their first prompt.
func TestCodexSessionsListed(t *testing.T) {
	home := fixture(t) // agent's sessions, and an index
	for _, c := range codexRollouts {
		copyCodexRollout(t, home, c.file, c.id)
	}
	es, err := rollout.List(t.Context(), home, "", true, 0)
	must(t, err)
	titles := map[string]string{}
	for _, e := range es {
		titles[e.ID] = e.Title
	}
	for _, c := range codexRollouts {
		if got, ok := titles[c.id]; !ok || got != c.prompt {
			t.Errorf("Codex session %s: listed %v, title %q; want listed with %q\nall: %v", c.file, ok, got, c.prompt, titles)
		}
	}
	if len(es) != 5 {
		t.Errorf("%d sessions listed; want agent's 3 and Codex's 2", len(es))
	}
	// The index keeps them: a second look reads no day again.
	if es2, _ := rollout.List(t.Context(), home, "/tmp/h43x/work", false, 0); len(es2) != 2 {
		t.Errorf("List(cwd of Codex's sessions) = %v; want both", ids(es2))
	}
	e, err := rollout.Find(t.Context(), home, codexRollouts[1].id[:13])
	must(t, err)
	if e.Title != codexRollouts[1].prompt {
		t.Errorf("Find(prefix).Title = %q", e.Title)
	}
}

// TestLoadCodexRollout: a Codex session loads with its transcript (the
// user's prompt and the answer) and its history, for agent resume.
func TestLoadCodexRollout(t *testing.T) {
	for _, c := range codexRollouts {
		t.Run(c.file, func(t *testing.T) {
			ro, err := rollout.Load(filepath.Join("testdata", "codex", c.file))
			must(t, err)
			var got []rollout.EventMsg
			for _, ev := range ro.Events {
				if ev.Type == rollout.EventUserMessage || ev.Type == rollout.EventAgentMessage {
					got = append(got, ev)
				}
			}
			want := []rollout.EventMsg{
				{Type: rollout.EventUserMessage, Message: c.prompt},
				{Type: rollout.EventAgentMessage, Message: "hello from the fake server"},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("transcript events (-want +got):\n%s", diff)
			}
			if ro.Title != c.prompt || ro.Meta.ID != c.id {
				t.Errorf("Title %q, id %q", ro.Title, ro.Meta.ID)
			}
			if len(ro.History) < 3 {
				t.Errorf("%d history items; want the context, the prompt and the answer", len(ro.History))
			}
			if len(ro.Warnings) != 0 {
				t.Errorf("warnings: %v", ro.Warnings)
			}
		})
	}
}

// codexStateDB makes home's Codex state database with the threads table
// of schema (a file of SQL), as Codex 0.171 does.
func codexStateDB(t *testing.T, home, schema string) *sql.DB {
	t.Helper()
	ddl, err := os.ReadFile(filepath.Join("testdata", "codex", schema))
	must(t, err)
	db, err := sql.Open("sqlite", filepath.Join(home, "state_5.sqlite"))
	must(t, err)
	t.Cleanup(func() { db.Close() })
	_, err = db.Exec(string(ddl))
	must(t, err)
	return db
}

// TestCodexStateRow: in a home where Codex made its state database, a
// session agent records gets a row in Codex's threads table once it has a
// first prompt (Codex lists no session without one), with Codex's source
// for agent's front end; a later turn moves its update time; the rollout
// stays the same either way.
func TestCodexStateRow(t *testing.T) {
	home := t.TempDir()
	db := codexStateDB(t, home, "threads-0.171.sql")
	m := meta("01a23d5f-b13f-75cc-a7f9-05d88a98ee56", "/work")
	m.Originator = "agent_cli"
	r := create(t, home, m, t0)
	must(t, r.Sync())
	var n int
	must(t, db.QueryRow("SELECT COUNT(*) FROM threads").Scan(&n))
	if n != 0 {
		t.Errorf("%d rows before the first prompt; want none", n)
	}
	must(t, r.AppendEvent(rollout.EventMsg{Type: rollout.EventUserMessage, Message: "fix the build"}))
	must(t, r.AppendEvent(rollout.EventMsg{Type: rollout.EventTurnCompleted}))
	must(t, r.Sync())
	var id, path, source, provider, cwd, title, preview string
	var updated int64
	row := db.QueryRow("SELECT id, rollout_path, source, model_provider, cwd, title, preview, updated_at_ms FROM threads")
	must(t, row.Scan(&id, &path, &source, &provider, &cwd, &title, &preview, &updated))
	if id != m.ID || path != r.Path() || source != "cli" || provider != "demo" || cwd != "/work" || title != "fix the build" || preview != title {
		t.Errorf("row: id %s path %s source %s provider %s cwd %s title %q preview %q", id, path, source, provider, cwd, title, preview)
	}
	must(t, r.Close())
	// Resumed (on today's clock, after t0): the row is updated, not added.
	r, err := rollout.Open(t.Context(), r.Path())
	must(t, err)
	must(t, r.AppendEvent(rollout.EventMsg{Type: rollout.EventUserMessage, Message: "and the tests"}))
	must(t, r.AppendEvent(rollout.EventMsg{Type: rollout.EventTurnCompleted}))
	must(t, r.Close())
	must(t, db.QueryRow("SELECT COUNT(*), MAX(title) FROM threads").Scan(&n, &title))
	if n != 1 || title != "fix the build" {
		t.Errorf("after a resume: %d rows, title %q; want one, still titled with the first prompt", n, title)
	}
	var later int64
	must(t, db.QueryRow("SELECT updated_at_ms FROM threads").Scan(&later))
	if later <= updated {
		t.Errorf("updated_at_ms %d after another turn; want later than %d", later, updated)
	}
	must(t, r.CodexStateError())
	if ro := load(t, r.Path()); ro.Meta.Source != "cli" || len(ro.Warnings) != 0 {
		t.Errorf("session_meta source %q; warnings %v", ro.Meta.Source, ro.Warnings)
	}
}

// TestCodexStateUnknownSchema: a threads table agent does not know (a
// later Codex) is left alone; the failure is said, the session recorded.
func TestCodexStateUnknownSchema(t *testing.T) {
	home := t.TempDir()
	db, err := sql.Open("sqlite", filepath.Join(home, "state_5.sqlite"))
	must(t, err)
	defer db.Close()
	_, err = db.Exec("CREATE TABLE threads (id TEXT PRIMARY KEY, path TEXT NOT NULL)")
	must(t, err)
	r := create(t, home, meta("s-1", "/work"), t0)
	must(t, r.AppendEvent(rollout.EventMsg{Type: rollout.EventUserMessage, Message: "hi"}))
	must(t, r.Close())
	if err := r.CodexStateError(); err == nil || !strings.Contains(err.Error(), "no column rollout_path") {
		t.Errorf("CodexStateError() = %v; want the missing column named", err)
	}
	if _, err := rollout.Find(t.Context(), home, "s-1"); err != nil {
		t.Errorf("the session is not recorded: %v", err)
	}
}
