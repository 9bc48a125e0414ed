package frontends

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentcli/agent/internal/mcptest"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// sdkDir holds the node script and, once `npm ci --omit=optional` ran there
// (.ci/run does), the official Codex TypeScript SDK.
const sdkDir = "../testdata/sdk"

// TestCodexSDK drives the agent binary with @openai/codex-sdk, as a Codex
// user's script does (codexPathOverride: agent): a streamed thread with a
// command, the thread resumed by id, an output schema and an image, over
// the fake Responses server, and a thread through the SDK's own apiKey and
// baseUrl options. It checks what the SDK saw (testdata/sdk/sdk.mjs
// asserts the events) and what reached the model.
func TestCodexSDK(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(sdkDir, "node_modules", "@openai", "codex-sdk", "package.json"))
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI must run the SDK test: %v (.ci/run installs node and the SDK)", err)
		}
		t.Skipf("skipped: node or the Codex SDK is absent (%v); install it with: (cd cmd/agent/%s && npm ci --omit=optional)", err, sdkDir)
	}
	bin := buildAgent(t)
	fc := func(id, call, cmd string) rt.Step {
		return rt.FunctionCallDone(id, call, "exec_command", `{"cmd":"`+cmd+`","login":false}`)
	}
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), fc("fc1", "call_1", "echo from the sdk"), rt.Completed("r1")),
		rt.Reply("r2", "m2", "hello from agent"),
		rt.Reply("r3", "m3", "resumed answer"),
		rt.Reply("r4", "m4", `{"answer":"42"}`),
		rt.Reply("r5", "m5", "a red pixel"),
		rt.Reply("r6", "m6", "keyed answer"),
	})
	home := writeConfig(t, srv.URL, "")
	work := t.TempDir()
	image := filepath.Join(t.TempDir(), "pixel.png")
	if err := os.WriteFile(image, mcptest.PNG, 0o600); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join(sdkDir, "sdk.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script)
	const sdkKey = "sk-test-sdk-0000"
	cmd.Env = []string{"AGENT_BIN=" + bin, "AGENT_HOME=" + home, "WORK=" + work, "IMAGE=" + image, "PATH=" + os.Getenv("PATH"),
		"SDK_API_KEY=" + sdkKey, "SDK_BASE_URL=" + srv.URL}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node sdk.mjs: %v\n%s", err, out)
	}
	var turns []string
	for sc := bufio.NewScanner(strings.NewReader(string(out))); sc.Scan(); {
		turns = append(turns, sc.Text())
	}
	if len(turns) != 5 {
		t.Fatalf("the SDK script reported %d turns; want 5:\n%s", len(turns), out)
	}
	reqs := srv.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d model requests; want 6", len(reqs))
	}
	if got := reqs[5].Header.Get("Authorization"); got != "Bearer "+sdkKey {
		t.Errorf("the apiKey turn's Authorization = %q; want the SDK's key", got)
	}
	body := func(i int) string { return string(reqs[i].Body) }
	// The resumed turn carries the first turn's history.
	for _, w := range []string{"run a command, then say hello", "hello from agent", "and again"} {
		if !strings.Contains(body(2), w) {
			t.Errorf("the resumed turn's request lacks %q", w)
		}
	}
	if text, _ := reqs[3].JSON["text"].(map[string]any); text == nil || text["format"].(map[string]any)["type"] != "json_schema" {
		t.Errorf("the schema turn's text = %v; want a json_schema format", reqs[3].JSON["text"])
	}
	if !strings.Contains(body(4), `"type":"input_image"`) || !strings.Contains(body(4), "data:image/png;base64,") {
		t.Errorf("the image turn's request has no input_image")
	}
	if strings.Contains(body(4), `"json_schema"`) {
		t.Errorf("the output schema leaked into the next turn")
	}
}
