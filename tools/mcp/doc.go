// Package mcp connects the agent to Model Context Protocol servers and
// offers their tools to the model. It is built on the official SDK
// (github.com/modelcontextprotocol/go-sdk), imported here as gomcp.
//
// Start with [New] and [Manager.Start]: every configured server is started
// in its own goroutine, at once, and none of them delays anything else.
// [Manager.Tools] returns the tools of the servers that are ready at the
// moment it is called; a [tools.Set] reads it through [tools.Set.AddSource]
// each time a model request is built, so a server's tools appear as soon as
// it is up and disappear if it stops. [Manager.Close] stops everything and
// waits for it.
//
// Invariants:
//
//   - A server that is slow, broken or crashing never blocks a turn: its
//     failure is one [Notice] (and a log line), and the session goes on
//     without its tools.
//   - Tool names are mcp__<server>__<tool>, limited to [a-zA-Z0-9_-] and
//     64 bytes, unique within the set offered; see [Names].
//   - A call asks for approval under the untrusted policy and where
//     Codex's rule says so (the tool's annotations and approval_mode,
//     [Tool.Run]); under the never policy such a call is refused. It marks the
//     invocation started right before tools/call is sent, and is sent at
//     most once. Its timeout, a server crash or an interruption is answered
//     to the model as such; none ends the turn.
//   - A stdio server gets a minimal environment (PATH, HOME, ... plus
//     env_vars and env), never the agent's secrets; its stderr goes to the
//     log, never to the screen.
//   - Every goroutine is owned by the [Manager] and joined by Close.
package mcp
