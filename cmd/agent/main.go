// Command agent is a coding-agent CLI that keeps working when the model
// service, the network or a proxy misbehaves. See README.md.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/term"

	"github.com/agentcli/agent/tools/sandbox"
)

func main() {
	sandbox.MaybeRunHelper() // first: the sandbox re-executes this binary as its helper
	// SIGHUP (the terminal closed) ends agent as the others do: the chat
	// discards a session with nothing in it and releases its lock. Under
	// nohup it stays ignored (Notify would undo that).
	sigs := []os.Signal{os.Interrupt, syscall.SIGTERM}
	if !signal.Ignored(syscall.SIGHUP) {
		sigs = append(sigs, syscall.SIGHUP)
	}
	ctx, stop := stopOnSignals(sigs)
	env := Env{
		Stdin:     os.Stdin,
		Stdout:    os.Stdout,
		Stderr:    os.Stderr,
		Getenv:    os.Getenv,
		Environ:   os.Environ,
		StdinTTY:  term.IsTerminal(int(os.Stdin.Fd())),
		StdoutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		StderrTTY: term.IsTerminal(int(os.Stderr.Fd())),
		Width: func() int {
			w, _, err := term.GetSize(int(os.Stderr.Fd()))
			if err != nil {
				return 0
			}
			return w
		},
	}
	code := run(ctx, os.Args[1:], env)
	stop()
	os.Exit(code)
}

// stopOnSignals returns a context that the first of sigs ends, so agent
// stops what it does and records it; a second one exits at once (130),
// whatever the first is still waiting for (a lock another process holds,
// a slow disk): stop means stop.
func stopOnSignals(sigs []os.Signal) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	c := make(chan os.Signal, 2)
	signal.Notify(c, sigs...)
	go func() {
		if _, ok := <-c; !ok {
			return
		}
		cancel()
		if _, ok := <-c; !ok {
			return
		}
		fmt.Fprintln(os.Stderr, "agent: interrupted again: exiting now")
		os.Exit(130)
	}()
	return ctx, func() { signal.Stop(c); cancel() }
}
