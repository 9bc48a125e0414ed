package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/internal/agenttest"
	"github.com/agentcli/agent/internal/exitcode"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// keysProvider is the config of the fake server's provider, to which each
// case adds its keys (top-level keys go before it).
const keysProvider = "model = \"test-model\"\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nname = \"Fake\"\nbase_url = \"%URL%\"\nenv_key = \"FAKE_KEY\"\n"

// reasoningReply answers with a reasoning item, then a message.
func reasoningReply() *rt.Attempt {
	a := rt.Stream(rt.Created("r1"),
		rt.ReasoningSummaryDelta("rs1", "pondering the question"),
		rt.OutputItemDone(map[string]any{"type": "reasoning", "id": "rs1",
			"summary": []any{map[string]any{"type": "summary_text", "text": "pondering the question"}}}),
		rt.MessageDone("m1", "the answer"), rt.Completed("r1"))
	return &a
}

// TestConfigKeys is the table of the Codex keys agent implements: each
// case sets one key and checks what a user would notice (the request, the
// output, a file written).
func TestConfigKeys(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	instFile := filepath.Join(dir, "instructions.md")
	if err := os.WriteFile(instFile, []byte("instructions from the file"), 0o600); err != nil {
		t.Fatal(err)
	}
	project := t.TempDir()
	notifyOut := filepath.Join(dir, "notify.json")
	notifyScript := filepath.Join(dir, "notify.sh")
	if err := os.WriteFile(notifyScript, []byte("#!/bin/sh\nprintf '%s' \"$2\" > \""+notifyOut+"\"\n"), 0o700); err != nil {
		t.Fatal(err)
	}

	tests := slices.Concat(instructionKeyCases(instFile), requestKeyCases(t), projectKeyCases(project, notifyOut, notifyScript))

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reply := rt.Reply("r1", "m1", "the answer")
			if tt.reply != nil {
				reply = *tt.reply
			}
			srv := rt.NewServer(t, rt.Script{reply})
			cfg := tt.top + "\n" + keysProvider + "\n" + tt.after
			args := append(append([]string{"exec"}, tt.args...), "the prompt")
			r := runCLI(t, srv, runOpts{config: cfg}, args...)
			if r.code != 0 {
				t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			tt.check(t, r, reqs[0])
		})
	}
}

// configKeyCase sets one key and checks what a user would notice.
type configKeyCase struct {
	name  string
	top   string // keys before the provider table
	after string // tables after it
	args  []string
	reply *rt.Attempt
	check func(t *testing.T, r execRun, req rt.Request)
}

// instructionKeyCases are the keys of the instructions sent.
func instructionKeyCases(instFile string) []configKeyCase {
	return []configKeyCase{
		{name: "instructions", top: `instructions = "be terse"`,
			check: func(t *testing.T, r execRun, req rt.Request) {
				if got := req.JSON["instructions"]; got != "be terse" {
					t.Errorf("instructions = %q", got)
				}
			}},
		{name: "model_instructions_file", top: `instructions = "loses"` + "\nmodel_instructions_file = \"" + instFile + `"`,
			check: func(t *testing.T, r execRun, req rt.Request) {
				if got := req.JSON["instructions"]; got != "instructions from the file" {
					t.Errorf("instructions = %q", got)
				}
			}},
		{name: "experimental_instructions_file", top: `experimental_instructions_file = "` + instFile + `"`,
			check: func(t *testing.T, r execRun, req rt.Request) {
				if got := req.JSON["instructions"]; got != "instructions from the file" {
					t.Errorf("instructions = %q", got)
				}
			}},
		{name: "developer_instructions", top: `developer_instructions = "run the tests first"`,
			check: func(t *testing.T, r execRun, req rt.Request) {
				in := agenttest.InputTexts(t, req)
				if len(in) == 0 || in[0] != "developer: run the tests first" {
					t.Errorf("input = %q; want the developer message first", in)
				}
			}},
	}
}

// requestKeyCases are the keys of the request and the output.
func requestKeyCases(t *testing.T) []configKeyCase {
	return []configKeyCase{
		{name: "model_verbosity", top: `model_verbosity = "low"`,
			check: func(t *testing.T, r execRun, req rt.Request) {
				if diff := cmp.Diff(map[string]any{"verbosity": "low"}, req.JSON["text"]); diff != "" {
					t.Errorf("text (-want +got):\n%s", diff)
				}
			}},
		{name: "model_verbosity with output schema", top: `model_verbosity = "high"`,
			args: []string{"--output-schema", writeSchema(t)},
			check: func(t *testing.T, r execRun, req rt.Request) {
				text, _ := req.JSON["text"].(map[string]any)
				if text["verbosity"] != "high" || text["format"] == nil {
					t.Errorf("text = %v; want verbosity and format", text)
				}
			}},
		{name: "service_tier", top: `service_tier = "flex"`,
			check: func(t *testing.T, r execRun, req rt.Request) {
				if got := req.JSON["service_tier"]; got != "flex" {
					t.Errorf("service_tier = %v", got)
				}
			}},
		{name: "service_tier fast", top: `service_tier = "fast"`,
			check: func(t *testing.T, r execRun, req rt.Request) {
				if got := req.JSON["service_tier"]; got != "priority" {
					t.Errorf("service_tier = %v; want Codex's legacy fast sent as priority", got)
				}
			}},
		{name: "no service_tier", check: func(t *testing.T, r execRun, req rt.Request) {
			if _, ok := req.JSON["service_tier"]; ok {
				t.Error("service_tier sent though unset")
			}
			if _, ok := req.JSON["text"]; ok {
				t.Error("text sent though verbosity is unset")
			}
		}},
		{name: "hide_agent_reasoning json", top: "hide_agent_reasoning = true", args: []string{"--json"}, reply: reasoningReply(),
			check: func(t *testing.T, r execRun, req rt.Request) {
				if strings.Contains(r.stdout, `"type":"reasoning"`) || strings.Contains(r.stdout, "pondering") {
					t.Errorf("reasoning shown:\n%s", r.stdout)
				}
				if !strings.Contains(r.stdout, "the answer") {
					t.Errorf("answer missing:\n%s", r.stdout)
				}
			}},
		{name: "reasoning shown by default", args: []string{"--json"}, reply: reasoningReply(),
			check: func(t *testing.T, r execRun, req rt.Request) {
				if !strings.Contains(r.stdout, `"type":"reasoning"`) {
					t.Errorf("reasoning item missing:\n%s", r.stdout)
				}
			}},
	}
}

