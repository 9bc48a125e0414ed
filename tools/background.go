package tools

import (
	"slices"
	"time"
)

// Background is a command the model started with exec_command that still
// runs: an exec session it keeps open (write_stdin), as /ps lists them.
type Background struct {
	// ID is the session id the model knows it by.
	ID int
	// Command is the command line the model asked for.
	Command string
	// Started is when it started.
	Started time.Time
}

// Running lists the exec sessions whose process still runs, oldest first.
// It is safe for concurrent use, also while a call runs.
func (e *Exec) Running() []Background {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []Background
	for _, p := range e.procs {
		select {
		case <-p.done:
			continue
		default:
		}
		cmd := ""
		if n := len(p.argv); n > 0 {
			cmd = p.argv[n-1]
		}
		out = append(out, Background{ID: p.id, Command: cmd, Started: p.start})
	}
	slices.SortFunc(out, func(a, b Background) int { return a.ID - b.ID })
	return out
}

// Stop ends the running exec session id, or every one when id is
// negative, and waits until each has exited; it returns how many it
// ended. A stopped session's next write_stdin finds it gone.
func (e *Exec) Stop(id int) int {
	e.mu.Lock()
	var stop []*proc
	for k, p := range e.procs {
		if id >= 0 && k != id {
			continue
		}
		select {
		case <-p.done:
			continue
		default:
		}
		stop = append(stop, p)
		delete(e.procs, k)
	}
	e.mu.Unlock()
	for _, p := range stop {
		p.kill()
		<-p.done
	}
	return len(stop)
}
