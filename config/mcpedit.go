package config

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/agentcli/agent/internal/atomicfile"
)

// ErrUneditable is returned by [SetMCPServer] and [RemoveMCPServer] when
// the server is written in a form they cannot edit line by line (a dotted
// key or an inline table rather than an [mcp_servers.<name>] table); the
// file is then left as it was.
var ErrUneditable = errors.New("config: cannot edit this mcp_servers entry automatically; edit config.toml by hand")

// SetMCPServer writes s as the table [mcp_servers.<name>] of
// home/config.toml: in place of the server's tables if it has some,
// otherwise at the end of the file. Every other line of the file, comments
// included, is kept as it is. The result must load without error; the
// file is then replaced atomically (a missing file and home are created).
// It reports whether a server of that name was replaced. Problems with
// name or the resulting configuration are [*Error]s.
func SetMCPServer(home, name string, s MCPServer) (replaced bool, err error) {
	if !mcpServerName.MatchString(name) {
		return false, &Error{Key: toml.Key{"mcp_servers", name}.String(), Msg: fmt.Sprintf("invalid server name %q (use letters, digits, _ and -)", name)}
	}
	path, text, tree, err := readForEdit(home)
	if err != nil {
		return false, err
	}
	table := encodeMCPServer(name, s)
	var entry map[string]any
	if _, err := toml.Decode(table, &entry); err != nil {
		return false, fmt.Errorf("config: encoding [mcp_servers.%s]: %w", name, err)
	}
	out, at, found := removeTables(text, name)
	if found {
		out = out[:at] + table + sep(out[at:]) + out[at:]
	} else {
		out = strings.TrimRight(text, "\n")
		if out != "" {
			out += "\n\n"
		}
		out += table
	}
	want := maps.Clone(tree)
	servers := map[string]any{}
	if m, ok := want["mcp_servers"].(map[string]any); ok {
		servers = maps.Clone(m)
	}
	servers[name] = entry["mcp_servers"].(map[string]any)[name]
	want["mcp_servers"] = servers
	if err := verify(out, want); err != nil {
		return false, err
	}
	if _, err := load(path, []byte(out), Options{}); err != nil {
		return false, err
	}
	return found, writeAtomic(path, []byte(out))
}

// RemoveMCPServer removes the tables [mcp_servers.<name>] and
// [mcp_servers.<name>.*] from home/config.toml, keeping every other line,
// and replaces the file atomically. It reports whether the server was
// there; removing an absent server changes nothing.
func RemoveMCPServer(home, name string) (removed bool, err error) {
	path, text, tree, err := readForEdit(home)
	if err != nil {
		return false, err
	}
	if m, _ := tree["mcp_servers"].(map[string]any); m == nil || m[name] == nil {
		return false, nil
	}
	out, at, found := removeTables(text, name)
	if !found {
		return false, ErrUneditable
	}
	if strings.TrimSpace(out[at:]) == "" { // removed at the end: end as before
		out = strings.TrimRight(out[:at], "\n") + "\n"
		if strings.TrimSpace(out) == "" {
			out = ""
		}
	}
	want := maps.Clone(tree)
	servers := maps.Clone(want["mcp_servers"].(map[string]any))
	delete(servers, name)
	want["mcp_servers"] = servers
	if err := verify(out, want); err != nil {
		return false, err
	}
	return true, writeAtomic(path, []byte(out))
}

// sep returns the blank line to put between an inserted table and rest.
func sep(rest string) string {
	if rest == "" || strings.HasPrefix(rest, "\n") {
		return ""
	}
	return "\n"
}

// readForEdit reads home/config.toml (empty if missing) and parses it.
func readForEdit(home string) (path, text string, tree map[string]any, err error) {
	if home == "" {
		return "", "", nil, errors.New("config: no agent home")
	}
	path = filepath.Join(home, FileName)
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", "", nil, fmt.Errorf("config: %w", err)
	}
	if _, tree, err = parseFile(path, b); err != nil {
		return "", "", nil, err
	}
	if tree == nil {
		tree = map[string]any{}
	}
	return path, string(b), tree, nil
}

