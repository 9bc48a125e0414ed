// Package batch is agent exec --batch (docs/exec-batch.md) without its
// engine: the batch file ([ReadFile], one [Item] a line), the results
// ([Result] lines through a [Sink]; [OpenResults] resumes a file, skipping
// what it records as completed), running prompts on a pool of jobs
// ([Run], given a function that runs one, [RunPrompt] for a prompt's
// turn), the progress report on stderr ([Progress]), the batch's exit
// code, deterministic slices ([Shard]) and [Merge] of results files.
//
// The caller builds the sessions: cmd/agent runs every prompt in a
// session of its own on one shared engine.
package batch
