package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// bigReply is the answer after a big-payload scenario's tool call.
const bigReply = "the command ran"

// bigScenarios runs the big-payload scenarios of issue 30 with o.big
// bytes, for agent (and --compare; not the reference) and curl: one text
// delta of that size; an exec_command call whose command prints that
// many bytes, then a short answer; an exec_command call whose arguments
// are that large (a justification of that size), then a short answer; and
// the first and the last as OpenAI streams them (fakeresponses --openai).
// curl reads the first request's stream (and takes the second request,
// unmeasured).
func bigScenarios(fakeBin, tmp string, o options, homes []string, clients []client, curl client, ref string) ([]bigResult, error) {
	// The big texts are written in pieces, never held: a child's peak
	// RSS (wait4's ru_maxrss) starts at the harness's own high-water mark.
	const delta = "lorem ipsum "
	var tail strings.Builder // the delta's last 64 bytes, what stdout ends with
	for i := max(0, o.big-64); i < o.big; i++ {
		tail.WriteByte(delta[i%len(delta)])
	}
	printArgs := filepath.Join(tmp, "print.json")
	cmd := fmt.Sprintf(`{"cmd":"head -c %d /dev/zero | tr '\\0' a; echo","yield_time_ms":30000}`, o.big)
	if err := os.WriteFile(printArgs, []byte(cmd), 0o600); err != nil {
		return nil, err
	}
	bigArgs := filepath.Join(tmp, "args.json")
	if err := writeBigArgs(bigArgs, delta, o.big); err != nil {
		return nil, err
	}
	size := fmt.Sprintf("%d MiB", o.big>>20)
	if o.big%(1<<20) != 0 {
		size = fmt.Sprintf("%d-byte", o.big)
	}
	scenarios := []struct {
		name string
		args []string
		want string
	}{
		{"one " + size + " text delta", []string{"--deltas", "1", "--delta", delta, "--delta-size", fmt.Sprint(o.big)}, tail.String()},
		{"a command printing " + size, []string{"--call-args", printArgs, "--reply", bigReply}, bigReply},
		{"a call's arguments of " + size, []string{"--call-args", bigArgs, "--reply", bigReply}, bigReply},
		// As OpenAI streams them: the text or arguments again in their
		// .done events, the item again in response.completed.
		{"one " + size + " answer, as OpenAI streams it", []string{"--openai", "--deltas", "1", "--delta", delta, "--delta-size", fmt.Sprint(o.big)}, tail.String()},
		{"a call's arguments of " + size + ", as OpenAI streams them", []string{"--openai", "--call-args", bigArgs, "--reply", bigReply}, bigReply},
	}
	var out []bigResult
	for _, sc := range scenarios {
		var measured []client
		for _, c := range clients {
			if c.name != ref {
				measured = append(measured, c)
			}
		}
		fmt.Fprintf(os.Stderr, "benchrun: big payload: %s (%d runs per client, and curl)\n", sc.name, o.runs)
		r := bigResult{name: sc.name, samples: map[string][]sample{}}
		cr := &curlRuns{c: curl, into: &r.curl}
		if strings.Contains(sc.name, "call") || strings.Contains(sc.name, "command") {
			cr.extra = 1 // the call's output comes back in a second request
		}
		if err := scenario(fakeBin, o.websocket, sc.args, homes, measured, o.runs, sc.want, r.samples, cr); err != nil {
			return nil, fmt.Errorf("%s: %w", sc.name, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// writeBigArgs writes exec_command arguments whose justification is n
// bytes of text (repeated, no character JSON escapes) into path, a piece
// at a time.
func writeBigArgs(path, text string, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	w.WriteString(`{"cmd":"true","justification":"`)
	for i := 0; i < n; i += len(text) {
		w.WriteString(text[:min(len(text), n-i)])
	}
	w.WriteString(`"}`)
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
