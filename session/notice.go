package session

import (
	"fmt"
	"strconv"
	"time"

	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/provider"
)

// RetryLabel names a pending retry by the layer that waits, for people:
// "Continuing the turn 1/3" (the session's auto-continue), "Retrying
// request... 2/4" (the HTTP layer), "Model at capacity; retrying 2/5",
// "Reconnecting... 2/5" (the stream), or "Reconnecting... waiting for
// network" (the unbounded connection layer). The chat and agent exec both
// use it, so the two front ends word a retry the same way.
func RetryLabel(r modelclient.Retry) string {
	n := strconv.Itoa(r.Attempt)
	if r.Max >= 0 {
		n += "/" + strconv.Itoa(r.Max)
	}
	switch {
	case r.Layer == LayerContinue:
		return "Continuing the turn " + n
	case r.Layer == modelclient.LayerConnection:
		return "Reconnecting... waiting for network"
	case r.Layer == modelclient.LayerHTTP:
		return "Retrying request... " + n
	case r.Failure.Kind == modelclient.KindOverloaded:
		return "Model at capacity; retrying " + n
	}
	return "Reconnecting... " + n
}

// RetryNotice is the one-line record of a retry: its label, when the next
// try starts (left from now) and why, for example "Reconnecting... 2/5 in
// 0.4s (stream closed before response.completed)". agent exec prints it on
// standard error and the rollout records it; the chat shows it in its
// transcript and counts down in its status line.
func RetryNotice(r modelclient.Retry, left time.Duration) string {
	label, d := RetryLabel(r), RetryDelay(left)
	if r.Layer == modelclient.LayerConnection {
		return fmt.Sprintf("%s; next try in %s (%s)", label, d, r.Reason())
	}
	return fmt.Sprintf("%s in %s (%s)", label, d, r.Reason())
}

// RetryDelay formats a wait for people: "0.4s", "2.0s", "12s", "1m30s".
func RetryDelay(d time.Duration) string {
	switch {
	case d < 10*time.Second:
		return strconv.FormatFloat(max(0, d.Seconds()), 'f', 1, 64) + "s"
	case d < time.Minute:
		return strconv.Itoa(int(d.Round(time.Second).Seconds())) + "s"
	}
	return d.Round(time.Second).String()
}

// RetryNowAllowed reports whether a person may cut r's wait short: not
// when the server asked for it, which the retry policy table says of a
// class ([provider.ClassBehaviour].Firm: rate_limit, overloaded), since
// every agent process on the machine honours that cooldown.
func RetryNowAllowed(r modelclient.Retry) bool {
	return !provider.Behaviour(r.Class).Firm && !r.Failure.Behaviour().Firm
}
