package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

var errAs = errors.As

// defaultContextLimit is Codex's additionalContextLimit when unset; the
// key enters the hash only when set to something else.
const defaultContextLimit = 2500

// hash is Codex's trust hash of one handler (discovery.rs
// command_hook_hash over config's version_for_toml): the identity
// {event_name, matcher, hooks: [the normalized handler]} with absent
// fields left out (it passes through TOML), its keys sorted at every
// level, written as compact JSON the way serde_json writes it, then
// sha256. The normalized handler always has its timeout in seconds and
// async; statusMessage when set; additionalContextLimit when set to other
// than 2500 on an event that reads it; never commandWindows.
func hash(ev Event, matcher *string, h Hook, raw map[string]any) string {
	handler := map[string]any{
		"type":    "command",
		"command": h.Command,
		"timeout": int64(h.Timeout.Seconds()),
		"async":   h.Async,
	}
	if v, ok := raw["statusMessage"].(string); ok {
		handler["statusMessage"] = v
	}
	if n, ok := number(raw["additionalContextLimit"]); ok && n != defaultContextLimit {
		switch ev {
		case PreToolUse, PostToolUse, SessionStart, UserPromptSubmit, SubagentStart:
			handler["additionalContextLimit"] = n
		}
	}
	id := map[string]any{"event_name": ev.label(), "hooks": []any{handler}}
	if matcher != nil {
		id["matcher"] = *matcher
	}
	var b strings.Builder
	canonical(&b, id)
	sum := sha256.Sum256([]byte(b.String()))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// canonical writes v as serde_json writes a value with sorted keys: no
// spaces, strings escaping only '"', '\\' and control characters.
func canonical(b *strings.Builder, v any) {
	switch v := v.(type) {
	case map[string]any:
		b.WriteByte('{')
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			quote(b, k)
			b.WriteByte(':')
			canonical(b, v[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			canonical(b, x)
		}
		b.WriteByte(']')
	case string:
		quote(b, v)
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case int64:
		b.WriteString(strconv.FormatInt(v, 10))
	}
}

// quote is serde_json's string escaping.
func quote(b *strings.Builder, s string) {
	const hexdigits = "0123456789abcdef"
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte(hexdigits[r>>4])
			b.WriteByte(hexdigits[r&0xf])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	b.WriteByte('"')
}
