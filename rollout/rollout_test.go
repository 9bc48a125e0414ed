package rollout_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/rollout"
	"github.com/agentcli/agent/transport"
)

// t0 is a fixed session start; tests add minutes to order sessions.
var t0 = time.Date(2024, 3, 9, 14, 5, 6, 789_000_000, time.Local)

func meta(id, cwd string) rollout.SessionMeta {
	return rollout.SessionMeta{
		ID: id, Cwd: cwd, Originator: "agent_test", CLIVersion: "0.0.0-test",
		ModelProvider: "demo", Model: "demo-1", Instructions: "be brief",
	}
}

// items parses raw JSON items as the transport would.
func items(t testing.TB, raws ...string) []transport.Item {
	t.Helper()
	out := make([]transport.Item, len(raws))
	for i, raw := range raws {
		it, err := transport.ParseItem(json.RawMessage(raw))
		if err != nil {
			t.Fatalf("ParseItem(%s): %v", raw, err)
		}
		out[i] = it
	}
	return out
}

// raws returns the items' raw JSON as strings, for byte-exact comparison.
func raws(its []transport.Item) []string {
	out := make([]string, len(its))
	for i, it := range its {
		out[i] = string(it.Raw)
	}
	return out
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func create(t testing.TB, home string, m rollout.SessionMeta, now time.Time) *rollout.Recorder {
	t.Helper()
	r, err := rollout.Create(t.Context(), home, m, now)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	return r
}

func load(t testing.TB, path string) *rollout.Rollout {
	t.Helper()
	ro, err := rollout.Load(path)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return ro
}

// history is a turn's worth of items, with what a re-encoder would change:
// spacing, HTML characters, escapes, fields this client does not model.
var history = []string{
	`{"type":"message","role":"user","content":[{"type":"input_text","text":"fix <b>&</b> \u00e9 \"now\""}]}`,
	`{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAAB=="}`,
	`{"type": "function_call", "id":"fc_1","call_id":"call-1","name":"shell","arguments":"{\"cmd\":[\"ls\"]}"}`,
	`{"type":"function_call_output","call_id":"call-1","output":"a\nb"}`,
	`{"type":"message","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"done ✓"}]}`,
}

// appendLedger appends a ledger entry of the shell tool for each "CALL
// STATE" of states.
func appendLedger(r *rollout.Recorder, states ...string) error {
	for _, st := range states {
		call, state, _ := strings.Cut(st, " ")
		if err := r.AppendLedger(rollout.LedgerEntry{CallID: call, Name: "shell", State: state}); err != nil {
			return err
		}
	}
	return nil
}

func TestRoundTrip(t *testing.T) {
	home := t.TempDir()
	r := create(t, home, meta("0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", "/work/p"), t0)
	tc := rollout.TurnContext{Cwd: "/work/p", ApprovalPolicy: "on-request", SandboxMode: "workspace-write", Model: "demo-1", Effort: "high", Summary: "auto"}
	u1 := transport.Usage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15}
	u2 := transport.Usage{InputTokens: 30, CachedInputTokens: 8, OutputTokens: 7, TotalTokens: 37}
	total := u1
	total.Add(u2)
	its := items(t, history...)
	steps := []func() error{
		func() error { return r.AppendTurnContext(tc) },
		func() error { return r.AppendEvent(rollout.EventMsg{Type: rollout.EventTurnStarted}) },
		func() error {
			return r.AppendEvent(rollout.EventMsg{Type: rollout.EventUserMessage, Message: "fix  it\nplease"})
		},
		func() error { return r.AppendItems(its[:3]...) },
		func() error { return appendLedger(r, "call-1 requested", "call-2 requested", "call-1 started") },
		r.Sync,
		func() error { return appendLedger(r, "call-1 finished", "call-2 declined") },
		func() error { return r.AppendItems(its[3:]...) },
		func() error {
			return r.AppendEvent(rollout.EventMsg{Type: rollout.EventTokenCount, Total: &u1, Last: &u1})
		},
		func() error {
			return r.AppendEvent(rollout.EventMsg{Type: rollout.EventTokenCount, Total: &total, Last: &u2})
		},
		func() error { return r.AppendEvent(rollout.EventMsg{Type: rollout.EventTurnCompleted}) },
		r.Close,
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}

	dir := filepath.Join(home, "sessions", "2024", "03", "09")
	wantPath := filepath.Join(dir, "rollout-2024-03-09T14-05-06-0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl")
	if r.Path() != wantPath {
		t.Errorf("Path = %s, want %s", r.Path(), wantPath)
	}
	checkMode(t, wantPath, 0o600)
	checkMode(t, dir, 0o700)

	ro := load(t, r.Path())
	wantMeta := meta("0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", "/work/p")
	wantMeta.Timestamp = t0.UTC().Truncate(time.Millisecond)
	wantMeta.Source = "vscode" // Codex's source for a front end it has no other name for
	if diff := cmp.Diff(wantMeta, ro.Meta); diff != "" {
		t.Errorf("Meta (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(history, raws(ro.History)); diff != "" {
		t.Errorf("History raw bytes (-want +got):\n%s", diff)
	}
	wantLedger := []rollout.LedgerEntry{
		{CallID: "call-1", Name: "shell", State: "finished"},
		{CallID: "call-2", Name: "shell", State: "declined"},
	}
	if diff := cmp.Diff(wantLedger, ro.Ledger); diff != "" {
		t.Errorf("Ledger (-want +got):\n%s", diff)
	}
	if ro.Total != total || ro.Last != u2 {
		t.Errorf("usage = %+v / %+v, want %+v / %+v", ro.Total, ro.Last, total, u2)
	}
	if ro.TurnContext == nil || *ro.TurnContext != tc {
		t.Errorf("TurnContext = %+v, want %+v", ro.TurnContext, tc)
	}
	if ro.LastTurn != rollout.TurnCompleted || ro.Interrupted {
		t.Errorf("LastTurn = %q, Interrupted = %v; want completed, false", ro.LastTurn, ro.Interrupted)
	}
	if ro.Title != "fix it please" {
		t.Errorf("Title = %q", ro.Title)
	}
	if len(ro.Warnings) != 0 {
		t.Errorf("Warnings = %v", ro.Warnings)
	}
	if len(ro.Events) != 5 {
		t.Errorf("len(Events) = %d, want 5", len(ro.Events))
	}
	checkLines(t, r.Path())
}

// checkLines checks every line's envelope: timestamp layout, type, payload.
func checkLines(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	must(t, err)
	stamp := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var l struct {
			Timestamp string          `json:"timestamp"`
			Type      string          `json:"type"`
			Payload   json.RawMessage `json:"payload"`
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if !stamp.MatchString(l.Timestamp) || l.Type == "" || len(l.Payload) == 0 {
			t.Errorf("line %d: bad envelope %s", i+1, line)
		}
		if i == 0 && l.Type != "session_meta" {
			t.Errorf("line 1 type = %s", l.Type)
		}
	}
}

func checkMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	must(t, err)
	if got := fi.Mode().Perm(); got != want {
		t.Errorf("%s mode = %o, want %o", path, got, want)
	}
}

