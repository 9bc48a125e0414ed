// Command agent-highlight lexes the chat's code blocks. The chat starts it
// on the first code block and keeps it for its life: a JSON request line
// on standard input (highlight.Request: the language and the code), a
// JSON response line on standard output (highlight.Response: the lines of
// classed spans); it ends at the end of its input. It is a program of its
// own so that agent links neither chroma nor regexp2 (package highlight).
package main

import (
	"fmt"
	"os"

	"github.com/agentcli/agent/tui/highlight"
	"github.com/agentcli/agent/tui/highlight/lexing"
)

func main() {
	if len(os.Args) > 1 {
		fmt.Fprintln(os.Stderr, "usage: agent-highlight (JSON lines on standard input; the chat runs it)")
		os.Exit(2)
	}
	if err := lexing.Serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, highlight.ProgramName+":", err)
		os.Exit(1)
	}
}
