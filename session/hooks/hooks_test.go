package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

// The hashes Codex CLI 0.171.0 accepted as trusted for
// testdata/codex-0.171-hooks.json: written to [hooks.state] of a Codex
// home, `codex exec` (without --dangerously-bypass-hook-trust) ran all six
// hooks. The file has HTML characters and U+2028 in a statusMessage, a
// matcher on UserPromptSubmit (dropped), an empty matcher, a timeout and a
// SessionEnd timeout beyond its 3 s cap.
var codexHashes = map[Event]string{
	PreToolUse:       "sha256:c1c30769797e6d46f33bc630f8e6140ceaf66ea7d742208eb4a64202ea5faa0d",
	PostToolUse:      "sha256:bab46a93ba8640006825b2505a8d2110026e405d3d5a74a893bb73bf36d9e9e3",
	SessionStart:     "sha256:accba7aaf075c5155263fa56dff6e80a104202ac535d55a0d30390fbd43d944c",
	SessionEnd:       "sha256:1dd7dad846b670d81e2358cfde2a2da21e463f1b5d88a93f42336edad83259cb",
	UserPromptSubmit: "sha256:575a433e93b7e8d0f2d8b6bbac28b35d5ec8e65f65e15bf8e4ac43c9f38b95cc",
	Stop:             "sha256:b9f3839ec342e9c54b1413ca75684d569c7a8b1a849918afee2883d4f517f196",
}

func TestHashMatchesCodex(t *testing.T) {
	home := t.TempDir()
	data, err := os.ReadFile("testdata/codex-0.171-hooks.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "hooks.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	s := Discover(Sources{Home: home})
	if len(s.Warnings) != 0 {
		t.Fatalf("warnings: %v", s.Warnings)
	}
	if len(s.All) != len(codexHashes) {
		t.Fatalf("got %d hooks, want %d", len(s.All), len(codexHashes))
	}
	for _, h := range s.All {
		if want := codexHashes[h.Event]; h.Hash != want {
			t.Errorf("%s: hash %s, Codex's %s", h.Event, h.Hash, want)
		}
		if !strings.HasPrefix(h.Key, filepath.Join(home, "hooks.json")+":") || !strings.HasSuffix(h.Key, ":0:0") {
			t.Errorf("%s: key %q", h.Event, h.Key)
		}
		if h.Trust != Untrusted {
			t.Errorf("%s: trust %s without [hooks.state]", h.Event, h.Trust)
		}
	}
}

// writeHooks writes a hooks.json of one hook per event in events.
func writeHooks(t *testing.T, dir string, groups map[Event][]map[string]any) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"hooks": groups})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "hooks.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func command(cmd string, extra ...any) map[string]any {
	h := map[string]any{"type": "command", "command": cmd}
	for i := 0; i+1 < len(extra); i += 2 {
		h[extra[i].(string)] = extra[i+1]
	}
	return h
}

func group(matcher string, hs ...map[string]any) map[string]any {
	g := map[string]any{"hooks": hs}
	if matcher != "" {
		g["matcher"] = matcher
	}
	return g
}

// trustAll is the [hooks.state] table trusting every hook of s.
func trustAll(s *Set) map[string]any {
	st := map[string]any{}
	for _, h := range s.All {
		st[h.Key] = map[string]any{"trusted_hash": h.Hash}
	}
	return map[string]any{"state": st}
}

func TestTrustByExactHash(t *testing.T) {
	home := t.TempDir()
	writeHooks(t, home, map[Event][]map[string]any{PreToolUse: {group("Bash", command("true"))}})
	first := Discover(Sources{Home: home})
	if first.Has(PreToolUse) || len(first.Untrusted()) != 1 {
		t.Fatalf("an untrusted hook runs: %+v", first.All)
	}
	cfg := []Layer{{Path: filepath.Join(home, "config.toml"), Source: SourceUser, Table: trustAll(first)}}
	if s := Discover(Sources{Home: home, Config: cfg}); !s.Has(PreToolUse) || s.All[0].Trust != Trusted {
		t.Fatalf("trusted hash not honoured: %+v", s.All)
	}
	// The hook changes: its trust no longer holds.
	writeHooks(t, home, map[Event][]map[string]any{PreToolUse: {group("Bash", command("true; rm -rf ~"))}})
	s := Discover(Sources{Home: home, Config: cfg})
	if s.Has(PreToolUse) || s.All[0].Trust != Modified {
		t.Fatalf("a modified hook runs: %+v", s.All)
	}
	if s := Discover(Sources{Home: home, Config: cfg, BypassTrust: true}); !s.Has(PreToolUse) {
		t.Fatal("--dangerously-bypass-hook-trust does not run it")
	}
	// enabled = false wins even over the bypass.
	cfg[0].Table = map[string]any{"state": map[string]any{s.All[0].Key: map[string]any{"enabled": false}}}
	if s := Discover(Sources{Home: home, Config: cfg, BypassTrust: true}); s.Has(PreToolUse) {
		t.Fatal("a disabled hook runs")
	}
}

