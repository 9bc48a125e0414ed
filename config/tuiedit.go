package config

import (
	"fmt"

	"github.com/BurntSushi/toml"
)

// SetTUITheme records name as [tui] theme in home/config.toml, where
// Codex's /theme writes it: the line replaced in the [tui] table, or
// added to it (the table added at the end when there is none); every
// other line of the file is kept. The result must load and say what was
// asked, else the file is left as it was.
func SetTUITheme(home, name string) error {
	path, text, _, err := readForEdit(home)
	if err != nil {
		return err
	}
	line := "theme = " + tomlString(name)
	out := setTableLine(text, "[tui]", "theme", line)
	var got struct {
		TUI struct {
			Theme string `toml:"theme"`
		} `toml:"tui"`
	}
	if _, err := toml.Decode(out, &got); err != nil || got.TUI.Theme != name {
		return fmt.Errorf("config: cannot record the theme in %s automatically (%v); set [tui] theme = %s by hand", path, err, tomlString(name))
	}
	if _, err := load(path, []byte(out), Options{Home: home}); err != nil {
		return fmt.Errorf("config: recording the theme would break %s: %w", path, err)
	}
	return writeAtomic(path, []byte(out))
}
