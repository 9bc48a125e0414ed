package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentcli/agent/internal/jsonstring"
	"github.com/agentcli/agent/internal/readonly"
	"github.com/agentcli/agent/internal/shellenv"
)

// Defaults and bounds of exec_command and write_stdin, as the reference.
const (
	defaultYield      = 10 * time.Second
	minYield          = 250 * time.Millisecond
	maxYield          = 30 * time.Second
	defaultWriteYield = 250 * time.Millisecond
	defaultPollYield  = 5 * time.Second
	maxPollYield      = 300 * time.Second
	defaultMaxTokens  = 10000
)

// CommandFunc builds the process for argv in dir; the sandbox plugs in
// here. It must not start the process. A process is killed (an
// interrupted call, Stop, Close) by the command's Cancel when it has one,
// else with SIGKILL.
type CommandFunc func(ctx context.Context, dir string, argv []string) (*exec.Cmd, error)

// ExecOptions configure the exec_command and write_stdin tools.
type ExecOptions struct {
	// Cwd is the default working directory (required).
	Cwd string
	// Shell runs commands; default $SHELL, else /bin/bash, else /bin/sh.
	Shell string
	// Command builds each process (the sandbox); default an unconfined
	// exec.Cmd.
	Command CommandFunc
	// Unsandboxed builds a process outside the sandbox, for approved
	// escalations; default the same as Command.
	Unsandboxed CommandFunc
	// Policy and Sandbox select the approval rules.
	Policy, Sandbox string
	// After waits for the yield time; default time.After. Tests inject it.
	After func(time.Duration) <-chan time.Time
	// Now reads the clock for wall times; default time.Now.
	Now func() time.Time
	// Env is the environment of commands, built by a [shellenv.Policy]
	// from agent's; default the default policy applied to os.Environ().
	Env []string
	// Denied recognises a sandbox denial from a finished command's wait
	// error and output, so the model is told the sandbox stopped it; nil
	// recognises none.
	Denied func(waitErr error, output []byte) bool
}

var (
	_ Tool = (*Exec)(nil)
	_ Tool = (*WriteStdin)(nil)
	_ Tool = Plan{}
)

// Exec is the exec_command tool and the registry of processes still
// running, which its companion [WriteStdin] polls.
type Exec struct {
	opts  ExecOptions
	mu    sync.Mutex
	procs map[int]*proc
	next  int
}

