package archtest

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"path"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/agentcli/agent"

type pkg struct {
	ImportPath string
	Name       string
	Imports    []string
	Standard   bool
}

func listPackages(t *testing.T) []pkg {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func local(imports []string) []string {
	var out []string
	for _, i := range imports {
		if strings.HasPrefix(i, module+"/") {
			out = append(out, strings.TrimPrefix(i, module+"/"))
		}
	}
	return out
}

// TestImportDirection enforces the package DAG of ARCHITECTURE.md on the
// non-test code.
func TestImportDirection(t *testing.T) {
	// allowed lists, per package, the project packages it may import.
	allowed := map[string][]string{
		"retry":                       {},
		"retrygate":                   {},
		"failover":                    {"retrygate", "transport"},
		"transport":                   {},
		"provider":                    {},
		"transport/internal/liveness": {"transport"},
		"transport/sse":               {"transport", "transport/internal/liveness"},
		"transport/ws":                {"transport", "transport/internal/liveness"},
		"config":                      {"provider", "shellenv"},
		"auth":                        {"provider", "internal/filelock"},
		"modelclient":                 {"provider", "retry", "retrygate", "transport", "transport/sse", "transport/ws", "auth"},
		"session":                     {"modelclient", "provider", "retry", "transport", "tools", "failover"},
		"proxy":                       {"modelclient", "provider", "retry", "retrygate", "transport"},
		"tools":                       {"tools/patch", "tools/sandbox", "shellenv"},
		"tools/patch":                 {},
		"tools/sandbox":               {},
		"mcp":                         {"tools", "shellenv"},
		"shellenv":                    {},
		"internal/mcptest":            {},
		"demo":                        {},
		"agentsmd":                    {},
		"internal/responsestest":      {},
		"internal/archtest":           {},
		"internal/filelock":           {},
		"rollout":                     {"transport", "internal/filelock"},
		"recording":                   {"modelclient", "redact", "rollout", "session", "transport"},
		"tui":                         {"session", "tools", "modelclient", "transport", "termtext", "internal/filelock"},
		"termtext":                    {},
		"redact":                      {},

		// Benchmarks: the test-only bench package and the fake server as a binary.
		"bench": {},
		"internal/responsestest/cmd/fakeresponses": {"internal/responsestest"},
	}
	for _, p := range listPackages(t) {
		rel := strings.TrimPrefix(p.ImportPath, module+"/")
		if base := path.Base(rel); base == "util" || base == "common" || base == "helpers" || base == "types" {
			t.Errorf("package %s: name says nothing about what it provides", rel)
		}
		want, ok := allowed[rel]
		if !ok {
			if p.Name != "main" {
				t.Errorf("package %s is not in the architecture map; add it to ARCHITECTURE.md and this test", rel)
			}
			for _, imp := range local(p.Imports) {
				// The fake server's own binary may use it; nothing else ships it.
				if imp == "internal/responsestest" && !strings.HasPrefix(rel, "internal/responsestest/cmd/") {
					t.Errorf("%s imports the fake server outside tests", rel)
				}
			}
			continue
		}
		for _, imp := range local(p.Imports) {
			if !slices.Contains(want, imp) {
				t.Errorf("%s imports %s; allowed: %v", rel, imp, want)
			}
		}
	}
}
