// Package appserver is agent app-server: Codex's app-server protocol
// (JSON-RPC 2.0 without the "jsonrpc" member, as Codex 0.171's generated
// schema states it) over standard input and output, a WebSocket or a UNIX
// socket, so Codex's own clients (codex exec --remote, codex --remote, the
// VS Code extension) drive agent. Each thread is a session opened on the
// app ([app.App.Open]): recorded in the same rollouts (agent resume
// continues it), under the config's retries, sandbox and approval policy;
// many threads at once in one process, each turn's events sent as the
// thread, turn and item notifications Codex sends, approvals asked of the
// client as Codex's server requests.
package appserver