// NewExec returns the exec_command tool.
func NewExec(opts ExecOptions) *Exec {
	if opts.Shell == "" {
		opts.Shell = os.Getenv("SHELL")
		if opts.Shell == "" {
			opts.Shell = "/bin/bash"
			if _, err := os.Stat(opts.Shell); err != nil {
				opts.Shell = "/bin/sh"
			}
		}
	}
	if opts.Command == nil {
		opts.Command = func(ctx context.Context, dir string, argv []string) (*exec.Cmd, error) {
			c := exec.Command(argv[0], argv[1:]...)
			c.Dir = dir
			return c, nil
		}
	}
	if opts.Unsandboxed == nil {
		opts.Unsandboxed = opts.Command
	}
	if opts.Env == nil {
		opts.Env = shellenv.Policy{}.Build(os.Environ())
	}
	if opts.After == nil {
		opts.After = time.After
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Exec{opts: opts, procs: map[int]*proc{}, next: 1}
}

// Name implements [Tool].
func (e *Exec) Name() string { return "exec_command" }

// ParallelSafe implements [Tool]: commands may have side effects, so they
// run one at a time.
func (e *Exec) ParallelSafe() bool { return false }

// Spec implements [Tool].
func (e *Exec) Spec() json.RawMessage {
	return functionSpec("exec_command",
		"Runs a command in a shell and returns its output. Commands run in the sandbox; if one needs to "+
			"escape it (for example to write outside the workspace or use the network), set "+
			"sandbox_permissions to \"require_escalated\" and explain why in justification. "+
			"A command still running after yield_time_ms returns a session ID: poll it or send input with write_stdin.",
		map[string]any{
			"type": "object",
			"properties": map[string]any{
				"cmd":                 map[string]any{"type": "string", "description": "The shell command to run."},
				"workdir":             map[string]any{"type": "string", "description": "Working directory (default: the session's)."},
				"yield_time_ms":       map[string]any{"type": "number", "description": "How long to wait for output before returning (250-30000, default 10000)."},
				"max_output_tokens":   map[string]any{"type": "number", "description": "Output budget; longer output is cut in the middle (default 10000)."},
				"login":               map[string]any{"type": "boolean", "description": "Run as a login shell (default true)."},
				"sandbox_permissions": map[string]any{"type": "string", "enum": []string{"use_default", "require_escalated"}},
				"justification":       map[string]any{"type": "string", "description": "Why escalation is needed."},
			},
			"required":             []string{"cmd"},
			"additionalProperties": false,
		})
}

type execArgs struct {
	Cmd                jsonstring.String `json:"cmd"` // a 10 MiB heredoc: one copy
	Workdir            string            `json:"workdir"`
	YieldTimeMS        *float64          `json:"yield_time_ms"`
	MaxOutputTokens    *float64          `json:"max_output_tokens"`
	Login              *bool             `json:"login"`
	SandboxPermissions string            `json:"sandbox_permissions"`
	// Justification is checked to be a string, not copied: it is read
	// (justification) only when the command asks for approval. A model
	// may make it 120 MiB.
	Justification unreadString `json:"justification"`
}

// justification is the justification of an exec_command call's arguments.
func justification(call Call) string {
	var a struct {
		Justification jsonstring.String `json:"justification"`
	}
	_ = decodeArgs(call, &a) // decoded once already
	return string(a.Justification)
}

func clampMS(v *float64, def, lo, hi time.Duration) time.Duration {
	if v == nil {
		return def
	}
	return min(max(time.Duration(*v*float64(time.Millisecond)), lo), hi)
}

// tokenBudget reads a max_output_tokens argument.
func tokenBudget(v *float64) int {
	if v == nil || *v < 1 {
		return defaultMaxTokens
	}
	return int(min(*v, 1<<30))
}

// Run implements [Tool].
func (e *Exec) Run(ctx context.Context, inv *Invocation) Result {
	var a execArgs
	if err := decodeArgs(inv.Call, &a); err != nil {
		return Result{Output: err.Error(), Status: StatusFailed}
	}
	if a.Cmd == "" {
		return Result{Output: "exec_command: cmd is empty", Status: StatusFailed}
	}
	dir := e.opts.Cwd
	if a.Workdir != "" {
		dir = a.Workdir
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(e.opts.Cwd, dir)
		}
	}
	res := Result{Command: string(a.Cmd)}
	req := ApprovalRequest{CallID: inv.Call.ID, Kind: "command", Command: string(a.Cmd), Workdir: dir,
		Escalated: a.SandboxPermissions == "require_escalated"}
	policy := inv.PolicyOr(e.opts.Policy)
	if Forbidden(policy, e.opts.Sandbox, req) {
		res.Output, res.Status = "escalation is not available: the approval policy is \"never\"; the command must run inside the sandbox", StatusDeclined
		return res
	}
	if NeedsApproval(policy, e.opts.Sandbox, req) {
		req.Reason = justification(inv.Call)
		d := inv.Approve(ctx, req)
		switch d.Kind {
		case Deny:
			res.Output, res.Status = declinedOutput("exec command", d), StatusDeclined
			return res
		case AbortTurn:
			res.Output, res.Status, res.AbortTurn = "aborted by user", StatusAborted, true
			return res
		}
	}
	argv := execArgv(e.opts.Shell, a)
	res.Argv = argv
	build := e.opts.Command
	if req.Escalated {
		build = e.opts.Unsandboxed
	}
	// The process is not bound to the call's ctx: a command still running
	// when its yield ends is an exec session the model keeps (write_stdin,
	// later turns), ended by Stop or Close. An interruption during the
	// yield still kills it (await).
	cmd, err := build(context.WithoutCancel(ctx), dir, argv)
	if err != nil {
		res.Output, res.Status = "failed to start the command: "+err.Error(), StatusFailed
		return res
	}
	if cmd.Env == nil {
		cmd.Env = e.opts.Env
	}
	if err := inv.Start(); err != nil {
		return NotStarted(err)
	}
	p, err := startProc(cmd, e.opts.Now())
	if err != nil {
		res.Output, res.Status = "failed to start the command: "+err.Error(), StatusFailed
		return res
	}
	p.argv = argv
	return e.await(ctx, p, clampMS(a.YieldTimeMS, defaultYield, minYield, maxYield), tokenBudget(a.MaxOutputTokens), res)
}

