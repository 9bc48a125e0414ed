package config

import (
	"path/filepath"
	"strconv"
)

// skillsFile is [skills] as Codex 0.171 has it: whether the skills are
// listed to the model, the budget of that list, Codex's bundled skills,
// and [[skills.config]] entries enabling or disabling one skill by the
// path of its SKILL.md (or its folder) or by name.
type skillsFile struct {
	IncludeInstructions *bool             `toml:"include_instructions"`
	MaxContextTokens    *int64            `toml:"max_context_tokens"`
	Bundled             *bundledSkills    `toml:"bundled"`
	Config              []skillConfigFile `toml:"config"`
}

// bundledSkills is [skills.bundled].
type bundledSkills struct {
	Enabled *bool `toml:"enabled"`
}

// skillConfigFile is one [[skills.config]] entry; enabled is required, as
// in Codex.
type skillConfigFile struct {
	Path    *string `toml:"path"`
	Name    *string `toml:"name"`
	Enabled *bool   `toml:"enabled"`
}

// Skills is the [skills] table.
type Skills struct {
	// IncludeInstructions lists the skills' names and descriptions to the
	// model (default true); false leaves the list out, a skill still
	// loading when the user names it with $name.
	IncludeInstructions bool
	// MaxContextTokens bounds that list in tokens; 0: about 2% of the
	// context window.
	MaxContextTokens int64
	// Bundled says Codex's bundled skills (the home's skills/.system) are
	// loaded (default true).
	Bundled bool
	// Entries enable or disable single skills, in order: the last entry
	// matching a skill decides.
	Entries []SkillEntry
}

// SkillEntry is one [[skills.config]] entry.
type SkillEntry struct {
	// Path is a SKILL.md or its folder, absolute (a relative path is read
	// from the directory of the config file that names it); Name a
	// skill's name. One of them is set.
	Path, Name string
	Enabled    bool
}

// applySkills layers [skills] of l over c, reporting entries that lack
// what Codex requires.
func (c *Config) applySkills(l layer, probs *problems) {
	f := l.f.Skills
	if f == nil {
		return
	}
	set(&c.Skills.IncludeInstructions, f.IncludeInstructions)
	set(&c.Skills.MaxContextTokens, f.MaxContextTokens)
	if c.Skills.MaxContextTokens < 0 {
		probs.add(l.src, []string{"skills", "max_context_tokens"}, "must not be negative")
		c.Skills.MaxContextTokens = 0
	}
	if f.Bundled != nil {
		set(&c.Skills.Bundled, f.Bundled.Enabled)
	}
	for i, e := range f.Config {
		at := []string{"skills", "config", strconv.Itoa(i + 1)}
		if e.Enabled == nil {
			probs.add(l.src, at, "missing field `enabled` (true or false)")
			continue
		}
		ent := SkillEntry{Enabled: *e.Enabled}
		set(&ent.Name, e.Name)
		set(&ent.Path, e.Path)
		if ent.Path == "" && ent.Name == "" {
			probs.add(l.src, at, "names no skill: give path (its SKILL.md or folder) or name")
			continue
		}
		if ent.Path != "" && !filepath.IsAbs(ent.Path) && l.src.path != "" {
			ent.Path = filepath.Join(filepath.Dir(l.src.path), ent.Path)
		}
		c.Skills.Entries = append(c.Skills.Entries, ent)
	}
}

// SkillEnabled reports whether the skill called name with its SKILL.md at
// path is loaded: Codex's bundled skills (under a skills/.system folder)
// only while [skills.bundled] is enabled, and any skill as the last
// [[skills.config]] entry naming it (by path or name) says.
func (s Skills) SkillEnabled(name, path string) bool {
	on := true
	if !s.Bundled && filepath.Base(filepath.Dir(filepath.Dir(path))) == ".system" {
		on = false
	}
	for _, e := range s.Entries {
		if e.Name != "" && e.Name == name || e.Path != "" && (filepath.Clean(e.Path) == path || filepath.Clean(e.Path) == filepath.Dir(path)) {
			on = e.Enabled
		}
	}
	return on
}
