package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/termtext"
)

// execPrinter renders session events for agent exec: the completed
// messages of each response that completed on stdout (a message completed
// by an attempt that then failed is left out: the retry answers), notices
// on stderr, and, when stderr is a terminal, the answer
// streaming live on stderr. Live text of a failed attempt is erased (or, when
// the terminal width is unknown, marked) before the retry, and live text is
// erased once its completed message is printed to a terminal stdout, so
// nothing appears twice.
type execPrinter struct {
	env  Env
	live bool
	// shown is the live text currently on the screen, since the last erase.
	shown strings.Builder
	// pending are the completed messages of the attempt in progress,
	// printed once its response completes.
	pending []string
}

func newExecPrinter(env Env) *execPrinter {
	return &execPrinter{env: env, live: env.StderrTTY}
}

func (p *execPrinter) handle(ev session.Event) {
	switch ev := ev.(type) {
	case session.TextDelta:
		if p.live {
			d := termtext.Sanitize(ev.Delta) // the model's text must not drive the terminal
			fmt.Fprint(p.env.Stderr, d)
			p.shown.WriteString(d)
		}
	case session.Retracted:
		if p.live && p.shown.Len() > 0 {
			if !p.erase() {
				fmt.Fprint(p.env.Stderr, " [partial answer discarded]\n")
			}
		}
	case session.MessageDone:
		if p.live && p.shown.Len() > 0 {
			if !p.env.StdoutTTY || !p.erase() {
				p.endLine()
			}
		}
		text := ev.Text
		if p.env.StdoutTTY {
			text = termtext.Sanitize(text)
		}
		p.pending = append(p.pending, text)
	case session.ResponseCompleted:
		for _, m := range p.pending {
			fmt.Fprintln(p.env.Stdout, m)
		}
		p.pending = nil
	case session.Retry:
		p.pending = nil // the attempt failed: its retry answers
		p.endLine()
		fmt.Fprintln(p.env.Stderr, p.safe(retryNotice(ev.Retry)))
	case session.Warning:
		p.endLine()
		fmt.Fprintln(p.env.Stderr, p.safe("warning: "+ev.Message))
	case session.ProviderSwitch:
		p.pending = nil // the failed provider's answer, if any, is not the final one
		p.endLine()
		fmt.Fprintln(p.env.Stderr, p.safe(ev.Notice()))
	case session.TurnCompleted:
		p.endLine()
		if t := ev.Total.TotalTokens; t > 0 {
			fmt.Fprintf(p.env.Stderr, "tokens used: %d\n", t)
		}
	}
}

// safe returns a line of text from outside (a server's error message) fit
// for stderr: sanitized when it is a terminal.
func (p *execPrinter) safe(line string) string {
	if p.env.StderrTTY {
		return termtext.Sanitize(line)
	}
	return line
}

// finish ends any unterminated live line.
func (p *execPrinter) finish() { p.endLine() }

// endLine keeps the live text on screen and moves to a fresh line.
func (p *execPrinter) endLine() {
	if p.shown.Len() == 0 {
		return
	}
	if !strings.HasSuffix(p.shown.String(), "\n") {
		fmt.Fprintln(p.env.Stderr)
	}
	p.shown.Reset()
}

// erase removes the live text from the terminal. It reports false when the
// terminal width is unknown and the text could not be located.
func (p *execPrinter) erase() bool {
	width := 0
	if p.env.Width != nil {
		width = p.env.Width()
	}
	if width <= 0 {
		return false
	}
	rows := screenRows(p.shown.String(), width)
	var b strings.Builder
	b.WriteString("\r")
	if rows > 1 {
		fmt.Fprintf(&b, "\x1b[%dA", rows-1)
	}
	b.WriteString("\x1b[J")
	fmt.Fprint(p.env.Stderr, b.String())
	p.shown.Reset()
	return true
}

// screenRows counts the terminal rows text occupies at width columns,
// counting the row the cursor is on.
func screenRows(text string, width int) int {
	rows := 0
	for _, line := range strings.Split(text, "\n") {
		n := ansi.StringWidth(line) // colours take no room
		rows += max(1, (n+width-1)/width)
	}
	return rows
}

// retryNotice is the one stderr line a retry gets, worded as the chat
// words it (session.RetryNotice), for example "Reconnecting... 2/5 in 0.4s
// (stream closed before response.completed)".
func retryNotice(r modelclient.Retry) string { return session.RetryNotice(r, r.Delay) }

// seconds formats a delay for people: "0.4s", "2s", "1m30s".
func seconds(d time.Duration) string {
	switch {
	case d < 10*time.Second:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
	case d < time.Minute:
		return strconv.Itoa(int(d.Round(time.Second).Seconds())) + "s"
	}
	return d.Round(time.Second).String()
}
