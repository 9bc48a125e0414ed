// Package hooks is Codex's lifecycle hooks (Codex CLI 0.171): command
// hooks declared in hooks.json beside a config layer or inline in its
// [hooks] table, trusted by the exact hash of their declaration, run on
// the events of a session with the event as JSON on stdin. Their answer
// (exit code, stderr, JSON on stdout) decides, adds context or changes a
// tool's input, as Codex (and Claude Code's contract, where Codex follows
// it) reads it.
//
// The package knows no session: the engine builds each event's fields
// and applies the [Outcome]; [Discover] reads the declarations, [Set.Run]
// runs the matching hooks concurrently.
package hooks

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// Event is a hook event name as hooks.json spells it.
type Event string

// The events of Codex 0.171, every one of which agent fires:
// SubagentStart and SubagentStop in a subagent's session (spawn_agent),
// in place of SessionStart and Stop.
const (
	PreToolUse        Event = "PreToolUse"
	PermissionRequest Event = "PermissionRequest"
	PostToolUse       Event = "PostToolUse"
	PreCompact        Event = "PreCompact"
	PostCompact       Event = "PostCompact"
	SessionStart      Event = "SessionStart"
	SessionEnd        Event = "SessionEnd"
	UserPromptSubmit  Event = "UserPromptSubmit"
	SubagentStart     Event = "SubagentStart"
	SubagentStop      Event = "SubagentStop"
	Stop              Event = "Stop"
)

// Events are every event name Codex 0.171 reads, in its order.
var Events = []Event{PreToolUse, PermissionRequest, PostToolUse, PreCompact, PostCompact,
	SessionStart, SessionEnd, UserPromptSubmit, SubagentStart, SubagentStop, Stop}

