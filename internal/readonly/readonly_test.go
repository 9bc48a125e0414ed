package readonly_test

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/agentcli/agent/internal/readonly"
)

// TestBytesNotCopied: decoding a large string through Bytes allocates
// what the decoded value needs, not another copy of the input.
func TestBytesNotCopied(t *testing.T) {
	s := `{"cmd":"` + strings.Repeat("a", 1<<20) + `"}`
	var v struct {
		Cmd json.RawMessage `json:"cmd"`
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := json.Unmarshal(readonly.Bytes(s), &v); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	// The RawMessage is one copy of the value; a conversion would add one
	// of the whole input.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(len(s))*5/4 {
		t.Errorf("Unmarshal of a %d KiB readonly.Bytes allocated %d KiB, want one copy", len(s)>>10, alloc>>10)
	}
	b := readonly.Bytes(s)
	if len(b) != len(s) || cap(b) != len(s) || string(b) != s {
		t.Errorf("Bytes(s): len %d cap %d, want both %d and the same bytes", len(b), cap(b), len(s))
	}
	if b := readonly.Bytes(""); b != nil {
		t.Errorf("Bytes(\"\") = %v, want nil", b)
	}
}

// TestStringNotCopied: String is b's bytes, not a copy of them.
func TestStringNotCopied(t *testing.T) {
	b := []byte("hello")
	s := readonly.String(b)
	if s != "hello" || unsafe.StringData(s) != &b[0] {
		t.Errorf("String(b) = %q at %p; want b's bytes at %p", s, unsafe.StringData(s), &b[0])
	}
	if readonly.String(nil) != "" {
		t.Error("String(nil) is not empty")
	}
}
