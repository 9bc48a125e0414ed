package batch

import (
	"bytes"
	"fmt"
	"io"

	"github.com/agentcli/agent/internal/atomicfile"
	"github.com/agentcli/agent/internal/exitcode"
)

// MergeOptions say what [Merge] checks and where it writes.
type MergeOptions struct {
	// Batch is the batch file: when set, every prompt of it without a
	// completed result is reported, and the lines are written in its
	// order. "": first-seen order, nothing reported.
	Batch string
	// Output is the file the merged lines replace atomically; "" writes
	// them to Stdout.
	Output string
	// Stdout gets the merged lines without Output; Stderr the notes on
	// lines that are not results and the prompts without a completed
	// result.
	Stdout, Stderr io.Writer
}

// mergeInput is one result line kept by merge, and where it was read.
type mergeInput struct {
	line []byte
	r    Result
	at   string // file:line
}

// Merge joins results files (of the slices of one batch, or of re-runs)
// into one: for each id the completed result wins, else the last one
// seen. Two completed results of one id that differ are a conflict: the
// first is kept and both are named on Stderr. Its error is an
// [*exitcode.Error]: exitcode.Usage when a file cannot be read (or is
// past [ReadFile]'s bounds: endless input such as /dev/zero),
// exitcode.Failed when the output cannot be written or a prompt of
// o.Batch has no completed result.
func Merge(paths []string, o MergeOptions) error { return merge(paths, o, defaultBounds()) }

// merge is Merge within b.
func merge(paths []string, o MergeOptions, b bounds) error {
	byID, seen, err := collect(paths, o.Stderr, b)
	if err != nil {
		return &exitcode.Error{Code: exitcode.Usage, Err: err}
	}
	order := seen
	var missing []string
	prompts := 0
	if o.Batch != "" {
		items, err := readFile(o.Batch, b)
		if err != nil {
			return &exitcode.Error{Code: exitcode.Usage, Err: err}
		}
		prompts = len(items)
		order = order[:0:0]
		inFile := map[string]bool{}
		for _, it := range items {
			inFile[it.ID] = true
			order = append(order, it.ID)
			if m, ok := byID[it.ID]; !ok || m.r.Status != StatusCompleted {
				missing = append(missing, it.ID)
			}
		}
		for _, id := range seen {
			if !inFile[id] {
				fmt.Fprintf(o.Stderr, "agent: batch merge: result for %q, which is not in %s; kept\n", id, o.Batch)
				order = append(order, id)
			}
		}
	}
	var buf bytes.Buffer
	for _, id := range order {
		if m, ok := byID[id]; ok {
			buf.Write(m.line)
			buf.WriteByte('\n')
		}
	}
	if err := writeMerged(o.Stdout, o.Output, buf.Bytes()); err != nil {
		return &exitcode.Error{Code: exitcode.Failed, Err: err}
	}
	if len(missing) > 0 {
		for _, id := range missing {
			state := "no result"
			if m, ok := byID[id]; ok {
				state = m.r.Status
			}
			fmt.Fprintf(o.Stderr, "agent: batch merge: %s: %s\n", id, state)
		}
		// Of the batch file's prompts: results for ids it lacks are kept
		// but are no prompts of it.
		return &exitcode.Error{Code: exitcode.Failed, Err: fmt.Errorf("%d of %d prompts have no completed result", len(missing), prompts)}
	}
	return nil
}

// collect reads the results files: the line kept for each id (the first
// completed result, else the last seen) and the ids in first-seen order.
// Lines that are not results, and completed results that conflict with
// the one kept, are reported on warn.
func collect(paths []string, warn io.Writer, b bounds) (map[string]mergeInput, []string, error) {
	byID := map[string]mergeInput{}
	var seen []string
	for _, p := range paths {
		_, err := eachResult(p, b, warn, func(n int, line []byte, r Result) {
			in := mergeInput{line: line, r: r, at: fmt.Sprintf("%s:%d", p, n)}
			prev, ok := byID[r.ID]
			switch {
			case !ok:
				seen = append(seen, r.ID)
			case prev.r.Status != StatusCompleted:
			case r.Status == StatusCompleted && !bytes.Equal(bytes.TrimSpace(prev.line), bytes.TrimSpace(line)):
				fmt.Fprintf(warn, "agent: batch merge: %q has two different completed results, %s (kept) and %s; check which is right\n", r.ID, prev.at, in.at)
				return
			default:
				return
			}
			byID[r.ID] = in
		})
		if err != nil {
			return nil, nil, err
		}
	}
	return byID, seen, nil
}

// writeMerged writes data to path atomically ([atomicfile.Write]), or to
// stdout when path is "".
func writeMerged(stdout io.Writer, path string, data []byte) error {
	if path == "" {
		_, err := stdout.Write(data)
		return err
	}
	return atomicfile.Write(path, data, 0o600)
}