// label is the event's snake_case name in trust keys and hashes.
func (e Event) label() string {
	var b strings.Builder
	for i, r := range e {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// matches reports whether the event's matcher means anything: Codex drops
// the matcher of UserPromptSubmit and Stop (from the hash too).
func (e Event) matches() bool { return e != UserPromptSubmit && e != Stop }

// Trust is where a hook stands with the user.
type Trust string

// The trust states, Codex's HookTrustStatus.
const (
	Trusted   Trust = "trusted"
	Untrusted Trust = "untrusted"
	// Modified: a hash was trusted, but the hook changed since.
	Modified Trust = "modified"
)

// Source names the kind of layer a hook came from.
type Source string

// The layers hooks are read from.
const (
	SourceUser    Source = "user"    // the home: hooks.json, config.toml, a profile file
	SourceProject Source = "project" // a trusted project's .codex/
	SourceFlags   Source = "session-flags"
)

// Hook is one command hook as declared.
type Hook struct {
	Event Event
	// Matcher is the group's matcher ("" and "*" match everything); nil
	// when the group has none or the event ignores it.
	Matcher *string
	Command string
	// Timeout bounds a run (Codex: 600 s unless set; SessionEnd 1..3 s).
	Timeout       time.Duration
	Async         bool
	StatusMessage string
	// Path is the file declaring it (hooks.json or a config.toml).
	Path   string
	Source Source
	// Key is Codex's key of the hook's state in [hooks.state]:
	// "<path>:<event_label>:<group>:<handler>".
	Key string
	// Hash is Codex's hash of the declaration ("sha256:<hex>"), which
	// trust names.
	Hash    string
	Trust   Trust
	Enabled bool
	// Order is the hook's place among every hook declared (Codex's
	// display order).
	Order int

	re *regexp.Regexp // the matcher as a regexp, when it is one
}

// Runs reports whether the hook runs: enabled, and trusted or bypassing
// trust.
func (h Hook) runs(bypass bool) bool { return h.Enabled && (bypass || h.Trust == Trusted) }

// Layer is one user-controlled config file's [hooks] table: its hooks and
// its [hooks.state].
type Layer struct {
	// Path is the file ("<session-flags>/config.toml" for -c).
	Path   string
	Source Source
	// Table is the file's hooks table as parsed (nil: none).
	Table map[string]any
}

// Sources are where hooks are declared.
type Sources struct {
	// Home is the agent home: home/hooks.json is read.
	Home string
	// Config are the [hooks] tables of the home's config.toml, the profile
	// file and -c overrides, in increasing precedence; their
	// [hooks.state] tables hold the trust.
	Config []Layer
	// ProjectDirs are the .codex directories of the trusted project (root
	// first); their hooks.json and config.toml's [hooks] are read. An
	// untrusted project passes none.
	ProjectDirs []string
	// BypassTrust runs enabled hooks whose hash is not trusted
	// (--dangerously-bypass-hook-trust).
	BypassTrust bool
}

// Set is the hooks of a session.
type Set struct {
	// All are every hook declared, trusted or not, in declaration order.
	All []Hook
	// Warnings are the problems found reading them: each names the file.
	Warnings []string
	bypass   bool
}

// Bypass reports whether the set runs untrusted hooks.
func (s *Set) Bypass() bool { return s != nil && s.bypass }

// Untrusted returns the enabled hooks that do not run for want of trust.
func (s *Set) Untrusted() []Hook {
	if s == nil || s.bypass {
		return nil
	}
	var out []Hook
	for _, h := range s.All {
		if h.Enabled && h.Trust != Trusted {
			out = append(out, h)
		}
	}
	return out
}

// Has reports whether some hook of ev would run.
func (s *Set) Has(ev Event) bool {
	if s == nil {
		return false
	}
	return slices.ContainsFunc(s.All, func(h Hook) bool { return h.Event == ev && h.runs(s.bypass) })
}

// Discover reads the hooks of src. A file that cannot be read or parsed,
// an unknown event, a bad matcher or an empty command is a warning naming
// the file, and the rest still load.
func Discover(src Sources) *Set {
	s := &Set{bypass: src.BypassTrust}
	states := map[string]state{}
	for _, l := range src.Config {
		readStates(l.Table, states)
	}
	if src.Home != "" {
		s.readJSON(filepath.Join(src.Home, "hooks.json"), SourceUser, states)
	}
	for _, l := range src.Config {
		s.readTOML(l.Path, l.Source, l.Table, states)
	}
	for _, dir := range src.ProjectDirs {
		s.readJSON(filepath.Join(dir, "hooks.json"), SourceProject, states)
		path := filepath.Join(dir, "config.toml")
		data, err := os.ReadFile(path)
		if err != nil {
			if !os.IsNotExist(err) {
				s.warn("failed to read hooks config %s: %v", path, err)
			}
			continue
		}
		var t map[string]any
		if _, err := toml.Decode(string(data), &t); err != nil {
			s.warn("failed to parse TOML hooks in %s: %v", path, err)
			continue
		}
		if h, ok := t["hooks"].(map[string]any); ok {
			s.readTOML(path, SourceProject, h, states)
		}
	}
	return s
}

func (s *Set) warn(format string, args ...any) {
	s.Warnings = append(s.Warnings, fmt.Sprintf(format, args...))
}

// state is one [hooks.state."<key>"] entry.
type state struct {
	enabled *bool
	hash    string
}

// readStates merges t's [hooks.state] into states, field by field, later
// layers winning (Codex's hook_states_from_stack).
func readStates(t map[string]any, states map[string]state) {
	st, _ := t["state"].(map[string]any)
	for key, v := range st {
		m, ok := v.(map[string]any)
		key = strings.TrimSpace(key)
		if !ok || key == "" {
			continue
		}
		cur := states[key]
		if e, ok := m["enabled"].(bool); ok {
			cur.enabled = &e
		}
		if h, ok := m["trusted_hash"].(string); ok {
			cur.hash = h
		}
		states[key] = cur
	}
}

// readJSON reads a hooks.json file: {"hooks": {"<Event>": [groups]}}.
func (s *Set) readJSON(path string, src Source, states map[string]state) {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return
	}
	if err != nil {
		s.warn("failed to read hooks config %s: %v", path, err)
		return
	}
	var f struct {
		Hooks map[string]json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		s.warn("failed to parse hooks config %s: %v", path, jsonErr(data, err))
		return
	}
	events := map[string]any{}
	for name, raw := range f.Hooks {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			s.warn("failed to parse hooks config %s: %s: %v", path, name, err)
			continue
		}
		events[name] = v
	}
	s.readEvents(path, src, events, states)
}

// jsonErr adds the line of a JSON syntax error.
func jsonErr(data []byte, err error) error {
	var se *json.SyntaxError
	if errAs(err, &se) {
		line := 1 + strings.Count(string(data[:min(int(se.Offset), len(data))]), "\n")
		return fmt.Errorf("line %d: %w", line, err)
	}
	return err
}

// readTOML reads a config file's [hooks] table (state aside).
func (s *Set) readTOML(path string, src Source, t map[string]any, states map[string]state) {
	if len(t) == 0 {
		return
	}
	events := map[string]any{}
	for k, v := range t {
		if k != "state" {
			events[k] = plain(v)
		}
	}
	s.readEvents(path, src, events, states)
}

// plain turns TOML's arrays of tables ([]map[string]any) into the []any
// JSON decodes to, at every level.
func plain(v any) any {
	switch v := v.(type) {
	case []map[string]any:
		out := make([]any, len(v))
		for i, m := range v {
			out[i] = plain(m)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = plain(x)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = plain(x)
		}
		return out
	}
	return v
}

// readEvents adds the hooks of one file's event table, in Codex's event
// order.
func (s *Set) readEvents(path string, src Source, events map[string]any, states map[string]state) {
	for name := range events {
		if !slices.Contains(Events, Event(name)) {
			s.warn("unknown hook event %q in %s (known: %s)", name, path, eventList())
		}
	}
	for _, ev := range Events {
		v, ok := events[string(ev)]
		if !ok {
			continue
		}
		groups, ok := v.([]any)
		if !ok {
			s.warn("invalid hooks for %s in %s: expected a list of matcher groups", ev, path)
			continue
		}
		for gi, g := range groups {
			s.readGroup(path, src, ev, gi, g, states)
		}
	}
}

