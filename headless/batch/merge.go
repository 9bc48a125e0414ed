package batch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/agentcli/agent/headless/exitcode"
	"github.com/agentcli/agent/internal/atomicfile"
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

// mergeInput is one result line kept by merge.
type mergeInput struct {
	line []byte
	r    Result
}

// Merge joins results files (of the slices of one batch, or of re-runs)
// into one: for each id the completed result wins, else the last one
// seen. Its error is an [*exitcode.Error]: exitcode.Usage when a file
// cannot be read, exitcode.Failed when the output cannot be written or a
// prompt of o.Batch has no completed result.
func Merge(paths []string, o MergeOptions) error {
	byID := map[string]mergeInput{}
	var seen []string // ids in first-seen order, for merges without a batch file
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return &exitcode.Error{Code: exitcode.Usage, Err: err}
		}
		for i, line := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			var r Result
			if err := json.Unmarshal(line, &r); err != nil || r.ID == "" {
				fmt.Fprintf(o.Stderr, "agent: %s:%d: not a result line; ignored\n", p, i+1)
				continue
			}
			prev, ok := byID[r.ID]
			if !ok {
				seen = append(seen, r.ID)
			}
			if !ok || prev.r.Status != StatusCompleted {
				byID[r.ID] = mergeInput{line: slices.Clone(line), r: r}
			}
		}
	}
	order := seen
	var missing []string
	if o.Batch != "" {
		items, err := ReadFile(o.Batch)
		if err != nil {
			return &exitcode.Error{Code: exitcode.Usage, Err: err}
		}
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
		return &exitcode.Error{Code: exitcode.Failed, Err: fmt.Errorf("%d of %d prompts have no completed result", len(missing), len(order))}
	}
	return nil
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
