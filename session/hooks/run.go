package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Runner is how hooks run: their environment, where their words are
// masked, the clock of their durations.
type Runner struct {
	// Env is the hooks' environment (shell_environment_policy's, never
	// the provider's keys unless the policy lets them through).
	Env []string
	// Mask hides secrets in what a hook printed before anyone sees it;
	// nil: none known.
	Mask func(string) string
	// Now is the clock of durations; nil: time.Now.
	Now func() time.Time
}

// maxOutput bounds what is kept of a hook's stdout and stderr.
const maxOutput = 1 << 20

// Status is how one hook run ended.
type Status string

// The statuses of a run, Codex's HookRunStatus.
const (
	Completed Status = "completed"
	Blocked   Status = "blocked"
	Failed    Status = "failed"
	Stopped   Status = "stopped"
)

// Run is one hook's run on one event.
type Run struct {
	Hook   Hook
	Status Status
	// Message is what the run says: the reason of a block, the error of a
	// failure (exit code, timeout, bad JSON), a systemMessage. Masked.
	Message string
	// SystemMessage is the hook's systemMessage, shown to the user.
	SystemMessage string
	Duration      time.Duration

	updated json.RawMessage // a PreToolUse hook's new tool input
}

// Outcome is what the hooks of one event decided together.
type Outcome struct {
	Runs []Run
	// Block: a hook blocked (exit 2 with a reason on stderr, or a JSON
	// decision); Reason is the first reason, which the model sees.
	Block  bool
	Reason string
	// Contexts are additionalContext texts for the model, in hook order.
	Contexts []string
	// UpdatedInput is a PreToolUse hook's new tool input (the last to
	// finish wins); nil: unchanged.
	UpdatedInput json.RawMessage
	// Allow is a PermissionRequest hook's approval; Deny (with Reason)
	// its refusal; neither: ask as usual.
	Allow, Deny bool
	// Stop: a hook said continue:false; StopReason says why.
	Stop       bool
	StopReason string
}

// Input is an event's JSON fields (session_id, cwd, tool_name, ...);
// hook_event_name is added by [Set.Run].
type Input map[string]any

// Run runs the hooks of ev whose matcher selects one of match (nil for
// events without one), concurrently, each with in as JSON on stdin in dir,
// and folds their answers. Async hooks are started and not waited for.
// A hook that cannot start, fails, times out or answers garbage is a
// Failed run naming why; it never blocks.
func (s *Set) Run(ctx context.Context, r *Runner, ev Event, match []string, dir string, in Input) Outcome {
	var sel []Hook
	if s != nil {
		for _, h := range s.All {
			if h.Event == ev && h.runs(s.bypass) && (match == nil || h.match(match)) {
				sel = append(sel, h)
			}
		}
	}
	if len(sel) == 0 {
		return Outcome{}
	}
	in["hook_event_name"] = string(ev)
	stdin, err := json.Marshal(in)
	if err != nil {
		var o Outcome
		for _, h := range sel {
			o.Runs = append(o.Runs, Run{Hook: h, Status: Failed, Message: "failed to serialize hook input: " + err.Error()})
		}
		return o
	}
	type result struct {
		run   Run
		order int
		ans   answer
	}
	results := make([]result, len(sel))
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for i, h := range sel {
		if h.Async {
			go r.exec(context.WithoutCancel(ctx), h, dir, stdin)
			results[i] = result{run: Run{Hook: h, Status: Completed, Message: "started in the background"}}
			continue
		}
		wg.Go(func() {
			run, ans := r.exec(ctx, h, dir, stdin)
			mu.Lock()
			done++
			results[i] = result{run: run, ans: ans, order: done}
			mu.Unlock()
		})
	}
	wg.Wait()
	var o Outcome
	last := 0
	for _, res := range results {
		run := r.judge(ev, res.run, res.ans, &o)
		if run.updated != nil && run.Status == Completed && res.order > last {
			last, o.UpdatedInput = res.order, run.updated
		}
		o.Runs = append(o.Runs, run)
	}
	if o.Block {
		o.UpdatedInput = nil
	}
	return o
}

// answer is what a hook process left: its exit, stdout and stderr.
type answer struct {
	exit   int // -1: no exit status
	stdout string
	stderr string
	err    string // it could not run or was killed
}

