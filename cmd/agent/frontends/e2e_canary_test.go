package frontends

import (
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentcli/agent/internal/agenttest"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// canary is the one fake credential of TestE2ESecretCanary.
const canary = "sk-test-canary-7f3a9c"

// canaryFrontEndScript is what the fake server answers each front end:
// the key echoed in an error body and header (retried), in streamed text
// cut across deltas, in a command's output (the model reads auth.json),
// then in the error that ends the turn.
func canaryFrontEndScript() rt.Script {
	args, _ := json.Marshal(map[string]string{"cmd": `cat "$AGENT_HOME/auth.json"; echo "env:$FAKE_KEY:$OPENAI_API_KEY:$GITHUB_TOKEN:$MCP_BEARER"`})
	return rt.Script{
		rt.Error(500, "server_error", "", "upstream saw Authorization: Bearer "+canary, "X-Echo-Authorization", "Bearer "+canary),
		rt.Stream(rt.Created("r1"), rt.TextDelta("m1", "your key is sk-test-"), rt.TextDelta("m1", "canary-7f3a9c, right?"),
			rt.MessageDone("m1", "your key is "+canary+", right?"),
			rt.FunctionCallDone("fc1", "call_1", "exec_command", string(args)), rt.Completed("r1")),
		rt.Error(400, "invalid_request_error", "invalid_api_key", "Incorrect API key provided: "+canary+".", "X-Echo", canary),
	}
}

// canaryEnv is agent's environment: the key under the names a user would
// have it (the provider's env_key, OpenAI's, GitHub's, an MCP bearer).
func canaryEnv(home string) []string {
	return []string{
		"AGENT_HOME=" + home, "PATH=" + os.Getenv("PATH"), "HOME=" + home, "AGENT_LOG=debug",
		"FAKE_KEY=" + canary, "OPENAI_API_KEY=" + canary, "GITHUB_TOKEN=" + canary, "MCP_BEARER=" + canary,
	}
}

// echoMCP is a streamable-HTTP MCP endpoint that refuses every request,
// echoing the bearer token it was sent in its body and a header.
func echoMCP(t *testing.T) string {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", token="`+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")+`"`)
		http.Error(w, "token rejected: "+r.Header.Get("Authorization"), http.StatusUnauthorized)
	}))
	t.Cleanup(s.Close)
	return s.URL
}