func TestAppendItemsRaw(t *testing.T) {
	r := create(t, t.TempDir(), meta("s1", "/p"), t0)
	defer r.Close()
	if err := r.AppendItems(transport.Item{Type: "message"}); err == nil {
		t.Error("AppendItems(item without Raw) = nil, want an error")
	}
	if err := r.AppendItems(transport.Item{Raw: json.RawMessage(`[1]`)}); err == nil {
		t.Error("AppendItems(non-object) = nil, want an error")
	}
	multi := transport.Item{Raw: json.RawMessage("{\n  \"type\": \"message\",\n  \"role\": \"user\"\n}")}
	must(t, r.AppendItems(multi))
	must(t, r.Sync())
	ro := load(t, r.Path())
	if diff := cmp.Diff([]string{`{"type":"message","role":"user"}`}, raws(ro.History)); diff != "" {
		t.Errorf("multi-line raw (-want +got):\n%s", diff)
	}
}

func TestCompacted(t *testing.T) {
	home := t.TempDir()
	r := create(t, home, meta("s1", "/p"), t0)
	its := items(t, history...)
	summary := items(t, `{"type":"message","role":"user","content":[{"type":"input_text","text":"SUMMARY <x>"}]}`)
	must(t, r.AppendItems(its[:3]...))
	must(t, r.AppendCompacted(rollout.Compacted{Message: "SUMMARY", ReplacementHistory: append(its[:1:1], summary...)}))
	must(t, r.AppendItems(its[3:]...))
	must(t, r.Close())

	ro := load(t, r.Path())
	want := append([]string{history[0], string(summary[0].Raw)}, history[3:]...)
	if diff := cmp.Diff(want, raws(ro.History)); diff != "" {
		t.Errorf("History (-want +got):\n%s", diff)
	}
	if len(ro.Warnings) != 0 {
		t.Errorf("Warnings = %v", ro.Warnings)
	}
}

