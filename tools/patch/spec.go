package patch

import "encoding/json"

// ToolName is the name the model calls the tool by.
const ToolName = "apply_patch"

// grammar is the Lark grammar of the freeform tool: the format [Parse]
// accepts, without its leniencies, so the model is steered to canonical
// patches.
const grammar = `start: begin_patch hunk+ end_patch
begin_patch: "*** Begin Patch" LF
end_patch: "*** End Patch" LF?

hunk: add_hunk | delete_hunk | update_hunk
add_hunk: "*** Add File: " filename LF add_line+
delete_hunk: "*** Delete File: " filename LF
update_hunk: "*** Update File: " filename LF change_move? change?

filename: /(.+)/
add_line: "+" /(.*)/ LF -> line

change_move: "*** Move to: " filename LF
change: (change_context | change_line)+ eof_line?
change_context: ("@@" | "@@ " /(.+)/) LF
change_line: ("+" | "-" | " ") /(.*)/ LF
eof_line: "*** End of File" LF

%import common.LF
`

// instructions teaches the model the format. It is the description of both
// tool specs.
const instructions = `Edit files with a patch. The patch is plain text in this format (not a unified diff):

*** Begin Patch
*** Add File: path/to/new_file.py
+first line of the new file
+second line
*** Update File: path/to/existing.py
@@ def greet():
-    print("Hi")
+    print("Hello, world!")
*** Delete File: path/to/obsolete.txt
*** End Patch

Sections, any number and in any order:
- "*** Add File: <path>" creates a file that must not exist yet; every following line starts with "+" and is a line of the file.
- "*** Delete File: <path>" removes an existing file; nothing follows it.
- "*** Update File: <path>" edits an existing file. It may be followed at once by "*** Move to: <new path>" to rename it. Then come one or more chunks.

A chunk starts with "@@", optionally followed by a line of the file that comes before the change (a class or function header, say) to say where the change is. Several "@@ <line>" headers in a row narrow the place step by step. Each following line starts with one character:
- " " (a space) for a context line, kept as is,
- "-" for a line to remove,
- "+" for a line to add.
Show 3 lines of context above and below each change, exactly as they are in the file; do not repeat context lines shared with the previous chunk. Chunks must appear in file order. End a chunk with "*** End of File" when its lines are the last lines of the file.

Rules:
- Paths are relative to the working directory; never absolute, never "..".
- The whole patch applies or nothing does: if a context or removed line is not found, no file is changed and the error shows what was not found. Read the file again and send a corrected patch.
- Line endings and a missing final newline are preserved; you do not need to write them.`

// Instructions returns the text that teaches the model the patch format,
// for prompts where apply_patch is reached through a shell.
func Instructions() string { return instructions }

// FunctionSpec returns the spec of apply_patch as a function tool taking
// {"input": "<patch>"}, for models without freeform tools.
func FunctionSpec() json.RawMessage {
	return mustMarshal(map[string]any{
		"type":        "function",
		"name":        ToolName,
		"description": instructions,
		"strict":      false,
		"parameters": map[string]any{
			"type": "object",
			"properties": map[string]any{
				"input": map[string]any{
					"type":        "string",
					"description": "The entire patch, from \"*** Begin Patch\" to \"*** End Patch\".",
				},
			},
			"required":             []string{"input"},
			"additionalProperties": false,
		},
	})
}

// FreeformSpec returns the spec of apply_patch as a custom (freeform) tool
// whose input is constrained by the patch grammar, as the reference client
// sends it.
func FreeformSpec() json.RawMessage {
	return mustMarshal(map[string]any{
		"type":        "custom",
		"name":        ToolName,
		"description": instructions + "\n\nThis is a freeform tool: send the patch text itself, not JSON.",
		"format": map[string]any{
			"type":       "grammar",
			"syntax":     "lark",
			"definition": grammar,
		},
	})
}

func mustMarshal(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // static data; a failure is a programming error
	}
	return b
}
