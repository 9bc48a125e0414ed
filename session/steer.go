package session

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/agentcli/agent/transport"
)

// ErrNoTurn is [Session.Steer]'s error when no turn is running.
var ErrNoTurn = errors.New("no active turn to steer")

// steering is the input given to the running turn ([Session.Steer]) and
// not yet sent: the one place a turn in progress takes more input.
type steering struct {
	mu      sync.Mutex
	open    bool     // a turn runs and takes input
	pending []string // inputs not yet in the history, in order
}

// Steer adds input to the running turn: it is recorded as the user's
// message before the turn's next model request and sent with it; a turn
// whose model had answered goes on with another request to send it. It
// returns [ErrNoTurn] when no turn runs (or the running turn has sent
// its last request). Safe to call from any goroutine.
func (s *Session) Steer(input string) error {
	st := &s.steer
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.open {
		return ErrNoTurn
	}
	st.pending = append(st.pending, input)
	return nil
}

// TakesInput says whether a running turn takes input ([Session.Steer]):
// false between turns and once the running turn has sent its last request
// (it is ending: its Stop hooks, its recording). Safe to call from any
// goroutine.
func (s *Session) TakesInput() bool {
	s.steer.mu.Lock()
	defer s.steer.mu.Unlock()
	return s.steer.open
}

// openSteer lets the turn starting take input (from its TurnStarted on).
func (s *Session) openSteer() {
	s.steer.mu.Lock()
	s.steer.open = true
	s.steer.mu.Unlock()
}

// takeSteered records the inputs given to the running turn since its last
// request as the user's messages, before its next request.
func (s *Session) takeSteered() {
	s.steer.mu.Lock()
	in := s.steer.pending
	s.steer.pending = nil
	s.steer.mu.Unlock()
	for _, text := range in {
		it := transport.UserMessage(text)
		it.Origin = transport.OriginSteer // not a turn's start: forks count turns without it
		s.appendItems(it)
	}
}

// closeSteer ends the running turn's input, unless input is waiting to be
// sent (then it reports false: the turn sends another request).
func (s *Session) closeSteer() bool {
	s.steer.mu.Lock()
	defer s.steer.mu.Unlock()
	if len(s.steer.pending) > 0 {
		return false
	}
	s.steer.open = false
	return true
}

// dropSteered ends the turn's input at its end: input it could not send
// (the turn failed or was interrupted first) is said, not lost silently.
func (s *Session) dropSteered(emit func(Event)) {
	s.steer.mu.Lock()
	in := s.steer.pending
	s.steer.pending, s.steer.open = nil, false
	s.steer.mu.Unlock()
	if len(in) > 0 {
		emit(Warning{Message: fmt.Sprintf("input added to the turn was not sent: the turn ended first (%q)", strings.Join(in, "\n"))})
	}
}