// exec runs one hook process.
func (r *Runner) exec(ctx context.Context, h Hook, dir string, stdin []byte) (Run, answer) {
	now := time.Now
	if r != nil && r.Now != nil {
		now = r.Now
	}
	start := now()
	ctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", h.Command)
	cmd.Dir = dir
	if r != nil && r.Env != nil {
		cmd.Env = r.Env
	}
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr capped
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// The hook and whatever it starts are one process group, killed
	// together at the timeout; a grandchild holding the pipes open does not
	// keep the session waiting past WaitDelay.
	ownGroup(cmd)
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	ans := answer{exit: -1, stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		ans.err = fmt.Sprintf("timed out after %s", h.Timeout)
	case ctx.Err() != nil:
		ans.err = "cancelled"
	case errors.As(err, &ee):
		ans.exit = ee.ExitCode()
		if ans.exit < 0 {
			ans.err = "killed by " + ee.String()
		}
	case err != nil:
		ans.err = err.Error()
	default:
		ans.exit = 0
	}
	return Run{Hook: h, Duration: now().Sub(start)}, ans
}

// capped keeps the first maxOutput bytes written.
type capped struct{ bytes.Buffer }

func (c *capped) Write(p []byte) (int, error) {
	if room := maxOutput - c.Len(); room > 0 {
		c.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// wire is the JSON a hook may print on stdout (every event's fields).
type wire struct {
	Continue       *bool   `json:"continue"`
	StopReason     *string `json:"stopReason"`
	SuppressOutput bool    `json:"suppressOutput"`
	SystemMessage  *string `json:"systemMessage"`
	Decision       *string `json:"decision"`
	Reason         *string `json:"reason"`
	Specific       *struct {
		HookEventName            string          `json:"hookEventName"`
		AdditionalContext        *string         `json:"additionalContext"`
		PermissionDecision       *string         `json:"permissionDecision"`
		PermissionDecisionReason *string         `json:"permissionDecisionReason"`
		UpdatedInput             json.RawMessage `json:"updatedInput"`
		Decision                 *struct {
			Behavior string `json:"behavior"`
			Message  string `json:"message"`
		} `json:"decision"`
	} `json:"hookSpecificOutput"`
}

// judge reads one run's answer as Codex does and folds it into o.
func (r *Runner) judge(ev Event, run Run, ans answer, o *Outcome) Run {
	mask := func(s string) string {
		if r != nil && r.Mask != nil {
			return r.Mask(s)
		}
		return s
	}
	fail := func(msg string) Run {
		run.Status, run.Message = Failed, mask(msg)
		return run
	}
	if run.Status != "" { // an async hook: started
		return run
	}
	run.Status = Completed
	switch {
	case ans.err != "":
		return fail(ans.err)
	case ans.exit == 2:
		reason := strings.TrimSpace(ans.stderr)
		if reason == "" {
			what := "a blocking reason"
			if ev == Stop || ev == SubagentStop {
				what = "a continuation prompt"
			}
			return fail(fmt.Sprintf("%s hook exited with code 2 but did not write %s to stderr", ev, what))
		}
		switch ev {
		case PreToolUse, PostToolUse, UserPromptSubmit, Stop, SubagentStop, PermissionRequest:
			o.block(mask(reason))
			if ev == PermissionRequest {
				o.Deny = true
			}
			run.Status, run.Message = Blocked, mask(reason)
		default:
			// The events that cannot be blocked show stderr to the user.
			run.Message = mask(reason)
		}
		return run
	case ans.exit != 0:
		msg := fmt.Sprintf("hook exited with code %d", ans.exit)
		if e := strings.TrimSpace(ans.stderr); e != "" {
			msg += ": " + oneLine(e, 200)
		}
		return fail(msg)
	}
	out := strings.TrimSpace(ans.stdout)
	if out == "" {
		return run
	}
	var w wire
	if !strings.HasPrefix(out, "{") {
		if strings.HasPrefix(out, "[") {
			return fail(fmt.Sprintf("hook returned invalid %s JSON output", ev))
		}
		// Plain text: SessionStart, SubagentStart and UserPromptSubmit add
		// it as context (Claude Code's contract, Codex's); Stop and
		// SubagentStop need JSON (Codex); elsewhere it is only shown.
		switch ev {
		case SessionStart, SubagentStart, UserPromptSubmit:
			o.Contexts = append(o.Contexts, mask(out))
		case Stop:
			return fail("hook returned invalid stop hook JSON output")
		case SubagentStop:
			return fail("hook returned invalid subagent stop hook JSON output")
		}
		return run
	}
	if err := json.Unmarshal([]byte(out), &w); err != nil {
		return fail(fmt.Sprintf("hook returned invalid %s JSON output: %v", ev, err))
	}
	if w.SystemMessage != nil {
		run.SystemMessage = mask(*w.SystemMessage)
	}
	// continue:false stops the work, except SubagentStart's, which only
	// adds context (Codex).
	if w.Continue != nil && !*w.Continue && ev != SubagentStart {
		if ev == PreToolUse || ev == PermissionRequest {
			return fail(fmt.Sprintf("%s hook returned unsupported continue:false", ev))
		}
		o.Stop = true
		if w.StopReason != nil && o.StopReason == "" {
			o.StopReason = mask(*w.StopReason)
		}
		run.Status = Stopped
		run.Message = o.StopReason
	}
	return r.decide(ev, run, w, o, mask)
}

// decide reads the event's own fields of a hook's JSON answer.
func (r *Runner) decide(ev Event, run Run, w wire, o *Outcome, mask func(string) string) Run {
	fail := func(msg string) Run {
		run.Status, run.Message = Failed, mask(msg)
		return run
	}
	sp := w.Specific
	if sp != nil && sp.AdditionalContext != nil && strings.TrimSpace(*sp.AdditionalContext) != "" {
		switch ev {
		case PreToolUse, PostToolUse, SessionStart, UserPromptSubmit, SubagentStart:
			o.Contexts = append(o.Contexts, mask(*sp.AdditionalContext))
		}
	}
	reason := ""
	if w.Reason != nil {
		reason = strings.TrimSpace(*w.Reason)
	}
	switch ev {
	case PreToolUse:
		if sp != nil && (sp.PermissionDecision != nil || sp.PermissionDecisionReason != nil || sp.UpdatedInput != nil) {
			return preToolUse(run, sp.PermissionDecision, sp.PermissionDecisionReason, sp.UpdatedInput, o, mask)
		}
		fallthrough
	case PostToolUse, UserPromptSubmit, Stop, SubagentStop:
		if w.Decision == nil {
			if reason != "" && ev == PreToolUse {
				return fail("PreToolUse hook returned reason without decision")
			}
			return run
		}
		switch *w.Decision {
		case "block":
			if reason == "" {
				return fail(fmt.Sprintf("%s hook returned decision:block without a non-empty reason", ev))
			}
			o.block(mask(reason))
			run.Status, run.Message = Blocked, mask(reason)
		case "approve":
			if ev == PreToolUse {
				return fail("PreToolUse hook returned unsupported decision:approve")
			}
		default:
			return fail(fmt.Sprintf("%s hook returned unknown decision %q", ev, *w.Decision))
		}
	case PermissionRequest:
		if sp == nil || sp.Decision == nil {
			return run
		}
		switch sp.Decision.Behavior {
		case "allow":
			o.Allow = true
		case "deny":
			msg := strings.TrimSpace(sp.Decision.Message)
			if msg == "" {
				msg = "PermissionRequest hook denied approval"
			}
			o.Deny = true
			o.block(mask(msg))
			run.Status, run.Message = Blocked, mask(msg)
		default:
			return fail(fmt.Sprintf("PermissionRequest hook returned unknown behavior %q", sp.Decision.Behavior))
		}
	}
	return run
}

// preToolUse reads a PreToolUse hook's permissionDecision as Codex 0.171
// does: deny with a reason blocks, allow must carry updatedInput (the new
// tool input), ask is not supported.
func preToolUse(run Run, decision, reason *string, updated json.RawMessage, o *Outcome, mask func(string) string) Run {
	fail := func(msg string) Run {
		run.Status, run.Message = Failed, msg
		return run
	}
	d, why := "", ""
	if decision != nil {
		d = *decision
	}
	if reason != nil {
		why = strings.TrimSpace(*reason)
	}
	switch {
	case len(updated) > 0 && d != "allow":
		return fail("PreToolUse hook returned updatedInput without permissionDecision:allow")
	case d == "allow" && len(updated) == 0:
		return fail("PreToolUse hook returned unsupported permissionDecision:allow")
	case d == "allow":
		run.Message, run.updated = "changed the tool's input", updated
	case d == "ask":
		return fail("PreToolUse hook returned unsupported permissionDecision:ask")
	case d == "deny" && why == "":
		return fail("PreToolUse hook returned permissionDecision:deny without a non-empty permissionDecisionReason")
	case d == "deny":
		o.block(mask(why))
		run.Status, run.Message = Blocked, mask(why)
	case why != "":
		return fail("PreToolUse hook returned permissionDecisionReason without permissionDecision")
	}
	return run
}

func (o *Outcome) block(reason string) {
	if !o.Block {
		o.Reason = reason
	}
	o.Block = true
}
