package config

import (
	"fmt"
	"strings"

	"github.com/BurntSushi/toml"
)

// TrustHook records in home/config.toml that the hook whose state key is
// key is trusted at hash: the table [hooks.state."<key>"] with
// trusted_hash, where Codex 0.171 keeps it, so trust given in agent holds
// in Codex and the other way round. An existing table of that key gets
// the new hash (its other keys, enabled, stay); every other line of the
// file is kept. The result must load and say what was asked, else the
// file is left as it was.
func TrustHook(home, key, hash string) error {
	path, text, _, err := readForEdit(home)
	if err != nil {
		return err
	}
	header := "[hooks.state." + tomlString(key) + "]"
	line := "trusted_hash = " + tomlString(hash)
	out := setTableLine(text, header, "trusted_hash", line)
	var got struct {
		Hooks struct {
			State map[string]struct {
				TrustedHash string `toml:"trusted_hash"`
			} `toml:"state"`
		} `toml:"hooks"`
	}
	if _, err := toml.Decode(out, &got); err != nil || got.Hooks.State[key].TrustedHash != hash {
		return fmt.Errorf("config: cannot record the hook's trust in %s automatically (%v); add [hooks.state.%s] trusted_hash = %s by hand", path, err, tomlString(key), tomlString(hash))
	}
	if _, err := load(path, []byte(out), Options{Home: home}); err != nil {
		return fmt.Errorf("config: recording the hook's trust would break %s: %w", path, err)
	}
	return writeAtomic(path, []byte(out))
}

// setTableLine is text with key's line of the table under header (a line
// "[...]") set to line: the key's line replaced, or line added right
// under the header, or the table added at the end when there is none.
// Every other line is kept.
func setTableLine(text, header, key, line string) string {
	lines := strings.Split(text, "\n")
	at := -1
	for i, l := range lines {
		if strings.TrimSpace(l) == header {
			at = i
			break
		}
	}
	if at < 0 {
		out := strings.TrimRight(text, "\n")
		if out != "" {
			out += "\n\n"
		}
		return out + header + "\n" + line + "\n"
	}
	replaced := false
	for i := at + 1; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if strings.HasPrefix(t, "[") {
			break
		}
		if k, _, ok := strings.Cut(t, "="); ok && strings.TrimSpace(k) == key {
			lines[i], replaced = line, true
		}
	}
	if !replaced {
		lines = append(lines[:at+1], append([]string{line}, lines[at+1:]...)...)
	}
	return strings.Join(lines, "\n")
}
