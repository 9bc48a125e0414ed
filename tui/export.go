package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/agentcli/agent/transport"
)

// exportMarkdown is /export's document: the conversation of history as
// Markdown — the user's prompts, the answers, each command with its
// output, each patch, other tool calls with their arguments. The
// session's own context (environment, AGENTS.md) and reasoning are left
// out. title names the session; now dates the export.
func exportMarkdown(history []transport.Item, title string, now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\nExported by agent on %s.\n", title, now.Format("2006-01-02 15:04 MST"))
	for _, it := range history {
		if it.Origin == transport.OriginContext {
			continue
		}
		switch {
		case it.Type == "message" && it.Role == "user":
			section(&b, "You", it.Text())
		case it.Type == "message" && it.Role == "assistant":
			section(&b, "agent", it.Text())
		case it.IsCall():
			exportCall(&b, it)
		case it.IsCallOutput():
			fence(&b, "text", it.OutputText())
		}
	}
	return b.String()
}

func section(b *strings.Builder, who, text string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	fmt.Fprintf(b, "\n## %s\n\n%s\n", who, strings.TrimRight(text, "\n"))
}

// exportCall writes a tool call: a command as a shell line, a patch as
// its text, anything else as its name and arguments.
func exportCall(b *strings.Builder, it transport.Item) {
	switch it.Name {
	case "exec_command":
		var a struct {
			Cmd     string `json:"cmd"`
			Workdir string `json:"workdir"`
		}
		if json.Unmarshal([]byte(it.Arguments), &a) == nil && a.Cmd != "" {
			where := ""
			if a.Workdir != "" {
				where = " (in " + a.Workdir + ")"
			}
			fmt.Fprintf(b, "\n**Command**%s\n", where)
			fence(b, "sh", "$ "+a.Cmd)
			return
		}
	case "apply_patch":
		text := it.Input
		var a struct {
			Input string `json:"input"`
		}
		if text == "" && json.Unmarshal([]byte(it.Arguments), &a) == nil {
			text = a.Input
		}
		if text != "" {
			b.WriteString("\n**Patch**\n")
			fence(b, "diff", text)
			return
		}
	}
	fmt.Fprintf(b, "\n**Tool call** `%s`\n", it.Name)
	fence(b, "json", cmpOr(it.Arguments, it.Input))
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// fence writes text as a fenced block, the fence longer than any run of
// backticks in it.
func fence(b *strings.Builder, lang, text string) {
	f := "```"
	for strings.Contains(text, f) {
		f += "`"
	}
	fmt.Fprintf(b, "\n%s%s\n%s\n%s\n", f, lang, strings.TrimRight(text, "\n"), f)
}
