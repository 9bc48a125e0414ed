package responsestest

// The steps of an Anthropic Messages stream (POST .../messages, which
// consumes attempts as POST .../responses does): named events whose data
// has the event's name as its type, as api.anthropic.com sends them. Any
// [Attempt] and the control steps ([Drop], [Stall], [Status] ...) serve
// this wire too; [EventData] and [Raw] write a server's own bytes.

// ClaudeStart is message_start: the message's id and the input usage
// (input_tokens leaves out the cache's tokens, read and written).
func ClaudeStart(id string, input, cacheRead, cacheWrite int) Step {
	return Event("message_start", map[string]any{"message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": "claude-test", "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": input, "cache_read_input_tokens": cacheRead,
			"cache_creation_input_tokens": cacheWrite, "output_tokens": 1},
	}})
}

// ClaudeText is a whole text block at index: its start, one text_delta
// per piece, its stop.
func ClaudeText(index int, pieces ...string) []Step {
	steps := []Step{Event("content_block_start", map[string]any{"index": index, "content_block": map[string]any{"type": "text", "text": ""}})}
	for _, p := range pieces {
		steps = append(steps, Event("content_block_delta", map[string]any{"index": index, "delta": map[string]any{"type": "text_delta", "text": p}}))
	}
	return append(steps, ClaudeStop(index))
}

// ClaudeThinking is a whole thinking block at index: thinking_delta, then
// its signature_delta, then its stop.
func ClaudeThinking(index int, thinking, signature string) []Step {
	return []Step{
		Event("content_block_start", map[string]any{"index": index, "content_block": map[string]any{"type": "thinking", "thinking": ""}}),
		Event("content_block_delta", map[string]any{"index": index, "delta": map[string]any{"type": "thinking_delta", "thinking": thinking}}),
		Event("content_block_delta", map[string]any{"index": index, "delta": map[string]any{"type": "signature_delta", "signature": signature}}),
		ClaudeStop(index),
	}
}

// ClaudeToolUse is a whole tool_use block at index, its input in
// input_json_delta fragments as given.
func ClaudeToolUse(index int, id, name string, fragments ...string) []Step {
	steps := []Step{Event("content_block_start", map[string]any{"index": index, "content_block": map[string]any{
		"type": "tool_use", "id": id, "name": name, "input": map[string]any{}}})}
	for _, f := range fragments {
		steps = append(steps, Event("content_block_delta", map[string]any{"index": index, "delta": map[string]any{"type": "input_json_delta", "partial_json": f}}))
	}
	return append(steps, ClaudeStop(index))
}

// ClaudeStop is content_block_stop at index.
func ClaudeStop(index int) Step {
	return Event("content_block_stop", map[string]any{"index": index})
}

// ClaudeEnd is message_delta with the stop_reason ("end_turn",
// "tool_use", "max_tokens", "refusal") and the output tokens, then
// message_stop.
func ClaudeEnd(stopReason string, output int) []Step {
	return []Step{
		Event("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stopReason, "stop_sequence": nil},
			"usage": map[string]any{"output_tokens": output}}),
		Event("message_stop", nil),
	}
}

// ClaudeError is the error event of a stream that fails mid-way, of
// errType ("overloaded_error", "api_error", ...).
func ClaudeError(errType, message string) Step {
	return Event("error", map[string]any{"error": map[string]string{"type": errType, "message": message}})
}

// ClaudeErrorBody is the body of an HTTP error of the Messages API.
func ClaudeErrorBody(errType, message string) string {
	return mustJSON(map[string]any{"type": "error", "error": map[string]string{"type": errType, "message": message},
		"request_id": "req_011CSHoEeqs5C35K2UUqR7Fy"})
}

// ClaudeReply is a whole Messages answer: one text block, end_turn.
func ClaudeReply(text string) Attempt {
	steps := []Step{ClaudeStart("msg_test", 10, 0, 0)}
	steps = append(steps, ClaudeText(0, text)...)
	return Stream(append(steps, ClaudeEnd("end_turn", 2)...)...)
}

// Claude is a stream of the given steps and groups of steps, in order.
func Claude(parts ...any) Attempt {
	var steps []Step
	for _, p := range parts {
		switch p := p.(type) {
		case Step:
			steps = append(steps, p)
		case []Step:
			steps = append(steps, p...)
		default:
			panic("responsestest.Claude: a part is a Step or []Step")
		}
	}
	return Stream(steps...)
}
