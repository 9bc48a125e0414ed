package jsonstring_test

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/agentcli/agent/internal/jsonstring"
)

// FuzzString: String decodes every JSON value as a string field of
// encoding/json does: the same text, an error for the same values, null
// leaving it as it was.
func FuzzString(f *testing.F) {
	for _, s := range []string{
		`"plain"`, `"a\"b\\c\/d\b\f\n\r\t"`, `"\u00e9\u4e2d\ud83d\ude00"`, `"\ud83d"`, `"\ud83dx"`,
		`"\ud83d\u0041"`, `"\ude00\ud83d"`, "\"\xff\xfe bad \xc3\"", `"é中😀"`, `null`, `12`, `true`, `{"a":1}`, `[1]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		if !json.Valid([]byte(data)) {
			return // encoding/json checks the input before an Unmarshaler sees it
		}
		want, got := "kept", jsonstring.String("kept")
		werr := json.Unmarshal([]byte(data), &want)
		gerr := json.Unmarshal([]byte(data), &got)
		if (werr != nil) != (gerr != nil) || string(got) != want {
			t.Fatalf("%q: got %q, %v; encoding/json %q, %v", data, got, gerr, want, werr)
		}
	})
}

// TestStringLong: text longer than one piece, with escapes and
// multi-byte runes on either side of the piece boundaries, decodes as
// encoding/json decodes it.
func TestStringLong(t *testing.T) {
	for _, cut := range []int{0, 1, 2, 5} {
		body := strings.Repeat("x", 256<<10-cut) + `\n\u00e9é` + strings.Repeat("y", 256<<10) + `\ud83d\ude00"`
		data := `"` + body
		var want string
		var got jsonstring.String
		if err := json.Unmarshal([]byte(data), &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(data), &got); err != nil || string(got) != want {
			t.Fatalf("cut %d: decoded %d bytes, %v; want encoding/json's %d", cut, len(got), err, len(want))
		}
	}
	var v struct {
		Cmd jsonstring.String `json:"cmd"`
	}
	var w struct {
		Cmd string `json:"cmd"`
	}
	gerr, werr := json.Unmarshal([]byte(`{"cmd":5}`), &v), json.Unmarshal([]byte(`{"cmd":5}`), &w)
	if gerr == nil || gerr.Error() != werr.Error() {
		t.Errorf("a number for a string: %v; want encoding/json's %v", gerr, werr)
	}
}

// TestStringCopiedOnce: a 4 MiB argument with escapes (JSON inside a
// JSON string) costs one copy, where encoding/json takes two.
func TestStringCopiedOnce(t *testing.T) {
	arg := `{\"cmd\":\"true\",\"justification\":\"` + strings.Repeat("lorem ipsum ", 4<<20/12) + `\"}`
	data := []byte(`{"arguments":"` + arg + `"}`)
	var v struct {
		Arguments jsonstring.String `json:"arguments"`
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if want := strings.ReplaceAll(arg, `\"`, `"`); string(v.Arguments) != want {
		t.Fatalf("decoded %.40s..., want %.40s...", v.Arguments, want)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(len(arg))*5/4 {
		t.Errorf("decoding a %d KiB string allocated %d KiB; want one copy", len(arg)>>10, alloc>>10)
	}
}
