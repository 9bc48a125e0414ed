package batch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Item is one prompt of a batch file.
type Item struct {
	ID     string `json:"id"`
	Prompt string `json:"prompt"`
	Cwd    string `json:"cwd"`
	// Dir is Cwd resolved against the batch file's directory; "" means
	// the batch's directory (-C, else the current one).
	Dir string `json:"-"`
}

// ReadFile reads and checks a batch file: one JSON object a line, ids
// unique, prompts not empty, each cwd a directory. Its errors name the
// line. A line over 16 MiB or a file over 1 GiB (endless input such as
// /dev/zero) is refused.
func ReadFile(path string) ([]Item, error) { return readFile(path, defaultBounds()) }

// readFile is ReadFile within b.
func readFile(path string, b bounds) ([]Item, error) {
	base, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("--batch: %w", err)
	}
	var items []Item
	var bad error
	firstLine := map[string]int{}
	_, err = readLines(path, b, func(n int, line []byte) {
		if bad != nil || len(bytes.TrimSpace(line)) == 0 {
			return
		}
		it, err := parseLine(line, base)
		if err != nil {
			bad = fmt.Errorf("%s:%d: %w", path, n, err)
			return
		}
		if first, dup := firstLine[it.ID]; dup {
			bad = fmt.Errorf("%s:%d: duplicate id %q (first on line %d)", path, n, it.ID, first)
			return
		}
		firstLine[it.ID] = n
		items = append(items, it)
	})
	if err != nil {
		return nil, fmt.Errorf("--batch: %w", err)
	}
	if bad != nil {
		return nil, bad
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("%s: no prompts", path)
	}
	return items, nil
}

// parseLine decodes one line, resolving cwd against base.
func parseLine(line []byte, base string) (Item, error) {
	var it Item
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&it); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return it, fmt.Errorf("%q must be a string", te.Field)
		}
		return it, fmt.Errorf("not a JSON object with id, prompt and cwd: %w", err)
	}
	if dec.More() {
		return it, errors.New("more than one JSON value on the line")
	}
	if it.ID == "" {
		return it, errors.New(`"id" is missing or empty`)
	}
	if strings.TrimSpace(it.Prompt) == "" {
		return it, fmt.Errorf(`id %q: "prompt" is missing or empty`, it.ID)
	}
	if it.Cwd != "" {
		it.Dir = it.Cwd
		if !filepath.IsAbs(it.Dir) {
			it.Dir = filepath.Join(base, it.Dir)
		}
		if st, err := os.Stat(it.Dir); err != nil || !st.IsDir() {
			return it, fmt.Errorf("id %q: cwd %q is not a directory", it.ID, it.Cwd)
		}
	}
	return it, nil
}
