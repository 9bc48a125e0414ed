package session_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/transport"
)

// fakeRecorder keeps what a session records.
type fakeRecorder struct {
	items     []transport.Item
	compacted [][]transport.Item
	syncs     atomic.Int32 // Sync runs concurrently with the others
}

func (f *fakeRecorder) RecordItems(items ...transport.Item) error {
	f.items = append(f.items, items...)
	return nil
}
func (f *fakeRecorder) RecordEvent(session.Event) error { return nil }
func (f *fakeRecorder) Sync() error                     { f.syncs.Add(1); return nil }
func (f *fakeRecorder) RecordCompacted(_ string, repl []transport.Item) error {
	f.compacted = append(f.compacted, repl)
	return nil
}

func withRecorder(r *fakeRecorder) option {
	return func(_ *provider.Info, o *session.Options) {
		o.Recorder = r
		o.Context = []transport.Item{session.EnvironmentContext(session.Environment{Cwd: "/w"})}
	}
}

func texts(items []transport.Item) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Role+":"+it.Text())
	}
	return out
}

func TestLocalCompaction(t *testing.T) {
	rec := &fakeRecorder{}
	h := newHarness(t, rt.Script{
		rt.Reply("r1", "m1", "answer one"),
		rt.Reply("r1b", "m1b", "answer two"),
		rt.Reply("r2", "m2", "the summary"),
		rt.Reply("r3", "m3", "after compaction"),
	}, withRecorder(rec))
	for _, q := range []string{"first question", "second question"} {
		if err := h.turn(t, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.sess.Compact(t.Context(), func(session.Event) {}); err != nil {
		t.Fatal(err)
	}
	got := texts(h.sess.History())
	if len(got) != 4 || !strings.HasPrefix(got[0], "user:<environment_context>") || got[1] != "user:first question" ||
		got[2] != "user:second question" ||
		!strings.HasSuffix(got[3], "the summary") || !strings.HasPrefix(got[3], "user:"+session.SummaryPrefix) {
		t.Errorf("compacted history = %q", got)
	}
	// The summary request carried the prompt; the summary exchange itself
	// was not recorded as conversation.
	if !strings.Contains(string(h.srv.Requests()[2].Body), "CONTEXT CHECKPOINT COMPACTION") {
		t.Error("the summary request lacks the summary prompt")
	}
	for _, it := range rec.items {
		if strings.Contains(it.Text(), "CONTEXT CHECKPOINT") || it.Text() == "the summary" {
			t.Errorf("the summary exchange was recorded as conversation: %q", it.Text())
		}
	}
	// The pre-compaction history stays recorded; the replacement follows.
	if len(rec.compacted) != 1 || len(rec.items) != 5 {
		t.Errorf("recorded %d items and %d compactions", len(rec.items), len(rec.compacted))
	}
	if err := h.turn(t, "next"); err != nil {
		t.Fatal(err)
	}
	if n := len(h.srv.Requests()[3].JSON["input"].([]any)); n != 5 {
		t.Errorf("the request after compaction has %d items; want 5", n)
	}
}

func TestRemoteCompactionAndFallback(t *testing.T) {
	compacted := `{"output":[{"type":"compaction","encrypted_content":"opaque"}]}`
	tests := []struct {
		name    string
		script  rt.Script
		remote  bool
		warning bool
	}{
		{"remote", rt.Script{rt.Reply("r1", "m1", "a"), rt.Reply("r1b", "m1b", "b"), rt.StatusBody(200, compacted)}, true, false},
		{"remote fails, local summary", rt.Script{rt.Reply("r1", "m1", "a"), rt.Reply("r1b", "m1b", "b"), rt.Status(404), rt.Reply("r2", "m2", "local summary")}, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &fakeRecorder{}
			h := newHarness(t, tt.script, withRecorder(rec), func(p *provider.Info, _ *session.Options) { p.RemoteCompaction = true })
			for _, q := range []string{"q", "q2"} {
				if err := h.turn(t, q); err != nil {
					t.Fatal(err)
				}
			}
			var events []session.Event
			if err := h.sess.Compact(t.Context(), func(ev session.Event) { events = append(events, ev) }); err != nil {
				t.Fatal(err)
			}
			reqs := h.srv.Requests()
			if reqs[2].Path != "/v1/responses/compact" {
				t.Errorf("compaction went to %s", reqs[2].Path)
			}
			if _, ok := reqs[2].JSON["stream"]; ok {
				t.Error("the compaction request must not ask for a stream")
			}
			var c session.Compacted
			warned := false
			for _, ev := range events {
				switch e := ev.(type) {
				case session.Compacted:
					c = e
				case session.Warning:
					warned = true
				}
			}
			if c.Remote != tt.remote || warned != tt.warning {
				t.Errorf("compacted = %+v warned = %v", c, warned)
			}
			hist := h.sess.History()
			if tt.remote && hist[len(hist)-1].Type != "compaction" {
				t.Errorf("history after remote compaction = %q", texts(hist))
			}
			if len(rec.compacted) != 1 {
				t.Errorf("%d compactions recorded", len(rec.compacted))
			}
		})
	}
}

// TestContextOverflowCompactsAndRetries: the window fills mid-session;
// one compaction, then the same turn goes on.
func TestContextOverflowCompactsAndRetries(t *testing.T) {
	h := newHarness(t, rt.Script{
		rt.Reply("r1", "m1", "answer one"),
		rt.Stream(rt.Created("r2"), rt.Failed("r2", "context_length_exceeded", "too long")),
		rt.Reply("r3", "m3", "summary text"),
		rt.Reply("r4", "m4", "answer two"),
	}, withRecorder(&fakeRecorder{}))
	if err := h.turn(t, "one"); err != nil {
		t.Fatal(err)
	}
	if err := h.turn(t, "two"); err != nil {
		t.Fatalf("turn two: %v", err)
	}
	if diff := cmp.Diff([]string{"answer one", "answer two"}, h.messages()); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	last := texts(h.sess.History())
	if !strings.Contains(strings.Join(last, "|"), "summary text") {
		t.Errorf("history = %q", last)
	}
}

func TestAutoCompactThreshold(t *testing.T) {
	h := newHarness(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.MessageDone("m1", "big"), rt.CompletedUsage("r1", 900, 0, 100, 0)),
		rt.Reply("r2", "m2", "summary"),
		rt.Reply("r3", "m3", "small"),
	}, withRecorder(&fakeRecorder{}), func(_ *provider.Info, o *session.Options) { o.AutoCompactTokens = 800 })
	if err := h.turn(t, "one"); err != nil {
		t.Fatal(err)
	}
	if err := h.turn(t, "two"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(h.srv.Requests()[1].Body), "CONTEXT CHECKPOINT COMPACTION") {
		t.Error("the threshold did not trigger a compaction before turn two")
	}
}

