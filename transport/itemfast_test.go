package transport_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agentcli/agent/transport"
)

// itemSeeds are items as servers and rollouts hold them, and the shapes
// the fast path must leave to encoding/json.
var itemSeeds = []string{
	`{"type":"message","role":"user","content":[{"type":"input_text","text":"please run step 7 of the plan"}]}`,
	`{"type":"function_call","id":"fc_1","call_id":"call_1","name":"exec_command","arguments":"{\"cmd\":\"ls -la\"}","status":"completed"}`,
	`{"type":"function_call_output","call_id":"call_1","output":"total 8\ndrwxr-xr-x 2 user user 4096 .\n"}`,
	`{"content":[{"annotations":[],"text":"Step 1 ran.","type":"output_text"}],"id":"msg_1","role":"assistant","status":"completed","type":"message"}`,
	`{"type":"message","role":"assistant","content":[{"type":"refusal","refusal":"no"},{"type":"output_text","text":null}]}`,
	`{"type":"message","role":"assistant","content":[{"type":"audio","data":"AAAA"}]}`,
	`{"type":"message","content":null}`,
	`{"type":"message","content":[null,{"type":"output_text","text":"x"}]}`,
	`{"type":"function_call","namespace":"mcp__docs","name":"search","call_id":"c","arguments":"{}"}`,
	`{"type":"custom_tool_call","call_id":"c","name":"apply_patch","input":"*** Begin Patch\n"}`,
	`{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"hm"}],"encrypted_content":"gAAA"}`,
	`{}`,
	` { "type" : "message" , "id" : null } `,
	`{"Type":"message"}`,
	`{"type":"message","type":"function_call"}`,
	`{"type":1}`,
	`{"type":"a\u00e9\ud83d\ude00b","id":"x\"y"}`,
	`{"type":"message","content":[{"type":"output_text","text":1}]}`,
	`{"type":"message","content":[{"TEXT":"x","type":"input_text"}]}`,
	`{"type":"message","content":{"type":"x"}}`,
	"{\"type\":\"m\xffx\"}",
	`{"type":"message",}`,
	`[1,2]`,
}

// FuzzDecodeItemFast holds the reflection-free item decoder equal to
// encoding/json's: whatever it takes decodes the same by both.
func FuzzDecodeItemFast(f *testing.F) {
	for _, s := range itemSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		fast, fastUnread, ok := transport.DecodeItemFastForTest(raw)
		if !ok {
			return
		}
		slow, slowUnread, err := transport.DecodeItemJSONForTest(raw)
		if err != nil {
			t.Fatalf("fast path took %q, encoding/json failed: %v", raw, err)
		}
		if !reflect.DeepEqual(fast, slow) || fastUnread != slowUnread {
			t.Fatalf("%q:\nfast %#v %q\njson %#v %q", raw, fast, fastUnread, slow, slowUnread)
		}
	})
}

// TestDecodeItemFastTakesRolloutItems: the items a long session is made
// of take the fast path, and a small item's strings are views of its Raw,
// not copies (a 100,000-item history is not 400,000 strings more).
func TestDecodeItemFastTakesRolloutItems(t *testing.T) {
	for _, s := range itemSeeds[:11] {
		if _, _, ok := transport.DecodeItemFastForTest([]byte(s)); !ok {
			t.Errorf("%s: not taken by the fast path", s)
		}
	}
	raw := []byte(itemSeeds[1])
	allocs := testing.AllocsPerRun(100, func() {
		it, err := transport.ParseItemOwned(raw)
		if err != nil || it.CallID != "call_1" {
			t.Fatalf("ParseItemOwned: %+v, %v", it, err)
		}
	})
	// Only the arguments, which hold escapes, are unquoted into a string.
	if allocs > 1 {
		t.Errorf("ParseItemOwned of a function call: %.0f allocations; want at most 1", allocs)
	}
	big := []byte(`{"type":"function_call","call_id":"call_9","arguments":"` + strings.Repeat("x", 8<<10) + `"}`)
	it, err := transport.ParseItemOwned(big)
	if err != nil {
		t.Fatal(err)
	}
	big[len(`{"type":"function_call","call_id":"call_`)] = '8' // the test's own bytes
	if it.CallID != "call_9" {
		t.Errorf("a big item's call id is a view of its Raw (%q): it holds the whole item alive", it.CallID)
	}
}
