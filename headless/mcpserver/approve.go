package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentcli/agent/internal/termtext"
	"github.com/agentcli/agent/tools"
)

// NoElicitation is the model's answer for a call that needs approval when
// the client cannot be asked.
const NoElicitation = "agent could not ask: the MCP client that runs this session does not support elicitation, " +
	"so calls that need approval are refused, as under the never approval policy; do without it, or say what needs approval"

// The answers an approval's elicitation offers.
const (
	answerApprove    = "approve"
	answerForSession = "approve-for-session"
	answerDeny       = "deny"
)

// decisionSchema is the form of an approval's elicitation.
func decisionSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"decision": map[string]any{
				"type": "string", "enum": []any{answerApprove, answerForSession, answerDeny},
				"description": "approve once, approve this request for the rest of the session, or deny it",
			},
			"note": map[string]any{"type": "string", "description": "with a denial: what the model should do instead"},
		},
		"required": []any{"decision"},
	}
}

// diffLimit caps the diff an approval's message shows.
const diffLimit = 4000

// approver decides the approvals of a call's session by asking the client
// of ss through elicitation, or refuses them with [NoElicitation] when it
// does not support it (or ss is nil).
func approver(ss *mcp.ServerSession) func(ctx context.Context, req tools.ApprovalRequest) tools.Decision {
	return func(ctx context.Context, req tools.ApprovalRequest) tools.Decision {
		if !canElicit(ss) {
			return tools.Decision{Kind: tools.Deny, Note: NoElicitation}
		}
		res, err := ss.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: approvalMessage(req), RequestedSchema: decisionSchema()})
		switch {
		case ctx.Err() != nil:
			return tools.Decision{Kind: tools.AbortTurn}
		case err != nil:
			return tools.Decision{Kind: tools.Deny, Note: "agent could not ask the MCP client for approval (" + err.Error() + "), so this is refused"}
		case res.Action == "decline":
			return tools.Decision{Kind: tools.Deny}
		case res.Action != "accept":
			return tools.Decision{Kind: tools.AbortTurn} // dismissed: stop, as Esc does in the chat
		}
		note, _ := res.Content["note"].(string)
		switch res.Content["decision"] {
		case answerApprove:
			return tools.Decision{Kind: tools.ApproveOnce}
		case answerForSession:
			return tools.Decision{Kind: tools.ApproveForSession}
		}
		return tools.Decision{Kind: tools.Deny, Note: note}
	}
}

// canElicit reports whether the client of ss can answer a form.
func canElicit(ss *mcp.ServerSession) bool {
	if ss == nil {
		return false
	}
	ip := ss.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil {
		return false
	}
	e := ip.Capabilities.Elicitation
	return e.Form != nil || e.URL == nil // neither: form, for older clients
}

// approvalMessage says what a call wants, for the person asked: the
// model's text in it (command, reason, diff) without control sequences.
func approvalMessage(req tools.ApprovalRequest) string {
	return termtext.Plain(rawApprovalMessage(req))
}

func rawApprovalMessage(req tools.ApprovalRequest) string {
	var b strings.Builder
	switch req.Kind {
	case "patch":
		fmt.Fprintf(&b, "agent wants to change %s", strings.Join(req.Files, ", "))
	case "mcp":
		fmt.Fprintf(&b, "agent wants to call the MCP tool %s", req.Command)
	default:
		fmt.Fprintf(&b, "agent wants to run, in %s:\n\n    %s", req.Workdir, req.Command)
	}
	if req.Escalated {
		b.WriteString("\n\noutside the sandbox")
	}
	if req.Reason != "" {
		fmt.Fprintf(&b, "\n\nReason: %s", req.Reason)
	}
	if d := req.Diff; d != "" {
		if len(d) > diffLimit {
			d = d[:diffLimit] + "\n… (diff cut)"
		}
		b.WriteString("\n\n" + d)
	}
	return b.String()
}