// assertNoCanary fails if the canary is in any file under dir (skipping
// the files the test itself wrote) or in any of the outputs.
func assertNoCanary(t *testing.T, dir string, wrote []string, outputs map[string]string) {
	t.Helper()
	for name, out := range outputs {
		if strings.Contains(out, canary) {
			t.Errorf("%s holds the key:\n%s", name, out)
		}
	}
	files := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		for _, w := range wrote {
			if path == w {
				return nil
			}
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		if strings.Contains(string(b), canary) {
			t.Errorf("%s holds the key:\n%s", path, b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Errorf("agent wrote no file under %s; nothing was checked", dir)
	}
}

// TestE2ESecretCanary: one distinctive fake key is in agent's
// environment, its auth.json, an auth command's output and an MCP bearer
// variable; every server echoes it. After exec (text and --json), the
// proxy and the chat have run, no byte of it is in anything agent printed
// or any file it wrote under AGENT_HOME, while the masked places still
// say what happened.
func TestE2ESecretCanary(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	home := t.TempDir()
	authPath := filepath.Join(home, "auth.json")
	if err := os.WriteFile(authPath, []byte(`{"OPENAI_API_KEY":"`+canary+`"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	srvText, srvJSON, srvProxy := rt.NewServer(t, canaryFrontEndScript()), rt.NewServer(t, canaryFrontEndScript()),
		rt.NewServer(t, rt.Script{
			rt.Error(503, "server_error", "", "capacity; your key "+canary, "X-Echo", canary),
			rt.Error(401, "invalid_request_error", "invalid_api_key", "Incorrect API key provided: "+canary),
		})
	cfgPath := filepath.Join(home, "config.toml")
	cfg := "model = \"test-model\"\nmodel_provider = \"fake\"\nsandbox_mode = \"danger-full-access\"\napproval_policy = \"never\"\n" +
		"[auto_continue]\nenabled = false\n" +
		"[retry.server_error]\nbase_delay_ms = 1\nmax_delay_ms = 1\n[retry.overloaded]\ndelays_ms = [1]\n" +
		"[model_providers.fake]\nbase_url = \"" + srvText.URL + "\"\nenv_key = \"FAKE_KEY\"\n" +
		"[model_providers.cmd]\nbase_url = \"" + srvJSON.URL + "\"\nauth = { command = \"sh\", args = [\"-c\", \"echo $FAKE_KEY\"] }\n" +
		"[model_providers.up]\nbase_url = \"" + srvProxy.URL + "\"\nenv_key = \"FAKE_KEY\"\n" +
		"[mcp_servers.remote]\nurl = \"" + echoMCP(t) + "\"\nbearer_token_env_var = \"MCP_BEARER\"\nstartup_timeout_sec = 5\n"
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	outputs := map[string]string{}
	canaryExec(t, bin, home, srvText, srvJSON, outputs)
	// The proxy, in front of an upstream that echoes the key; a client
	// sends it too.
	canaryProxy(t, bin, home, srvProxy, outputs)
	// The chat, in a terminal, with the key from auth.json.
	chatHome, chatFiles, screen := canaryChat(t, bin)
	outputs["chat screen"] = screen

	assertNoCanary(t, home, []string{authPath, cfgPath}, outputs)
	assertNoCanary(t, chatHome, chatFiles, nil)
	for _, want := range []string{"rollout", "agent.log"} {
		if !treeHas(t, home, want) {
			t.Errorf("no %s file under %s: the check above covered nothing of it", want, home)
		}
	}
}

// canaryExec runs exec (text, env_key) and exec --json (auth command)
// against servers that echo the canary, and keeps what they printed.
func canaryExec(t *testing.T, bin, home string, srvText, srvJSON *rt.Server, outputs map[string]string) {
	for _, fe := range []struct {
		name string
		srv  *rt.Server
		args []string
	}{
		{"exec (env_key)", srvText, []string{"exec", "read the key"}},
		{"exec --json (auth command)", srvJSON, []string{"exec", "--json", "-c", `model_provider="cmd"`, "read the key"}},
	} {
		cmd, stdout, stderr := agentCmd(t, bin, home)
		cmd.Args = append(cmd.Args, fe.args...)
		cmd.Env = canaryEnv(home)
		err := cmd.Run()
		if err == nil {
			t.Errorf("%s: exit 0; want the echoed 400 to fail the turn", fe.name)
		}
		outputs[fe.name+" stdout"], outputs[fe.name+" stderr"] = stdout.String(), stderr.String()
		if !strings.Contains(stderr.String(), "Incorrect API key provided: [REDACTED]") {
			t.Errorf("%s: stderr does not report the failure, masked:\n%s", fe.name, stderr)
		}
		if n := len(fe.srv.Requests()); n != 3 {
			t.Errorf("%s: %d requests; want 3 (retry, stream, failure)", fe.name, n)
		}
		// The turn failed, so stdout has no final message (as in the
		// reference client); the answer of its first response is on stderr.
		if fe.srv == srvText && !strings.Contains(stderr.String(), "your key is [REDACTED], right?") {
			t.Errorf("%s: stderr lacks the masked answer:\n%s", fe.name, stderr)
		}
		// The key reached the command only through the file it read: the
		// environment of commands has none of the four variables.
		if out := callOutput3(t, fe.srv); !strings.Contains(out, "env::::\n") {
			t.Errorf("%s: the command's environment held a key:\n%s", fe.name, out)
		}
	}
	if !strings.Contains(outputs["exec --json (auth command) stdout"], `"type":"command_execution"`) &&
		!strings.Contains(outputs["exec --json (auth command) stdout"], "[REDACTED]") {
		t.Errorf("--json printed neither the command nor a masked key:\n%s", outputs["exec --json (auth command) stdout"])
	}

}

// canaryProxy sends the canary through agent proxy (the binary, its key
// in the environment, logging at debug) to an upstream that echoes it,
// and keeps the proxy's log.
func canaryProxy(t *testing.T, bin, home string, srvProxy *rt.Server, outputs map[string]string) {
	cmd, _, stderr := agentCmd(t, bin, home, "proxy", "--listen", "127.0.0.1:0", "--provider", "up")
	cmd.Env = []string{"AGENT_HOME=" + home, "PATH=" + os.Getenv("PATH"), "HOME=" + home, "AGENT_LOG=debug",
		"FAKE_KEY=" + canary, "OPENAI_API_KEY=" + canary}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-exited })
	base := agenttest.ProxyListening.FindStringSubmatch(agenttest.WaitForLine(t, stderr, agenttest.ProxyListening))[1]
	req, _ := http.NewRequest("POST", base+"/responses", strings.NewReader(`{"model":"m","input":"hi","stream":true}`))
	req.Header.Set("Authorization", "Bearer "+canary)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Errorf("proxy answered %d; want the upstream's 401", resp.StatusCode)
	}
	// SIGTERM ends the proxy as a user's Ctrl-C would; its log is whole
	// once it has exited.
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(20 * time.Second):
		t.Error("agent proxy did not stop 20 s after SIGTERM")
	}
	outputs["proxy log"] = stderr.String()
	if len(srvProxy.Requests()) != 2 {
		t.Errorf("upstream saw %d requests through the proxy; want 2", len(srvProxy.Requests()))
	}
}

// canaryChat runs the chat, in a terminal, with the key from auth.json,
// and returns its home, the files holding the key there, and its screen.
func canaryChat(t *testing.T, bin string) (chatHome string, keyFiles []string, screen string) {
	chatSrv := rt.NewServer(t, rt.Script{
		rt.Reply("c1", "cm1", "chat sees "+canary+" here"),
		rt.Error(400, "invalid_request_error", "", "Incorrect API key provided: "+canary+" (chat)"),
	})
	chatHome = t.TempDir()
	chatAuth := filepath.Join(chatHome, "auth.json")
	chatCfg := filepath.Join(chatHome, "config.toml")
	os.WriteFile(chatAuth, []byte(`{"OPENAI_API_KEY":"`+canary+`"}`), 0o600)
	os.WriteFile(chatCfg, []byte("model = \"test-model\"\nopenai_base_url = \""+chatSrv.URL+"\"\n"), 0o600)
	c := startChat(t, bin, chatHome, t.TempDir(), "--transport", "https")
	c.send("hello")
	s := c.waitFor("chat sees [REDACTED] here")
	c.send("again")
	s += c.waitFor("(chat)")
	c.keys("C-d")
	waitChatGone(t, c)

	return chatHome, []string{chatAuth, chatCfg}, s
}

// callOutput3 returns the output the third request carried for call_1.
func callOutput3(t *testing.T, srv *rt.Server) string {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) < 3 {
		t.Fatalf("%d requests; want 3", len(reqs))
	}
	return agenttest.OutputOf(t, reqs[2], "call_1")
}

// treeHas reports whether a file whose path contains part is under dir.
func treeHas(t *testing.T, dir, part string) bool {
	found := false
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(path, part) {
			found = true
		}
		return nil
	})
	return found
}

// waitChatGone waits (bounded) until the chat has exited and so has
// written everything it writes.
func waitChatGone(t *testing.T, c *tmuxChat) {
	t.Helper()
	deadline := time.Now().Add(screenWait)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for range tick.C {
		if exec.Command("tmux", "-S", c.name, "has-session", "-t", "e2e").Run() != nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the chat did not exit after Ctrl-D:\n%s", c.screen())
		}
	}
}
