package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentcli/agent/internal/exitcode"
	rt "github.com/agentcli/agent/internal/responsestest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// execSchema compiles docs/exec-json.schema.json.
func execSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "docs", "exec-json.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("exec-json.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("exec-json.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var (
	threadRE = regexp.MustCompile(`"thread_id":"[^"]+"`)
	wallRE   = regexp.MustCompile(`Wall time: [0-9.]+ seconds`)
)

func TestExecJSONGolden(t *testing.T) {
	t.Parallel()
	schema := execSchema(t)
	cut := rt.Stream(rt.Created("r"), rt.TextDelta("m", "partial"), rt.Drop())
	tests := []struct {
		name   string
		script rt.Script
		config string
		code   int
		tools  bool // run in a temp workspace with -s workspace-write
	}{
		{name: "plain", script: rt.Script{rt.Reply("r1", "m1", "hello world")}},
		{name: "retries-fallback", script: rt.Script{cut, cut, cut, rt.Reply("r2", "m2", "done over https")},
			config: "model = \"m\"\nmodel_provider = \"fake\"\n[model_providers.fake]\nbase_url = \"%URL%\"\nsupports_websockets = true\nstream_max_retries = 2\n"},
		{name: "http-retry-then-failure", script: rt.Script{rt.Status(502), rt.Stream(rt.Created("r"), rt.Failed("r", "context_length_exceeded", "too long"))},
			code: exitcode.Failed},
		{name: "command-and-patch", tools: true, script: rt.Script{
			rt.Stream(rt.Created("r1"),
				rt.FunctionCallDone("fc1", "call_1", "exec_command", `{"cmd":"echo hello","login":false}`),
				rt.FunctionCallDone("fc2", "call_2", "apply_patch", `{"input":"*** Begin Patch\n*** Add File: notes.txt\n+hi\n*** End Patch\n"}`),
				rt.FunctionCallDone("fc3", "call_3", "update_plan", `{"plan":[{"step":"write notes","status":"completed"},{"step":"review","status":"in_progress"}]}`),
				rt.Completed("r1")),
			rt.Reply("r2", "m2", "done")}},
		{name: "continued-after-cuts", config: "model = \"m\"\nmodel_provider = \"fake\"\n[model_providers.fake]\nbase_url = \"%URL%\"\nstream_max_retries = 0\n",
			script: rt.Script{rt.Stream(rt.Created("r"), rt.TextDelta("m", "part"), rt.Drop()), rt.Reply("r2", "m2", "continued answer")}},
		{name: "overload", script: rt.Script{
			rt.Error(503, "server_error", "server_is_overloaded", "busy"), rt.Reply("r", "m", "ok")}},
		// A message completed, response.completed never came, the retry
		// answered: one agent_message, the final one.
		{name: "message-then-cut", script: rt.Script{
			rt.Stream(rt.Created("r"), rt.MessageDone("m1", "first"), rt.Drop()), rt.Reply("r2", "m2", "final")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := rt.NewServer(t, tt.script)
			args := []string{"exec", "--json"}
			work := "\x00" // matches nothing
			if tt.tools {
				work = t.TempDir()
				args = append(args, "-s", "workspace-write", "-C", work)
			}
			r := runCLI(t, srv, runOpts{config: tt.config}, append(args, "hi")...)
			if r.code != tt.code {
				t.Fatalf("exit %d; want %d\nstderr:\n%s", r.code, tt.code, r.stderr)
			}
			var lines []string
			all := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
			for i, line := range all {
				v, err := jsonschema.UnmarshalJSON(strings.NewReader(line))
				if err != nil {
					t.Fatalf("not JSON: %q", line)
				}
				if err := schema.Validate(v); err != nil {
					t.Errorf("line %q does not match the schema: %v", line, err)
				}
				var m map[string]any
				_ = json.Unmarshal([]byte(line), &m)
				if m["type"] == "error" && (i+1 >= len(all) || !strings.HasPrefix(all[i+1], `{"type":"turn.failed"`)) {
					t.Errorf("an error event that is not the turn's fatal one: %s", line)
				}
				line = strings.ReplaceAll(line, work, "WORK")
				line = threadRE.ReplaceAllString(line, `"thread_id":"THREAD"`)
				lines = append(lines, wallRE.ReplaceAllString(line, `Wall time: W seconds`))
			}
			got := []byte(strings.Join(lines, "\n") + "\n")
			golden := filepath.Join("testdata", "json-"+tt.name+".golden")
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("JSONL differs from %s:\ngot:\n%s\nwant:\n%s", golden, got, want)
			}
		})
	}
}

func TestExecOutputLastMessage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "last.txt")
	srv := rt.NewServer(t, rt.Script{rt.Reply("r", "m", "final words")})
	r := runCLI(t, srv, runOpts{}, "exec", "-o", out, "hi")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(out); string(b) != "final words\n" {
		t.Errorf("last message file = %q", b)
	}
	// Not written when the turn fails.
	out2 := filepath.Join(dir, "never.txt")
	srv = rt.NewServer(t, rt.Script{rt.Status(400)})
	if r := runCLI(t, srv, runOpts{}, "exec", "-o", out2, "hi"); r.code == 0 {
		t.Fatal("want failure")
	}
	if _, err := os.Stat(out2); !os.IsNotExist(err) {
		t.Errorf("last message file written for a failed turn: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("stray files left: %v", entries)
	}
}

func TestExecOutputSchema(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	schemaFile := filepath.Join(dir, "schema.json")
	os.WriteFile(schemaFile, []byte(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"],"additionalProperties":false}`), 0o600)
	srv := rt.NewServer(t, rt.Script{rt.Reply("r", "m", `{"ok":true}`)})
	r := runCLI(t, srv, runOpts{}, "exec", "--output-schema", schemaFile, "hi")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	text, _ := srv.Requests()[0].JSON["text"].(map[string]any)
	format, _ := text["format"].(map[string]any)
	if format["type"] != "json_schema" || format["strict"] != true || format["schema"] == nil {
		t.Errorf("text.format = %v", text)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`not json`), 0o600)
	if r := runCLI(t, nil, runOpts{stdinTTY: true}, "exec", "--output-schema", bad, "hi"); r.code != exitcode.Usage || !strings.Contains(r.stderr, "bad.json") {
		t.Errorf("bad schema: exit %d stderr %q", r.code, r.stderr)
	}
}
