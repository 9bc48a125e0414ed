package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"sync"
	"time"

	"github.com/agentcli/agent/rollout"
	"github.com/agentcli/agent/session"
)

// notifyWait bounds how long closing the engine waits for notify programs
// still running, so that a hung notifier cannot hold `agent exec` forever.
const notifyWait = 5 * time.Second

// turnComplete is the JSON argument Codex gives its notify program when a
// turn ends (type "agent-turn-complete", kebab-case keys).
type turnComplete struct {
	Type                 string   `json:"type"`
	ThreadID             string   `json:"thread-id"`
	TurnID               string   `json:"turn-id"`
	Cwd                  string   `json:"cwd"`
	InputMessages        []string `json:"input-messages"`
	LastAssistantMessage *string  `json:"last-assistant-message"`
}

// notifier runs the notify program (config key notify) at the end of each
// completed turn, with the payload as its last argument, as Codex does. It
// does not wait for the program; wait does, when the engine closes.
type notifier struct {
	argv   []string
	cwd    string
	thread string
	logger *slog.Logger
	stderr io.Writer

	mu     sync.Mutex
	input  []string
	last   *string
	warned bool
	wg     sync.WaitGroup
}

// notifier is the notify program's runner of session t (config key
// notify; nil when there is none); closing t waits for the programs it
// started, up to notifyWait.
func (a *App) notifier(t *Thread) *notifier {
	if len(a.cfg.Notify) == 0 {
		return nil
	}
	n := &notifier{argv: a.cfg.Notify, cwd: t.ws.Cwd, thread: t.ID, logger: a.logger, stderr: a.env.Stderr}
	t.closers = append(t.closers, func() { n.wait(context.Background()) })
	return n
}

// observe follows a turn's events; it is a [session.Options.OnEvent].
func (n *notifier) observe(ev session.Event) {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch ev := ev.(type) {
	case session.TurnStarted:
		n.input, n.last = []string{ev.Input}, nil
	case session.MessageDone:
		text := ev.Text
		n.last = &text
	case session.TurnCompleted:
		n.fire(turnComplete{Type: "agent-turn-complete", ThreadID: n.thread, TurnID: rollout.NewID(),
			Cwd: n.cwd, InputMessages: n.input, LastAssistantMessage: n.last})
	}
}

// fire starts the program with p; a failure to start is logged and told
// once.
func (n *notifier) fire(p turnComplete) {
	if p.InputMessages == nil {
		p.InputMessages = []string{}
	}
	payload, err := json.Marshal(p)
	if err != nil {
		return
	}
	args := append(append([]string(nil), n.argv[1:]...), string(payload))
	cmd := exec.Command(n.argv[0], args...)
	cmd.Dir = n.cwd
	if err := cmd.Start(); err != nil {
		n.logger.Warn("notify", "err", err)
		if !n.warned {
			n.warned = true
			fmt.Fprintf(n.stderr, "agent: notify: %v\n", err)
		}
		return
	}
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		if err := cmd.Wait(); err != nil {
			n.logger.Warn("notify", "err", err)
		}
	}()
}

// wait waits for the programs started, up to notifyWait.
func (n *notifier) wait(ctx context.Context) {
	done := make(chan struct{})
	go func() { n.wg.Wait(); close(done) }()
	ctx, cancel := context.WithTimeout(ctx, notifyWait)
	defer cancel()
	select {
	case <-done:
	case <-ctx.Done():
	}
}
