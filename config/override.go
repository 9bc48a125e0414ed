package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/BurntSushi/toml"
)

// parseOverride parses one -c argument, "dotted.key=value", into a tree
// holding that single key. The value is parsed as a TOML value; if it is
// not one, it is the literal string (trimmed), as in Codex.
func parseOverride(arg string) (*source, map[string]any, *Error) {
	i := keyEnd(arg)
	if i < 0 {
		return nil, nil, &Error{Override: arg, Msg: "expected key=value"}
	}
	key := strings.TrimSpace(arg[:i])
	if err := checkBounds("", key); err != nil {
		err.Override, err.Line = arg, 0
		return nil, nil, err
	}
	path, err := parseKey(key)
	if err != nil {
		return nil, nil, &Error{Override: arg, Msg: fmt.Sprintf("invalid key %q: %v", key, err)}
	}
	if err := checkBounds("", arg[i+1:]); err != nil {
		err.Override, err.Line = arg, 0
		return nil, nil, err
	}
	return &source{override: arg}, nest(path, parseValue(arg[i+1:])), nil
}

// keyEnd returns the index of the '=' ending the key of arg, skipping '='
// inside quoted key parts (projects."/a=b".trust_level=trusted), or -1.
func keyEnd(arg string) int {
	var quote byte
	for i := 0; i < len(arg); i++ {
		c := arg[i]
		switch {
		case quote == 0 && c == '=':
			return i
		case quote == 0 && (c == '"' || c == '\''):
			quote = c
		case quote == '"' && c == '\\':
			i++
		case quote != 0 && c == quote:
			quote = 0
		}
	}
	return -1
}

// parseKey splits a dotted TOML key into its parts, unquoting them.
func parseKey(key string) ([]string, error) {
	if key == "" {
		return nil, errors.New("empty key")
	}
	if strings.ContainsAny(key, "\r\n") {
		return nil, errors.New("newline in key")
	}
	var t map[string]any
	if _, err := toml.Decode(key+" = 0", &t); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, errors.New(oneLine(pe.Message))
		}
		return nil, err
	}
	var path []string
	var cur any = t
	for {
		m, ok := cur.(map[string]any)
		if !ok {
			break
		}
		if len(m) != 1 {
			return nil, errors.New("not a single key")
		}
		for k, v := range m {
			path = append(path, k)
			cur = v
		}
	}
	if cur != int64(0) {
		return nil, errors.New("not a single key")
	}
	return path, nil
}

// parseValue parses v as a TOML value, falling back to the trimmed string.
func parseValue(v string) any {
	v = strings.TrimSpace(v)
	var t map[string]any
	if _, err := toml.Decode("v = "+v, &t); err == nil && len(t) == 1 {
		if x, ok := t["v"]; ok {
			return x
		}
	}
	return v
}

// nest returns the tree holding val at path.
func nest(path []string, val any) map[string]any {
	for i := len(path) - 1; i > 0; i-- {
		val = map[string]any{path[i]: val}
	}
	return map[string]any{path[0]: val}
}
