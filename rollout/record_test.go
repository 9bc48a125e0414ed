package rollout

import (
	"encoding/json"
	"testing"
)

// FuzzDecodeRecord checks the index's fast path against encoding/json:
// whatever it accepts, encoding/json decodes to the same record.
func FuzzDecodeRecord(f *testing.F) {
	for _, r := range []indexRecord{
		{ID: "a", Path: "2024/01/02/rollout-x-a.jsonl", Cwd: "/p", Created: "c", Updated: "u"},
		{ID: "b", Path: "p", Cwd: "/é ü", Created: "c", Updated: "u", Title: `say "hi" <b> & é`},
	} {
		b, err := json.Marshal(r)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add(`{"id":"a","path":"p","cwd":"\u00e9","created":"","updated":""}`)
	f.Add(`{"id":"a","path":"p","cwd":"` + "\xff" + `","created":"","updated":""}`)
	f.Fuzz(func(t *testing.T, line string) {
		fast, ok := fastRecord(line)
		if !ok {
			return
		}
		var slow indexRecord
		if err := json.Unmarshal([]byte(line), &slow); err != nil {
			t.Fatalf("fast path accepted %q, encoding/json: %v", line, err)
		}
		if fast != slow {
			t.Fatalf("fast path %+v, encoding/json %+v", fast, slow)
		}
	})
}