// projectKeyCases are the keys of the project (trust), the notify
// program and the Codex keys agent ignores.
func projectKeyCases(project, notifyOut, notifyScript string) []configKeyCase {
	return []configKeyCase{
		{name: "trust_level trusted", after: "[projects.\"" + project + "\"]\ntrust_level = \"trusted\"\n",
			args: []string{"-C", project},
			check: func(t *testing.T, r execRun, req rt.Request) {
				if env := strings.Join(agenttest.InputTexts(t, req), "\n"); !strings.Contains(env, "<sandbox_mode>workspace-write</sandbox_mode>") {
					t.Errorf("environment context: %s; want workspace-write", env)
				}
			}},
		{name: "trust_level untrusted", after: "[projects.\"" + project + "\"]\ntrust_level = \"untrusted\"\n",
			args: []string{"-C", project},
			check: func(t *testing.T, r execRun, req rt.Request) {
				if env := strings.Join(agenttest.InputTexts(t, req), "\n"); !strings.Contains(env, "<sandbox_mode>workspace-write</sandbox_mode>") {
					t.Errorf("environment context: %s; want workspace-write", env)
				}
			}},
		{name: "no trust decision", args: []string{"-C", project},
			check: func(t *testing.T, r execRun, req rt.Request) {
				if env := strings.Join(agenttest.InputTexts(t, req), "\n"); !strings.Contains(env, "<sandbox_mode>read-only</sandbox_mode>") {
					t.Errorf("environment context: %s; want read-only", env)
				}
			}},
		{name: "trust_level with sandbox_mode", top: `sandbox_mode = "read-only"`,
			after: "[projects.\"" + project + "\"]\ntrust_level = \"trusted\"\n", args: []string{"-C", project},
			check: func(t *testing.T, r execRun, req rt.Request) {
				if env := strings.Join(agenttest.InputTexts(t, req), "\n"); !strings.Contains(env, "<sandbox_mode>read-only</sandbox_mode>") {
					t.Errorf("environment context: %s; want sandbox_mode to win", env)
				}
			}},
		{name: "notify", top: `notify = ["` + notifyScript + `", "first-arg"]`, args: []string{"-C", project},
			check: func(t *testing.T, r execRun, req rt.Request) {
				b, err := os.ReadFile(notifyOut)
				if err != nil {
					t.Fatalf("notify program did not run: %v", err)
				}
				var p map[string]any
				if err := json.Unmarshal(b, &p); err != nil {
					t.Fatalf("payload %q: %v", b, err)
				}
				if p["type"] != "agent-turn-complete" || p["cwd"] != project || p["last-assistant-message"] != "the answer" ||
					p["thread-id"] == "" || p["turn-id"] == "" {
					t.Errorf("payload = %v", p)
				}
				if diff := cmp.Diff([]any{"the prompt"}, p["input-messages"]); diff != "" {
					t.Errorf("input-messages (-want +got):\n%s", diff)
				}
			}},
		{name: "codex keys warn once", top: "personality = \"pragmatic\"\nreview_model = \"x\"",
			check: func(t *testing.T, r execRun, req rt.Request) {
				var warns []string
				for _, ln := range strings.Split(r.stderr, "\n") {
					if strings.HasPrefix(ln, "agent: warning: ") {
						warns = append(warns, ln)
					}
				}
				if len(warns) != 2 || !strings.Contains(warns[0], "personality: Codex setting that agent ignores") ||
					!strings.Contains(warns[1], "review_model: Codex setting that agent ignores") {
					t.Errorf("warnings = %q", warns)
				}
			}},
	}
}

// TestConfigKeysBadInstructionsFile: an unreadable instructions file is a
// usage error naming the key, before any request.
func TestConfigKeysBadInstructionsFile(t *testing.T) {
	t.Parallel()
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "x")})
	r := runCLI(t, srv, runOpts{config: "model_instructions_file = \"/nonexistent/inst.md\"\n" + keysProvider}, "exec", "hi")
	if r.code != exitcode.Usage || !strings.Contains(r.stderr, "model_instructions_file") {
		t.Errorf("exit %d, stderr %q; want 2 naming model_instructions_file", r.code, r.stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests", n)
	}
}

func writeSchema(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "schema.json")
	if err := os.WriteFile(p, []byte(`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
