// Package tools holds the tools the model can call (exec_command,
// write_stdin, apply_patch, update_plan) behind one small contract: a
// [Tool] gets an [Invocation], asks for approval through it when the policy
// says so, reports the moment its side effect starts, and returns a
// [Result] whose Output is fed back to the model. The session owns the
// ledger and the approval prompts; tools own what a call means.
package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/agentcli/agent/internal/readonly"
)

// Call is one tool call from the model.
type Call struct {
	// ID is the call_id the output must carry.
	ID string
	// Name is the tool name.
	Name string
	// Input is the JSON arguments of a function call, or the raw text of a
	// custom (freeform) tool call.
	Input string
	// Custom says the call came as a custom_tool_call.
	Custom bool
}

// Status is how a call ended.
type Status string

// Call outcomes.
const (
	StatusCompleted Status = "completed"
	StatusFailed    Status = "failed"
	StatusDeclined  Status = "declined"
	StatusAborted   Status = "aborted"
)

// Result is what a call produced.
type Result struct {
	// Output is the text fed back to the model.
	Output string
	// Images are data: URLs of images that reach the model with Output
	// (an MCP tool's image content).
	Images []string
	// Status is how the call ended.
	Status Status
	// AbortTurn says the user chose to abort the whole turn.
	AbortTurn bool
	// Command is the command line of a command execution, for front ends.
	Command string
	// Argv is the process a command execution ran, as the shell
	// invocation ([ExecArgv]); front ends show it with [ShellJoin].
	Argv []string
	// CommandOutput is the command's own output (stdout and stderr, as
	// they came), without the framing the model gets in Output.
	CommandOutput string
	// ExitCode is the command's exit code, when it exited.
	ExitCode *int
	// Files lists the files a patch changed: "A path", "M path", "D path".
	Files []string
	// Diff is a unified diff of a patch's changes.
	Diff string
	// Plan is the plan after an update_plan call.
	Plan []PlanStep
	// MCP describes a call to a tool of an MCP server; nil for other tools.
	MCP *MCPCall
	// Collab describes a call to a collaboration tool (spawn_agent,
	// send_input, resume_agent, wait_agent, close_agent); nil for others.
	Collab *CollabCall
}

// CollabCall is what front ends show of a call to a collaboration tool:
// Codex's collab_tool_call item.
type CollabCall struct {
	// Tool is the tool's name; Sender the calling session's id.
	Tool, Sender string
	// Receivers are the ids of the subagents the call is about.
	Receivers []string
	// Prompt is the input given (spawn_agent, send_input).
	Prompt string
	// States are the receivers' states after the call, by id.
	States map[string]CollabAgentState
}

// CollabAgentState is a subagent's state in a [CollabCall]: pending_init,
// running, completed, errored, shutdown or not_found, and its last
// message or error.
type CollabAgentState struct {
	Status  string  `json:"status"`
	Message *string `json:"message"`
}

// MCPCall is what front ends show of a call to a tool of an MCP server.
type MCPCall struct {
	// Server is the server's configured name; Tool the tool's own name.
	Server, Tool string
	// Arguments are the call's JSON arguments.
	Arguments json.RawMessage
	// Result is the server's result as a JSON object with "content" and,
	// when the server sent it, "structured_content"; nil when the call got
	// no result.
	Result json.RawMessage
	// Error says why the call got no result; "" when it got one.
	Error string
}

// Invocation is one call being run, with the hooks the session provides.
type Invocation struct {
	Call Call
	// Approve asks for approval of req and returns the decision. It is
	// called only when the policy requires asking.
	Approve func(ctx context.Context, req ApprovalRequest) Decision
	// Started must be called right before the side effect begins: the
	// session records the start durably, so the call is never run again.
	// When it returns an error the start could not be recorded and the
	// side effect must not begin: answer with [NotStarted]. Tools call it
	// through [Invocation.Start].
	Started func() error
	// Policy is the approval policy in effect for this call (the session's
	// current one, which may change between turns); "" leaves the tool's
	// own. Tools read it through [Invocation.PolicyOr].
	Policy string
	// AskUser shows the model's questions to the person and returns the
	// answers by question id; ok is false when the person ended the turn
	// instead (or its ctx ended). Nil: nobody can answer (agent exec).
	AskUser func(ctx context.Context, req UserInputRequest) (answers map[string][]string, ok bool)
}

// PolicyOr returns the call's approval policy, or def when it has none.
func (inv *Invocation) PolicyOr(def string) string {
	if inv.Policy != "" {
		return inv.Policy
	}
	return def
}

// Start reports that the side effect is about to begin (see Started); nil
// Started always allows it.
func (inv *Invocation) Start() error {
	if inv.Started == nil {
		return nil
	}
	return inv.Started()
}

// NotStarted answers a call whose start could not be recorded, so it was
// not run.
func NotStarted(err error) Result {
	return Result{
		Output: "This call was not run: the agent could not record that it was starting (" + err.Error() +
			"), and it never runs a call it cannot record. Nothing was executed.",
		Status: StatusFailed,
	}
}

