package auth

import (
	"context"
	"net/url"
	"os/exec"
	"runtime"
	"strings"
)

// SaveAPIKey saves key as the login (agent login --with-api-key), under
// the lock, so that a refresh in flight elsewhere cannot overwrite it.
func (s *Store) SaveAPIKey(ctx context.Context, key string) error {
	unlock, err := s.Lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	return s.Save(&File{AuthMode: ModeAPIKey, OpenAIAPIKey: &key})
}

// Logout removes the saved login, even an unreadable one (agent logout,
// the chat's /logout), and says what it did: "Logged out: removed PATH",
// or "Not logged in: nothing to remove". It holds the lock, so that a
// refresh in flight elsewhere cannot write the login back after it is
// removed.
func (s *Store) Logout(ctx context.Context) (string, error) {
	unlock, err := s.Lock(ctx)
	if err != nil {
		return "", err
	}
	removed, err := s.Remove()
	unlock()
	switch {
	case err != nil:
		return "", err
	case removed:
		return "Logged out: removed " + s.Location(), nil
	}
	return "Not logged in: nothing to remove", nil
}

// Account names a ChatGPT login without its secrets: the masked account
// id and the e-mail address ("account abc***xyz, a@example.com"), or ""
// when the login has neither.
func (f *File) Account() string {
	var parts []string
	if id := f.AccountID(); id != "" {
		parts = append(parts, "account "+Mask(id))
	}
	if e := f.Email(); e != "" {
		parts = append(parts, e)
	}
	return strings.Join(parts, ", ")
}

// OpenBrowser opens u, the page of a browser login, in the desktop's
// browser, if there is a desktop (getenv reads the environment); it never
// runs in CI, over SSH or with AGENT_NO_BROWSER set, and opens only http
// and https URLs. The returned stop ends the opener if it is still
// running and waits for it.
func OpenBrowser(ctx context.Context, getenv func(string) string, u string) (stop func()) {
	name, args, ok := browserCommand(getenv, runtime.GOOS, u)
	if !ok {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	cmd := exec.CommandContext(ctx, name, args...)
	if err := cmd.Start(); err != nil {
		cancel()
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	return func() {
		cancel()
		<-done
	}
}

// browserCommand is the command that opens u in the browser of a desktop
// on system goos, or false when there is no desktop or u is not a web page.
func browserCommand(getenv func(string) string, goos, u string) (name string, args []string, ok bool) {
	if !hasDesktop(getenv, goos) {
		return "", nil, false
	}
	if p, err := url.Parse(u); err != nil || (p.Scheme != "https" && p.Scheme != "http") {
		return "", nil, false
	}
	switch goos {
	case "darwin":
		return "open", []string{u}, true
	case "windows":
		return "rundll32", []string{"url.dll,FileProtocolHandler", u}, true
	}
	return "xdg-open", []string{u}, true
}

// hasDesktop reports whether a browser can be opened on a machine of
// system goos with the environment getenv reads.
func hasDesktop(getenv func(string) string, goos string) bool {
	for _, v := range []string{"CI", "SSH_CONNECTION", "SSH_TTY", "AGENT_NO_BROWSER"} {
		if getenv(v) != "" {
			return false
		}
	}
	switch goos {
	case "darwin", "windows":
		return true
	}
	return getenv("DISPLAY") != "" || getenv("WAYLAND_DISPLAY") != ""
}