// await waits up to yield for p to exit, then reports its output so far;
// a process still running is registered for write_stdin.
func (e *Exec) await(ctx context.Context, p *proc, yield time.Duration, maxTokens int, res Result) Result {
	select {
	case <-p.done:
	case <-e.opts.After(yield):
	case <-ctx.Done():
		p.kill()
		<-p.done
		res.Output, res.Status = "aborted: the turn was interrupted and the command was killed", StatusAborted
		return res
	}
	c := p.take()
	out := execOutput{wall: e.opts.Now().Sub(p.start), output: c.text, omitted: c.omitted, maxTokens: maxTokens}
	res.CommandOutput = out.output
	select {
	case <-p.done:
		code := p.exitCode
		out.exitCode, res.ExitCode = &code, &code
		res.Status = StatusCompleted
		if code != 0 {
			res.Status = StatusFailed
		}
		if code != 0 && e.opts.Denied != nil && e.opts.Denied(p.waitErr, []byte(out.output)) {
			out.output += "\n[the sandbox (" + e.opts.Sandbox + ") denied this; the command needs " +
				"sandbox_permissions \"require_escalated\" with a justification, or another approach]"
		}
		e.forget(p)
	default:
		out.sessionID = e.register(p)
		res.Status = StatusCompleted
	}
	res.Output = out.String()
	return res
}

func (e *Exec) register(p *proc) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	if p.id == 0 {
		p.id = e.next
		e.next++
		e.procs[p.id] = p
	}
	return p.id
}

func (e *Exec) forget(p *proc) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.procs, p.id)
}

func (e *Exec) lookup(id int) (*proc, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	p, ok := e.procs[id]
	return p, ok
}

// Close kills every process still running and waits for it.
func (e *Exec) Close() error {
	e.mu.Lock()
	procs := e.procs
	e.procs = map[int]*proc{}
	e.mu.Unlock()
	for _, p := range procs {
		p.kill()
		<-p.done
	}
	return nil
}

// proc is a started process whose combined output is collected.
type proc struct {
	id       int
	argv     []string // the shell invocation, as the model asked for it
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	start    time.Time
	mu       sync.Mutex
	out      *HeadTail // the output since the last look, bounded
	done     chan struct{}
	exitCode int
	waitErr  error
}

func startProc(cmd *exec.Cmd, now time.Time) (*proc, error) {
	p := &proc{cmd: cmd, start: now, out: NewHeadTail(CaptureHeadBytes, CaptureTailBytes), done: make(chan struct{})}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	p.stdin = stdin
	w := &lockedWriter{p: p}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		err := cmd.Wait()
		p.waitErr = err
		var ee *exec.ExitError
		switch {
		case err == nil:
			p.exitCode = 0
		case errors.As(err, &ee):
			p.exitCode = ee.ExitCode()
			if p.exitCode < 0 {
				p.exitCode = 128 + 9 // killed by a signal
			}
		default:
			p.exitCode = -1
		}
		close(p.done)
	}()
	return p, nil
}

type lockedWriter struct{ p *proc }

func (w *lockedWriter) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	return w.p.out.Write(b)
}

// captured is what a look at a command's output found: the head and tail
// kept of it, joined, and the count of bytes between them not kept.
type captured struct {
	text    string
	omitted int64
}

// take returns and clears the output collected so far.
func (p *proc) take() captured {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := captured{text: string(p.out.Head()) + string(p.out.Tail()), omitted: p.out.Omitted()}
	if c.omitted > 0 {
		c.text = string(p.out.Head()) + omittedMarker(c.omitted) + string(p.out.Tail())
	}
	p.out.Reset()
	return c
}

// kill ends the process by its command's Cancel when it has one (the
// sandbox's ends everything the command started), else with SIGKILL.
func (p *proc) kill() {
	switch {
	case p.cmd.Process == nil:
	case p.cmd.Cancel != nil:
		_ = p.cmd.Cancel()
	default:
		_ = p.cmd.Process.Kill()
	}
}

// WriteStdin is the write_stdin tool: send input to a running process and
// collect what it printed since the last look.
type WriteStdin struct{ e *Exec }

