package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
)

// copySkills copies the real skills of internal/skills/testdata (Codex
// 0.171's bundled skill-installer and skill-creator) into home/skills.
func copySkills(t *testing.T, home string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(home, "skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-r", "../../internal/skills/testdata/home/skills/.", filepath.Join(home, "skills")).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
}

// TestExecSkillBodyOnlyAfterMention: the model sees the skills' names and
// descriptions from the first request; a skill's SKILL.md is sent only
// after a prompt names it with $name; a bad SKILL.md is named with file
// and line and skipped.
func TestExecSkillBodyOnlyAfterMention(t *testing.T) {
	t.Parallel()
	home, project := t.TempDir(), t.TempDir()
	copySkills(t, home)
	bad := filepath.Join(project, ".agents", "skills", "broken", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(bad), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("---\nname: Broken Skill\ndescription: x\n---\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const body = "Helps install skills. By default these are from https://github.com/openai/skills/tree/main/skills/.curated"
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "hi"), rt.Reply("r2", "m2", "installing")})
	r := runCLI(t, srv, runOpts{home: home, config: fakeConfig, stdinTTY: true}, "exec", "-C", project, "hello")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	first := fmt.Sprint(srv.Requests()[0].JSON["input"])
	if !strings.Contains(first, "- skill-installer: Install Codex skills") || !strings.Contains(first, "<skills_instructions>") {
		t.Fatalf("the first request does not list the skills: %s", first)
	}
	if strings.Contains(first, body) {
		t.Fatal("a skill's body was sent before the prompt named it")
	}
	if !strings.Contains(r.stderr, bad+":2: invalid name \"Broken Skill\"") || !strings.Contains(r.stderr, "skill skipped") {
		t.Fatalf("the bad skill is not named with file and line:\n%s", r.stderr)
	}
	r = runCLI(t, srv, runOpts{home: home, config: fakeConfig, stdinTTY: true}, "exec", "-C", project, "resume", "--last", "please use $skill-installer")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	items := srv.Requests()[1].JSON["input"].([]any)
	last := fmt.Sprint(items[len(items)-1])
	if !strings.Contains(last, "<skill>\n<name>skill-installer</name>") || !strings.Contains(last, body) {
		t.Fatalf("the skill's body does not follow the prompt: %s", last)
	}
}

func TestSkillsList(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	copySkills(t, home)
	r := runCLI(t, nil, runOpts{home: home}, "skills", "list", "-C", t.TempDir())
	if r.code != 0 || !strings.Contains(r.stdout, "$skill-installer\n  Install Codex skills") || !strings.Contains(r.stdout, filepath.Join(home, "skills", "skill-creator", "SKILL.md")) {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestSkillsConfigKeys: Codex 0.171's [skills] keys are honoured, not
// warned about: [[skills.config]] disables a skill by name or by its
// folder (relative to config.toml), so it is neither listed nor loaded on
// $name; include_instructions = false sends no list while $name still
// loads the skill; bundled.enabled = false leaves out the skills of
// skills/.system; an entry without enabled is an error naming it.
func TestSkillsConfigKeys(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	copySkills(t, home)
	system := filepath.Join(home, "skills", ".system", "bundled-one")
	if err := os.MkdirAll(system, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(system, "SKILL.md"), []byte("---\nname: bundled-one\ndescription: A bundled skill\n---\nBUNDLED BODY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	list := func(cfg string) string {
		t.Helper()
		r := runCLI(t, nil, runOpts{home: home, config: strings.ReplaceAll(cfg, "%URL%", "http://127.0.0.1:9")}, "skills", "list", "-C", t.TempDir())
		if r.code != 0 || strings.Contains(r.stderr, "ignores") {
			t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		return r.stdout
	}
	if out := list(fakeConfig); !strings.Contains(out, "$skill-creator") || !strings.Contains(out, "$bundled-one") {
		t.Fatalf("without [skills] not every skill is listed:\n%s", out)
	}
	byName := "[[skills.config]]\nname = \"skill-creator\"\nenabled = false\n"
	if out := list(fakeConfig + byName); strings.Contains(out, "$skill-creator") || !strings.Contains(out, "$skill-installer") {
		t.Errorf("disabled by name:\n%s", out)
	}
	byPath := "[[skills.config]]\npath = \"skills/skill-installer\"\nenabled = false\n"
	if out := list(fakeConfig + byPath); strings.Contains(out, "$skill-installer") || !strings.Contains(out, "$skill-creator") {
		t.Errorf("disabled by path:\n%s", out)
	}
	again := byName + "[[skills.config]]\nname = \"skill-creator\"\nenabled = true\n"
	if out := list(fakeConfig + again); !strings.Contains(out, "$skill-creator") {
		t.Errorf("enabled again by a later entry:\n%s", out)
	}
	if out := list(fakeConfig + "[skills]\nbundled.enabled = false\n"); strings.Contains(out, "$bundled-one") || !strings.Contains(out, "$skill-creator") {
		t.Errorf("bundled.enabled = false:\n%s", out)
	}
	r := runCLI(t, nil, runOpts{home: home, config: strings.ReplaceAll(fakeConfig, "%URL%", "http://127.0.0.1:9") + "[[skills.config]]\nname = \"x\"\n"}, "skills", "list")
	if r.code == 0 || !strings.Contains(r.stderr, "skills.config") || !strings.Contains(r.stderr, "enabled") {
		t.Errorf("an entry without enabled: exit %d\n%s", r.code, r.stderr)
	}

	const creatorBody = "Create skills that give Codex useful, non-obvious guidance"
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "no"), rt.Reply("r2", "m2", "yes")})
	r = runCLI(t, srv, runOpts{home: home, config: fakeConfig + byName, stdinTTY: true}, "exec", "-C", t.TempDir(), "use $skill-creator")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	first := fmt.Sprint(srv.Requests()[0].JSON["input"])
	if strings.Contains(first, "- skill-creator:") || strings.Contains(first, "<name>skill-creator</name>") || strings.Contains(first, creatorBody) || !strings.Contains(first, "- skill-installer:") {
		t.Errorf("a disabled skill reached the model: %s", first)
	}
	r = runCLI(t, srv, runOpts{home: home, config: fakeConfig + "[skills]\ninclude_instructions = false\n", stdinTTY: true}, "exec", "-C", t.TempDir(), "use $skill-creator")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	second := fmt.Sprint(srv.Requests()[1].JSON["input"])
	if strings.Contains(second, "<skills_instructions>") || !strings.Contains(second, "<name>skill-creator</name>") || !strings.Contains(second, creatorBody) {
		t.Errorf("include_instructions = false: the list was sent or the named skill was not: %s", second)
	}
}
