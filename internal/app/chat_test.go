package app

import (
	"strings"
	"sync"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
)

// TestChatSettingsDuringATurn: /approvals, /model and /status while a
// turn streams (run with -race). The turn finishes on the model it
// started with; /status reports the new settings at once; the next turn
// runs them on the same session, history whole.
func TestChatSettingsDuringATurn(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.Barrier("streaming"), rt.Stall(), rt.MessageDone("m1", "one"), rt.Completed("r1")),
		rt.Reply("r2", "m2", "two"),
	})
	cfg := "model = \"model-a\"\nmodel_provider = \"fake\"\napproval_policy = \"untrusted\"\n" +
		"[model_providers.fake]\nbase_url = \"" + srv.URL + "\"\n"
	a, _ := testApp(t, cfg, false)
	sess, err := a.Open(t.Context(), Spec{})
	if err != nil {
		t.Fatal(err)
	}
	sw := a.NewChat(sess)

	done := make(chan error, 1)
	go func() { done <- sw.Turn(t.Context(), "first", func(session.Event) {}) }()
	select {
	case <-srv.Reached("streaming"):
	case err := <-done:
		t.Fatalf("turn ended early: %v", err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		if _, err := sw.SetApprovals(tools.PolicyNever); err != nil {
			t.Error(err)
		}
	})
	wg.Go(func() {
		if err := sw.SetModel("model-b", "high"); err != nil {
			t.Error(err)
		}
	})
	wg.Go(func() { _ = sw.Status() })
	wg.Wait()
	status := strings.Join(sw.Status(), "\n")
	if n := strings.Count(status, "model: "); n != 1 {
		t.Errorf("/status names the model %d times:\n%s", n, status)
	}
	for _, want := range []string{"model: model-b (reasoning high", "approval: never", "transport: https"} {
		if !strings.Contains(status, want) {
			t.Errorf("/status lacks %q:\n%s", want, status)
		}
	}
	srv.Release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := sw.Turn(t.Context(), "second", func(session.Event) {}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].JSON["model"] != "model-a" || reqs[1].JSON["model"] != "model-b" {
		t.Fatalf("models = %v, %v; want model-a for the running turn, model-b after", reqs[0].JSON["model"], reqs[1].JSON["model"])
	}
	if cur := sw.Current(); cur != sess {
		t.Error("a settings change replaced the session")
	}
	in0, in1 := len(reqs[0].JSON["input"].([]any)), len(reqs[1].JSON["input"].([]any))
	if in1 != in0+3 {
		t.Errorf("second turn carries %d items; want %d (the first turn's history, its answer, the new policy's environment context, the new message)", in1, in0+3)
	}
	if body := string(reqs[1].Body); !strings.Contains(body, `approval_policy\u003enever`) && !strings.Contains(body, "approval_policy>never") {
		t.Errorf("the second turn does not tell the model the new policy:\n%s", body)
	}
	if got := sess.Settings().ApprovalPolicy; got != tools.PolicyNever {
		t.Errorf("the session's approval policy = %q", got)
	}
}
