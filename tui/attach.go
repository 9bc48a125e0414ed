package tui

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
)

// largePaste is the length (in characters) above which a paste shows as a
// placeholder in the composer, as Codex's does; the message carries it
// whole.
const largePaste = 1000

// imageExts are the file name endings a pasted path attaches as an image.
var imageExts = []string{".png", ".jpg", ".jpeg", ".gif", ".webp"}

// attachments are what the composer's placeholders stand for, until the
// message holding them is sent: "[Pasted Content N chars]" for a big
// paste, "[Image #N]" for an image (a data: URL).
type attachments struct {
	pastes map[string]string
	images map[string]string
}

// paste inserts pasted text: an image file's path as [Image #N], a big
// paste as its placeholder, anything else as it is.
func (m *Model) paste(text string) tea.Cmd {
	a := &m.att
	if a.pastes == nil {
		a.pastes, a.images = map[string]string{}, map[string]string{}
	}
	if url, ok := m.pastedImage(text); ok {
		return m.attachImage(url)
	}
	if n := utf8.RuneCountInString(text); n > largePaste {
		ph := fmt.Sprintf("[Pasted Content %d chars]", n)
		for k := 2; a.pastes[ph] != ""; k++ {
			ph = fmt.Sprintf("[Pasted Content %d chars #%d]", n, k)
		}
		a.pastes[ph] = text
		return m.insert(ph)
	}
	return m.insert(text)
}

// attachImage inserts [Image #N] for the image url (a data: URL), sent
// with the message that holds the placeholder.
func (m *Model) attachImage(url string) tea.Cmd {
	a := &m.att
	if a.pastes == nil {
		a.pastes, a.images = map[string]string{}, map[string]string{}
	}
	ph := ""
	for n := len(a.images) + 1; ph == "" || a.images[ph] != ""; n++ {
		ph = fmt.Sprintf("[Image #%d]", n)
	}
	a.images[ph] = url
	return m.insert(ph)
}

// pastedImage reads text as the path of an image file (quoted, with
// escaped spaces or as a file:// URL, as terminals and file managers give
// a dropped file) and returns the image as a data: URL.
func (m *Model) pastedImage(text string) (string, bool) {
	p := strings.TrimSpace(text)
	if p == "" || strings.ContainsAny(p, "\n\r") {
		return "", false
	}
	if len(p) >= 2 && (p[0] == '\'' || p[0] == '"') && p[len(p)-1] == p[0] {
		p = p[1 : len(p)-1]
	} else {
		p = strings.ReplaceAll(p, `\ `, " ")
	}
	if strings.HasPrefix(p, "file://") {
		u, err := url.Parse(p)
		if err != nil {
			return "", false
		}
		p = u.Path
	}
	ext := strings.ToLower(filepath.Ext(p))
	found := false
	for _, e := range imageExts {
		found = found || ext == e
	}
	if !found {
		return "", false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(m.opts.Dir, p)
	}
	if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
		return "", false
	}
	u, err := tools.ImageDataURL(p)
	if err != nil {
		m.tr.add(&notice{level: levelWarn, text: "not attached: " + clean(err.Error())})
		return "", false
	}
	return u, true
}

// takeAttachments expands the big pastes text holds and collects its
// images, in the order of their placeholders; both leave the composer's
// keeping (they are sent now).
func (m *Model) takeAttachments(text string) (string, []string) {
	a := &m.att
	type at struct {
		pos int
		url string
	}
	var found []at
	for ph, u := range a.images {
		if i := strings.Index(text, ph); i >= 0 {
			found = append(found, at{i, u})
			delete(a.images, ph)
		}
	}
	for i := 1; i < len(found); i++ {
		for j := i; j > 0 && found[j].pos < found[j-1].pos; j-- {
			found[j], found[j-1] = found[j-1], found[j]
		}
	}
	images := make([]string, len(found))
	for i, f := range found {
		images[i] = f.url
	}
	for ph, full := range a.pastes {
		if strings.Contains(text, ph) {
			text = strings.Replace(text, ph, full, 1)
			delete(a.pastes, ph)
		}
	}
	// A placeholder edited away in the composer, or in no queued message,
	// goes with what it stood for.
	kept := m.composer.Value() + "\n" + strings.Join(m.queue, "\n")
	for _, set := range []map[string]string{a.images, a.pastes} {
		for ph := range set {
			if !strings.Contains(kept, ph) {
				delete(set, ph)
			}
		}
	}
	return text, images
}

// startTurn starts a turn on input as the composer held it: shown with its
// placeholders, sent with the big pastes whole and the images attached.
func (m *Model) startTurn(input string) tea.Cmd {
	text, images := m.takeAttachments(input)
	if len(images) == 0 {
		return m.startTurnAs(input, text, nil)
	}
	attach := m.opts.AttachImages
	if attach == nil {
		m.tr.add(&notice{level: levelWarn, text: "images cannot be sent here; the message goes without them"})
	}
	return m.startTurnAs(input, text, func(ctx context.Context, eng Engine, emit func(session.Event)) error {
		if attach != nil {
			attach(images)
		}
		return eng.Turn(ctx, text, emit)
	})
}
