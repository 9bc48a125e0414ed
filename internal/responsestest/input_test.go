package responsestest_test

import (
	"reflect"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
)

func TestInputMessages(t *testing.T) {
	body := `{"model":"m","input":[
		{"type":"message","role":"developer","content":[{"type":"input_text","text":"<permissions>"}]},
		{"role":"user","content":[{"type":"input_text","text":"<environment_context>"},{"type":"input_text","text":"hi"}]},
		{"type":"function_call","call_id":"c1","name":"exec_command","arguments":"{}"},
		{"type":"function_call_output","call_id":"c1","output":"ok"},
		{"type":"reasoning","summary":[]},
		{"type":"message","role":"assistant","content":[{"type":"output_text","text":"hello"}]}
	]}`
	got, err := rt.InputMessages([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	want := []rt.Message{
		{Role: "developer", Text: []string{"<permissions>"}},
		{Role: "user", Text: []string{"<environment_context>", "hi"}},
		{Role: "assistant", Text: []string{"hello"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("InputMessages = %+v\nwant %+v", got, want)
	}
	if _, err := rt.InputMessages([]byte("not json")); err == nil {
		t.Error("a body that is not JSON decoded without an error")
	}
}
