package subagent

import (
	"encoding/json"
	"fmt"
)

// The collaboration tools' specs (SpawnSpec, SendInputSpec, ResumeSpec,
// WaitSpec, CloseSpec): Codex's names, parameters and wording
// (codex-rs core/src/tools/handlers/multi_agents_spec.rs, the v1 tools),
// as plain function tools.

func functionTool(name, description string, properties map[string]any, required []string) json.RawMessage {
	params := map[string]any{"type": "object", "properties": properties, "additionalProperties": false}
	if required != nil {
		params["required"] = required
	}
	b, err := json.Marshal(map[string]any{"type": "function", "name": name, "description": description,
		"strict": false, "parameters": params})
	if err != nil {
		panic(err) // static data
	}
	return b
}

func str(description string) map[string]any {
	return map[string]any{"type": "string", "description": description}
}

// collabItems is the items parameter: structured input items.
func collabItems() map[string]any {
	return map[string]any{
		"type":        "array",
		"description": "Structured input items. Use this to pass explicit mentions (for example app:// connector paths).",
		"items": map[string]any{
			"type": "object",
			"properties": map[string]any{
				"type":      str("Input item type: text, image, local_image, skill, or mention."),
				"text":      str("Text content when type is text."),
				"image_url": str("Image URL when type is image."),
				"path":      str("Path when type is local_image/skill, or structured mention target such as app://<connector-id> or plugin://<plugin-name>@<marketplace-name> when type is mention."),
				"name":      str("Display name when type is skill or mention."),
			},
			"additionalProperties": false,
		},
	}
}

// SpawnSpec is spawn_agent's spec; its agent_type lists roles.
func SpawnSpec(roles map[string]Role) json.RawMessage {
	return functionTool("spawn_agent",
		"Spawn a sub-agent for a well-scoped task. Returns the spawned agent id plus the user-facing nickname when available. "+
			"Spawned agents inherit your current model by default. Omit `model` to use that preferred default; set `model` only when an explicit override is needed.\n"+
			"Only use `spawn_agent` if and only if the user explicitly asks for sub-agents, delegation, or parallel agent work. "+
			"Subtasks must be concrete, well-defined, and self-contained; call wait_agent only when you need the result for your next step.",
		map[string]any{
			"message":          str("Initial plain-text task for the new agent. Use either message or items."),
			"items":            collabItems(),
			"agent_type":       str(roleDescriptions(roles)),
			"fork_context":     map[string]any{"type": "boolean", "description": "True forks the current thread history into the new agent; false or omitted starts with only the initial prompt."},
			"model":            str("Model override for the new agent. Omit unless an explicit override is needed."),
			"reasoning_effort": str("Reasoning effort override for the new agent. Omit to inherit the parent effort."),
			"service_tier":     str("Service tier override for the new agent. Omit unless explicitly requested."),
		}, nil)
}

// SendInputSpec is send_input's spec.
func SendInputSpec() json.RawMessage {
	return functionTool("send_input",
		"Send a message to an existing agent. Use interrupt=true to redirect work immediately. You should reuse the agent by send_input if you believe your assigned task is highly dependent on the context of a previous task.",
		map[string]any{
			"target":    str("Agent id to message (from spawn_agent)."),
			"message":   str("Legacy plain-text message to send to the agent. Use either message or items."),
			"items":     collabItems(),
			"interrupt": map[string]any{"type": "boolean", "description": "True interrupts the current task and handles this message immediately; false or omitted queues it."},
		}, []string{"target"})
}

// ResumeSpec is resume_agent's spec.
func ResumeSpec() json.RawMessage {
	return functionTool("resume_agent",
		"Resume a previously closed agent by id so it can receive send_input and wait_agent calls.",
		map[string]any{"id": str("Agent id to resume.")}, []string{"id"})
}

// WaitSpec is wait_agent's spec.
func WaitSpec() json.RawMessage {
	return functionTool("wait_agent",
		"Wait for agents to reach a final status. Completed statuses may include the agent's final message. Returns empty status when timed out. Once the agent reaches a final status, a notification message will be received containing the same completed status.",
		map[string]any{
			"targets": map[string]any{"type": "array", "items": map[string]any{"type": "string"},
				"description": "Agent ids to wait on. Pass multiple ids to wait for whichever finishes first."},
			"timeout_ms": map[string]any{"type": "number", "description": fmt.Sprintf(
				"Optional timeout in milliseconds. Defaults to %d, min %d, max %d. Prefer longer waits (minutes) to avoid busy polling.",
				DefaultWaitTimeout.Milliseconds(), MinWaitTimeout.Milliseconds(), MaxWaitTimeout.Milliseconds())},
		}, []string{"targets"})
}

// CloseSpec is close_agent's spec.
func CloseSpec() json.RawMessage {
	return functionTool("close_agent",
		"Close an agent and any open descendants when they are no longer needed, and return the target agent's previous status before shutdown was requested. Completed agents remain open and count toward the concurrency limit until closed. Don't keep agents open for too long if they are not needed anymore.",
		map[string]any{"target": str("Agent id to close (from spawn_agent).")}, []string{"target"})
}
