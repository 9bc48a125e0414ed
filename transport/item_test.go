package transport_test

import (
	"testing"

	"github.com/agentcli/agent/transport"
)

func TestParseItemJoinsToolNamespace(t *testing.T) {
	for raw, want := range map[string]string{
		`{"type":"function_call","name":"echo","namespace":"mcp__test","call_id":"c"}`:   "mcp__test__echo",
		`{"type":"function_call","name":"echo","namespace":"mcp__test__","call_id":"c"}`: "mcp__test__echo",
		`{"type":"function_call","name":"exec_command","call_id":"c"}`:                   "exec_command",
	} {
		it, err := transport.ParseItem([]byte(raw))
		if err != nil || it.Name != want {
			t.Errorf("ParseItem(%s).Name = %q, %v; want %q", raw, it.Name, err, want)
		}
		if string(it.Raw) != raw {
			t.Errorf("Raw = %s; want the item verbatim", it.Raw)
		}
	}
}
