package bench_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
)

// TestSoakSideEffects runs turns whose model calls a command that appends
// one line to a file, with the stream cut right after the call on a fixed
// random third of the turns: every command runs exactly once, in order,
// however the stream ends, over SSE and WebSocket.
func TestSoakSideEffects(t *testing.T) {
	n := soakTurns(t) / 2
	for _, mode := range []string{"sse", "ws"} {
		t.Run(mode, func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, 7))
			var script rt.Script
			cuts := 0
			for i := range n {
				args, _ := json.Marshal(map[string]any{"cmd": fmt.Sprintf("echo turn-%d >> effects.txt", i), "login": false})
				call := rt.FunctionCallDone(fmt.Sprintf("fc%d", i), fmt.Sprintf("call_%d", i), "exec_command", string(args))
				end := rt.Completed(fmt.Sprintf("r%d", i))
				if r.IntN(3) == 0 {
					end = rt.Drop()
					cuts++
				}
				script = append(script, rt.Stream(rt.Created(fmt.Sprintf("r%d", i)), call, end),
					rt.Reply(fmt.Sprintf("r%db", i), fmt.Sprintf("m%d", i), fmt.Sprintf("done %d", i)))
			}
			srv := rt.NewServer(t, script)
			dir := t.TempDir()
			var sleeps atomic.Int64
			client := soakClient(srv.URL, mode, srv.Client(), &sleeps)
			defer client.Close()
			ex := tools.NewExec(tools.ExecOptions{Cwd: dir, Shell: "/bin/sh", Policy: tools.PolicyNever, Sandbox: tools.SandboxFullAccess})
			set, err := tools.NewSet(ex)
			if err != nil {
				t.Fatal(err)
			}
			defer set.Close()
			sess := session.New(session.Options{Client: client, Tools: set})
			for i := range n {
				var got []string
				err := sess.Turn(context.Background(), fmt.Sprintf("turn %d", i), func(ev session.Event) {
					if m, ok := ev.(session.MessageDone); ok {
						got = append(got, m.Text)
					}
				})
				if err != nil {
					t.Fatalf("turn %d: %v", i, err)
				}
				if len(got) != 1 || got[0] != fmt.Sprintf("done %d", i) {
					t.Fatalf("turn %d answers = %q", i, got)
				}
			}
			b, err := os.ReadFile(filepath.Join(dir, "effects.txt"))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
			if len(lines) != n {
				t.Fatalf("%d side effects for %d turns (%d cut after the call)", len(lines), n, cuts)
			}
			for i, l := range lines {
				if l != fmt.Sprintf("turn-%d", i) {
					t.Fatalf("side effect %d = %q; want turn-%d (a command ran twice or out of order)", i, l, i)
				}
			}
			if len(srv.Requests()) != 2*n {
				t.Errorf("%d requests; want %d", len(srv.Requests()), 2*n)
			}
			t.Logf("side-effect soak %s: %d turns, %d streams cut right after the call, %d commands run once each", mode, n, cuts, n)
		})
	}
}