// verify checks that text decodes to want, where an empty mcp_servers
// table and a missing one are the same.
func verify(text string, want map[string]any) error {
	var got map[string]any
	if _, err := toml.Decode(text, &got); err != nil {
		return ErrUneditable
	}
	norm := func(t map[string]any) map[string]any {
		t = maps.Clone(t)
		if t == nil {
			t = map[string]any{}
		}
		if m, ok := t["mcp_servers"].(map[string]any); ok && len(m) == 0 {
			delete(t, "mcp_servers")
		}
		return t
	}
	if !reflect.DeepEqual(norm(got), norm(want)) {
		return ErrUneditable
	}
	return nil
}

// removeTables removes from text every table whose header is
// [mcp_servers.<name>] or below it: the header, its keys and the comments
// among them, and the blank lines that follow, but not comments after its
// last key (they may introduce what comes next) unless what comes next is
// another of its tables. It returns the text, the
// offset where the first removed table began and whether there was one.
func removeTables(text, name string) (out string, at int, found bool) {
	lines := strings.SplitAfter(text, "\n")
	kinds, headers := scanLines(lines)
	ours := func(i int) bool {
		p, ok := headers[i]
		return ok && len(p) >= 2 && p[0] == "mcp_servers" && p[1] == name
	}
	drop := make([]bool, len(lines))
	first := -1
	for i := range lines {
		if !ours(i) {
			continue
		}
		if first < 0 {
			first = i
		}
		end := i + 1 // past the last content line of the table
		next := i + 1
		for ; next < len(lines) && kinds[next] != lineHeader; next++ {
			if kinds[next] == lineContent {
				end = next + 1
			}
		}
		if next < len(lines) && ours(next) {
			end = next // what lies between belongs to the server too
		}
		for end < len(lines) && kinds[end] == lineBlank {
			end++
		}
		for j := i; j < end; j++ {
			drop[j] = true
		}
	}
	if first < 0 {
		return text, 0, false
	}
	var b strings.Builder
	for i, l := range lines {
		if i == first {
			at = b.Len()
		}
		if !drop[i] {
			b.WriteString(l)
		}
	}
	return b.String(), at, true
}

// lineKind classifies a line of TOML text.
type lineKind uint8

const (
	lineBlank   lineKind = iota
	lineComment          // only a comment
	lineHeader           // a [table] or [[array]] header
	lineContent          // a key, or part of a value spanning lines
)

// scanLines classifies each line (each ending in "\n" but maybe the last)
// and parses the key path of each header. It follows strings, multi-line
// strings and brackets so that nothing inside a value is taken for a
// header. It trusts that the text is valid TOML.
func scanLines(lines []string) ([]lineKind, map[int][]string) {
	kinds := make([]lineKind, len(lines))
	headers := map[int][]string{}
	depth := 0     // open [ and { of values
	inString := "" // the closing delimiter of a multi-line string in progress
	for n, line := range lines {
		i := 0
		if inString != "" || depth > 0 {
			kinds[n] = lineContent
		} else {
			trimmed := strings.TrimLeft(line, " \t")
			i = len(line) - len(trimmed)
			switch {
			case strings.TrimSpace(trimmed) == "":
				kinds[n] = lineBlank
				continue
			case trimmed[0] == '#':
				kinds[n] = lineComment
				continue
			case trimmed[0] == '[':
				kinds[n] = lineHeader
				if p, err := headerPath(trimmed); err == nil {
					headers[n] = p
				}
				continue
			}
			kinds[n] = lineContent
		}
		for i < len(line) {
			if inString != "" {
				j := closeString(line, i, inString)
				if j < 0 {
					break // the string goes on on the next line
				}
				i, inString = j, ""
				continue
			}
			switch c := line[i]; c {
			case '#':
				i = len(line)
				continue
			case '[', '{':
				depth++
			case ']', '}':
				depth--
			case '"', '\'':
				delim := string(c)
				if strings.HasPrefix(line[i:], strings.Repeat(delim, 3)) {
					delim = strings.Repeat(delim, 3)
				}
				j := closeString(line, i+len(delim), delim)
				if j < 0 {
					inString = delim
					i = len(line)
					continue
				}
				i = j
				continue
			}
			i++
		}
	}
	return kinds, headers
}

