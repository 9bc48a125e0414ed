package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/agentcli/agent/internal/atomicfile"
)

// profileSuffix ends the name of a profile file: Home/NAME.config.toml.
const profileSuffix = ".config.toml"

// profilePath is the file of profile name in home.
func profilePath(home, name string) string { return filepath.Join(home, name+profileSuffix) }

// loadProfileFile reads the profile file of the selected profile
// (opts.Profile, else the config file's profile key, fileKey) when it
// exists; nil when there is none.
func loadProfileFile(opts Options, fileKey *string, probs *problems, warns *warnings) (*layer, error) {
	name := opts.Profile
	if name == "" && fileKey != nil {
		name = *fileKey
	}
	if name == "" || opts.Home == "" || strings.ContainsAny(name, `/\`) {
		return nil, nil
	}
	path := profilePath(opts.Home, name)
	data, err := atomicfile.ReadOwn(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("config: %w", err)
	}
	src, t, err := parseFile(path, data)
	if err != nil {
		return nil, err
	}
	l := layer{src: src, profile: name}
	l.decode(t, probs, warns)
	return &l, nil
}

// profileFiles returns the names of the profile files in home.
func profileFiles(home string) []string {
	if home == "" {
		return nil
	}
	ents, _ := os.ReadDir(home)
	var out []string
	for _, e := range ents {
		if n, ok := strings.CutSuffix(e.Name(), profileSuffix); ok && n != "" && !e.IsDir() {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// ProfileNames are the profiles home defines, sorted: its NAME.config.toml
// files and the [profiles.NAME] tables of its config.toml (an unreadable
// or invalid config.toml adds none). Shell completion offers them.
func ProfileNames(home string) []string {
	names := map[string]bool{}
	for _, n := range profileFiles(home) {
		names[n] = true
	}
	if data, err := atomicfile.ReadOwn(filepath.Join(home, FileName)); err == nil {
		var f struct {
			Profiles map[string]toml.Primitive `toml:"profiles"`
		}
		if _, err := toml.Decode(string(data), &f); err == nil {
			for n := range f.Profiles {
				names[n] = true
			}
		}
	}
	return sortedKeys(names)
}
