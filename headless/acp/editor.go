package acp

import (
	"context"
	"errors"
	"io/fs"
	"os"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentcli/agent/tools"
)

// How agent uses what the client offers (docs/editors.md, "Files and
// commands through the editor"):
//
//   - fs/read_text_file and fs/write_text_file, when the client offers
//     both: a patch applies to the text the editor has (unsaved changes
//     included) and its result goes to the editor, which shows and saves
//     it. The approval policy and the writable roots decide as before,
//     before the editor is asked anything ([tools.Editor]).
//   - terminal/*: never for the model's commands. A terminal/create runs
//     its command in the editor's environment: outside agent's sandbox,
//     with the editor's variables (its keys among them), of which agent
//     can add but not remove any. agent runs every command itself, under
//     its sandbox and shell_environment_policy, and shows the output: as a
//     terminal the client draws when it declares the `terminal_output`
//     meta capability (Zed's, as codex-acp reads it), else as text.

// editor is the client's fs/* methods, for one session's patches.
type editor struct{ se *session }

var _ tools.Editor = editor{}

// ReadTextFile asks the client for the text of path.
func (e editor) ReadTextFile(ctx context.Context, path string) (string, error) {
	res, err := e.se.s.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: sdk.SessionId(e.se.id), Path: path})
	if err != nil {
		return "", err
	}
	return res.Content, nil
}

// WriteTextFile gives the client the new text of path.
func (e editor) WriteTextFile(ctx context.Context, path, text string) error {
	_, err := e.se.s.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: sdk.SessionId(e.se.id), Path: path, Content: text})
	return err
}

// usesEditor reports whether the client offers its buffers: both fs
// methods.
func (s *Server) usesEditor() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.client.Fs.ReadTextFile && s.client.Fs.WriteTextFile
}

// showsTerminals reports whether the client draws a command's output as a
// terminal from the tool call's _meta (terminal_info, terminal_output,
// terminal_exit): the client capability _meta.terminal_output.
func (s *Server) showsTerminals() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, _ := s.client.Meta["terminal_output"].(bool)
	return v
}

// readText is path's text as the session's patches see it: the editor's
// when it offers its buffers, else the disk's; nil when there is no such
// file.
func (se *session) readText(ctx context.Context, path string) *string {
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if se.ed != nil {
		if t, err := se.ed.ReadTextFile(ctx, path); err == nil {
			return &t
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	t := string(b)
	return &t
}