// TestAutoCompactFollowsTheModel: the automatic compaction limit is the
// model in use's (its context window): a response of 1000 tokens is
// within the configured model's, and over the one of the model /model
// switches to, so the next turn compacts first.
func TestAutoCompactFollowsTheModel(t *testing.T) {
	h := newHarness(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.MessageDone("m1", "big"), rt.CompletedUsage("r1", 900, 0, 100, 0)),
		rt.Stream(rt.Created("r2"), rt.MessageDone("m2", "big"), rt.CompletedUsage("r2", 900, 0, 100, 0)),
		rt.Reply("r3", "m3", "summary"),
		rt.Reply("r4", "m4", "small"),
	}, withRecorder(&fakeRecorder{}), func(_ *provider.Info, o *session.Options) {
		o.AutoCompactTokens = 5000
		o.AutoCompactFor = func(model string) int64 { return map[string]int64{"test-model": 5000, "small-model": 800}[model] }
	})
	if err := h.turn(t, "one"); err != nil {
		t.Fatal(err)
	}
	if err := h.turn(t, "two"); err != nil {
		t.Fatal(err)
	}
	h.sess.Configure(func(st *session.Settings) { st.Sampling.Model = "small-model" })
	if err := h.turn(t, "three"); err != nil {
		t.Fatal(err)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 4 || strings.Contains(string(reqs[1].Body), "CONTEXT CHECKPOINT COMPACTION") ||
		!strings.Contains(string(reqs[2].Body), "CONTEXT CHECKPOINT COMPACTION") || reqs[2].JSON["model"] != "small-model" {
		t.Errorf("%d requests; want turn two uncompacted (test-model's limit 5000), then a compaction for small-model (800) before turn three", len(reqs))
	}
}

