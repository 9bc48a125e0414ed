package session

import (
	"fmt"

	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/session/failover"
	"github.com/agentcli/agent/transport"
)

// Pricer prices a response's usage at the model that answered it: USD,
// and false when that model has no known price (never guessed).
type Pricer func(c failover.Candidate, u transport.Usage) (usd float64, ok bool)

// spend is what a session's responses cost: usd over the priced ones;
// unknown once a response with tokens could not be priced.
type spend struct {
	usd     float64
	unknown bool
}

// add counts one response's price.
func (sp *spend) add(usd float64, ok bool) {
	if !ok {
		sp.unknown = true
		return
	}
	sp.usd += usd
}

// value is the spend as events carry it: nil when unknown.
func (sp spend) value() *float64 {
	if sp.unknown {
		return nil
	}
	v := sp.usd
	return &v
}

// price counts the cost of a completed response: into the session's total,
// the turn's and this process's run (which --max-cost bounds).
func (s *Session) price(u transport.Usage) {
	if u == (transport.Usage{}) {
		return
	}
	if s.opts.Price == nil {
		s.costMu.Lock()
		s.cost.unknown = true
		s.costMu.Unlock()
		s.turnCost.unknown, s.run.unknown = true, true
		return
	}
	usd, ok := s.opts.Price(s.Provider(), u)
	s.costMu.Lock()
	s.cost.add(usd, ok)
	s.costMu.Unlock()
	s.turnCost.add(usd, ok)
	s.run.add(usd, ok)
}

// Cost is what the session's responses cost in USD, resumed ones
// included; nil when a price is unknown. It is safe to call while a turn
// runs.
func (s *Session) Cost() *float64 {
	s.costMu.Lock()
	defer s.costMu.Unlock()
	return s.cost.value()
}

// budget refuses the next request when this run has spent its budget
// (Options.MaxCostUSD), or when a response could not be priced, so the
// budget cannot be kept.
func (s *Session) budget() error {
	max := s.opts.MaxCostUSD
	switch {
	case max <= 0:
		return nil
	case s.run.unknown:
		return budgetOutcome(fmt.Errorf("cost budget: a response of %s has no known price, so --max-cost $%.2f cannot be kept (add [models.%q] cost to config)",
			s.Provider(), max, s.Provider().Model))
	case s.run.usd >= max:
		return budgetOutcome(fmt.Errorf("cost budget spent: $%.4f of --max-cost $%.2f; no further request was sent", s.run.usd, max))
	}
	return nil
}

// budgetOutcome is the end of a turn whose budget is spent: final, of
// its own kind (exit code 8).
func budgetOutcome(err error) error {
	return &modelclient.Outcome{Failure: modelclient.Failure{Kind: modelclient.KindBudget, Err: err}, End: modelclient.EndFinal}
}

// resumedCost is the spend a session starts from: a resumed session's
// recorded cost; unknown when it used tokens and recorded none.
func resumedCost(opts Options) spend {
	if opts.Cost != nil {
		return spend{usd: *opts.Cost}
	}
	return spend{unknown: opts.Usage.TotalTokens > 0}
}
