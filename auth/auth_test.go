package auth_test

import (
	"strings"
	"testing"

	"github.com/agentcli/agent/auth"
)

func TestMask(t *testing.T) {
	tests := []struct{ in, want string }{
		{"short", "****"},
		{"test-abcdefghijklmnop1234", "test-…1234"},
		{"abcdefghijklmnopqrstuvwxyz", "…wxyz"},
	}
	for _, tt := range tests {
		if got := auth.Mask(tt.in); got != tt.want {
			t.Errorf("Mask(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
	k := auth.NewAPIKey("test-secretsecretsecret9999")
	if s := k.String(); strings.Contains(s, "secret") {
		t.Errorf("String() = %q leaks the key", s)
	}
}
