package rollout

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzEnvelope holds the fast reading of a line's envelope to
// encoding/json's: wherever envelope takes a line whose payload is valid
// JSON, the whole line decodes with encoding/json to the same type,
// origin and payload.
func FuzzEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"timestamp":"2026-12-03T10:00:00.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[]}}`,
		`{"timestamp":"2026-12-03T10:00:00.000Z","type":"response_item","origin":"context","payload":{"type":"message"}}`,
		`{"timestamp":"2026-12-03T10:00:00.000Z","type":"event_msg","payload":{"type":"turn_started"}}`,
		`{"timestamp":"2026-12-03T10:00:00.000Z","type":"event_msg","payload":{"type":"x"}}}`,
		`{"timestamp":"2026-12-03T10:00:00.000Z","type":"event_msg","payload":{"type":"x"},"extra":1}`,
		`{"timestamp":"a\"b","type":"event_msg","payload":{}}`,
		`{"timestamp":"t","type":"response_item","origin":"c\u0041","payload":{}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		l, ok := envelope(line)
		if !ok || !json.Valid(l.Payload) {
			return
		}
		var w wireLine
		if err := json.Unmarshal(line, &w); err != nil {
			t.Fatalf("envelope took %q, which encoding/json refuses: %v", line, err)
		}
		if w.Type != l.Type || w.Origin != l.Origin || !bytes.Equal(w.Payload, l.Payload) {
			t.Fatalf("envelope read %q as %q %q %s; encoding/json as %q %q %s", line, l.Type, l.Origin, l.Payload, w.Type, w.Origin, w.Payload)
		}
	})
}

// FuzzSimpleEvent holds the reading of the writer's plain events to
// encoding/json's: whatever simpleEvent takes decodes the same by both.
func FuzzSimpleEvent(f *testing.F) {
	for _, s := range []string{
		`{"type":"turn_started"}`,
		`{"type":"user_message","message":"please run step 7"}`,
		`{"type":"user_message","message":"a\nb"}`,
		`{"type":"agent_message","message":"é"}`,
		`{"type":"x","message":""}`,
		`{"type":"item_completed"}`,
		`{"type":"turn_started"} `,
		`{"type":"turn_started","num_turns":2}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		fast, ok := simpleEvent(payload)
		if !ok {
			return
		}
		var slow EventMsg
		if err := json.Unmarshal(payload, &slow); err != nil {
			t.Fatalf("simpleEvent took %q, encoding/json failed: %v", payload, err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q: simpleEvent %+v, encoding/json %+v", payload, fast, slow)
		}
	})
}
