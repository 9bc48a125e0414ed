package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcli/agent/internal/exitcode"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestE2EDoctorProbesWithoutModels: agent doctor against a provider that
// answers GET /models with 404 checks the key with an invalid POST
// /responses and prints what it found: accepted on a 400, rejected (exit
// 1) on a 401, the key masked.
func TestE2EDoctorProbesWithoutModels(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	for _, c := range []struct {
		answer int
		want   string
	}{
		{400, "accepted (GET /models answered 404 Not Found; an invalid POST "},
		{401, "rejected by the provider (POST "},
	} {
		fake := rt.New(rt.Script{rt.Status(c.answer)}, rt.Options{ModelsStatus: 404, OnUnexpected: func(m string) { t.Error(m) }})
		fake.Start()
		home := t.TempDir()
		cfg := "model = \"test-model\"\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nbase_url = \"" + fake.URL + "\"\nenv_key = \"FAKE_KEY\"\n"
		if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "doctor")
		cmd.Env = append(os.Environ(), "AGENT_HOME="+home, "FAKE_KEY="+fakeKey)
		out, err := cmd.Output()
		fake.Close()
		var line string
		for _, l := range strings.Split(string(out), "\n") {
			if strings.Contains(l, "credential") {
				line = l
			}
		}
		if !strings.Contains(line, c.want+fake.URL+"/responses") || strings.Contains(string(out), fakeKey) {
			t.Errorf("/responses %d: the credential line is %q; want %q and the key masked:\n%s", c.answer, line, c.want, out)
		}
		var ee *exec.ExitError
		if c.answer == 401 && (!errors.As(err, &ee) || ee.ExitCode() != exitcode.Failed) {
			t.Errorf("/responses 401: doctor = %v; want exit %d", err, exitcode.Failed)
		}
		if reqs := fake.Requests(); len(reqs) != 1 || reqs[0].Method != "POST" {
			t.Errorf("/responses %d: %d requests to /responses; want the one probe", c.answer, len(reqs))
		}
	}
}