func TestCompactedWithoutReplacement(t *testing.T) {
	path := writeRollout(t, lineOf("response_item", history[0]), lineOf("compacted", `{"message":"the summary"}`), lineOf("response_item", history[4]))
	ro := load(t, path)
	if len(ro.History) != 2 || ro.History[0].Text() != "the summary" || string(ro.History[1].Raw) != history[4] {
		t.Errorf("History = %v", raws(ro.History))
	}
	if len(ro.Warnings) != 1 || ro.Warnings[0].Line != 3 {
		t.Errorf("Warnings = %v, want one on line 3", ro.Warnings)
	}
}

func TestLastTurn(t *testing.T) {
	ev := func(typ rollout.EventType) string { return lineOf("event_msg", fmt.Sprintf(`{"type":%q}`, typ)) }
	tests := []struct {
		name        string
		lines       []string
		want        rollout.TurnState
		interrupted bool
	}{
		{"none", nil, rollout.TurnNone, false},
		{"completed", []string{ev("turn_started"), ev("turn_completed")}, rollout.TurnCompleted, false},
		{"failed", []string{ev("turn_started"), ev("turn_failed")}, rollout.TurnFailed, false},
		{"died mid-turn", []string{ev("turn_started"), ev("turn_completed"), ev("turn_started"), lineOf("response_item", history[0])}, rollout.TurnOpen, true},
		{"user interrupt", []string{ev("turn_started"), ev("turn_interrupted")}, rollout.TurnInterrupted, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ro := load(t, writeRollout(t, tt.lines...))
			if ro.LastTurn != tt.want || ro.Interrupted != tt.interrupted {
				t.Errorf("LastTurn, Interrupted = %q, %v; want %q, %v", ro.LastTurn, ro.Interrupted, tt.want, tt.interrupted)
			}
		})
	}
}

func TestLoadDamaged(t *testing.T) {
	item := lineOf("response_item", history[0])
	tests := []struct {
		name      string
		body      string // after the session_meta line
		wantItems int
		wantWarn  []int    // line numbers
		wantText  []string // substrings, one per warning
	}{
		{"torn last line", item + "\n" + item[:40], 1, []int{3}, []string{"torn"}},
		{"unterminated but whole last line", item + "\n" + item, 2, nil, nil},
		{"corrupt middle line", item + "\n{garbage\n" + item + "\n", 2, []int{3}, []string{"corrupt"}},
		{"blank lines", "\n" + item + "\n\n", 1, nil, nil},
		{"bad payloads", lineOf("response_item", `"str"`) + "\n" + lineOf("ledger", `{"name":"x"}`) + "\n" +
			lineOf("event_msg", `[]`) + "\n" + lineOf("future_type", `{}`) + "\n", 0, []int{2, 3, 4}, []string{"response_item", "ledger", "event_msg"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, metaLine()+"\n"+tt.body)
			ro := load(t, path)
			if len(ro.History) != tt.wantItems {
				t.Errorf("len(History) = %d, want %d", len(ro.History), tt.wantItems)
			}
			var lines []int
			for i, w := range ro.Warnings {
				lines = append(lines, w.Line)
				if i < len(tt.wantText) && !strings.Contains(w.String(), tt.wantText[i]) {
					t.Errorf("warning %q does not mention %q", w, tt.wantText[i])
				}
			}
			if diff := cmp.Diff(tt.wantWarn, lines); diff != "" {
				t.Errorf("warning lines (-want +got):\n%s (%v)", diff, ro.Warnings)
			}
		})
	}
}

func TestLoadNotARollout(t *testing.T) {
	for name, body := range map[string]string{
		"empty":          "",
		"no meta":        lineOf("response_item", history[0]) + "\n",
		"garbage":        "\x00\x01not json\n",
		"torn meta":      metaLine()[:30],
		"meta not first": "\n" + metaLine() + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			path := writeFile(t, body)
			_, err := rollout.Load(path)
			if !errors.Is(err, rollout.ErrNoMeta) || !strings.Contains(err.Error(), path) {
				t.Errorf("Load = %v, want ErrNoMeta naming %s", err, path)
			}
			if _, err := rollout.Open(t.Context(), path); !errors.Is(err, rollout.ErrNoMeta) {
				t.Errorf("Open = %v, want ErrNoMeta", err)
			}
		})
	}
}

