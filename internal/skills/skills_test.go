package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// The real skills Codex 0.171 bundles load, listed in Codex's layout.
func TestRealSkills(t *testing.T) {
	root, _ := filepath.Abs("testdata/home/skills")
	list, problems := Discover([]string{root})
	if len(problems) != 0 || len(list) != 2 {
		t.Fatalf("skills %+v problems %v", list, problems)
	}
	text, omitted := Instructions(list, DefaultBudget)
	for _, want := range []string{"<skills_instructions>\n## Skills\n", "- `r0` = `" + root + "`",
		"- skill-installer: Install Codex skills into $CODEX_HOME/skills from a curated list or a GitHub repo path.",
		"(file: r0/skill-installer/SKILL.md)", "</skills_instructions>"} {
		if !strings.Contains(text, want) {
			t.Errorf("instructions lack %q:\n%s", want, text)
		}
	}
	if omitted != 0 || strings.Contains(text, "# Skill Creator") {
		t.Fatalf("the body is in the list, or skills were left out (%d)", omitted)
	}
	msg, err := Message(list[0])
	if err != nil || !strings.HasPrefix(msg, "<skill>\n<name>"+list[0].Name+"</name>\n<path>"+list[0].Path+"</path>\n---\n") || !strings.HasSuffix(msg, "\n</skill>") {
		t.Fatalf("%v %q", err, msg[:100])
	}
}

func TestBadFrontMatterNamedWithLine(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "a", "SKILL.md"), "---\nname: good\ndescription: fine\n---\nbody\n")
	write(t, filepath.Join(root, "b", "SKILL.md"), "---\nname: Bad_Name\ndescription: x\n---\n")
	write(t, filepath.Join(root, "c", "SKILL.md"), "---\nname: c\ndescription: [unclosed\n---\n")
	write(t, filepath.Join(root, "d", "SKILL.md"), "no front matter\n")
	write(t, filepath.Join(root, "e", "SKILL.md"), "---\nname: e\n---\n")
	write(t, filepath.Join(root, "f", "SKILL.md"), "---\nname: good\ndescription: again\n---\n")
	list, problems := Discover([]string{root})
	if len(list) != 1 || list[0].Name != "good" {
		t.Fatalf("skills %+v", list)
	}
	want := map[string]string{
		"b": ":2: invalid name \"Bad_Name\"", "c": ": front matter: line", "d": ":1: no front matter",
		"e": ":1: front matter has no description", "f": "is taken by",
	}
	if len(problems) != len(want) {
		t.Fatalf("problems %v", problems)
	}
	for _, p := range problems {
		dir := filepath.Base(filepath.Dir(p.Path))
		if !strings.Contains(p.String(), want[dir]) || !strings.Contains(p.String(), p.Path) || !strings.HasSuffix(p.String(), "skill skipped") {
			t.Errorf("%s: %q, want %q", dir, p.String(), want[dir])
		}
	}
}

func TestBudgetAndMentions(t *testing.T) {
	root := t.TempDir()
	for _, n := range []string{"alpha", "beta", "gamma"} {
		write(t, filepath.Join(root, n, "SKILL.md"), "---\nname: "+n+"\ndescription: "+strings.Repeat("d", 100)+"\n---\n")
	}
	list, _ := Discover([]string{root})
	_, omitted := Instructions(list, 300)
	if omitted != 1 {
		t.Fatalf("omitted %d of 3 within 300 characters", omitted)
	}
	got := Mentioned(list, "use $beta and $alpha, not a$gamma or $nope; $beta again")
	if len(got) != 2 || got[0].Name != "beta" || got[1].Name != "alpha" {
		t.Fatalf("mentioned %+v", got)
	}
	if Budget(0) != 8000 || Budget(272000) != 21760 {
		t.Fatal(Budget(0), Budget(272000))
	}
}

func TestRoots(t *testing.T) {
	repo := t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(repo, "pkg")
	got := Roots("/h/.codex", "/h", sub)
	want := []string{filepath.Join(sub, ".agents/skills"), filepath.Join(repo, ".agents/skills"), "/h/.codex/skills", "/h/.agents/skills"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("%v", got)
	}
}
