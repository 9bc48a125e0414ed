package config_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/agentcli/agent/config"
)

// TestNestingBound: the 120 KB config of nested inline tables that once
// took more than 11 GB is refused at once, naming file and line, without
// the parser ever seeing it.
func TestNestingBound(t *testing.T) {
	n := 120 << 10 / 4 // "{a=" and "}" per level: about 120 KB
	text := "model = \"x\"\n\n[mcp_servers.s]\nenv = " + strings.Repeat("{a=", n) + "1" + strings.Repeat("}", n) + "\n"
	if len(text) < 120<<10 {
		t.Fatalf("config is %d bytes, want at least 120 KB", len(text))
	}
	home := t.TempDir()
	path := filepath.Join(home, config.FileName)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := config.Load(config.Options{Home: home})
	runtime.ReadMemStats(&after)
	var ce *config.Error
	if !errors.As(err, &ce) {
		t.Fatalf("Load = %v, want a *config.Error", err)
	}
	want := fmt.Sprintf("%s:4: inline tables and arrays nested too deep (more than %d levels)", path, config.MaxNesting)
	if err.Error() != want {
		t.Errorf("error = %q\nwant    %q", err, want)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
		t.Errorf("Load allocated %d MB", grew>>20)
	}
}

func TestBounds(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + "1" + strings.Repeat("]", n) }
	tests := []struct {
		name, text string
		err        string // "" = loads
	}{
		{"at the bound", "notify = " + deep(config.MaxNesting) + "\n", "expected a string, got array"}, // parsed: only the type is wrong
		{"arrays too deep", "\nnotify = " + deep(config.MaxNesting+1) + "\n", ":2: inline tables and arrays nested too deep"},
		{"brackets in strings and comments do not count", "# " + deep(100) + "\nmodel = \"" + deep(100) + "\"\ninstructions = '''\n" + deep(100) + "\n'''\n" +
			"developer_instructions = \"\"\"\n\\\"\"\"" + deep(100) + "\"\"\"\ncompact_prompt = 'a\\'\n", ""},
		{"line counted through multi-line strings", "instructions = \"\"\"\n\n\n\"\"\"\nnotify = " + deep(40) + "\n", ":5: inline tables and arrays nested too deep"},
		{"dotted key at the bound", "[profiles" + strings.Repeat(".a", config.MaxNesting-1) + "]\n", "unknown key"}, // parsed
		{"dotted header too deep", "\n[profiles" + strings.Repeat(".a", 5000) + "]\n", ":2: dotted key too deep"},
		{"dotted key too deep", "[profiles.p]\nx" + strings.Repeat(".a", config.MaxNesting) + " = 1\n", ":2: dotted key too deep"},
		{"floats and dotted keys side by side", "[profiles.p.tui]\nx.y = { a.b = 1.5, c.d = [1.25, 2.5] }\n", ""},
		{"too large", "model = \"x\"\n" + strings.Repeat("# padding\n", config.MaxFileSize/10), "file too large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			if err := os.WriteFile(filepath.Join(home, config.FileName), []byte(tt.text), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := config.Load(config.Options{Home: home})
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("Load: %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Errorf("Load = %v, want an error containing %q", err, tt.err)
			case tt.err != "" && strings.Contains(tt.err, "deep") && !strings.HasPrefix(err.Error(), filepath.Join(home, config.FileName)+":"):
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

func TestOverrideDottedKeyBound(t *testing.T) {
	arg := "profiles" + strings.Repeat(".a", 20000) + "=1"
	_, err := config.Load(config.Options{Overrides: []string{arg}})
	if err == nil || !strings.Contains(err.Error(), "dotted key too deep") || !strings.HasPrefix(err.Error(), "-c ") {
		t.Errorf("Load = %v", err)
	}
}

func TestOverrideNestingBound(t *testing.T) {
	arg := "notify=" + strings.Repeat("[", 1000) + strings.Repeat("]", 1000)
	_, err := config.Load(config.Options{Overrides: []string{arg}})
	if err == nil || !strings.Contains(err.Error(), "nested too deep") || !strings.HasPrefix(err.Error(), "-c ") {
		t.Errorf("Load = %v", err)
	}
}
