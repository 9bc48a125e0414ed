package tools_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/tools"
)

// namedTool is a tool that answers with its label.
type namedTool struct{ name, label string }

func (t namedTool) Name() string          { return t.name }
func (t namedTool) Spec() json.RawMessage { return json.RawMessage(`{"name":"` + t.name + `"}`) }
func (t namedTool) ParallelSafe() bool    { return true }
func (t namedTool) Run(context.Context, *tools.Invocation) tools.Result {
	return tools.Result{Output: t.label, Status: tools.StatusCompleted}
}

func specNames(t *testing.T, s *tools.Set) []string {
	t.Helper()
	var out []string
	for _, raw := range s.Specs() {
		var v struct{ Name string }
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v.Name)
	}
	return out
}

func TestSetSources(t *testing.T) {
	s, err := tools.NewSet(namedTool{"fixed", "fixed"})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var dynamic []tools.Tool
	s.AddSource(func() []tools.Tool { mu.Lock(); defer mu.Unlock(); return dynamic })
	s.AddSource(func() []tools.Tool {
		return []tools.Tool{namedTool{"second", "second source"}, namedTool{"fixed", "shadowed"}}
	})
	set := func(ts ...tools.Tool) { mu.Lock(); dynamic = ts; mu.Unlock() }

	if diff := cmp.Diff([]string{"fixed", "second"}, specNames(t, s)); diff != "" {
		t.Errorf("specs before the source has tools (-want +got):\n%s", diff)
	}
	if _, ok := s.Lookup("late"); ok {
		t.Error("Lookup(late) succeeded before the tool appeared")
	}
	set(namedTool{"late", "first source"}, namedTool{"second", "first source wins"})
	if diff := cmp.Diff([]string{"fixed", "late", "second"}, specNames(t, s)); diff != "" {
		t.Errorf("specs once the source has tools (-want +got):\n%s", diff)
	}
	// Lookup and Run agree with Specs on which tool owns a name.
	for name, want := range map[string]string{"fixed": "fixed", "late": "first source", "second": "first source wins"} {
		if res := s.Run(t.Context(), &tools.Invocation{Call: tools.Call{Name: name}}); res.Output != want {
			t.Errorf("Run(%s) = %q; want %q", name, res.Output, want)
		}
	}
	set()
	if res := s.Run(t.Context(), &tools.Invocation{Call: tools.Call{Name: "late"}}); res.Status != tools.StatusFailed {
		t.Errorf("Run(late) after it left = %+v; want an unknown-tool failure", res)
	}
}

func TestNilSet(t *testing.T) {
	var s *tools.Set
	if s.Specs() != nil {
		t.Error("nil set has specs")
	}
	if _, ok := s.Lookup("x"); ok {
		t.Error("nil set finds a tool")
	}
}
