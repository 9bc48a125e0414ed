package session

import "context"

// ReviewStarted opens a review turn: the turn that follows asks the model
// to review Target (a code review, /review or agent review). It is
// recorded, so the session says it was a review.
type ReviewStarted struct {
	// Target names what is reviewed ("uncommitted changes", ...).
	Target string
}

func (ReviewStarted) isEvent() {}

// Review runs a review turn: [ReviewStarted] for target, then a turn on
// request (the review's instructions and the change, as package review
// writes them). It is [Session.Turn] otherwise.
func (s *Session) Review(ctx context.Context, target, request string, emit func(Event)) error {
	s.tap(emit)(ReviewStarted{Target: target})
	return s.Turn(ctx, request, emit)
}
