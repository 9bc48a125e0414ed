package tui

import (
	"strconv"
	"sync"

	tea "github.com/charmbracelet/bubbletea"
)

// Notifier carries notices from other goroutines (an MCP server that
// failed to start, or stopped) into the chat's transcript, each shown
// once. Create one with [NewNotifier] and pass it as [Options].Notices;
// Post may be called before [Run] starts (the notices wait) and after it
// ends (they are dropped). It is safe for concurrent use.
type Notifier struct {
	mu     sync.Mutex
	queue  []postedNotice
	signal chan struct{} // has a token while queue is not empty
}

type postedNotice struct {
	text    string
	problem bool
}

// NewNotifier returns a Notifier with nothing posted.
func NewNotifier() *Notifier { return &Notifier{signal: make(chan struct{}, 1)} }

// Post queues text for the transcript: a warning when problem is set,
// otherwise an information line.
func (n *Notifier) Post(text string, problem bool) {
	n.mu.Lock()
	n.queue = append(n.queue, postedNotice{text: text, problem: problem})
	n.mu.Unlock()
	select {
	case n.signal <- struct{}{}:
	default:
	}
}

// noticesMsg delivers the notices posted since the last one.
type noticesMsg struct{ notices []postedNotice }

// next returns a command that delivers the posted notices, or nothing once
// the program ends. Update re-arms it after each delivery.
func (n *Notifier) next(quit <-chan struct{}) tea.Cmd {
	return func() tea.Msg {
		select {
		case <-n.signal:
		case <-quit:
			return nil
		}
		n.mu.Lock()
		q := n.queue
		n.queue = nil
		n.mu.Unlock()
		return noticesMsg{notices: q}
	}
}

// listenNotices starts delivering posted notices, if there is a Notifier.
func (m *Model) listenNotices() tea.Cmd {
	if m.opts.Notices == nil {
		return nil
	}
	return m.opts.Notices.next(m.jobs.quit)
}

// showNotices adds posted notices to the transcript and listens for more.
func (m *Model) showNotices(msg noticesMsg) tea.Cmd {
	for _, p := range msg.notices {
		level := levelInfo
		if p.problem {
			level = levelWarn
		}
		m.tr.add(&notice{level: level, text: clean(p.text)})
	}
	return m.listenNotices()
}

// lexerMissing is the chat's one notice that code blocks are drawn plain:
// the highlighter could not start its lexer (err says why).
func lexerMissing(err error) string {
	return "code blocks are drawn without colour: " + err.Error() + "; `agent doctor` lists agent's companion programs"
}

// MCPServer is one MCP server as /mcp lists it.
type MCPServer struct {
	Name string
	// State is "starting", "ready", "failed" or "stopped".
	State string
	// Tools are the model-facing names of its tools (when ready).
	Tools []string
	// Err says why it failed or stopped.
	Err string
}

// showMCP lists the MCP servers, their state, tools and prompts.
func (m *Model) showMCP() {
	f := m.opts.Commands.MCP
	if f == nil {
		m.info("MCP servers: none configured (add one with `agent mcp add NAME -- COMMAND`)", nil)
		return
	}
	servers := f()
	if len(servers) == 0 {
		m.info("MCP servers: none configured (add one with `agent mcp add NAME -- COMMAND`)", nil)
		return
	}
	prompts := map[string][]string{}
	if f := m.opts.Commands.MCPPrompts; f != nil {
		for _, p := range f() {
			prompts[p.Server] = append(prompts[p.Server], "/"+p.Name)
		}
	}
	var body []string
	for _, s := range servers {
		line := "  " + clean(s.Name) + ": " + clean(s.State)
		switch {
		case s.State == "ready":
			line += " · " + plural(len(s.Tools), "tool")
			if n := len(prompts[s.Name]); n > 0 {
				line += " · " + plural(n, "prompt")
			}
		case s.Err != "":
			line += " · " + clean(s.Err)
		}
		body = append(body, line)
		for _, t := range s.Tools {
			body = append(body, "    "+clean(t))
		}
		for _, p := range prompts[s.Name] {
			body = append(body, "    "+clean(p)+" (prompt)")
		}
	}
	m.info("MCP servers", body)
}

// plural is "1 tool", "3 tools".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