// NewWriteStdin returns the write_stdin tool for the processes of e.
func NewWriteStdin(e *Exec) *WriteStdin { return &WriteStdin{e: e} }

// Name implements [Tool].
func (w *WriteStdin) Name() string { return "write_stdin" }

// ParallelSafe implements [Tool].
func (w *WriteStdin) ParallelSafe() bool { return false }

// Spec implements [Tool].
func (w *WriteStdin) Spec() json.RawMessage {
	return functionSpec("write_stdin",
		"Writes characters to the standard input of a running exec_command session and returns its new output. Empty chars polls.",
		map[string]any{
			"type": "object",
			"properties": map[string]any{
				"session_id":        map[string]any{"type": "number"},
				"chars":             map[string]any{"type": "string"},
				"yield_time_ms":     map[string]any{"type": "number"},
				"max_output_tokens": map[string]any{"type": "number"},
			},
			"required":             []string{"session_id"},
			"additionalProperties": false,
		})
}

// Run implements [Tool].
func (w *WriteStdin) Run(ctx context.Context, inv *Invocation) Result {
	var a struct {
		SessionID       float64  `json:"session_id"`
		Chars           string   `json:"chars"`
		YieldTimeMS     *float64 `json:"yield_time_ms"`
		MaxOutputTokens *float64 `json:"max_output_tokens"`
	}
	if err := decodeArgs(inv.Call, &a); err != nil {
		return Result{Output: err.Error(), Status: StatusFailed}
	}
	p, ok := w.e.lookup(int(a.SessionID))
	if !ok {
		return Result{Output: "no running process with session ID " + strconv.Itoa(int(a.SessionID)), Status: StatusFailed}
	}
	yield := clampMS(a.YieldTimeMS, defaultPollYield, minYield, maxPollYield)
	if a.Chars != "" {
		yield = clampMS(a.YieldTimeMS, defaultWriteYield, minYield, maxYield)
		if err := inv.Start(); err != nil {
			return NotStarted(err)
		}
		if _, err := io.WriteString(p.stdin, a.Chars); err != nil {
			return Result{Output: fmt.Sprintf("write to session %d: %v", p.id, err), Status: StatusFailed}
		}
	}
	return w.e.await(ctx, p, yield, tokenBudget(a.MaxOutputTokens), Result{Command: strings.Join(p.argv, " "), Argv: p.argv})
}

// execArgv is the process an exec_command call runs: the shell with -lc
// (or -c when login is false) and the command.
func execArgv(shell string, a execArgs) []string {
	flag := "-lc"
	if a.Login != nil && !*a.Login {
		flag = "-c"
	}
	return []string{shell, flag, string(a.Cmd)}
}

// ExecArgv returns the process an exec_command call with JSON arguments
// input runs under shell, for front ends that show a command as it starts;
// ok is false when input is not a valid call.
//
// The arguments are read where they lie, and a justification (which a
// model may make 10 MiB) is checked, not copied.
func ExecArgv(shell, input string) (argv []string, ok bool) {
	var a execArgs
	if err := json.Unmarshal(readonly.Bytes(input), &a); err != nil || a.Cmd == "" {
		return nil, false
	}
	return execArgv(shell, a), true
}

// unreadString is a string argument a caller does not read: it must be a
// string (or null), as for a string field, but is not copied.
type unreadString struct{}

func (*unreadString) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' || string(b) == "null" {
		return nil
	}
	return fmt.Errorf("%.20s is not a string", b)
}

// ShellJoin renders argv as one shell command line, quoting as the
// reference client shows commands: a word of safe characters as it is, a
// word without a single quote in single quotes, any other in double quotes
// with \, ", $ and ` escaped.
func ShellJoin(argv []string) string {
	words := make([]string, len(argv))
	for i, w := range argv {
		words[i] = shellQuote(w)
	}
	return strings.Join(words, " ")
}

func shellQuote(w string) string {
	if w == "" {
		return "''"
	}
	safe := true
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_=+/,.:@%^", r)) {
			safe = false
			break
		}
	}
	switch {
	case safe:
		return w
	case !strings.ContainsRune(w, '\''):
		return "'" + w + "'"
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range w {
		if strings.ContainsRune("\\\"$`", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}
