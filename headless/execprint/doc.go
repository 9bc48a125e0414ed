// Package execprint prints a turn's session events as agent exec does:
// [Text] for people (the final message on stdout, the rest on stderr) and
// [JSON] for programs (`exec --json`, JSONL in the reference client's
// schema, docs/exec-json.md). Both hold a message back until its response
// completes, so an attempt that fails after completing a message leaves
// no answer behind: the retry answers. [Header] is what exec prints
// before the turn.
//
// The printers consume [session.Event]s on the goroutine that runs the
// turn; neither is safe for concurrent use.
package execprint
