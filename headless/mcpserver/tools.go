package mcpserver

import (
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentcli/agent/tools"
)

// startTool describes the start tool: its input schema is startInput's,
// closed (an unknown argument is an error), with the choices of sandbox
// and approval-policy listed.
func startTool() *mcp.Tool {
	in := closedSchema[startInput]()
	in.Properties["sandbox"].Enum = []any{tools.SandboxReadOnly, tools.SandboxWorkspaceWrite, tools.SandboxFullAccess}
	in.Properties["approval-policy"].Enum = []any{tools.PolicyUntrusted, tools.PolicyOnFailure, tools.PolicyOnRequest, tools.PolicyNever}
	return &mcp.Tool{
		Name:  ToolStart,
		Title: "agent",
		Description: "Start an agent session: agent works on the prompt in cwd (reading files, running commands " +
			"in its sandbox, editing under workspace-write) and answers with its final message. " +
			"structuredContent.sessionId continues the session with " + ToolReply + ".",
		InputSchema: in,
	}
}

// replyTool describes the reply tool.
func replyTool() *mcp.Tool {
	return &mcp.Tool{
		Name:        ToolReply,
		Title:       "agent reply",
		Description: "Continue an agent session (one started by " + ToolStart + ", or any recorded one) with the next prompt.",
		InputSchema: closedSchema[replyInput](),
	}
}

// closedSchema is T's JSON schema, refusing properties it does not name.
func closedSchema[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(err) // the input types are this package's: a test catches it
	}
	s.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
	return s
}
