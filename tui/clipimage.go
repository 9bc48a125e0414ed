package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agentcli/agent/tools"
)

// clipboardTimeout bounds one read of the clipboard.
const clipboardTimeout = 3 * time.Second

// errNoClipboardTool: neither wl-paste nor xclip can be run here.
var errNoClipboardTool = errors.New("no clipboard tool: install wl-paste (Wayland) or xclip (X11), or paste the image file's path")

// ClipboardImage returns a reader of the image in the system clipboard
// for the chat's Ctrl+V, through the tool of the display getenv names:
// wl-paste under Wayland, xclip under X11 (each, when the other display
// is absent or its tool is missing, as a fallback).
func ClipboardImage(getenv func(string) string) func(ctx context.Context) ([]byte, error) {
	type tool struct {
		display string
		argv    []string
	}
	candidates := []tool{
		{"WAYLAND_DISPLAY", []string{"wl-paste", "--no-newline", "--type", "image/png"}},
		{"DISPLAY", []string{"xclip", "-selection", "clipboard", "-target", "image/png", "-out"}},
	}
	return func(ctx context.Context) ([]byte, error) {
		var lastErr error = errNoClipboardTool
		for _, c := range candidates {
			if getenv(c.display) == "" {
				continue
			}
			path, err := exec.LookPath(c.argv[0])
			if err != nil {
				continue
			}
			ctx, cancel := context.WithTimeout(ctx, clipboardTimeout)
			cmd := exec.CommandContext(ctx, path, c.argv[1:]...)
			var out, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &stderr
			err = cmd.Run()
			cancel()
			if err == nil && out.Len() > 0 {
				return out.Bytes(), nil
			}
			msg := strings.TrimSpace(stderr.String())
			if msg == "" && err == nil {
				msg = "no image in the clipboard"
			} else if msg == "" {
				msg = err.Error()
			}
			lastErr = fmt.Errorf("%s: %s", c.argv[0], firstLine(msg))
		}
		return nil, lastErr
	}
}

// clipboardImageMsg is the clipboard's image as a data: URL, or why there
// is none.
type clipboardImageMsg struct {
	url string
	err error
}

// pasteClipboardImage is Ctrl+V: the clipboard's image, read off the
// update loop, becomes [Image #N] in the composer, sent as an image with
// the message (as a pasted image path does).
func (m *Model) pasteClipboardImage() tea.Cmd {
	read := m.opts.ClipboardImage
	if read == nil {
		return m.unavailable("ctrl+v (an image from the clipboard)")
	}
	ctx := m.ctx
	return func() tea.Msg {
		b, err := read(ctx)
		if err != nil {
			return clipboardImageMsg{err: err}
		}
		u, err := tools.ImageBytesDataURL("the clipboard", b)
		return clipboardImageMsg{url: u, err: err}
	}
}

// updateClipboardImage inserts the clipboard's image, or says why not.
func (m *Model) updateClipboardImage(msg clipboardImageMsg) tea.Cmd {
	if msg.err != nil {
		m.tr.add(&notice{level: levelWarn, text: "ctrl+v: " + clean(msg.err.Error())})
		m.follow = true
		return nil
	}
	return m.attachImage(msg.url)
}
