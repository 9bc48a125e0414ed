package batch

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/agentcli/agent/internal/termtext"
	"github.com/agentcli/agent/session"
)

// Progress reports a batch on stderr: on a terminal, one status line
// redrawn in place (done, failed, retrying, total, ETA) with failures
// printed above it; otherwise one plain line per result. A Progress is
// safe for concurrent use.
type Progress struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	now   func() time.Time
	start time.Time
	total int
	done  int
	fail  int             // results that did not complete
	jobs  map[string]bool // running prompts: retrying or not
	drawn bool
}

// NewProgress returns the report of a batch of total prompts on w; tty
// says w is a terminal, now reads the clock the ETA is measured on.
func NewProgress(w io.Writer, tty bool, total int, now func() time.Time) *Progress {
	return &Progress{w: w, tty: tty, now: now, start: now(), total: total, jobs: map[string]bool{}}
}

// Started records that prompt id is running.
func (p *Progress) Started(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.jobs[id] = false
	p.redraw()
}

// Retrying records whether prompt id is in a retry now.
func (p *Progress) Retrying(id string, on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if was, ok := p.jobs[id]; !ok || was == on {
		return
	}
	p.jobs[id] = on
	p.redraw()
}

// Finished reports the result of a prompt.
func (p *Progress) Finished(r Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.jobs, r.ID)
	p.done++
	if r.Status != StatusCompleted {
		p.fail++
	}
	line := fmt.Sprintf("agent: batch [%d/%d] %s %s", p.done, p.total, r.ID, r.Status)
	if r.Status != StatusCompleted {
		line += fmt.Sprintf(" (exit %d): %s", r.ExitClass, r.Error)
	} else if r.Retries > 0 {
		line += fmt.Sprintf(" after %d retries", r.Retries)
	}
	if !p.tty || r.Status != StatusCompleted {
		p.printLocked(line)
	}
	p.redraw()
}

// Println prints line above the status line.
func (p *Progress) Println(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.printLocked(line)
	p.redraw()
}

// printLocked prints line, which may carry text from outside (a server's
// error message): on a terminal it is sanitized, as exec's errors are.
func (p *Progress) printLocked(line string) {
	if p.tty {
		line = termtext.Sanitize(line)
	}
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
	fmt.Fprintln(p.w, line)
}

// redraw rewrites the status line on a terminal.
func (p *Progress) redraw() {
	if !p.tty {
		return
	}
	fmt.Fprint(p.w, "\r\x1b[K"+p.status())
	p.drawn = true
}

// status is the terminal status line, for example
// "batch 12/50 done · 1 failed · 2 retrying · ETA 1m20s".
func (p *Progress) status() string {
	retrying := 0
	for _, on := range p.jobs {
		if on {
			retrying++
		}
	}
	s := fmt.Sprintf("batch %d/%d done · %d failed · %d retrying", p.done, p.total, p.fail, retrying)
	if p.done > 0 && p.done < p.total {
		elapsed := p.now().Sub(p.start)
		s += " · ETA " + session.RetryDelay(elapsed*time.Duration(p.total-p.done)/time.Duration(p.done))
	}
	return s
}

// End leaves the final status line on its own line.
func (p *Progress) End() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}
