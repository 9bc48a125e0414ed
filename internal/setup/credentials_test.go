package setup

import (
	"testing"

	"github.com/agentcli/agent/auth"
)

func TestChatGPTBaseURL(t *testing.T) {
	for in, want := range map[string]string{
		"":                                      auth.DefaultChatGPTBaseURL,
		"https://chatgpt.com/backend-api/":      "https://chatgpt.com/backend-api/codex",
		"https://chatgpt.com/backend-api/codex": "https://chatgpt.com/backend-api/codex",
		"http://127.0.0.1:9/v1":                 "http://127.0.0.1:9/v1",
	} {
		if got := chatGPTBaseURL(in); got != want {
			t.Errorf("chatGPTBaseURL(%q) = %q; want %q", in, got, want)
		}
	}
}