func TestInlineTOMLHooks(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "config.toml")
	text := `
[[hooks.PreToolUse]]
matcher = "Edit|Write"
[[hooks.PreToolUse.hooks]]
type = "command"
command = "echo edit"
timeout = 5

[[hooks.Bogus]]
`
	var t0 map[string]any
	if _, err := toml.Decode(text, &t0); err != nil {
		t.Fatal(err)
	}
	s := Discover(Sources{Home: home, Config: []Layer{{Path: path, Source: SourceUser, Table: t0["hooks"].(map[string]any)}}})
	if len(s.All) != 1 || s.All[0].Timeout != 5*time.Second || s.All[0].Key != path+":pre_tool_use:0:0" {
		t.Fatalf("hooks %+v", s.All)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], `"Bogus"`) || !strings.Contains(s.Warnings[0], path) {
		t.Fatalf("warnings %q", s.Warnings)
	}
	if !s.All[0].match([]string{"apply_patch", "Write", "Edit"}) || s.All[0].match([]string{"Bash"}) {
		t.Fatal("Edit|Write matcher")
	}
}

func TestBadFilesNamed(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "hooks.json"), []byte("{\"hooks\": {\n  \"Stop\": [,]}}"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := Discover(Sources{Home: home})
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], filepath.Join(home, "hooks.json")) || !strings.Contains(s.Warnings[0], "line 2") {
		t.Fatalf("warnings %q", s.Warnings)
	}
	writeHooks(t, home, map[Event][]map[string]any{PreToolUse: {group("[", command("true")), group("", command(" "))}})
	s = Discover(Sources{Home: home})
	if len(s.All) != 0 || len(s.Warnings) != 2 {
		t.Fatalf("hooks %+v warnings %q", s.All, s.Warnings)
	}
}

func TestMatchers(t *testing.T) {
	cases := []struct {
		m    string
		in   string
		want bool
	}{
		{"", "Bash", true}, {"*", "Bash", true}, {"Bash", "Bash", true}, {"Bash", "BashOutput", false},
		{"^Bash", "BashOutput", true}, {"mcp__memory__.*", "mcp__memory__create", true},
		{"mcp__memory", "mcp__memory__create", false}, {"Edit|Write", "Write", true},
	}
	for _, c := range cases {
		home := t.TempDir()
		writeHooks(t, home, map[Event][]map[string]any{PreToolUse: {group(c.m, command("true"))}})
		s := Discover(Sources{Home: home})
		if len(s.All) != 1 {
			t.Fatalf("%q: %+v %v", c.m, s.All, s.Warnings)
		}
		if got := s.All[0].match([]string{c.in}); got != c.want {
			t.Errorf("matcher %q on %q: %v", c.m, c.in, got)
		}
	}
}

// run discovers hooks.json in a fresh home with every hook trusted and
// runs ev.
func run(t *testing.T, ev Event, match []string, in Input, hs ...map[string]any) Outcome {
	t.Helper()
	home := t.TempDir()
	writeHooks(t, home, map[Event][]map[string]any{ev: {group("", hs...)}})
	s := Discover(Sources{Home: home, BypassTrust: true})
	return s.Run(context.Background(), &Runner{Mask: func(s string) string { return strings.ReplaceAll(s, "sk-secret", "[redacted]") }}, ev, match, home, in)
}

func TestExitTwoBlocksWithStderr(t *testing.T) {
	o := run(t, PreToolUse, []string{"Bash"}, Input{"tool_name": "Bash"},
		command(`cat >/dev/null; echo "no rm, key sk-secret" >&2; exit 2`))
	if !o.Block || o.Reason != "no rm, key [redacted]" || o.Runs[0].Status != Blocked {
		t.Fatalf("%+v", o)
	}
}

func TestStdinIsTheEvent(t *testing.T) {
	out := filepath.Join(t.TempDir(), "in.json")
	run(t, UserPromptSubmit, nil, Input{"prompt": "hi", "session_id": "s1"}, command("cat > "+out))
	var got map[string]any
	data, _ := os.ReadFile(out)
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err, string(data))
	}
	if got["hook_event_name"] != "UserPromptSubmit" || got["prompt"] != "hi" || got["session_id"] != "s1" {
		t.Fatalf("stdin %v", got)
	}
}

func TestJSONAnswers(t *testing.T) {
	o := run(t, PreToolUse, []string{"Bash"}, Input{},
		command(`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not here"}}'`))
	if !o.Block || o.Reason != "not here" {
		t.Fatalf("deny: %+v", o)
	}
	o = run(t, PreToolUse, []string{"Bash"}, Input{},
		command(`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"echo safe"}}}'`))
	if o.Block || string(o.UpdatedInput) != `{"command":"echo safe"}` {
		t.Fatalf("updatedInput: %+v", o)
	}
	o = run(t, UserPromptSubmit, nil, Input{},
		command(`echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"CTX"}}'`),
		command(`echo plain context`))
	if len(o.Contexts) != 2 || o.Contexts[0] != "CTX" || o.Contexts[1] != "plain context" {
		t.Fatalf("contexts %q", o.Contexts)
	}
	o = run(t, Stop, nil, Input{}, command(`echo '{"decision":"block","reason":"tests fail"}'`))
	if !o.Block || o.Reason != "tests fail" {
		t.Fatalf("stop: %+v", o)
	}
	o = run(t, PermissionRequest, []string{"Bash"}, Input{},
		command(`echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}'`))
	if !o.Allow || o.Deny {
		t.Fatalf("permission: %+v", o)
	}
}