// Tool is one model-callable tool. Implementations are safe for
// concurrent use when ParallelSafe reports true.
type Tool interface {
	// Name is the name the model calls.
	Name() string
	// Spec is the tool's JSON spec for the request's "tools" array.
	Spec() json.RawMessage
	// ParallelSafe reports whether calls may run concurrently with others.
	ParallelSafe() bool
	// Run performs the call. It never panics on bad input: a call that
	// cannot run is answered with an Output that says why.
	Run(ctx context.Context, inv *Invocation) Result
}

// Set is the tools of one session: a fixed list given to [NewSet] plus
// the tools of dynamic sources ([Set.AddSource]), such as MCP servers that
// come up while the session runs. Its methods are safe for concurrent use.
type Set struct {
	tools   []Tool
	mu      sync.Mutex
	sources []func() []Tool
	// limit is the token budget of an output ([Set.LimitOutput]); 0: none.
	limit int
}

// LimitOutput cuts every output [Set.Run] returns to tokens (config
// tool_output_token_limit) the way Codex cuts what it sends: tokens plus
// its 20% allowance, head and tail kept, the cut said in between
// ([TruncateOutput]). 0 or less leaves outputs whole. Call it before the
// set is shared.
func (s *Set) LimitOutput(tokens int) { s.limit = max(tokens, 0) }

// NewSet returns a set of tools; names must be unique.
func NewSet(tools ...Tool) (*Set, error) {
	seen := map[string]bool{}
	for _, t := range tools {
		if seen[t.Name()] {
			return nil, fmt.Errorf("tools: duplicate tool %q", t.Name())
		}
		seen[t.Name()] = true
	}
	return &Set{tools: slices.Clone(tools)}, nil
}

// AddSource adds a dynamic source of tools. src is called each time the
// set is read ([Set.Specs], [Set.Lookup], [Set.Run]), possibly from
// several goroutines at once, so it must be fast and safe for concurrent
// use; it returns the tools available at that moment. A tool whose name is
// already taken, by the fixed tools or an earlier source, is left out, the
// same way by Specs and Lookup. The set does not close what a source
// returns: the source's owner does.
func (s *Set) AddSource(src func() []Tool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sources = append(s.sources, src)
}

// all returns the tools available now: the fixed ones, then each
// source's, without duplicate names.
func (s *Set) all() []Tool {
	s.mu.Lock()
	sources := s.sources
	s.mu.Unlock()
	if len(sources) == 0 {
		return s.tools
	}
	out := slices.Clone(s.tools)
	seen := make(map[string]bool, len(out))
	for _, t := range out {
		seen[t.Name()] = true
	}
	for _, src := range sources {
		for _, t := range src() {
			if !seen[t.Name()] {
				seen[t.Name()] = true
				out = append(out, t)
			}
		}
	}
	return out
}

// Specs returns the specs of every tool available now, in order: the fixed
// tools, then those of each source.
func (s *Set) Specs() []json.RawMessage {
	if s == nil {
		return nil
	}
	all := s.all()
	out := make([]json.RawMessage, 0, len(all))
	for _, t := range all {
		out = append(out, t.Spec())
	}
	return out
}

// Lookup returns the tool called name, if it is available now.
func (s *Set) Lookup(name string) (Tool, bool) {
	if s == nil {
		return nil, false
	}
	for _, t := range s.all() {
		if t.Name() == name {
			return t, true
		}
	}
	return nil, false
}

// Run runs inv with the tool it names; an unknown tool is answered, not
// fatal.
func (s *Set) Run(ctx context.Context, inv *Invocation) Result {
	t, ok := s.Lookup(inv.Call.Name)
	if !ok {
		return Result{Output: fmt.Sprintf("unknown tool %q", inv.Call.Name), Status: StatusFailed}
	}
	res := t.Run(ctx, inv)
	if s.limit > 0 {
		res.Output = TruncateOutput(res.Output, s.limit+s.limit/5)
	}
	return res
}

// Close ends what the fixed tools keep running (background processes).
// The tools of sources are their owners' to close.
func (s *Set) Close() error {
	if s == nil {
		return nil
	}
	for _, t := range s.tools {
		if c, ok := t.(interface{ Close() error }); ok {
			_ = c.Close()
		}
	}
	return nil
}

// functionSpec builds a function tool spec.
func functionSpec(name, description string, parameters map[string]any) json.RawMessage {
	b, err := json.Marshal(map[string]any{
		"type": "function", "name": name, "description": description,
		"strict": false, "parameters": parameters,
	})
	if err != nil {
		panic(err) // static data; a failure is a programming error
	}
	return b
}

// decodeArgs decodes a function call's JSON arguments into v, with an
// error worded for the model.
func decodeArgs(call Call, v any) error {
	if err := json.Unmarshal(readonly.Bytes(call.Input), v); err != nil {
		return fmt.Errorf("failed to parse function arguments: %v", err)
	}
	return nil
}
