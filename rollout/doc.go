// Package rollout keeps sessions on disk: one append-only JSONL file per
// session (a rollout), an index to find them quickly, and the reader that
// turns a rollout back into a resumable session.
//
// Start with [Create] (a new session), [Recorder] (appending lines), [Load]
// (reading one back), [Latest], [List] and [Find] (picking one through the
// index), [Open] (resuming: appending to the same file) and [Fork] (a new
// session seeded with another's history).
//
// A rollout lives at
//
//	$AGENT_HOME/sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<id>.jsonl
//
// (local time), and each line is
//
//	{"timestamp":"YYYY-MM-DDThh:mm:ss.mmmZ","type":<LineType>,"payload":{...}}
//
// Invariants:
//   - The first line is always session_meta; [Load] refuses a file without
//     it and tolerates everything else (a torn last line, a corrupt line in
//     the middle), reporting each as a [Warning].
//   - response_item payloads are the items' raw JSON, byte for byte, so
//     fields this client does not model (encrypted reasoning) survive a
//     resume.
//   - Appends are buffered in memory; nothing reaches the disk until
//     [Recorder.Sync] (or [Recorder.Flush]). The caller syncs at turn
//     boundaries and before a tool runs, so what a crash can lose is only
//     what happened since the last sync, never a started call.
//   - A session has one writer at a time, across processes: [Create] and
//     [Open] hold an exclusive flock on the rollout file until
//     [Recorder.Close], and name the writer's pid in <rollout>.lock; a
//     second Open fails with an [*InUseError] naming the holder. The kernel drops the lock when its
//     holder dies, so a crash never locks a session out.
//   - The index ($AGENT_HOME/sessions/index.jsonl) is a cache: it is
//     rebuilt from the rollout files when it is missing or corrupt, and a
//     lookup that misses falls back to a scan, so a session is never lost
//     because its index record is.
package rollout
