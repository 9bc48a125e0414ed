package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentcli/agent/internal/agenttest"
	"github.com/agentcli/agent/internal/exitcode"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// The parity tests run agent on the scenarios of testdata/codexparity,
// whose scripts were also run by the real Codex CLI 0.169.0 against the
// same fake server (record.sh says how); they compare what agent prints
// with what Codex printed. Deliberate differences are listed in
// docs/exec-json.md and allowed here by name.

const parityDir = "testdata/codexparity"

type parityScenario struct {
	name  string
	flags []string
}

func parityScenarios(t *testing.T) []parityScenario {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(parityDir, "scenarios.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var out []parityScenario
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		out = append(out, parityScenario{name: f[0], flags: f[1:]})
	}
	return out
}

var (
	uuidRE     = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	wallNormRE = regexp.MustCompile(`Wall time: [0-9.]+ seconds`)
)

// parityRun runs agent exec on a scenario as record.sh ran codex, and
// returns the result with the working directory and session id replaced
// as record.sh replaces them.
func parityRun(t *testing.T, sc parityScenario, jsonMode bool) (execRun, *rt.Server) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(parityDir, sc.name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	script, err := rt.ParseScript(b)
	if err != nil {
		t.Fatal(err)
	}
	work, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if seed := filepath.Join(parityDir, "seed", sc.name); dirExists(seed) {
		if err := os.CopyFS(work, os.DirFS(seed)); err != nil {
			t.Fatal(err)
		}
	}
	cfg := "model = \"gpt-5.5\"\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nname = \"fake\"\nbase_url = \"%URL%\"\nenv_key = \"FAKE_KEY\"\n"
	if sc.name == "mcp" {
		bin := agenttest.StdioMCPServer(t)
		cfg += "\n[mcp_servers.test]\ncommand = " + agenttest.QuoteTOML(bin) + "\nargs = [\"-image\"]\n"
	}
	srv := rt.NewServer(t, script)
	args := []string{"exec"}
	if jsonMode {
		args = append(args, "--json")
	}
	args = append(args, "--skip-git-repo-check", "-C", work)
	args = append(append(args, sc.flags...), "do it")
	r := runCLI(t, srv, runOpts{config: cfg}, args...)
	norm := func(s string) string {
		s = strings.ReplaceAll(s, work, "{{WORK}}")
		s = wallNormRE.ReplaceAllString(s, "Wall time: {{WALL}} seconds")
		return uuidRE.ReplaceAllString(s, "{{THREAD_ID}}")
	}
	r.stdout, r.stderr = norm(r.stdout), norm(r.stderr)
	return r, srv
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func jsonLines(t *testing.T, s string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		out = append(out, m)
	}
	return out
}

