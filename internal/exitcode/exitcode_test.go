package exitcode

import (
	"errors"
	"fmt"
	"testing"

	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/session"
)

func TestForTurn(t *testing.T) {
	turn := func(k modelclient.Kind, exhausted bool) error {
		end := modelclient.EndFinal
		if exhausted {
			end = modelclient.EndExhausted
		}
		return fmt.Errorf("run: %w", &session.TurnError{Outcome: modelclient.Outcome{Failure: modelclient.Failure{Kind: k}, End: end}})
	}
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"not a turn's", errors.New("disk full"), Failed},
		{"canceled", turn(modelclient.KindCanceled, false), Interrupted},
		{"auth", turn(modelclient.KindAuth, true), Auth},
		{"quota", turn(modelclient.KindQuota, false), Quota},
		{"usage limit", turn(modelclient.KindUsageLimit, true), Quota},
		{"config", turn(modelclient.KindConfig, false), Usage},
		{"exhausted", turn(modelclient.KindServerError, true), Exhausted},
		{"permanent", turn(modelclient.KindPermanent, false), Failed},
	}
	for _, tt := range tests {
		if got := ForTurn(tt.err); got != tt.want {
			t.Errorf("%s: ForTurn = %d; want %d", tt.name, got, tt.want)
		}
	}
}

func TestOf(t *testing.T) {
	if got := Of(nil); got != OK {
		t.Errorf("Of(nil) = %d", got)
	}
	if got := Of(errors.New("x")); got != Failed {
		t.Errorf("Of(plain) = %d", got)
	}
	wrapped := fmt.Errorf("batch: %w", &Error{Code: Auth, Err: errors.New("401")})
	if got := Of(wrapped); got != Auth {
		t.Errorf("Of(wrapped) = %d", got)
	}
	if wrapped.Error() != "batch: 401" {
		t.Errorf("Error() = %q", wrapped.Error())
	}
}
