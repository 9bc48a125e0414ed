package main

import (
	"strconv"
	"strings"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestEventOverTheConfiguredLimit: a provider's stream_max_event_bytes
// bounds one event of its streams, over SSE and WebSocket: a 100 KiB text
// delta under a 64 KiB bound ends the turn after one request (the same
// request gets the same event: no retry, no continuation), exit 1, with a
// message naming the bound and the key that raises it; under a 256 KiB
// bound it is the answer.
func TestEventOverTheConfiguredLimit(t *testing.T) {
	t.Parallel()
	delta := strings.Repeat("a", 100<<10)
	for _, wire := range []string{"sse", "ws"} {
		t.Run(wire, func(t *testing.T) {
			t.Parallel()
			config := func(limit int) string {
				return "model = \"m\"\nmodel_provider = \"fake\"\n[model_providers.fake]\nbase_url = \"%URL%\"\nenv_key = \"FAKE_KEY\"\n" +
					"supports_websockets = " + map[string]string{"sse": "false", "ws": "true"}[wire] + "\n" +
					"stream_max_event_bytes = " + strconv.Itoa(limit) + "\n"
			}
			srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", delta), rt.Reply("r2", "m2", delta)})
			r := runCLI(t, srv, runOpts{config: config(64 << 10)}, "exec", "hi")
			if n := len(srv.Requests()); r.code != 1 || n != 1 {
				t.Errorf("64 KiB bound: exit %d after %d requests; want exit 1 after one\n%s", r.code, n, r.stderr)
			}
			for _, want := range []string{"larger than the 64 KiB limit", "model_providers.fake.stream_max_event_bytes"} {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("64 KiB bound: stderr does not say %q:\n%s", want, r.stderr)
				}
			}
			srv = rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", delta)})
			r = runCLI(t, srv, runOpts{config: config(256 << 10)}, "exec", "hi")
			if r.code != 0 || r.stdout != delta+"\n" {
				t.Errorf("256 KiB bound: exit %d, %d bytes out\n%s", r.code, len(r.stdout), r.stderr)
			}
		})
	}
}
