package session

import "sync"

// maxRelayed bounds the events [Session.Relay] keeps for a turn that is
// not running yet; the oldest go first.
const maxRelayed = 100

// relay passes events of other sessions (a subagent's hook runs) to the
// front end of the session's running turn, or keeps them for its next
// one. Every event of a running turn reaches its front end through the
// relay's lock, so the front end never sees two at once.
type relay struct {
	mu    sync.Mutex
	emit  func(Event) // the running turn's front end; nil between turns
	queue []Event
}

// attach makes emit the front end of the running turn, passing it what
// was relayed since the last turn, and returns the turn's emit, which
// takes the relay's lock.
func (r *relay) attach(emit func(Event)) func(Event) {
	r.mu.Lock()
	r.emit = emit
	queue := r.queue
	r.queue = nil
	for _, ev := range queue {
		emit(ev)
	}
	r.mu.Unlock()
	return func(ev Event) {
		r.mu.Lock()
		defer r.mu.Unlock()
		emit(ev)
	}
}

// detach ends the running turn: what is relayed now waits for the next.
func (r *relay) detach() {
	r.mu.Lock()
	r.emit = nil
	r.mu.Unlock()
}

// Relay passes ev, an event of another session (a subagent's hook run),
// to the front end of this session's running turn, from the caller's
// goroutine; between turns it keeps it for the next turn's front end (at
// most 100 events, the oldest dropped). Safe to call from any goroutine.
func (s *Session) Relay(ev Event) {
	r := &s.relay
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.emit != nil {
		r.emit(ev)
		return
	}
	if len(r.queue) == maxRelayed {
		r.queue = r.queue[1:]
	}
	r.queue = append(r.queue, ev)
}
