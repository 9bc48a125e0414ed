package responsestest

import "encoding/json"

// The steps of a Chat Completions stream (POST .../chat/completions, which
// consumes attempts as POST .../responses does): each a
// chat.completion.chunk in an unnamed event, as Ollama, vLLM, llama.cpp's
// server and OpenRouter send them. Any [Attempt] and the control steps
// ([Drop], [Stall], [Status] ...) serve this wire too; [EventData] and
// [Raw] write a server's own bytes.

// ChatDelta is a chunk whose delta carries content text.
func ChatDelta(text string) Step {
	return chatChunk(map[string]any{"content": text}, nil, nil)
}

// ChatReasoning is a chunk whose delta carries reasoning_content, as
// DeepSeek, vLLM and llama.cpp stream it.
func ChatReasoning(text string) Step {
	return chatChunk(map[string]any{"reasoning_content": text}, nil, nil)
}

// ChatToolCall is a chunk with one whole tool call at index.
func ChatToolCall(index int, callID, name, arguments string) Step {
	return chatChunk(map[string]any{"tool_calls": []any{map[string]any{
		"index": index, "id": callID, "type": "function",
		"function": map[string]any{"name": name, "arguments": arguments},
	}}}, nil, nil)
}

// ChatFinish is the chunk with the finish_reason ("stop", "tool_calls",
// "length", "content_filter").
func ChatFinish(reason string) Step {
	return chatChunk(map[string]any{}, &reason, nil)
}

// ChatUsage is the last chunk of stream_options.include_usage: no
// choices, the usage.
func ChatUsage(prompt, completion int) Step {
	return chatChunk(nil, nil, map[string]any{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion})
}

// ChatDone is "data: [DONE]", the stream's end.
func ChatDone() Step { return EventData("[DONE]") }

// ChatReply is a whole Chat Completions answer: text, finish_reason stop,
// the usage, [DONE].
func ChatReply(text string) Attempt {
	return Stream(ChatDelta(text), ChatFinish("stop"), ChatUsage(10, 2), ChatDone())
}

func chatChunk(delta map[string]any, finish *string, usage map[string]any) Step {
	c := map[string]any{"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 1, "model": "test"}
	if delta != nil {
		c["choices"] = []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}
	} else {
		c["choices"] = []any{}
	}
	if usage != nil {
		c["usage"] = usage
	}
	b, err := json.Marshal(c)
	if err != nil {
		panic(err) // static shapes
	}
	return EventData(string(b))
}
