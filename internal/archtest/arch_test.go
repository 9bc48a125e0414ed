package archtest

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path"
	"regexp"
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

// allowedImports lists, per package, the project packages it may import:
// the last column of docs/architecture.md's package table.
func allowedImports() map[string][]string {
	return map[string][]string{
		"retry":                          {},
		"retry/gate":                     {"internal/atomicfile", "internal/filelock", "retry"},
		"session/failover":               {"retry/gate", "transport"},
		"session/hooks":                  {},
		"session/checkpoint":             {"internal/filelock", "rollout"},
		"internal/skills":                {},
		"internal/subagent":              {"config", "internal/setup", "tools"},
		"transport":                      {"internal/jsonstring", "internal/readonly"},
		"provider":                       {},
		"transport/internal/liveness":    {"transport"},
		"transport/sse":                  {"internal/bigcopy", "transport", "transport/internal/liveness"},
		"transport/ws":                   {"internal/bigcopy", "transport", "transport/internal/liveness"},
		"transport/chat":                 {"transport"},
		"transport/anthropic":            {"transport"},
		"config":                         {"provider", "provider/catalog", "tools", "internal/shellenv", "internal/atomicfile"},
		"provider/catalog":               {},
		"auth":                           {"provider", "internal/filelock", "internal/atomicfile"},
		"modelclient":                    {"internal/bigcopy", "provider", "retry", "retry/gate", "transport", "transport/anthropic", "transport/chat", "transport/sse", "transport/ws", "auth"},
		"session":                        {"modelclient", "provider", "retry", "transport", "tools", "session/failover", "session/hooks", "session/checkpoint"},
		"proxy":                          {"modelclient", "provider", "retry", "retry/gate", "transport"},
		"tools":                          {"tools/patch", "tools/sandbox", "internal/jsonstring", "internal/readonly", "internal/shellenv"},
		"tools/patch":                    {},
		"tools/sandbox":                  {},
		"tools/mcp":                      {"tools", "internal/shellenv"},
		"internal/shellenv":              {},
		"internal/mcptest":               {},
		"internal/filelock/filelocktest": {},
		"internal/demo":                  {},
		"internal/agentsmd":              {},
		"internal/review":                {},
		"tui/highlight":                  {"internal/companion"},
		"tui/highlight/lexing":           {"tui/highlight"},
		"internal/responsestest":         {},
		"internal/archtest":              {},
		"internal/filelock":              {},
		"internal/atomicfile":            {},
		"internal/syncbuf":               {},
		"internal/quietterm":             {},
		"internal/readonly":              {},
		"internal/jsonstring":            {"internal/bigcopy"},
		"internal/bigcopy":               {},
		"rollout":                        {"transport", "internal/filelock", "internal/atomicfile"},
		"rollout/recording":              {"modelclient", "internal/redact", "rollout", "session", "transport"},
		"headless/execprint":             {"session", "internal/readonly", "internal/termtext", "tools", "transport"},
		"internal/exitcode":              {"modelclient", "session"},
		"headless/batch":                 {"headless/execprint", "internal/exitcode", "internal/atomicfile", "internal/redact", "session", "internal/termtext", "transport"},
		"headless":                       {"headless/execprint", "internal/exitcode", "internal/app", "internal/atomicfile", "modelclient", "internal/redact", "retry", "session", "tools/mcp"},
		"headless/mcpserver":             {"internal/termtext", "session", "tools"},
		"headless/appserver":             {"internal/app", "rollout", "session", "tools", "tools/sandbox", "transport"},
		"headless/acp":                   {"internal/app", "modelclient", "rollout", "session", "tools", "tools/mcp", "tools/patch", "transport"},
		"tui":                            {"config", "internal/app", "session", "tools", "tools/mcp", "modelclient", "rollout", "transport", "internal/termtext", "internal/filelock", "internal/atomicfile", "internal/review", "tui/highlight", "internal/quietterm", "internal/subagent"},
		"internal/termtext":              {},
		"internal/redact":                {},
		"internal/app": {"auth", "config", "internal/exitcode", "internal/agentsmd", "internal/demo", "internal/redact", "internal/setup", "provider/catalog",
			"modelclient", "provider", "rollout", "rollout/recording", "session", "session/failover", "session/hooks", "session/checkpoint", "internal/skills",
			"internal/subagent", "tools", "tools/mcp", "tools/sandbox", "transport", "internal/telemetry"},
		"internal/setup": {"auth", "config", "internal/exitcode", "internal/redact", "internal/shellenv", "modelclient", "provider",
			"retry", "retry/gate", "session/hooks", "tools/mcp"},
		"internal/doctor": {"auth", "config", "internal/exitcode", "internal/setup", "internal/companion", "internal/termtext", "modelclient", "provider",
			"session/failover", "tools/mcp", "tools/sandbox", "transport/ws", "session/hooks"},
		"internal/telemetry":          {"config", "internal/companion", "internal/redact", "internal/telemetry/wire", "modelclient", "session", "tools"},
		"internal/mantree":            {"internal/companion"},
		"internal/companion":          {},
		"internal/telemetry/wire":     {},
		"internal/telemetry/otlp":     {"internal/telemetry/wire"},
		"internal/telemetry/otlptest": {},
		"internal/agenttest":          {"internal/companion", "internal/mcptest", "internal/responsestest", "internal/syncbuf", "session/hooks"},
		"cmd/agent/frontends":         {},

		// Benchmarks: the test-only bench package and the fake server as a binary.
		"bench": {},
		"internal/responsestest/cmd/fakeresponses": {"internal/responsestest"},
	}
}

