package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// client is a program under test: how to run one turn of it against the
// fake server whose config has been written into its home.
type client struct {
	name string
	bin  string
	args []string
	env  []string
	dir  string // working directory
}

// sample is what one run of a client cost.
type sample struct {
	firstRequest time.Duration // spawn to the first request's arrival
	wall         time.Duration // spawn to exit
	maxRSS       int64         // bytes, from wait4's rusage
	user, sys    time.Duration
	requests     int
}

func (s sample) cpu() time.Duration { return s.user + s.sys }

// runOnce spawns c, waits for it, and checks that it exited 0, made one
// request to .../responses and printed want on stdout.
func runOnce(c client, srv *fakeServer, want string) (sample, error) {
	cmd := exec.Command(c.bin, c.args...)
	cmd.Env = c.env
	cmd.Dir = c.dir
	stdout := &tailWriter{max: 4096}
	stderr := &tailWriter{max: 4096}
	cmd.Stdout, cmd.Stderr = stdout, stderr // pipes drained by exec's goroutines
	from := srv.count()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return sample{}, err
	}
	err := cmd.Wait()
	wall := time.Since(start)
	if err != nil {
		return sample{}, fmt.Errorf("%s: %v\nstderr tail:\n%s", c.name, err, stderr.tail())
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return sample{}, fmt.Errorf("%s: no rusage", c.name)
	}
	reqs, err := srv.requestsFrom(from, 1, 5*time.Second)
	if err != nil {
		return sample{}, fmt.Errorf("%s: %v", c.name, err)
	}
	s := sample{
		firstRequest: reqs[0].at.Sub(start),
		wall:         wall,
		maxRSS:       ru.Maxrss * 1024, // kilobytes on Linux
		user:         time.Duration(ru.Utime.Nano()),
		sys:          time.Duration(ru.Stime.Nano()),
		requests:     len(reqs),
	}
	if got := stdout.tail(); !bytes.Contains(got, []byte(want)) {
		return s, fmt.Errorf("%s: stdout (%d bytes) ends %q; want it to contain %q\nstderr tail:\n%s",
			c.name, stdout.n, got, want, stderr.tail())
	}
	return s, nil
}

// tailWriter counts what is written and keeps the last max bytes. It is
// safe for concurrent use.
type tailWriter struct {
	mu  sync.Mutex
	max int
	n   int64
	buf []byte
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n += int64(len(p))
	w.buf = append(w.buf, p...)
	if len(w.buf) > w.max {
		w.buf = append(w.buf[:0], w.buf[len(w.buf)-w.max:]...)
	}
	return len(p), nil
}

func (w *tailWriter) tail() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return bytes.Clone(w.buf)
}
