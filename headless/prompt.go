package headless

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// ReadPrompt applies exec's prompt rules to its arguments and standard
// input: "-" or no argument reads stdin; an argument plus piped stdin
// appends it as a <stdin> block. stdinTTY says stdin is a terminal, which
// is never read.
func ReadPrompt(stdin io.Reader, stdinTTY bool, args []string) (string, error) {
	arg := ""
	if len(args) == 1 {
		arg = args[0]
	}
	if arg == "-" || arg == "" {
		if stdinTTY {
			return "", errors.New("no prompt: pass one as an argument or pipe it on standard input")
		}
		b, err := io.ReadAll(stdin)
		if err != nil {
			return "", fmt.Errorf("read prompt from stdin: %w", err)
		}
		p := strings.TrimSpace(string(b))
		if p == "" {
			return "", errors.New("no prompt: standard input was empty")
		}
		return p, nil
	}
	if stdinTTY || !StdinHasData(stdin) {
		return arg, nil
	}
	b, err := io.ReadAll(stdin)
	if err != nil {
		return "", fmt.Errorf("read stdin: %w", err)
	}
	if s := strings.TrimRight(string(b), "\n"); s != "" {
		return arg + "\n\n<stdin>\n" + s + "\n</stdin>", nil
	}
	return arg, nil
}

// StdinHasData reports whether stdin is a pipe, a socket or a file worth
// reading (not /dev/null or another character device that would block or
// mean nothing). A reader that is not a file has data unless it is nil.
func StdinHasData(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return r != nil
	}
	st, err := f.Stat()
	if err != nil {
		return false
	}
	m := st.Mode()
	// A socket too: node's child_process (the Codex SDK) gives its
	// children a socketpair, not a pipe.
	return m&(os.ModeNamedPipe|os.ModeSocket) != 0 || m.IsRegular()
}

// ReadSchema loads and checks exec's --output-schema file: a JSON
// object, sent as the answer's schema; "" is none.
func ReadSchema(path string) (json.RawMessage, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--output-schema: %w", err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("--output-schema %s: not a JSON object: %w", path, err)
	}
	return json.RawMessage(b), nil
}