// TestExecJSONParity compares `agent exec --json` with `codex exec --json`
// on each scenario, field by field, and keeps agent's output as a golden
// (NAME.agent.jsonl, rewritten with -update) beside Codex's recording.
func TestExecJSONParity(t *testing.T) {
	t.Parallel()
	schema := execSchema(t)
	for _, sc := range parityScenarios(t) {
		t.Run(sc.name, func(t *testing.T) {
			r, srv := parityRun(t, sc, true)
			codexOut, err := os.ReadFile(filepath.Join(parityDir, sc.name+".codex.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			wantCode := 0
			if sc.name == "failed" {
				wantCode = exitcode.Failed // codex exits 1 too
			}
			if r.code != wantCode {
				t.Fatalf("exit %d; want %d\nstderr:\n%s", r.code, wantCode, r.stderr)
			}
			golden := filepath.Join(parityDir, sc.name+".agent.jsonl")
			if *update {
				if err := os.WriteFile(golden, []byte(r.stdout), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if want, err := os.ReadFile(golden); err != nil || string(want) != r.stdout {
				t.Errorf("output differs from %s (%v):\ngot:\n%s\nwant:\n%s", golden, err, r.stdout, want)
			}
			for _, line := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
				v, err := jsonschema.UnmarshalJSON(strings.NewReader(line))
				if err != nil {
					t.Fatalf("not JSON: %q", line)
				}
				if err := schema.Validate(v); err != nil {
					t.Errorf("line %q does not match the schema: %v", line, err)
				}
			}
			got, want := jsonLines(t, r.stdout), jsonLines(t, string(codexOut))
			// agent's own retry events (the reference client retries
			// without an event); the schema check above covered them.
			retries := 0
			got = slices.DeleteFunc(got, func(ev map[string]any) bool {
				if ev["type"] == "retry" {
					retries++
					return true
				}
				return false
			})
			if sc.name == "retry" && retries != 1 {
				t.Errorf("%d retry events; want 1 for the 500", retries)
			}
			if len(got) != len(want) {
				t.Fatalf("%d events; codex printed %d\nagent:\n%s\ncodex:\n%s", len(got), len(want), r.stdout, codexOut)
			}
			for i := range got {
				g, w := got[i], want[i]
				if g["type"] == "turn.completed" || g["type"] == "turn.failed" {
					// agent's own addition: how many model requests the turn made.
					if _, ok := g["requests"].(float64); !ok {
						t.Errorf("event %d: %s without requests", i+1, g["type"])
					}
					delete(g, "requests")
				}
				if msg, ok := deliberateDifference(g, w); ok {
					if msg != "" {
						t.Errorf("event %d: %s", i+1, msg)
					}
					continue
				}
				if !reflect.DeepEqual(g, w) {
					gb, _ := json.Marshal(g)
					wb, _ := json.Marshal(w)
					t.Errorf("event %d differs from codex's:\nagent: %s\ncodex: %s", i+1, gb, wb)
				}
			}
			if sc.name == "mcp" {
				checkMCPOutputsParity(t, srv)
			}
		})
	}
}

// deliberateDifference reports whether the events g (agent) and w (codex)
// differ only where docs/exec-json.md says agent differs on purpose; msg
// says what is wrong when they do not even agree on that.
//
// Besides the requests field of turn.completed and turn.failed (checked
// and dropped by the caller), the only one here: the message of a fatal
// error. Codex prints the
// server's raw response body; agent says what failed in one sentence
// that includes the server's message.
func deliberateDifference(g, w map[string]any) (msg string, ok bool) {
	switch w["type"] {
	case "error":
		if g["type"] != "error" {
			return "want an error event", true
		}
		return messageCarries(g["message"], w["message"]), true
	case "turn.failed":
		ge, _ := g["error"].(map[string]any)
		we, _ := w["error"].(map[string]any)
		if g["type"] != "turn.failed" || ge == nil || we == nil {
			return "want turn.failed with an error", true
		}
		return messageCarries(ge["message"], we["message"]), true
	}
	return "", false
}

// messageCarries checks that agent's message g carries the server's
// message inside codex's raw body w.
func messageCarries(g, w any) string {
	gs, _ := g.(string)
	ws, _ := w.(string)
	var body struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(ws), &body) != nil || body.Error.Message == "" {
		body.Error.Message = ws
	}
	if gs == "" || !strings.Contains(gs, body.Error.Message) {
		return "message " + agenttest.QuoteTOML(gs) + " lacks the server's " + agenttest.QuoteTOML(body.Error.Message)
	}
	return ""
}

// checkMCPOutputsParity compares the tool outputs agent sent back to the
// model after the MCP calls with Codex's: the image reaches the model as
// an input_image of the same data URL. (Codex adds an input_text
// "Wall time: ... Output:" first; agent does not time MCP calls.)
func checkMCPOutputsParity(t *testing.T, srv *rt.Server) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(parityDir, "mcp.codex.outputs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want []map[string]any
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	input, _ := reqs[len(reqs)-1].JSON["input"].([]any)
	var got []map[string]any
	for _, it := range input {
		m, _ := it.(map[string]any)
		if m["type"] == "function_call_output" {
			delete(m, "id")
			got = append(got, m)
		}
	}
	for _, w := range want {
		parts, _ := w["output"].([]any)
		var kept []any
		for _, p := range parts {
			if pm, _ := p.(map[string]any); pm != nil {
				if txt, _ := pm["text"].(string); strings.HasPrefix(txt, "Wall time:") {
					continue
				}
			}
			kept = append(kept, p)
		}
		// A text-only output is a plain string in agent's requests.
		if len(kept) == 1 {
			if pm, _ := kept[0].(map[string]any); pm["type"] == "input_text" {
				w["output"] = pm["text"]
				continue
			}
		}
		w["output"] = kept
	}
	if !reflect.DeepEqual(got, want) {
		gb, _ := json.MarshalIndent(got, "", " ")
		wb, _ := json.MarshalIndent(want, "", " ")
		t.Errorf("tool outputs sent to the model differ from codex's:\nagent: %s\ncodex: %s", gb, wb)
	}
}

// codexLineRE picks the lines of Codex's human-mode stderr that agent's must
// have too, in the same order: the header's settings, each command with its
// exit status and output, each patch with its files and diff, each MCP call,
// each message. (Lines of Codex's own: its banner, sandbox warnings,
// "tokens used" figures and log lines, are not compared.)
var codexLineRE = regexp.MustCompile(`^(workdir|model|provider|approval|session id): |^sandbox: |^exec$|^/bin/bash .* in |^ (succeeded|exited \d+)|^mcp: |^apply patch$|^patch: |^\{\{WORK\}\}/|^[-+][^-+]|^codex$|^user$`)

// TestExecHumanParity: without --json, stdout holds the final message only,
// exactly as Codex's did, and stderr shows what Codex's shows.
func TestExecHumanParity(t *testing.T) {
	t.Parallel()
	for _, sc := range parityScenarios(t) {
		t.Run(sc.name, func(t *testing.T) {
			r, _ := parityRun(t, sc, false)
			wantOut := readFile(t, filepath.Join(parityDir, sc.name+".codex.out"))
			if r.stdout != wantOut {
				t.Errorf("stdout = %q; codex printed %q", r.stdout, wantOut)
			}
			codexErr := readFile(t, filepath.Join(parityDir, sc.name+".codex.err"))
			got := strings.Split(r.stderr, "\n")
			i := 0
			for _, line := range strings.Split(codexErr, "\n") {
				if !codexLineRE.MatchString(line) {
					continue
				}
				// agent does not time commands; its sandbox line names the
				// writable roots it has (no implicit /tmp).
				want := regexp.MustCompile(` in \{\{DURATION\}\}:$`).ReplaceAllString(line, ":")
				want, _, _ = strings.Cut(want, " [")
				for i < len(got) && !strings.HasPrefix(got[i], want) {
					i++
				}
				if i == len(got) {
					t.Errorf("stderr lacks %q (in codex's order); agent's stderr:\n%s", want, r.stderr)
					return
				}
				i++
			}
		})
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