// TestImportDirection enforces the package DAG of ARCHITECTURE.md on the
// non-test code.
func TestImportDirection(t *testing.T) {
	allowed := allowedImports()
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

// TestDocsPackageTable: docs/architecture.md's package table has a row
// for every package of the map above, and its last column says what the
// map allows, so the page cannot drift from what this test enforces.
func TestDocsPackageTable(t *testing.T) {
	b, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	allowed := allowedImports()
	documented := map[string]bool{}
	name := regexp.MustCompile("`([a-z/]+)`")
	for _, line := range strings.Split(string(b), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) != 5 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue // not a row of the package table
		}
		imports := strings.TrimSpace(cells[3])
		if i := strings.Index(imports, " ("); i >= 0 {
			imports = imports[:i] // a remark
		}
		var says []string
		if imports != "—" {
			for _, imp := range strings.Split(imports, ",") {
				says = append(says, strings.TrimSpace(imp))
			}
		}
		for _, m := range name.FindAllStringSubmatch(cells[1], -1) {
			pkg := m[1]
			documented[pkg] = true
			want, ok := allowed[pkg]
			switch {
			case pkg == "cmd/agent":
				if imports != "everything" {
					t.Errorf("docs/architecture.md: cmd/agent may import %q; it may import everything", imports)
				}
			case !ok:
				t.Errorf("docs/architecture.md has a row for %s, which the import map does not know", pkg)
			case !sameSet(says, want):
				t.Errorf("docs/architecture.md: %s may import %q; the import map allows %q", pkg, says, want)
			}
		}
	}
	for pkg := range allowed {
		if !documented[pkg] {
			t.Errorf("docs/architecture.md's package table has no row for %s", pkg)
		}
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// TestTopLevelLayout keeps the tree's first row what docs/architecture.md
// says it is: the design card's packages where it puts them, at most 12
// top-level product packages, satellites under their owners and helpers
// under internal/. cmd/ holds the binary, bench/ only benchmarks.
func TestTopLevelLayout(t *testing.T) {
	var top []string
	for _, p := range listPackages(t) {
		rel := strings.TrimPrefix(p.ImportPath, module+"/")
		first, _, _ := strings.Cut(rel, "/")
		switch first {
		case "cmd", "internal", "bench":
			continue
		}
		if !slices.Contains(top, first) {
			top = append(top, first)
		}
	}
	if len(top) > 12 {
		t.Errorf("%d top-level product packages (%v); at most 12: put satellites under their owners, helpers under internal/", len(top), top)
	}
	have := map[string]bool{}
	for _, p := range listPackages(t) {
		have[strings.TrimPrefix(p.ImportPath, module+"/")] = true
	}
	for _, want := range []string{"cmd/agent", "modelclient", "provider", "session", "transport/ws", "transport/sse", "retry", "auth"} {
		if !have[want] {
			t.Errorf("the design card's package %s is missing", want)
		}
	}
}

// TestAgentLinksNoManWriter: cobra/doc and the Markdown-to-roff
// libraries under it belong to agent-man (internal/mantree): their init
// cost every agent process 0.4 MiB of RSS.
func TestAgentLinksNoManWriter(t *testing.T) {
	agentLinksNone(t, "cmd/agent-man", "github.com/spf13/cobra/doc", "github.com/cpuguy83/go-md2man", "github.com/russross/blackfriday")
}

// TestAgentLinksNoLexer: chroma and regexp2 belong to agent-highlight
// (package highlight): their code's pages and init cost every agent
// process 0.35-0.5 MiB of RSS.
func TestAgentLinksNoLexer(t *testing.T) {
	agentLinksNone(t, "cmd/agent-highlight", "github.com/alecthomas/chroma", "github.com/dlclark/regexp2", module+"/tui/highlight/lexing")
}

// TestAgentLinksNoTelemetrySDK: agent itself links none of OpenTelemetry's
// SDK, gRPC or protobuf, whose package initialisation would cost every
// run (measured: +6 MiB RSS for a small binary); cmd/agent-otel, started
// only when [otel] names an exporter, does.
func TestAgentLinksNoTelemetrySDK(t *testing.T) {
	agentLinksNone(t, "cmd/agent-otel", "go.opentelemetry.io/", "google.golang.org/grpc", "google.golang.org/protobuf", module+"/internal/telemetry/otlp")
}

// agentLinksNone fails when cmd/agent links a package under one of the
// prefixes, which belong to the companion program owner.
func agentLinksNone(t *testing.T, owner string, prefixes ...string) {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", module+"/cmd/agent").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, p := range prefixes {
			if strings.HasPrefix(dep, p) {
				t.Errorf("cmd/agent links %s: it belongs to %s", dep, owner)
			}
		}
	}
}
