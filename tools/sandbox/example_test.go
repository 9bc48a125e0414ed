package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/agentcli/agent/tools/sandbox"
)

// ExampleCommand runs a shell command that may write only the workspace,
// and tells a sandbox denial apart from an ordinary failure. The binary's
// main must start with sandbox.MaybeRunHelper().
func ExampleCommand() {
	p := sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workspace: "/path/to/repo"}
	cmd, err := sandbox.Command(context.Background(), p, "sh", "-c", "go test ./... > test.log")
	if errors.Is(err, sandbox.ErrUnavailable) {
		fmt.Println("no sandbox here:", err) // or retry with p.BestEffort after asking
		return
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	var stderr strings.Builder
	cmd.Env = os.Environ()
	cmd.Stderr = &stderr
	err = cmd.Run()
	switch {
	case err == nil:
		fmt.Println("ok")
	case sandbox.Denied(p, err, []byte(stderr.String())):
		fmt.Println("the sandbox denied it:", stderr.String())
	default:
		fmt.Println("failed:", err)
	}
}

// ExampleAvailable reports what the kernel offers.
func ExampleAvailable() {
	abi, err := sandbox.Available()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("Landlock ABI", abi)
}
