package rollout

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // database/sql driver "sqlite", pure Go
)

// codexStateDB is Codex's own index of sessions in its home (Codex 0.16x
// to 0.171: state_5.sqlite). Codex's pickers (codex resume, /resume, the
// app-server's thread/list) list what its threads table holds, not the
// rollout files: it reads the files once, when it makes the database. So
// in a home shared with Codex, agent adds its sessions there too.
const codexStateDB = "state_5.sqlite"

// codexThread is what Codex's threads table says of a session.
type codexThread struct {
	id, path, cwd, source, provider, cliVersion, originator, model string
	created                                                        time.Time
}

// codexThreadOf is the row of the session meta describes, recorded at
// path.
func codexThreadOf(meta SessionMeta, path string) codexThread {
	return codexThread{
		id: meta.ID, path: absPath(path), cwd: meta.Cwd, source: meta.Source, provider: meta.ModelProvider,
		cliVersion: meta.CLIVersion, originator: meta.Originator, model: meta.Model, created: meta.Timestamp,
	}
}

// codexSource is the session_meta source Codex gives a session started by
// originator: Codex's interactive pickers show "cli" and "vscode"
// sessions, and "exec" and "mcp" ones only when asked
// (--include-non-interactive), as for Codex's own.
func codexSource(originator string) string {
	switch originator {
	case "agent_exec":
		return "exec"
	case "agent_mcp_server":
		return "mcp"
	case "agent_cli":
		return "cli"
	}
	return "vscode" // the app-server and ACP front ends: editors
}

// codexDefaults are the columns Codex's threads table requires that agent
// has no value of its own for: what Codex's own scan of an agent rollout
// puts there (no turn_context of Codex's shape: read-only, on-request).
const (
	codexSandboxPolicy = `{"type":"managed","file_system":{"type":"restricted","entries":[{"path":{"type":"special","value":{"kind":"root"}},"access":"read"}]},"network":"restricted"}`
	codexApprovalMode  = "on-request"
)

// codexColumns are the threads columns agent writes; a database without
// one of them is of a schema agent does not know, and is left alone.
var codexColumns = []string{
	"id", "rollout_path", "created_at", "updated_at", "source", "model_provider", "cwd", "title",
	"sandbox_policy", "approval_mode", "cli_version", "first_user_message", "model",
	"created_at_ms", "updated_at_ms", "preview", "recency_at", "recency_at_ms", "originator", "name",
}

// upsertCodexThread records th, first prompt title and name (may be "")
// in the Codex state database of home, when there is one: a new row, or
// for a session already there (a Codex session agent resumed) its update
// time, and its title when it had none. It waits at most 2 s for Codex's
// own writers.
func upsertCodexThread(ctx context.Context, home string, th codexThread, title, name string, updated time.Time) error {
	path := filepath.Join(home, codexStateDB)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil // Codex never ran here: nothing lists from a database
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	dsn := (&url.URL{Scheme: "file", Path: path, RawQuery: "_pragma=busy_timeout(2000)"}).String()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	have := map[string]bool{}
	rows, err := db.QueryContext(ctx, "SELECT name FROM pragma_table_info('threads')")
	if err != nil {
		return err
	}
	for rows.Next() {
		var c string
		if rows.Scan(&c) == nil {
			have[c] = true
		}
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return err
	}
	for _, c := range codexColumns {
		if !have[c] {
			return fmt.Errorf("%s: its threads table has no column %s (a Codex version agent does not know)", path, c)
		}
	}
	var nameArg any // NULL: no name
	if name != "" {
		nameArg = name
	}
	src := th.source
	if src == "" {
		src = codexSource(th.originator)
	}
	_, err = db.ExecContext(ctx, `INSERT INTO threads (id, rollout_path, created_at, updated_at, source, model_provider, cwd, title,
	sandbox_policy, approval_mode, cli_version, first_user_message, model, created_at_ms, updated_at_ms, preview,
	recency_at, recency_at_ms, originator, name)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT(id) DO UPDATE SET
	updated_at = MAX(threads.updated_at, excluded.updated_at),
	updated_at_ms = MAX(COALESCE(threads.updated_at_ms, 0), excluded.updated_at_ms),
	recency_at = MAX(threads.recency_at, excluded.recency_at),
	recency_at_ms = MAX(threads.recency_at_ms, excluded.recency_at_ms),
	title = CASE WHEN threads.title = '' THEN excluded.title ELSE threads.title END,
	first_user_message = CASE WHEN threads.first_user_message = '' THEN excluded.first_user_message ELSE threads.first_user_message END,
	preview = CASE WHEN threads.preview = '' THEN excluded.preview ELSE threads.preview END,
	name = COALESCE(excluded.name, threads.name)`,
		th.id, th.path, th.created.Unix(), updated.Unix(), src, th.provider, th.cwd, title,
		codexSandboxPolicy, codexApprovalMode, th.cliVersion, title, th.model,
		th.created.UnixMilli(), updated.UnixMilli(), title, updated.Unix(), updated.UnixMilli(), th.originator, nameArg)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// absPath is path made absolute, as Codex keeps rollout paths.
func absPath(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}
