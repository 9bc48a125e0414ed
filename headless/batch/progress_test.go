package batch

import (
	"bytes"
	"testing"
	"time"
)

func TestBatchProgressETA(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var buf bytes.Buffer
	p := NewProgress(&buf, true, 10, func() time.Time { return now })
	p.Started("a")
	p.Started("b")
	p.Retrying("b", true)
	now = now.Add(30 * time.Second)
	p.Finished(Result{ID: "a", Status: StatusCompleted})
	p.Finished(Result{ID: "x", Status: StatusCompleted})
	if got, want := p.status(), "batch 2/10 done · 0 failed · 1 retrying · ETA 2m0s"; got != want {
		t.Errorf("status() = %q; want %q", got, want)
	}
}

// TestProgressPipe: on a pipe, one plain line per result, no terminal
// codes; a result's error is printed as it came.
func TestProgressPipe(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress(&buf, false, 2, time.Now)
	p.Started("a")
	p.Retrying("a", true)
	p.Println("agent: a notice")
	p.Finished(Result{ID: "a", Status: StatusCompleted, Retries: 1})
	p.Started("b")
	p.Finished(Result{ID: "b", Status: StatusFailed, ExitClass: 1, Error: "bad \x1b[2Jfield"})
	p.End()
	want := "agent: a notice\n" +
		"agent: batch [1/2] a completed after 1 retries\n" +
		"agent: batch [2/2] b failed (exit 1): bad \x1b[2Jfield\n"
	if buf.String() != want {
		t.Errorf("output:\n%q\nwant:\n%q", buf.String(), want)
	}
}

// TestProgressTerminal: on a terminal, one status line redrawn in place;
// failures and notices are printed above it (their text sanitized, so a
// server's message cannot drive the terminal), completions are counted
// in it only, and End leaves it on a line of its own.
func TestProgressTerminal(t *testing.T) {
	var buf bytes.Buffer
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := NewProgress(&buf, true, 2, func() time.Time { return now })
	p.Started("a")
	p.Retrying("a", true)
	p.Retrying("a", true) // no change: no redraw
	now = now.Add(40 * time.Second)
	p.Finished(Result{ID: "a", Status: StatusCompleted, Retries: 1})
	p.Started("b")
	p.Println("agent: notice \x1b]0;title\x07")
	p.Finished(Result{ID: "b", Status: StatusFailed, ExitClass: 1, Error: "bad\x1b]0;pwned\x07 \x1b[2Jfield"})
	p.End()
	want := "\r\x1b[Kbatch 0/2 done · 0 failed · 0 retrying" +
		"\r\x1b[Kbatch 0/2 done · 0 failed · 1 retrying" +
		"\r\x1b[Kbatch 1/2 done · 0 failed · 0 retrying · ETA 40s" +
		"\r\x1b[Kbatch 1/2 done · 0 failed · 0 retrying · ETA 40s" +
		"\r\x1b[Kagent: notice \n" +
		"\r\x1b[Kbatch 1/2 done · 0 failed · 0 retrying · ETA 40s" +
		"\r\x1b[Kagent: batch [2/2] b failed (exit 1): bad field\n" +
		"\r\x1b[Kbatch 2/2 done · 1 failed · 0 retrying\n"
	if buf.String() != want {
		t.Errorf("output:\n%q\nwant:\n%q", buf.String(), want)
	}
}
