package batch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/agentcli/agent/headless/execprint"
	"github.com/agentcli/agent/internal/redact"
)

// Result statuses of a prompt.
const (
	StatusCompleted   = "completed"
	StatusFailed      = "failed"
	StatusInterrupted = "interrupted"
)

// Result is one line of the results (docs/exec-batch.md).
type Result struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	// ExitClass is the exit code `agent exec` would have given the
	// prompt alone.
	ExitClass    int              `json:"exit_class"`
	FinalMessage string           `json:"final_message"`
	Usage        *execprint.Usage `json:"usage"`
	Retries      int              `json:"retries"`
	SessionID    string           `json:"session_id,omitempty"`
	Error        string           `json:"error,omitempty"`
}

// Sink writes result lines: each is one Write (under a lock, and with
// O_APPEND for a file), so concurrent jobs never interleave and a crash
// never leaves half a line. A Sink is safe for concurrent use.
type Sink struct {
	mu  sync.Mutex
	w   io.Writer
	f   *os.File // the --results file; nil for stdout
	err error    // the first write error; later writes fail with it
	// secrets are masked in every line.
	secrets *redact.Set
}

// NewSink returns a sink writing to w (standard output, which masks
// secrets itself).
func NewSink(w io.Writer) *Sink { return &Sink{w: w} }

// OpenResults opens the results file path for appending, masking
// secrets in every line, and returns the ids it records as completed. A
// last line cut short by a crash is ended with a newline first, so the
// next result starts on a line of its own; lines that are not results are
// reported on warn and ignored. A file past the bounds of [ReadFile] is
// refused. The caller must Close the sink.
func OpenResults(path string, warn io.Writer, secrets *redact.Set) (*Sink, map[string]bool, error) {
	return openResults(path, warn, secrets, defaultBounds())
}

// openResults is OpenResults within b.
func openResults(path string, warn io.Writer, secrets *redact.Set, b bounds) (*Sink, map[string]bool, error) {
	completed := map[string]bool{}
	terminated, err := eachResult(path, b, warn, func(_ int, _ []byte, r Result) {
		if r.Status == StatusCompleted {
			completed[r.ID] = true
		}
	})
	if errors.Is(err, os.ErrNotExist) {
		terminated, err = true, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("--results: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("--results: %w", err)
	}
	if !terminated {
		if _, err := f.Write([]byte("\n")); err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("--results: %w", err)
		}
	}
	return &Sink{w: f, f: f, secrets: secrets}, completed, nil
}

// eachResult calls fn with each result line of the results file at path
// (its number, the line, the result), within b, reporting on warn the
// lines that are not results; terminated is as [readLines] says.
func eachResult(path string, b bounds, warn io.Writer, fn func(n int, line []byte, r Result)) (terminated bool, err error) {
	return readLines(path, b, func(n int, line []byte) {
		if len(bytes.TrimSpace(line)) == 0 {
			return
		}
		var r Result
		if err := json.Unmarshal(line, &r); err != nil || r.ID == "" {
			fmt.Fprintf(warn, "agent: %s:%d: not a result line; ignored\n", path, n)
			return
		}
		fn(n, line, r)
	})
}

// Write appends r as one line, synced to disk for a file. After a failed
// write every Write fails with the first error.
func (s *Sink) Write(r Result) error {
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	line = append([]byte(s.secrets.String(string(line))), '\n')
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	if _, err := s.w.Write(line); err != nil {
		s.err = fmt.Errorf("write results: %w", err)
		return s.err
	}
	if s.f != nil {
		if err := s.f.Sync(); err != nil {
			s.err = fmt.Errorf("write results: %w", err)
		}
	}
	return s.err
}

// Err returns the first write error.
func (s *Sink) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Close closes the results file, if any.
func (s *Sink) Close() error {
	if s.f == nil {
		return nil
	}
	return s.f.Close()
}

// Resume opens the results file path ([OpenResults]) and returns its sink
// and the items not recorded there as completed, in their order; how many
// it skips is said on warn. The caller must Close the sink.
func Resume(path string, items []Item, warn io.Writer, secrets *redact.Set) (*Sink, []Item, error) {
	sink, completed, err := OpenResults(path, warn, secrets)
	if err != nil {
		return nil, nil, err
	}
	var todo []Item
	for _, it := range items {
		if !completed[it.ID] {
			todo = append(todo, it)
		}
	}
	if n := len(items) - len(todo); n > 0 {
		fmt.Fprintf(warn, "agent: batch: skipping %d prompts already completed in %s\n", n, path)
	}
	return sink, todo, nil
}
