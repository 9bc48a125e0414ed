package patch_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentcli/agent/tools/patch"
)

func TestFunctionSpec(t *testing.T) {
	t.Parallel()
	var spec struct {
		Type, Name, Description string
		Parameters              struct {
			Type       string
			Properties map[string]struct{ Type string }
			Required   []string
		}
	}
	if err := json.Unmarshal(patch.FunctionSpec(), &spec); err != nil {
		t.Fatal(err)
	}
	if spec.Type != "function" || spec.Name != "apply_patch" || spec.Parameters.Type != "object" ||
		spec.Parameters.Properties["input"].Type != "string" || len(spec.Parameters.Required) != 1 ||
		spec.Parameters.Required[0] != "input" {
		t.Errorf("FunctionSpec = %s", patch.FunctionSpec())
	}
	if spec.Description != patch.Instructions() {
		t.Errorf("description is not Instructions()")
	}
}

func TestFreeformSpec(t *testing.T) {
	t.Parallel()
	var spec struct {
		Type, Name, Description string
		Format                  struct{ Type, Syntax, Definition string }
	}
	if err := json.Unmarshal(patch.FreeformSpec(), &spec); err != nil {
		t.Fatal(err)
	}
	if spec.Type != "custom" || spec.Name != "apply_patch" || spec.Format.Type != "grammar" || spec.Format.Syntax != "lark" {
		t.Errorf("FreeformSpec = %s", patch.FreeformSpec())
	}
	for _, want := range []string{`start: begin_patch hunk+ end_patch`, `"*** Begin Patch"`, `"*** End of File"`, `"*** Move to: "`} {
		if !strings.Contains(spec.Format.Definition, want) {
			t.Errorf("grammar lacks %q", want)
		}
	}
	if !strings.HasPrefix(spec.Description, patch.Instructions()) {
		t.Errorf("description does not start with Instructions()")
	}
}

// TestInstructionsExampleParses keeps the example in the instructions
// valid.
func TestInstructionsExampleParses(t *testing.T) {
	t.Parallel()
	text := patch.Instructions()
	start := strings.Index(text, "*** Begin Patch")
	end := strings.Index(text, "*** End Patch") + len("*** End Patch")
	p, err := patch.Parse(text[start:end])
	if err != nil {
		t.Fatalf("example in Instructions does not parse: %v", err)
	}
	if len(p.Ops) != 3 {
		t.Errorf("example has %d sections; want 3", len(p.Ops))
	}
}