// TestRequestAfterCompactionKeepsItsBudget: a context overflow is not a
// retry: the request sent after the compaction still has its stream
// budget, and a cut is retried.
func TestRequestAfterCompactionKeepsItsBudget(t *testing.T) {
	h := newHarness(t, rt.Script{
		rt.Reply("r0", "m0", "answer one"),
		rt.Stream(rt.Created("r1"), rt.Failed("r1", "context_length_exceeded", "too long")),
		rt.Reply("r2", "m2", "summary text"),
		rt.Stream(rt.Created("r3"), rt.Drop()),
		rt.Reply("r4", "m4", "answer two"),
	}, withRecorder(&fakeRecorder{}))
	if err := h.turn(t, "one"); err != nil {
		t.Fatal(err)
	}
	if err := h.turn(t, "two"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"answer one", "answer two"}, h.messages()); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]time.Duration{200 * time.Millisecond}, h.sleeps); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
}

// TestLocalCompactionIsItsOwnRequest: the summary request offers no tools,
// so a call the model makes anyway never runs; the context is known by
// what it is (whatever its text), kept once, and the summary is marked.
func TestLocalCompactionIsItsOwnRequest(t *testing.T) {
	dir := t.TempDir()
	rec := &fakeRecorder{}
	h := newHarness(t, rt.Script{
		rt.Reply("r1", "m1", "answer one"),
		rt.Reply("r1b", "m1b", "answer two"),
		rt.Stream(rt.Created("r2"), execCall("fc", "c-compact", "touch ran"), rt.MessageDone("m2", "the summary"), rt.Completed("r2")),
		rt.Reply("r3", "m3", "after compaction"),
	}, withTools(t, dir, "never", nil), func(_ *provider.Info, o *session.Options) {
		o.Recorder = rec
		o.Context = []transport.Item{transport.UserMessage("Project rules: be careful.")} // no known prefix
	})
	for _, q := range []string{"first question", "second question"} {
		if err := h.turn(t, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.sess.Compact(t.Context(), func(session.Event) {}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); !os.IsNotExist(err) {
		t.Fatal("a tool call made while compacting ran")
	}
	req := h.srv.Requests()[2]
	if tl, ok := req.JSON["tools"].([]any); ok && len(tl) > 0 {
		t.Errorf("the summary request offered %d tools; want none", len(tl))
	}
	hist := h.sess.History()
	want := []string{"user:Project rules: be careful.", "user:first question", "user:second question", "user:" + session.SummaryPrefix + "the summary"}
	if diff := cmp.Diff(want, texts(hist)); diff != "" {
		t.Errorf("compacted history (-want +got):\n%s", diff)
	}
	if len(hist) == 4 && (hist[0].Origin != transport.OriginContext || hist[1].Origin != "" || hist[3].Origin != transport.OriginSummary) {
		t.Errorf("origins = %q, %q, %q", hist[0].Origin, hist[1].Origin, hist[3].Origin)
	}
	// A second compaction keeps the context once and drops the old summary
	// from the recent user messages.
	if err := h.turn(t, "next"); err != nil {
		t.Fatal(err)
	}
	h.srv.Append(rt.Reply("r4", "m4", "second summary"))
	if err := h.sess.Compact(t.Context(), func(session.Event) {}); err != nil {
		t.Fatal(err)
	}
	want = []string{"user:Project rules: be careful.", "user:first question", "user:second question", "user:next", "user:" + session.SummaryPrefix + "second summary"}
	if diff := cmp.Diff(want, texts(h.sess.History())); diff != "" {
		t.Errorf("history after the second compaction (-want +got):\n%s", diff)
	}
}

// TestLocalCompactionNamesWhatItCannotRead: a summary stream with an
// item agent cannot read warns, with the raw event, as a turn's does; the
// summary stands.
func TestLocalCompactionNamesWhatItCannotRead(t *testing.T) {
	h := newHarness(t, rt.Script{
		rt.Reply("r1", "m1", "answer one"),
		rt.Reply("r1b", "m1b", "answer two"),
		rt.Stream(rt.Created("r2"), rt.OutputItemDone(map[string]any{"type": "message", "id": "bad", "role": "assistant", "content": 7}),
			rt.MessageDone("m2", "the summary"), rt.Completed("r2")),
	})
	for _, q := range []string{"first question", "second question"} {
		if err := h.turn(t, q); err != nil {
			t.Fatal(err)
		}
	}
	var warnings []session.Warning
	if err := h.sess.Compact(t.Context(), func(ev session.Event) {
		if w, ok := ev.(session.Warning); ok {
			warnings = append(warnings, w)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0].Message, `"content" is a number, not an array of parts`) ||
		!strings.Contains(string(warnings[0].Raw), `"id":"bad"`) {
		t.Errorf("warnings = %+v; want the unreadable item named, with its event", warnings)
	}
	if got := texts(h.sess.History()); !strings.HasSuffix(got[len(got)-1], "the summary") {
		t.Errorf("history = %q; want the summary", got)
	}
}

// TestAutoCompactDebounced: while usage stays over the limit after an
// automatic compaction, the next turns do not compact again (each would
// be another summary request); once usage falls below the limit, crossing
// it compacts at once again.
func TestAutoCompactDebounced(t *testing.T) {
	big := func(id string) rt.Attempt {
		return rt.Stream(rt.Created(id), rt.MessageDone("m"+id, "big answer "+id), rt.CompletedUsage(id, 900, 0, 100, 0))
	}
	h := newHarness(t, rt.Script{
		big("r1"),                                       // turn 1: over the limit
		rt.Reply("s1", "ms1", "summary one"), big("r2"), // turn 2: compacts, still over
		big("r3"), // turn 3: held
		rt.Stream(rt.Created("r4"), rt.MessageDone("m4", "small"), rt.CompletedUsage("r4", 400, 0, 100, 0)), // turn 4: held, then under
		big("r5"),                                       // turn 5: under before it
		rt.Reply("s2", "ms2", "summary two"), big("r6"), // turn 6: compacts again
	}, withRecorder(&fakeRecorder{}), func(_ *provider.Info, o *session.Options) { o.AutoCompactTokens = 800 })
	var warnings []string
	for i := range 6 {
		if err := h.sess.Turn(t.Context(), fmt.Sprint("turn ", i+1), func(ev session.Event) {
			if w, ok := ev.(session.Warning); ok {
				warnings = append(warnings, w.Message)
			}
		}); err != nil {
			t.Fatal(err)
		}
	}
	reqs := h.srv.Requests()
	var summaries []int
	for i, r := range reqs {
		if strings.Contains(string(r.Body), "CONTEXT CHECKPOINT COMPACTION") {
			summaries = append(summaries, i)
		}
	}
	if len(reqs) != 8 || fmt.Sprint(summaries) != "[1 6]" {
		t.Errorf("%d requests, compactions at %v; want 8, at [1 6]", len(reqs), summaries)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "automatic compaction held") {
		t.Errorf("warnings %q, want one saying the compaction is held", warnings)
	}
}
