package tui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/spinner"
	"github.com/charmbracelet/x/ansi"

	"github.com/agentcli/agent/session"
)

// quitWindow is how soon a second Ctrl-C must follow the first to quit.
const quitWindow = time.Second

// statusLine is the line above the composer: what is happening now, and
// the model and context use. While a retry waits it says so, with the
// attempt, a countdown and how to stop it.
func (m *Model) statusLine() string {
	now := m.now()
	var parts []string
	switch {
	case m.turn != nil && m.turn.retry != nil:
		r := m.turn.retry
		parts = append(parts, m.spin(now)+session.RetryLabel(*r))
		if left := m.turn.retryAt.Sub(now); left > 0 && !m.turn.retryNow {
			parts = append(parts, "next try in "+countdown(left))
			if session.RetryNowAllowed(*r) {
				parts = append(parts, "ctrl+r to retry now")
			}
		} else {
			parts = append(parts, "trying now")
		}
		parts = append(parts, "esc to cancel")
	case m.turn != nil && m.turn.interrupted:
		parts = append(parts, m.spin(now)+"Interrupting…")
	case m.turn != nil:
		parts = append(parts, m.spin(now)+"Working "+elapsed(now.Sub(m.turn.started)), "esc to interrupt")
	case m.busy != nil:
		parts = append(parts, m.spin(now)+m.busy.label+" "+elapsed(now.Sub(m.busy.started)), "esc to cancel")
	case !m.resumeAt.IsZero():
		parts = append(parts, "Paused until "+m.resumeAt.Local().Format("15:04:05")+", continuing in "+countdown(m.resumeAt.Sub(now)),
			"ctrl+r to continue now", "esc to stop waiting")
	}
	if mode := m.vimMode(); mode != "" {
		parts = append(parts, mode)
	}
	if m.side != nil {
		parts = append(parts, "side conversation (esc returns)")
	}
	if m.planMode() {
		parts = append(parts, "plan mode (/plan to leave)")
	}
	if m.unsaved {
		parts = append(parts, "session not saved")
	}
	if !m.quitArmed.IsZero() && now.Sub(m.quitArmed) <= quitWindow {
		parts = append(parts, "ctrl-c again to quit")
	}
	if !m.follow {
		parts = append(parts, "scrolled · pgdn to follow")
	}
	return m.styledStatus(strings.Join(parts, " · "))
}

// styledStatus adds the model and the token count to line when they fit,
// and styles it. The styled line is cached: it changes about once a tick.
func (m *Model) styledStatus(line string) string {
	// The model and the token count come after what is happening, and only
	// when they fit.
	extras := []string{m.opts.Model, m.tokens()}
	if m.userStatus != nil && m.userStatus.text != "" {
		extras = []string{m.userStatus.text} // the /statusline command's line
	}
	for _, extra := range extras {
		switch {
		case extra == "":
		case line == "":
			line = extra
		case ansi.StringWidth(line)+3+ansi.StringWidth(extra) <= m.width:
			line += " · " + extra
		}
	}
	style := m.look.accent
	if m.turn == nil && m.busy == nil {
		style = m.look.dim
	}
	line = truncate(line, m.width)
	key := line + "\x00" + strconv.FormatBool(m.turn == nil && m.busy == nil)
	if key != m.statusIn {
		m.statusIn, m.statusOut = key, style.Render(line)
	}
	return m.statusOut
}

// spin is the spinner frame for now, followed by a space.
func (m *Model) spin(now time.Time) string {
	var start time.Time
	switch {
	case m.turn != nil:
		start = m.turn.started
	case m.busy != nil:
		start = m.busy.started
	}
	s := spinner.MiniDot
	i := int(now.Sub(start)/s.FPS) % len(s.Frames)
	return s.Frames[max(0, i)] + " "
}

// tokens is "used / window tokens" for the context of the last response.
func (m *Model) tokens() string {
	used := m.last.TotalTokens
	if used == 0 {
		return ""
	}
	s := compact(used) + " tokens"
	if m.opts.ContextWindow > 0 {
		s = compact(used) + " / " + compact(m.opts.ContextWindow) + " tokens"
	}
	if a := m.opts.AutoCompact; a > 0 {
		s += fmt.Sprintf(" (%d%% of auto-compact)", min(used*100/a, 100))
	}
	if m.cost != nil {
		s += fmt.Sprintf(" · $%.2f", *m.cost)
	}
	return s
}

// countdown formats the time left before a retry, rounded up to seconds.
func countdown(d time.Duration) string {
	s := int((d + time.Second - 1) / time.Second)
	if s < 60 {
		return strconv.Itoa(s) + "s"
	}
	return fmt.Sprintf("%dm%02ds", s/60, s%60)
}

// elapsed formats a running time: "12s", "3m04s".
func elapsed(d time.Duration) string {
	s := int(d / time.Second)
	if s < 60 {
		return strconv.Itoa(max(0, s)) + "s"
	}
	return fmt.Sprintf("%dm%02ds", s/60, s%60)
}

// compact formats a token count: 950, 12.3k, 272k, 1.2M.
func compact(n int64) string {
	switch {
	case n < 1000:
		return strconv.FormatInt(n, 10)
	case n < 100_000:
		return strings.TrimSuffix(strconv.FormatFloat(float64(n)/1000, 'f', 1, 64), ".0") + "k"
	case n < 1_000_000:
		return strconv.FormatInt(n/1000, 10) + "k"
	}
	return strings.TrimSuffix(strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64), ".0") + "M"
}
