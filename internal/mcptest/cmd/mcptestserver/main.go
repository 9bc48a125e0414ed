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
	destructive := flag.Bool("destructive", false, "add the delete tool (annotated destructiveHint)")
	annotated := flag.Bool("annotated", false, "add the tools post, search, local, keep and wipe (annotated)")
	logFile := flag.String("log", "", "append \"NAME ARGUMENTS\" to this file for each tools/call")
	prompts := flag.Bool("prompts", false, "add the prompts greet and picture")
	resources := flag.Bool("resources", false, "add the resource file:///notes.txt and a template")
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
	opts := mcptest.Options{Block: *block, Image: *image, Prompts: *prompts, Resources: *resources, Destructive: *destructive, Annotated: *annotated}
	if *crash {
		opts.Crash = func() {
			fmt.Fprintln(os.Stderr, mcptest.ErrCrash)
			os.Exit(3)
		}
	}
	srv := mcptest.NewServer(opts)
	if *logFile != "" {
		srv.AddReceivingMiddleware(callLog(*logFile))
	}
	if err := srv.Run(context.Background(), &gomcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "mcptestserver:", err)
		os.Exit(1)
	}
}

// callLog is middleware that appends "NAME ARGUMENTS" to the file at path
// for each tools/call, before the call runs: the side effect a test reads
// to know whether a client ran a tool. A line it cannot write fails the
// call.
func callLog(path string) gomcp.Middleware {
	return func(next gomcp.MethodHandler) gomcp.MethodHandler {
		return func(ctx context.Context, method string, req gomcp.Request) (gomcp.Result, error) {
			if p, ok := req.GetParams().(*gomcp.CallToolParamsRaw); ok && method == "tools/call" {
				f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
				if err != nil {
					return nil, err
				}
				_, err = fmt.Fprintf(f, "%s %s\n", p.Name, p.Arguments)
				if cerr := f.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					return nil, err
				}
			}
			return next(ctx, method, req)
		}
	}
}
