package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// arrival is one request the fake server reported: when its headers
// arrived and, once its handler returned, when it ended (zero until then).
type arrival struct {
	method, path string
	at, end      time.Time
}

// fakeServer is a running fakeresponses process and the requests it has
// reported on its standard output. Its methods are safe for concurrent
// use; Stop ends the process and the goroutine reading its output.
type fakeServer struct {
	URL  string
	cmd  *exec.Cmd
	read chan struct{} // closed when the output reader returns

	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every new line
	reqs    []arrival
	stderr  strings.Builder
}

// startServer runs bin with args and waits for the URL line.
func startServer(bin string, args ...string) (*fakeServer, error) {
	s := &fakeServer{read: make(chan struct{}), changed: make(chan struct{})}
	s.cmd = exec.Command(bin, args...)
	s.cmd.Stderr = &lockedWriter{mu: &s.mu, b: &s.stderr}
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(out)
	if !sc.Scan() {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
		return nil, fmt.Errorf("fake server printed no URL: %v %s", sc.Err(), s.stderr.String())
	}
	s.URL = strings.TrimSpace(sc.Text())
	go s.scan(sc)
	return s, nil
}

// scan records request and done lines until the output ends.
func (s *fakeServer) scan(sc *bufio.Scanner) {
	defer close(s.read)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 3 {
			continue
		}
		id, err1 := strconv.Atoi(f[1])
		ns, err2 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil || id < 1 {
			continue
		}
		s.mu.Lock()
		switch {
		case f[0] == "request" && len(f) >= 5 && id == len(s.reqs)+1:
			s.reqs = append(s.reqs, arrival{method: f[3], path: f[4], at: time.Unix(0, ns)})
		case f[0] == "done" && id <= len(s.reqs):
			s.reqs[id-1].end = time.Unix(0, ns)
		}
		close(s.changed)
		s.changed = make(chan struct{})
		s.mu.Unlock()
	}
}

// count returns how many requests have arrived so far.
func (s *fakeServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.reqs)
}

// requestsFrom waits until the requests numbered from..from+n-1 (0-based)
// have ended, at most timeout, and returns every request from 'from' on.
// A child has exited by the time this is called, so the server has at
// least begun to report its requests; the wait only covers the pipe.
func (s *fakeServer) requestsFrom(from, n int, timeout time.Duration) ([]arrival, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		ok := len(s.reqs) >= from+n
		for i := from; ok && i < from+n; i++ {
			ok = !s.reqs[i].end.IsZero()
		}
		got := append([]arrival(nil), s.reqs[min(from, len(s.reqs)):]...)
		ch := s.changed
		s.mu.Unlock()
		if ok {
			return got, nil
		}
		select {
		case <-ch:
		case <-s.read:
			return got, errors.New("fake server exited: " + s.stderrText())
		case <-deadline.C:
			return got, fmt.Errorf("fake server reported %d of %d requests in %v", len(got), n, timeout)
		}
	}
}

func (s *fakeServer) stderrText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

// Stop ends the server with SIGTERM and waits for it and its reader.
func (s *fakeServer) Stop() error {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	<-s.read // the pipe reaches EOF when the process exits
	err := s.cmd.Wait()
	if msg := s.stderrText(); msg != "" {
		fmt.Fprintf(os.Stderr, "benchrun: fake server stderr:\n%s", msg)
	}
	return err
}

// lockedWriter appends to b under mu.
type lockedWriter struct {
	mu *sync.Mutex
	b  *strings.Builder
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}