// closeString returns the offset just past the delimiter closing a string
// that continues at line[i:], or -1 if it does not close on this line.
func closeString(line string, i int, delim string) int {
	for i < len(line) {
		if line[i] == '\\' && delim[0] == '"' {
			i += 2
			continue
		}
		if strings.HasPrefix(line[i:], delim) {
			i += len(delim)
			if len(delim) == 3 { // up to two quotes may end the content
				for k := 0; k < 2 && i < len(line) && line[i] == delim[0]; k++ {
					i++
				}
			}
			return i
		}
		i++
	}
	return -1
}

// headerPath parses the key of a header line "[a.b]" or "[[a.b]]".
func headerPath(line string) ([]string, error) {
	open := 1
	if strings.HasPrefix(line, "[[") {
		open = 2
	}
	i := open
	for i < len(line) && line[i] != ']' {
		if line[i] == '"' || line[i] == '\'' {
			j := closeString(line, i+1, string(line[i]))
			if j < 0 {
				return nil, errors.New("unterminated key")
			}
			i = j
			continue
		}
		i++
	}
	return parseKey(strings.TrimSpace(line[open:i]))
}

// encodeMCPServer renders s as the TOML table [mcp_servers.<name>],
// writing only the keys that differ from the defaults.
func encodeMCPServer(name string, s MCPServer) string {
	var b strings.Builder
	b.WriteString("[mcp_servers." + tomlKey(name) + "]\n")
	kv := func(k, v string) { b.WriteString(k + " = " + v + "\n") }
	if s.Command != "" {
		kv("command", tomlString(s.Command))
	}
	if len(s.Args) > 0 {
		kv("args", tomlStrings(s.Args))
	}
	if len(s.Env) > 0 {
		kv("env", tomlTable(s.Env))
	}
	if len(s.EnvVars) > 0 {
		kv("env_vars", tomlStrings(s.EnvVars))
	}
	if s.Cwd != "" {
		kv("cwd", tomlString(s.Cwd))
	}
	if s.URL != "" {
		kv("url", tomlString(s.URL))
	}
	if s.BearerTokenEnvVar != "" {
		kv("bearer_token_env_var", tomlString(s.BearerTokenEnvVar))
	}
	if len(s.HTTPHeaders) > 0 {
		kv("http_headers", tomlTable(s.HTTPHeaders))
	}
	if len(s.EnvHTTPHeaders) > 0 {
		kv("env_http_headers", tomlTable(s.EnvHTTPHeaders))
	}
	if s.StartupTimeout > 0 && s.StartupTimeout != DefaultMCPStartupTimeout {
		kv("startup_timeout_sec", tomlSeconds(s.StartupTimeout))
	}
	if s.ToolTimeout > 0 && s.ToolTimeout != DefaultMCPToolTimeout {
		kv("tool_timeout_sec", tomlSeconds(s.ToolTimeout))
	}
	if !s.Enabled {
		kv("enabled", "false")
	}
	if s.EnabledTools != nil {
		kv("enabled_tools", tomlStrings(s.EnabledTools))
	}
	if len(s.DisabledTools) > 0 {
		kv("disabled_tools", tomlStrings(s.DisabledTools))
	}
	if s.SupportsParallelToolCalls {
		kv("supports_parallel_tool_calls", "true")
	}
	return b.String()
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// tomlKey writes k bare when it can be, else quoted.
func tomlKey(k string) string {
	if k != "" && mcpServerName.MatchString(k) {
		return k
	}
	return tomlString(k)
}

func tomlStrings(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = tomlString(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

func tomlTable(m map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, tomlKey(k)+" = "+tomlString(m[k]))
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

func tomlSeconds(d time.Duration) string {
	s := strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0" // a float either way, as startup_timeout_sec is
	}
	return s
}

// writeAtomic replaces path with data through a temporary file in the
// same directory, keeping the mode of an existing file (0o600 for a new
// one, in a 0o700 directory).
func writeAtomic(path string, data []byte) error {
	mode := fs.FileMode(0o600)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if err := atomicfile.Write(path, data, mode); err != nil {
		return fmt.Errorf("config: write %s: %w", path, err)
	}
	return nil
}