func TestOpenAfterTornLine(t *testing.T) {
	home := t.TempDir()
	r := create(t, home, meta("s1", "/p"), t0)
	its := items(t, history...)
	must(t, r.AppendItems(its[0]))
	must(t, r.Close())
	appendRaw(t, r.Path(), lineOf("response_item", history[1])[:25]) // a crash mid-write

	r2, err := rollout.Open(t.Context(), r.Path())
	must(t, err)
	if r2.ID() != "s1" || r2.Path() != r.Path() {
		t.Errorf("Open: ID %s, Path %s", r2.ID(), r2.Path())
	}
	must(t, r2.AppendItems(its[2]))
	must(t, r2.Close())
	ro := load(t, r.Path())
	if diff := cmp.Diff([]string{history[0], history[2]}, raws(ro.History)); diff != "" {
		t.Errorf("History (-want +got):\n%s", diff)
	}
	if len(ro.Warnings) != 1 || ro.Warnings[0].Line != 3 || !strings.Contains(ro.Warnings[0].Message, "corrupt") {
		t.Errorf("Warnings = %v, want a corrupt line 3", ro.Warnings)
	}
}

func TestSyncWithNothingPendingIsFree(t *testing.T) {
	r := create(t, t.TempDir(), meta("s1", "/p"), t0)
	defer r.Close()
	must(t, r.AppendItems(items(t, history[0])...))
	must(t, r.Sync())
	allocs := testing.AllocsPerRun(100, func() {
		if err := r.Sync(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Sync with nothing pending allocated %v times", allocs)
	}
}

func TestConcurrentAppends(t *testing.T) {
	r := create(t, t.TempDir(), meta("s1", "/p"), t0)
	const writers, each = 8, 50
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				raw := fmt.Sprintf(`{"type":"message","id":"w%d-%03d"}`, w, i)
				if err := r.AppendItems(transport.Item{Raw: json.RawMessage(raw)}); err != nil {
					t.Error(err)
				}
				if i%10 == 0 {
					if err := r.Flush(i%20 == 0); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	wg.Wait()
	must(t, r.Close())
	ro := load(t, r.Path())
	if len(ro.History) != writers*each {
		t.Fatalf("len(History) = %d, want %d", len(ro.History), writers*each)
	}
	last := map[string]string{}
	for _, it := range ro.History {
		w := it.ID[:strings.Index(it.ID, "-")]
		if it.ID <= last[w] {
			t.Errorf("%s recorded after %s", it.ID, last[w])
		}
		last[w] = it.ID
	}
}

func TestClosed(t *testing.T) {
	r := create(t, t.TempDir(), meta("s1", "/p"), t0)
	must(t, r.Close())
	if err := r.AppendEvent(rollout.EventMsg{Type: rollout.EventTurnStarted}); !errors.Is(err, rollout.ErrClosed) {
		t.Errorf("AppendEvent after Close = %v, want ErrClosed", err)
	}
	if err := r.Sync(); !errors.Is(err, rollout.ErrClosed) {
		t.Errorf("Sync after Close = %v, want ErrClosed", err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

func TestCreateRejects(t *testing.T) {
	home := t.TempDir()
	for _, id := range []string{"", "../x", "a/b", "a b"} {
		if _, err := rollout.Create(t.Context(), home, meta(id, "/p"), t0); err == nil {
			t.Errorf("Create(id %q) = nil error", id)
		}
	}
	if _, err := rollout.Create(t.Context(), "", meta("s1", "/p"), t0); err == nil {
		t.Error("Create without home = nil error")
	}
	r := create(t, home, meta("s1", "/p"), t0)
	must(t, r.Close())
	if _, err := rollout.Create(t.Context(), home, meta("s1", "/p"), t0); err == nil {
		t.Error("Create over an existing rollout = nil error")
	}
}

// lineOf encodes one rollout line.
func lineOf(typ, payload string) string {
	return fmt.Sprintf(`{"timestamp":"2024-03-09T13:05:06.789Z","type":%q,"payload":%s}`, typ, payload)
}

func metaLine() string {
	b, _ := json.Marshal(meta("s1", "/p"))
	return lineOf("session_meta", string(b))
}

// writeRollout writes a session_meta line and lines to a new file.
func writeRollout(t *testing.T, lines ...string) string {
	t.Helper()
	var b bytes.Buffer
	for _, l := range append([]string{metaLine()}, lines...) {
		b.WriteString(l + "\n")
	}
	return writeFile(t, b.String())
}

func writeFile(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rollout.jsonl")
	must(t, os.WriteFile(path, []byte(body), 0o600))
	return path
}

func appendRaw(t testing.TB, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	must(t, err)
	_, err = f.WriteString(s)
	must(t, errors.Join(err, f.Close()))
}
