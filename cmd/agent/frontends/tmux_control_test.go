package frontends

import (
	"bufio"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// tmuxControl is a tmux control-mode client (tmux -C) attached to a chat
// test's session: the screen captures and key presses of the test go over
// its pipe, where each used to start a tmux process (about 10 ms of CPU on
// a two-core VM, and a chat test makes hundreds). Its %output
// notifications say when the pane printed, so a wait for the screen
// captures it after output instead of on a timer.
type tmuxControl struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	mu      sync.Mutex // one command at a time: replies come in order
	replies chan tmuxReply
	changed chan struct{} // a token: the pane printed since the last wait
	done    chan struct{} // closed when the client has ended
}

type tmuxReply struct {
	out    string
	failed bool
}

// attachControl attaches a control client to session e2e of the tmux
// server at sock.
func attachControl(sock string) (*tmuxControl, error) {
	cmd := exec.Command("tmux", "-S", sock, "-C", "attach-session", "-t", "e2e")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &tmuxControl{cmd: cmd, in: in, replies: make(chan tmuxReply, 1), changed: make(chan struct{}, 1), done: make(chan struct{})}
	go c.read(out)
	return c, nil
}

// read parses the client's output: the replies to this client's commands
// (%begin ... %end or %error, flags 1) and the pane's %output.
func (c *tmuxControl) read(r io.Reader) {
	defer close(c.done)
	br := bufio.NewReaderSize(r, 64<<10)
	var block []string
	end := "" // the %end or %error line that closes the open block, after its word
	mine := false
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case end != "" && (line == "%end "+end || line == "%error "+end):
			if mine {
				out := ""
				if len(block) > 0 {
					out = strings.Join(block, "\n") + "\n"
				}
				c.replies <- tmuxReply{out: out, failed: strings.HasPrefix(line, "%error")}
			}
			block, end = nil, ""
		case end != "":
			block = append(block, line)
		case strings.HasPrefix(line, "%begin "):
			end = strings.TrimPrefix(line, "%begin ") // time, number, flags
			mine = strings.HasSuffix(end, " 1")
		case strings.HasPrefix(line, "%output "):
			select {
			case c.changed <- struct{}{}:
			default:
			}
		}
	}
}

// run runs one command line of tmux's command language and returns what
// it printed; ok is false when tmux refused it or the client has ended
// (the session is gone).
func (c *tmuxControl) run(line string) (out string, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		return "", false
	}
	select {
	case r := <-c.replies:
		return r.out, !r.failed
	case <-c.done:
		select {
		case r := <-c.replies:
			return r.out, !r.failed
		default:
			return "", false
		}
	}
}

// waitChange returns when the pane printed since the last call, or after
// d.
func (c *tmuxControl) waitChange(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-c.changed:
	case <-c.done:
		<-t.C // the session is gone: no output will come; still bounded
	case <-t.C:
	}
}

// close waits for the client to end (after the server was killed) and
// releases it.
func (c *tmuxControl) close() {
	_ = c.in.Close()
	_ = c.cmd.Wait()
}

// tmuxWords quotes args as words of tmux's command language: in single
// quotes, each quote inside closed, escaped and reopened, as in sh. ok is
// false when an argument holds a control character, which a command line
// cannot carry.
func tmuxWords(args []string) (string, bool) {
	var b strings.Builder
	for i, a := range args {
		if strings.ContainsFunc(a, func(r rune) bool { return r < ' ' || r == 0x7f }) {
			return "", false
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("'" + strings.ReplaceAll(a, "'", `'\''`) + "'")
	}
	return b.String(), true
}
