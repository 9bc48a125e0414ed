// Command mcptestserver is the stdio MCP server of package mcptest, for
// tests that need a real child process. See [mcptest.Build] for its flags.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentcli/agent/internal/mcptest"
)

func main() {
	block := flag.Bool("block", false, "add the block tool")
	image := flag.Bool("image", false, "add the image tool")
	prompts := flag.Bool("prompts", false, "add the prompts greet and picture")
	crash := flag.Bool("crash", false, "add the crash tool (exits with status 3)")
	hang := flag.Bool("hang", false, "never answer; read stdin until EOF")
	fail := flag.String("fail", "", "print this on stderr and exit 1 at once")
	stderr := flag.String("stderr", "", "print this on stderr before serving")
	flag.Parse()
	if *fail != "" {
		fmt.Fprintln(os.Stderr, *fail)
		os.Exit(1)
	}
	if *stderr != "" {
		fmt.Fprintln(os.Stderr, *stderr)
	}
	if *hang {
		_, _ = io.Copy(io.Discard, os.Stdin)
		return
	}
	opts := mcptest.Options{Block: *block, Image: *image, Prompts: *prompts}
	if *crash {
		opts.Crash = func() {
			fmt.Fprintln(os.Stderr, mcptest.ErrCrash)
			os.Exit(3)
		}
	}
	if err := mcptest.NewServer(opts).Run(context.Background(), &gomcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "mcptestserver:", err)
		os.Exit(1)
	}
}
