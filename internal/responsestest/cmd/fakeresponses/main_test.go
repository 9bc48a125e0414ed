package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcli/agent/internal/syncbuf"
)

func TestServeDeltasAndLog(t *testing.T) {
	c, err := parseFlags([]string{"--deltas", "3", "--delta", "lorem ", "--repeat", "2"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr syncbuf.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- serve(ctx, c, ln, &stdout, &stderr) }()
	url := "http://" + ln.Addr().String() + "/v1"

	resp, err := http.Post(url+"/responses", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if n, m := strings.Count(string(body), "event: response.output_text.delta\n"), strings.Count(string(body), `"delta":"lorem "`); n != 3 || m != 3 {
		t.Errorf("%d deltas in the stream; want 3:\n%s", n, body)
	}
	if !strings.Contains(string(body), `"text":"lorem lorem lorem "`) || !strings.Contains(string(body), "event: response.completed\n") {
		t.Errorf("stream lacks the full message or response.completed:\n%s", body)
	}

	cancel()
	if err := <-done; err != nil { // Shutdown waited for the handler's log line
		t.Errorf("serve = %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if len(lines) != 3 || lines[0] != url {
		t.Fatalf("stdout = %q; want the URL %s, then two log lines", lines, url)
	}
	for i, want := range []string{"request 1 ", "done 1 "} {
		f := strings.Fields(lines[i+1])
		if !strings.HasPrefix(lines[i+1], want) || len(f) < 3 {
			t.Errorf("log line %d = %q; want %q...", i+1, lines[i+1], want)
		}
	}
	if !strings.HasSuffix(lines[1], " POST /v1/responses") {
		t.Errorf("request line = %q; want method and path", lines[1])
	}
	if stderr.String() != "" {
		t.Errorf("stderr = %q", stderr.String())
	}
}

func TestParseFlagsRejects(t *testing.T) {
	for _, args := range [][]string{{"--deltas", "-1"}, {"--repeat", "0"}, {"--delta", ""}, {"--delta-size", "-1"}, {"--call-args", "/nonexistent"}, {"extra"}} {
		if _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("parseFlags(%q) = nil error", args)
		}
	}
}

// TestBigDeltaAndCallScenario: --delta-size makes one delta that many
// bytes; --call-args answers every first request of a scenario with an
// exec_command call carrying the file's arguments, the second with the
// reply, and again.
func TestBigDeltaAndCallScenario(t *testing.T) {
	args := filepath.Join(t.TempDir(), "args.json")
	if err := os.WriteFile(args, []byte(`{"cmd":"echo hi"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := parseFlags([]string{"--deltas", "1", "--delta", "ab", "--delta-size", "5", "--call-args", args, "--repeat", "2"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, c, ln, io.Discard, io.Discard) }()
	defer func() { cancel(); <-done }()
	url := "http://" + ln.Addr().String() + "/v1/responses"
	for i, want := range []string{`"arguments":"{\"cmd\":\"echo hi\"}"`, `"delta":"ababa"`, `"name":"exec_command"`, `"text":"ababa"`} {
		resp, err := http.Post(url, "application/json", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(body), want) {
			t.Errorf("request %d: the stream lacks %s:\n%s", i+1, want, body)
		}
	}
}
