package rollout_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/agentcli/agent/rollout"
	"github.com/agentcli/agent/transport"
)

// Example records one turn, then finds the session again and loads it to
// resume, as "agent resume --last" does.
func Example() {
	ctx := context.Background() // the command's; Ctrl-C ends a wait for a lock
	home, err := os.MkdirTemp("", "agent-home")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(home)

	r, err := rollout.Create(ctx, home, rollout.SessionMeta{
		ID: "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", Cwd: "/src/app", Model: "gpt-5",
	}, time.Now())
	if err != nil {
		log.Fatal(err)
	}
	_ = r.AppendEvent(rollout.EventMsg{Type: rollout.EventTurnStarted})
	_ = r.AppendEvent(rollout.EventMsg{Type: rollout.EventUserMessage, Message: "list the files"})
	_ = r.AppendItems(transport.UserMessage("list the files"))
	_ = r.AppendLedger(rollout.LedgerEntry{CallID: "call-1", Name: "shell", State: "started"})
	if err := r.Sync(); err != nil { // before the tool runs
		log.Fatal(err)
	}
	_ = r.AppendLedger(rollout.LedgerEntry{CallID: "call-1", Name: "shell", State: "finished"})
	_ = r.AppendEvent(rollout.EventMsg{Type: rollout.EventTurnCompleted})
	if err := r.Close(); err != nil {
		log.Fatal(err)
	}

	e, err := rollout.Latest(ctx, home, "/src/app", false)
	if err != nil {
		log.Fatal(err)
	}
	ro, err := rollout.Load(e.Path)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(e.Title, len(ro.History), ro.Ledger[0].State, ro.LastTurn)
	r, err = rollout.Open(ctx, e.Path) // later turns append to the same file
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	// Output: list the files 1 finished completed
}