func eventList() string {
	names := make([]string, len(Events))
	for i, e := range Events {
		names[i] = string(e)
	}
	return strings.Join(names, ", ")
}

// readGroup adds the handlers of one matcher group.
func (s *Set) readGroup(path string, src Source, ev Event, gi int, g any, states map[string]state) {
	m, ok := g.(map[string]any)
	if !ok {
		s.warn("invalid matcher group %d of %s in %s: expected a table", gi+1, ev, path)
		return
	}
	var matcher *string
	if v, ok := m["matcher"]; ok && v != nil && ev.matches() {
		str, ok := v.(string)
		if !ok {
			s.warn("invalid matcher of %s in %s: expected a string", ev, path)
			return
		}
		matcher = &str
	}
	var re *regexp.Regexp
	if matcher != nil && !matchAll(*matcher) && !exactMatcher(*matcher) {
		var err error
		if re, err = regexp.Compile(*matcher); err != nil {
			s.warn("invalid matcher %q in %s: %v", *matcher, path, err)
			return
		}
	}
	handlers, _ := m["hooks"].([]any)
	for hi, hv := range handlers {
		h, ok := hv.(map[string]any)
		if !ok {
			s.warn("invalid hook %d of %s in %s: expected a table", hi+1, ev, path)
			continue
		}
		switch typ, _ := h["type"].(string); typ {
		case "command":
		case "prompt", "agent", "mcp_tool":
			s.warn("skipping %s hook in %s: %s hooks are not supported", typ, path, typ)
			continue
		default:
			s.warn("skipping hook of unknown type %q in %s", typ, path)
			continue
		}
		hook, ok := s.command(path, ev, h)
		if !ok {
			continue
		}
		hook.Matcher, hook.re, hook.Path, hook.Source = matcher, re, path, src
		hook.Key = fmt.Sprintf("%s:%s:%d:%d", path, ev.label(), gi, hi)
		hook.Hash = hash(ev, matcher, hook, h)
		st := states[hook.Key]
		hook.Enabled = st.enabled == nil || *st.enabled
		switch {
		case st.hash == hook.Hash:
			hook.Trust = Trusted
		case st.hash != "":
			hook.Trust = Modified
		default:
			hook.Trust = Untrusted
		}
		hook.Order = len(s.All)
		s.All = append(s.All, hook)
	}
}

// command reads a command handler's fields.
func (s *Set) command(path string, ev Event, h map[string]any) (Hook, bool) {
	hook := Hook{Event: ev}
	hook.Command, _ = h["command"].(string)
	if strings.TrimSpace(hook.Command) == "" {
		s.warn("skipping empty hook command in %s", path)
		return hook, false
	}
	secs := int64(600)
	if ev == SessionEnd {
		secs = 1
	}
	if v, ok := h["timeout"]; ok {
		n, ok := number(v)
		if !ok || n < 0 {
			s.warn("invalid timeout of a %s hook in %s: expected seconds", ev, path)
			return hook, false
		}
		secs = n
	}
	secs = max(secs, 1)
	if ev == SessionEnd {
		secs = min(secs, 3)
	}
	hook.Timeout = time.Duration(secs) * time.Second
	hook.Async, _ = h["async"].(bool)
	hook.StatusMessage, _ = h["statusMessage"].(string)
	return hook, true
}

// number reads a TOML integer or a JSON number as whole seconds.
func number(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case float64:
		if n != float64(int64(n)) {
			return 0, false
		}
		return int64(n), true
	}
	return 0, false
}

// matchAll: an empty matcher and "*" match every input.
func matchAll(m string) bool { return m == "" || m == "*" }

// exactMatcher: letters, digits, _ and | are names ("Edit|Write"), not a
// regexp.
func exactMatcher(m string) bool {
	return !strings.ContainsFunc(m, func(r rune) bool {
		return !(r == '_' || r == '|' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	})
}

// match reports whether the hook's matcher selects any of inputs (a tool
// name and its aliases, a trigger, a source).
func (h Hook) match(inputs []string) bool {
	switch {
	case h.Matcher == nil || matchAll(*h.Matcher):
		return true
	case h.re == nil:
		names := strings.Split(*h.Matcher, "|")
		return slices.ContainsFunc(inputs, func(in string) bool { return slices.Contains(names, in) })
	default:
		return slices.ContainsFunc(inputs, h.re.MatchString)
	}
}

// Name is how the hook is named to the user: its event, matcher and
// command, and where it is declared.
func (h Hook) Name() string {
	m := ""
	if h.Matcher != nil && !matchAll(*h.Matcher) {
		m = " [" + *h.Matcher + "]"
	}
	return fmt.Sprintf("%s%s hook %q (%s)", h.Event, m, oneLine(h.Command, 60), h.Path)
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}
