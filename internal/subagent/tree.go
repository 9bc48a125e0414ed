package subagent

import (
	"maps"
	"slices"
	"sync"
)

// Tree is what front ends see of the subagents of one root session and
// all its descendants: each one's latest [Info], in the order they were
// spawned, and the changes as they happen. Its methods are safe for
// concurrent use.
type Tree struct {
	mu    sync.Mutex
	infos map[string]Info
	order []string
	watch map[int]func(Info)
	next  int
}

// Update records a change of an agent and tells the watchers, on the
// caller's goroutine.
func (tr *Tree) Update(info Info) {
	tr.mu.Lock()
	if tr.infos == nil {
		tr.infos = map[string]Info{}
	}
	if _, ok := tr.infos[info.ID]; !ok {
		tr.order = append(tr.order, info.ID)
	}
	tr.infos[info.ID] = info
	watch := make([]func(Info), 0, len(tr.watch))
	for _, k := range slices.Sorted(maps.Keys(tr.watch)) {
		watch = append(watch, tr.watch[k])
	}
	tr.mu.Unlock()
	for _, w := range watch {
		w(info)
	}
}

// List returns every agent of the tree, in the order they were spawned.
func (tr *Tree) List() []Info {
	if tr == nil {
		return nil
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	out := make([]Info, 0, len(tr.order))
	for _, id := range tr.order {
		out = append(out, tr.infos[id])
	}
	return out
}

// Watch calls f (from any goroutine) at every change of an agent of the
// tree: spawned, running, completed, failed, closed. It returns the
// function that stops it.
func (tr *Tree) Watch(f func(Info)) (stop func()) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.watch == nil {
		tr.watch = map[int]func(Info){}
	}
	k := tr.next
	tr.next++
	tr.watch[k] = f
	return func() {
		tr.mu.Lock()
		delete(tr.watch, k)
		tr.mu.Unlock()
	}
}
