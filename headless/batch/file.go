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
// line.
func ReadFile(path string) ([]Item, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--batch: %w", err)
	}
	base, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("--batch: %w", err)
	}
	var items []Item
	firstLine := map[string]int{}
	for i, line := range bytes.Split(data, []byte("\n")) {
		n := i + 1
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		it, err := parseLine(line, base)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if first, dup := firstLine[it.ID]; dup {
			return nil, fmt.Errorf("%s:%d: duplicate id %q (first on line %d)", path, n, it.ID, first)
		}
		firstLine[it.ID] = n
		items = append(items, it)
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