func TestFailuresAreNamed(t *testing.T) {
	cases := map[string]struct {
		cmd  string
		want string
	}{
		"exit 1":    {`echo oops >&2; exit 1`, "hook exited with code 1: oops"},
		"garbage":   {`echo '{not json'`, "invalid PreToolUse JSON output"},
		"no stderr": {`exit 2`, "did not write a blocking reason"},
		"bad allow": {`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'`, "unsupported permissionDecision:allow"},
	}
	for name, c := range cases {
		o := run(t, PreToolUse, []string{"Bash"}, Input{}, command(c.cmd))
		if o.Block || len(o.Runs) != 1 || o.Runs[0].Status != Failed || !strings.Contains(o.Runs[0].Message, c.want) {
			t.Errorf("%s: %+v", name, o)
		}
	}
}

func TestTimeoutKillsTheHook(t *testing.T) {
	start := time.Now()
	o := run(t, PreToolUse, []string{"Bash"}, Input{}, command(`sleep 30 & sleep 30`, "timeout", 1))
	if o.Runs[0].Status != Failed || !strings.Contains(o.Runs[0].Message, "timed out after 1s") {
		t.Fatalf("%+v", o)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("a hung hook held the session %s", d)
	}
}

func TestMatchingHooksRunConcurrently(t *testing.T) {
	dir := t.TempDir()
	// Each hook waits for the other's file: run one after the other, both
	// time out.
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	wait := func(mine, other string) map[string]any {
		return command("touch "+mine+"; for i in $(seq 50); do [ -e "+other+" ] && exit 0; sleep 0.1; done; exit 1", "timeout", 10)
	}
	o := run(t, PreToolUse, []string{"Bash"}, Input{}, wait(a, b), wait(b, a))
	for _, r := range o.Runs {
		if r.Status != Completed {
			t.Fatalf("%+v", o.Runs)
		}
	}
}

// TestSubagentAnswers: SubagentStart only adds context (JSON's or plain
// stdout; continue:false ignored), matched on the agent type;
// SubagentStop blocks like Stop (exit 2 with stderr, decision:block) and
// needs JSON, as Codex's session_start.rs and stop.rs read them.
func TestSubagentAnswers(t *testing.T) {
	o := run(t, SubagentStart, []string{"worker"}, Input{},
		command(`echo '{"continue":false,"stopReason":"no","hookSpecificOutput":{"hookEventName":"SubagentStart","additionalContext":"CTX"}}'`),
		command(`echo plain context`))
	if o.Stop || len(o.Contexts) != 2 || o.Contexts[0] != "CTX" || o.Contexts[1] != "plain context" || o.Runs[0].Status != Completed {
		t.Fatalf("SubagentStart: %+v", o)
	}
	home := t.TempDir()
	writeHooks(t, home, map[Event][]map[string]any{SubagentStart: {group("explorer", command("echo x"))}})
	s := Discover(Sources{Home: home, BypassTrust: true})
	if o := s.Run(context.Background(), nil, SubagentStart, []string{"worker"}, home, Input{}); len(o.Runs) != 0 {
		t.Fatalf("an explorer hook ran for a worker: %+v", o)
	}
	o = run(t, SubagentStop, []string{"worker"}, Input{}, command(`echo "run the tests" >&2; exit 2`))
	if !o.Block || o.Reason != "run the tests" || o.Runs[0].Status != Blocked {
		t.Fatalf("SubagentStop exit 2: %+v", o)
	}
	o = run(t, SubagentStop, []string{"worker"}, Input{}, command(`echo '{"decision":"block","reason":"again"}'`))
	if !o.Block || o.Reason != "again" {
		t.Fatalf("SubagentStop decision: %+v", o)
	}
	for ev, want := range map[Event]string{SubagentStop: "hook returned invalid subagent stop hook JSON output",
		Stop: "hook returned invalid stop hook JSON output"} {
		o = run(t, ev, []string{"worker"}, Input{}, command(`echo done`))
		if o.Block || o.Runs[0].Status != Failed || o.Runs[0].Message != want {
			t.Fatalf("%s plain text: %+v", ev, o)
		}
	}
	o = run(t, SubagentStop, []string{"worker"}, Input{}, command(`exit 2`))
	if o.Block || o.Runs[0].Message != "SubagentStop hook exited with code 2 but did not write a continuation prompt to stderr" {
		t.Fatalf("SubagentStop exit 2 without stderr: %+v", o)
	}
}
