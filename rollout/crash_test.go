//go:build unix

package rollout_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/rollout"
	"github.com/agentcli/agent/transport"
)

// crashUsage is the token count the child syncs.
var crashUsage = transport.Usage{InputTokens: 100, OutputTokens: 20, TotalTokens: 120}

// bigOutput is the size of the tool output the child is killed while
// writing: large enough that the write takes many page copies.
const bigOutput = 8 << 20

// TestCrash kills a child process (SIGKILL, no chance to clean up) while
// it writes a rollout, then loads and resumes what it left.
func TestCrash(t *testing.T) {
	if os.Getenv("ROLLOUT_CHILD") == "1" {
		crashChild(t, os.Getenv("ROLLOUT_HOME"), os.Getenv("ROLLOUT_MODE"))
		return
	}
	for _, mode := range []string{"torn line", "mid write"} {
		t.Run(mode, func(t *testing.T) {
			home := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^TestCrash$", "-test.count=1")
			cmd.Env = append(os.Environ(), "ROLLOUT_CHILD=1", "ROLLOUT_HOME="+home, "ROLLOUT_MODE="+mode)
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("child did not die: %v\n%s", err, out)
			}
			if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
				t.Fatalf("child ended with %v, want SIGKILL\n%s", err, out)
			}

			e, err := rollout.Latest(t.Context(), home, "/crash", false)
			must(t, err)
			ro := load(t, e.Path)
			synced := history[:3]
			data, err := os.ReadFile(e.Path)
			must(t, err)
			torn := !strings.HasSuffix(string(data), "\n")
			t.Logf("%s: file %d bytes, torn last line: %v", mode, len(data), torn)
			wantHistory := synced
			if !torn { // the kill landed after the write completed
				wantHistory = append(synced[:3:3], "big")
			}
			got := raws(ro.History)
			if len(got) == 4 && len(got[3]) > bigOutput {
				got[3] = "big"
			}
			if diff := cmp.Diff(wantHistory, got); diff != "" {
				t.Errorf("restored history (-want +got):\n%s", diff)
			}
			wantLedger := []rollout.LedgerEntry{{CallID: "call-1", Name: "shell", State: "started"}}
			if diff := cmp.Diff(wantLedger, ro.Ledger); diff != "" {
				t.Errorf("restored ledger (-want +got):\n%s", diff)
			}
			if ro.Total != crashUsage || ro.LastTurn != rollout.TurnOpen || !ro.Interrupted || ro.Title != "crash me" {
				t.Errorf("Total %+v, LastTurn %q, Interrupted %v, Title %q", ro.Total, ro.LastTurn, ro.Interrupted, ro.Title)
			}
			const tornLine = 10 // after meta, user, turn_started, 3 items, 2 ledger, token_count
			if torn {
				if len(ro.Warnings) != 1 || ro.Warnings[0].Line != tornLine || !strings.Contains(ro.Warnings[0].Message, "torn") {
					t.Errorf("Warnings = %v, want a torn line %d", ro.Warnings, tornLine)
				}
			} else if len(ro.Warnings) != 0 {
				t.Errorf("Warnings = %v", ro.Warnings)
			}

			// Resume: the torn line stays one skipped line, and the new
			// turn follows it.
			r, err := rollout.Open(t.Context(), e.Path)
			must(t, err)
			must(t, r.AppendItems(items(t, history[3])...))
			must(t, r.AppendEvent(rollout.EventMsg{Type: rollout.EventTurnCompleted}))
			must(t, r.Close())
			ro = load(t, e.Path)
			if n := len(ro.History); n != len(wantHistory)+1 || string(ro.History[n-1].Raw) != history[3] {
				t.Errorf("after resume: %d items, last %.80s", n, ro.History[n-1].Raw)
			}
			if ro.LastTurn != rollout.TurnCompleted {
				t.Errorf("after resume: LastTurn = %q", ro.LastTurn)
			}
			if torn && (len(ro.Warnings) != 1 || ro.Warnings[0].Line != tornLine || !strings.Contains(ro.Warnings[0].Message, "corrupt")) {
				t.Errorf("after resume: Warnings = %v, want a corrupt line %d", ro.Warnings, tornLine)
			}
		})
	}
}

// crashChild records a turn up to a tool call, syncs as the engine does
// before running the tool, then dies in the middle of writing a line.
func crashChild(t *testing.T, home, mode string) {
	r := create(t, home, meta("crash-1", "/crash"), t0)
	must(t, r.AppendEvent(rollout.EventMsg{Type: rollout.EventUserMessage, Message: "crash me"}))
	must(t, r.AppendEvent(rollout.EventMsg{Type: rollout.EventTurnStarted}))
	must(t, r.AppendItems(items(t, history[:3]...)...))
	must(t, r.AppendLedger(rollout.LedgerEntry{CallID: "call-1", Name: "shell", State: "requested"}))
	must(t, r.AppendLedger(rollout.LedgerEntry{CallID: "call-1", Name: "shell", State: "started"}))
	must(t, r.AppendEvent(rollout.EventMsg{Type: rollout.EventTokenCount, Total: &crashUsage, Last: &crashUsage}))
	must(t, r.Sync())
	fi, err := os.Stat(r.Path())
	must(t, err)
	synced := fi.Size()

	switch mode {
	case "torn line":
		// Buffered but never synced: lost with the process.
		must(t, r.AppendItems(items(t, history[3])...))
		// What the kernel keeps of a line whose write was cut short.
		appendRaw(t, r.Path(), lineOf("response_item", history[4])[:50])
		must(t, syscall.Kill(os.Getpid(), syscall.SIGKILL))
	case "mid write":
		// A goroutine kills the process as soon as the file grows, while
		// one large line is being written.
		raw := fmt.Sprintf(`{"type":"function_call_output","call_id":"call-1","output":"%s"}`, strings.Repeat("x", bigOutput))
		must(t, r.AppendItems(transport.Item{Raw: []byte(raw)}))
		go func() {
			for {
				if fi, err := os.Stat(r.Path()); err == nil && fi.Size() > synced {
					_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
				}
				runtime.Gosched()
			}
		}()
		_ = r.Flush(false)
	}
	select {} // the kill is on its way
}
