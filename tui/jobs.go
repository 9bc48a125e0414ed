package tui

import (
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// jobs owns the goroutines the chat's commands run on. bubbletea does not
// wait for running commands when the program ends, so commands that can
// outlive a frame (a turn, a hook, git) register here, and Run stops the
// jobs: it closes quit, then waits for every registered command to return.
// It is safe for concurrent use.
type jobs struct {
	// quit is closed when the program ends; blocking commands select on it.
	quit   chan struct{}
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

func newJobs() *jobs { return &jobs{quit: make(chan struct{})} }

// cmd returns a command that runs f as an owned job; once the jobs are
// stopped, f is skipped.
func (j *jobs) cmd(f func() tea.Msg) tea.Cmd {
	return func() tea.Msg {
		j.mu.Lock()
		if j.closed {
			j.mu.Unlock()
			return nil
		}
		j.wg.Add(1)
		j.mu.Unlock()
		defer j.wg.Done()
		return f()
	}
}

// stop closes quit and waits for the running jobs. The caller must have
// cancelled whatever the jobs block on (the turn contexts) first.
func (j *jobs) stop() {
	j.mu.Lock()
	if !j.closed {
		j.closed = true
		close(j.quit)
	}
	j.mu.Unlock()
	j.wg.Wait()
}

// receive returns a command that delivers the next message on ch, or nothing
// once the program ends.
func (j *jobs) receive(ch <-chan tea.Msg) tea.Cmd {
	quit := j.quit
	return func() tea.Msg {
		select {
		case msg := <-ch:
			return msg
		case <-quit:
			return nil
		}
	}
}

// tickMsg asks for a redraw of the time-dependent parts (spinner, elapsed,
// retry countdown). It carries no time: the model reads its clock.
type tickMsg struct{}

// tickInterval is how often a running turn redraws.
const tickInterval = 100 * time.Millisecond

// tick returns a command that sends a tickMsg after d, or nothing once the
// program ends.
func (j *jobs) tick(d time.Duration) tea.Cmd { return j.after(d, tickMsg{}) }

// after returns a command that sends msg after d, or nothing once the
// program ends.
func (j *jobs) after(d time.Duration, msg tea.Msg) tea.Cmd {
	quit := j.quit
	return func() tea.Msg {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return msg
		case <-quit:
			return nil
		}
	}
}
