package shellenv_test

import (
	"slices"
	"testing"

	"github.com/agentcli/agent/internal/shellenv"
)

func TestBuild(t *testing.T) {
	t.Parallel()
	environ := []string{
		"PATH=/usr/bin", "HOME=/home/u", "USER=u", "FOO=bar", "LANG=C",
		"OPENAI_API_KEY=sk-1", "GITHUB_TOKEN=gh-1", "db_secret=s", "MonkeyBusiness=m",
		"NOEQUALS", "=empty",
	}
	cases := []struct {
		name string
		p    shellenv.Policy
		want []string
	}{
		{"default drops KEY SECRET TOKEN ignoring case", shellenv.Policy{},
			[]string{"FOO=bar", "HOME=/home/u", "LANG=C", "PATH=/usr/bin", "USER=u"}},
		{"ignore_default_excludes keeps them", shellenv.Policy{IgnoreDefaultExcludes: true},
			[]string{"FOO=bar", "GITHUB_TOKEN=gh-1", "HOME=/home/u", "LANG=C", "MonkeyBusiness=m", "OPENAI_API_KEY=sk-1", "PATH=/usr/bin", "USER=u", "db_secret=s"}},
		{"inherit all", shellenv.Policy{Inherit: shellenv.InheritAll},
			[]string{"FOO=bar", "HOME=/home/u", "LANG=C", "PATH=/usr/bin", "USER=u"}},
		{"inherit core", shellenv.Policy{Inherit: shellenv.InheritCore},
			[]string{"HOME=/home/u", "PATH=/usr/bin", "USER=u"}},
		{"inherit none", shellenv.Policy{Inherit: shellenv.InheritNone}, []string{}},
		{"exclude globs ignoring case", shellenv.Policy{Exclude: []string{"f?o", "LA*"}},
			[]string{"HOME=/home/u", "PATH=/usr/bin", "USER=u"}},
		{"set adds and replaces", shellenv.Policy{Inherit: shellenv.InheritCore, Set: map[string]string{"PATH=": "x", "PATH": "/bin", "NEW": "1"}},
			[]string{"HOME=/home/u", "NEW=1", "PATH=/bin", "PATH==x", "USER=u"}},
		{"set comes after the default excludes", shellenv.Policy{Inherit: shellenv.InheritNone, Set: map[string]string{"MY_TOKEN": "t"}},
			[]string{"MY_TOKEN=t"}},
		{"set comes after exclude", shellenv.Policy{Exclude: []string{"*"}, Set: map[string]string{"A": "1"}},
			[]string{"A=1"}},
		{"include_only comes after set", shellenv.Policy{IncludeOnly: []string{"*PATH", "h*"}, Set: map[string]string{"A": "1", "MANPATH": "/m"}},
			[]string{"HOME=/home/u", "MANPATH=/m", "PATH=/usr/bin"}},
		{"include_only cannot bring back an excluded name", shellenv.Policy{IncludeOnly: []string{"*TOKEN"}}, []string{}},
		{"names are inherited whatever inherit says", shellenv.Policy{Inherit: shellenv.InheritNone, Names: []string{"FOO", "MISSING"}},
			[]string{"FOO=bar"}},
		{"mcp server: base set, env_vars, env on top", shellenv.ForMCPServer([]string{"GITHUB_TOKEN"}, map[string]string{"USER": "other", "X": "y"}),
			[]string{"GITHUB_TOKEN=gh-1", "HOME=/home/u", "LANG=C", "PATH=/usr/bin", "USER=other", "X=y"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := c.p.Build(environ)
			if !slices.Equal(got, c.want) {
				t.Errorf("Build = %q, want %q", got, c.want)
			}
		})
	}
}

func TestMatch(t *testing.T) {
	t.Parallel()
	cases := []struct {
		pat, name string
		want      bool
	}{
		{"*KEY*", "openai_api_key", true},
		{"*KEY*", "KEY", true},
		{"*KEY*", "KE", false},
		{"A?C", "abc", true},
		{"A?C", "ac", false},
		{"*_A*B", "X_AYB", true},
		{"*_A*B", "X_AYBC", false},
		{"[AB]", "A", false}, // only * and ? are special
		{"[AB]", "[ab]", true},
		{"", "", true},
		{"", "A", false},
		{"**", "", true},
	}
	for _, c := range cases {
		if got := shellenv.Match([]string{c.pat}, c.name); got != c.want {
			t.Errorf("Match(%q, %q) = %v, want %v", c.pat, c.name, got, c.want)
		}
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	for _, in := range []shellenv.Inherit{"", "all", "core", "none"} {
		if err := (shellenv.Policy{Inherit: in}).Validate(); err != nil {
			t.Errorf("inherit %q: %v", in, err)
		}
	}
	err := shellenv.Policy{Inherit: "some"}.Validate()
	if err == nil || err.Error() != `inherit = "some": must be "all", "core" or "none"` {
		t.Errorf("inherit some: %v", err)
	}
}
