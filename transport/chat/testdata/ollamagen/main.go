// Generates Ollama's OpenAI-compatible /v1/chat/completions stream with
// Ollama's own middleware (github.com/ollama/ollama/middleware, v0.17.4)
// from native api.ChatResponse lines as Ollama's /api/chat handler
// writes them.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/middleware"
)

func main() {
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	at := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	args := func(kv ...any) api.ToolCallFunctionArguments {
		var a api.ToolCallFunctionArguments
		for i := 0; i < len(kv); i += 2 {
			a.Set(kv[i].(string), kv[i+1])
		}
		return a
	}
	native := []api.ChatResponse{
		{Model: "qwen3:8b", CreatedAt: at, Message: api.Message{Role: "assistant", Thinking: "The user wants the files "}},
		{Model: "qwen3:8b", CreatedAt: at, Message: api.Message{Role: "assistant", Thinking: "and the git status."}},
		{Model: "qwen3:8b", CreatedAt: at, Message: api.Message{Role: "assistant", Content: "Let me look."}},
		{Model: "qwen3:8b", CreatedAt: at, Message: api.Message{Role: "assistant", ToolCalls: []api.ToolCall{
			{ID: "call_a1", Function: api.ToolCallFunction{Index: 0, Name: "exec_command", Arguments: args("cmd", "ls")}},
			{ID: "call_b2", Function: api.ToolCallFunction{Index: 1, Name: "exec_command", Arguments: args("cmd", "git status")}},
		}}},
		{Model: "qwen3:8b", CreatedAt: at, Message: api.Message{Role: "assistant"}, Done: true, DoneReason: "stop",
			Metrics: api.Metrics{PromptEvalCount: 412, EvalCount: 58}},
	}
	r.POST("/v1/chat/completions", middleware.ChatMiddleware(), func(c *gin.Context) {
		for _, resp := range native {
			b, _ := json.Marshal(resp)
			c.Writer.Write(append(b, '\n'))
		}
	})
	body := `{"model":"qwen3:8b","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"list the files and the git status"}]}`
	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/v1/chat/completions", bytes.NewBufferString(body)))
	if w.Code != http.StatusOK {
		fmt.Fprintln(os.Stderr, w.Code, w.Body.String())
		os.Exit(1)
	}
	os.Stdout.Write(w.Body.Bytes())
}
