package main

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/internal/syncbuf"
)

// TestE2EMachineWideCooldown: four agent processes share an AGENT_HOME.
// The first is answered 429 with Retry-After: 2; the other three start
// only after it has said it is waiting, and none of their requests (nor the
// first one's retry) reaches the server before those 2 s are up: a delay
// one process was given holds back every process on the machine.
func TestE2EMachineWideCooldown(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.New(rt.Script{
		rt.Status(http.StatusTooManyRequests, "Retry-After", "2"),
		rt.Reply("r1", "m1", "one"), rt.Reply("r2", "m2", "two"),
		rt.Reply("r3", "m3", "three"), rt.Reply("r4", "m4", "four"),
	}, rt.Options{OnUnexpected: func(msg string) { t.Errorf("%s", msg) }})
	t.Cleanup(srv.Close)
	var mu sync.Mutex
	var arrivals []time.Time
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		arrivals = append(arrivals, time.Now())
		mu.Unlock()
		srv.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	home := writeConfig(t, front.URL+"/v1", "[auto_continue]\nenabled = false\n")

	first, _, _ := agentCmd(t, bin, home, "exec", "first")
	pr, pw := io.Pipe()
	first.Stderr = pw
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	firstDone := make(chan error, 1)
	go func() { firstDone <- first.Wait(); pw.Close() }()
	var firstErr strings.Builder
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		firstErr.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), "Reconnecting") || strings.Contains(sc.Text(), "etry") {
			break
		}
	}
	go io.Copy(io.Discard, pr)
	// The notice comes just before the wait that writes the cooldown: wait
	// for the file itself (inotify, no polling).
	if err := waitForFile(filepath.Join(home, "retrygate", "fake"), "cooldown"); err != nil {
		t.Fatalf("no machine-wide cooldown after the 429: %v\nstderr so far:\n%s", err, firstErr.String())
	}

	var wg sync.WaitGroup
	outs := make([]*syncbuf.Buffer, 3)
	for i := range 3 {
		cmd, stdout, stderr := agentCmd(t, bin, home, "exec", "other")
		outs[i] = stdout
		wg.Go(func() {
			if err := cmd.Run(); err != nil {
				t.Errorf("agent exec #%d: %v\nstderr:\n%s", i+2, err, stderr)
			}
		})
	}
	wg.Wait()
	if err := <-firstDone; err != nil {
		t.Errorf("first agent exec: %v\nstderr:\n%s", err, firstErr.String())
	}

	mu.Lock()
	defer mu.Unlock()
	if len(arrivals) != 5 {
		t.Fatalf("%d requests reached the server; want 5 (one 429, its retry, three others)", len(arrivals))
	}
	for i, at := range arrivals[1:] {
		if d := at.Sub(arrivals[0]); d < 2*time.Second {
			t.Errorf("request %d arrived %v after the 429; want none before the server's 2 s", i+2, d)
		}
	}
	for i, out := range outs {
		if out.String() == "" {
			t.Errorf("process %d printed no answer", i+2)
		}
	}
}

// waitForFile returns once dir/name exists, watching dir with inotify.
func waitForFile(dir, name string) error {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if _, err := unix.InotifyAddWatch(fd, dir, unix.IN_MOVED_TO|unix.IN_CREATE); err != nil {
		return err
	}
	buf := make([]byte, 4096)
	for {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return nil
		}
		if _, err := unix.Read(fd, buf); err != nil && err != unix.EINTR {
			return err
		}
	}
}
