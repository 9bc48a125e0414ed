package provider_test

import (
	"testing"

	"github.com/agentcli/agent/provider"
)

// TestRetryTable pins what each class does, as docs/retries.md states
// it, and what the table's columns must agree on: every class has a
// policy and one retry layer of its own (the HTTP layer first, the
// stream layer alone, or the overload schedule); a wait the server asked
// the whole machine to honour (a gate cooldown) is one no person cuts
// short; a failure that is no class does nothing special.
func TestRetryTable(t *testing.T) {
	want := map[string]provider.ClassBehaviour{
		provider.ClassTransport:   {HTTP: true},
		provider.ClassServerError: {HTTP: true},
		provider.ClassRateLimit:   {Cooldown: true, TransportNeutral: true, Firm: true},
		provider.ClassOverloaded:  {Overload: true, Cooldown: true, TransportNeutral: true, Firm: true},
		provider.ClassIdle:        {HTTP: true},
	}
	classes, defaults := provider.Classes(), provider.DefaultRetry()
	if len(classes) != len(want) || len(defaults) != len(want) {
		t.Errorf("classes %v, %d default policies; want the %d of the table", classes, len(defaults), len(want))
	}
	for _, c := range classes {
		does := provider.Behaviour(c)
		if does != want[c] {
			t.Errorf("Behaviour(%s) = %+v; want %+v", c, does, want[c])
		}
		if does.HTTP && does.Overload {
			t.Errorf("%s: both the HTTP layer and the overload schedule", c)
		}
		if does.Cooldown && !does.Firm {
			t.Errorf("%s: a gate cooldown a person could cut short", c)
		}
		pol, ok := defaults[c]
		if !ok || pol.MaxDelay < pol.BaseDelay {
			t.Errorf("%s: default policy %+v", c, pol)
		}
		if does.Overload != (len(pol.Delays) > 0) {
			t.Errorf("%s: overload schedule %v, fixed delays %v; want both or neither", c, does.Overload, pol.Delays)
		}
	}
	for _, name := range []string{"", "rate_limited", "Transport"} {
		if does := provider.Behaviour(name); does != (provider.ClassBehaviour{}) {
			t.Errorf("Behaviour(%q) = %+v; want nothing special", name, does)
		}
	}
}
