package setup

import (
	"os"
	"path/filepath"

	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/session/hooks"
)

// HookSources are where the hooks of a session working in cwd are
// declared: the home's hooks.json, the [hooks] tables of config.toml, the
// profile file and -c, and, in a trusted project only, the .codex
// directories from the project's root down to cwd.
func HookSources(cfg config.Config, home, cwd string, bypass bool) hooks.Sources {
	src := hooks.Sources{Home: home, BypassTrust: bypass}
	for _, t := range cfg.Hooks {
		s := hooks.SourceUser
		if t.Path == config.SessionFlagsPath {
			s = hooks.SourceFlags
		}
		src.Config = append(src.Config, hooks.Layer{Path: t.Path, Source: s, Table: t.Table})
	}
	if cwd == "" || cfg.ProjectTrust(cwd) != config.TrustTrusted {
		return src
	}
	src.ProjectDirs = ProjectDirs(home, cwd)
	return src
}

// ProjectDirs are the .codex directories from the project's root (the
// nearest directory above cwd holding .git, else cwd) down to cwd, the
// home excepted.
func ProjectDirs(home, cwd string) []string {
	var dirs []string
	for d := filepath.Clean(cwd); ; d = filepath.Dir(d) {
		dot := filepath.Join(d, ".codex")
		if st, err := os.Stat(dot); err == nil && st.IsDir() && !sameDir(dot, home) {
			dirs = append([]string{dot}, dirs...)
		}
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil || filepath.Dir(d) == d {
			return dirs
		}
	}
}

// FileExists says whether path exists.
func FileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func sameDir(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}
