package main

import (
	"context"
	"fmt"
	"sync"

	"github.com/agentcli/agent/internal/app"
)

// profiles are apps by config profile, each built at its first use from
// the same options (with Flags.Profile set) and shared by every session of
// that profile (its HTTP pool, retry gate, MCP servers): a server whose
// callers may name a profile per call (agent mcp-server). Its methods are
// safe for concurrent use.
type profiles struct {
	ctx  context.Context
	opts app.Options

	mu        sync.Mutex
	byProfile map[string]*app.App
}

// newProfiles returns the apps of o by profile; none is built yet. Each
// app's notices go to o.Env.Stderr when it is built.
func newProfiles(ctx context.Context, o app.Options) *profiles {
	return &profiles{ctx: ctx, opts: o, byProfile: map[string]*app.App{}}
}

// Get returns the app of profile ("" is the options' own), building it at
// its first use.
func (p *profiles) Get(profile string) (*app.App, error) {
	o := p.opts
	if profile != "" {
		o.Flags.Profile = profile
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if a := p.byProfile[o.Flags.Profile]; a != nil {
		return a, nil
	}
	a, err := app.New(p.ctx, o)
	if err != nil {
		return nil, err
	}
	for _, n := range a.Notices() {
		fmt.Fprintln(o.Env.Stderr, "agent: "+n)
	}
	p.byProfile[o.Flags.Profile] = a
	return a, nil
}

// Open opens a session on profile's app ([app.App.Open]): a new one, or with
// id the recorded session of that id, continued in its own directory
// unless sp names another. The caller must Close it.
func (p *profiles) Open(ctx context.Context, profile, id string, sp app.Spec) (*app.Thread, error) {
	a, err := p.Get(profile)
	if err != nil {
		return nil, err
	}
	if id != "" {
		ent, err := a.FindSession(ctx, id, false, false)
		if err != nil {
			return nil, err
		}
		sp.From = ent.Path
		if sp.Cwd == "" {
			sp.Cwd = ent.Cwd
		}
	}
	return a.Open(ctx, sp)
}

// Close ends every app built.
func (p *profiles) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, a := range p.byProfile {
		a.Close()
	}
}
