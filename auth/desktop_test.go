package auth

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"syscall"
	"testing"
)

// TestBrowserCommand: a browser is opened only where one can be (never
// in CI, over SSH or with AGENT_NO_BROWSER; on Linux only with a display),
// and only for a web page, with each system's opener.
func TestBrowserCommand(t *testing.T) {
	const page = "https://auth.example/oauth/authorize?client_id=x&state=y"
	for _, c := range []struct {
		env  map[string]string
		goos string
		url  string
		want []string // nil: nothing is started
	}{
		{map[string]string{"DISPLAY": ":0"}, "linux", page, []string{"xdg-open", page}},
		{map[string]string{"WAYLAND_DISPLAY": "wayland-0"}, "freebsd", page, []string{"xdg-open", page}},
		{map[string]string{"DISPLAY": ":0"}, "linux", "http://localhost:1455/auth", []string{"xdg-open", "http://localhost:1455/auth"}},
		{nil, "linux", page, nil},
		{nil, "darwin", page, []string{"open", page}},
		{nil, "windows", page, []string{"rundll32", "url.dll,FileProtocolHandler", page}},
		{map[string]string{"DISPLAY": ":0", "CI": "true"}, "linux", page, nil},
		{map[string]string{"SSH_CONNECTION": "1.2.3.4 5 6.7.8.9 22"}, "darwin", page, nil},
		{map[string]string{"SSH_TTY": "/dev/pts/1"}, "windows", page, nil},
		{map[string]string{"DISPLAY": ":0", "AGENT_NO_BROWSER": "1"}, "linux", page, nil},
		{map[string]string{"DISPLAY": ":0"}, "linux", "file:///etc/passwd", nil},
		{nil, "darwin", "javascript:alert(1)", nil},
		{map[string]string{"DISPLAY": ":0"}, "linux", "%zz", nil},
	} {
		name, args, ok := browserCommand(func(k string) string { return c.env[k] }, c.goos, c.url)
		var got []string
		if ok {
			got = append([]string{name}, args...)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s %v %q: %q; want %q", c.goos, c.env, c.url, got, c.want)
		}
	}
}

// TestOpenBrowserStartsTheOpener: on Linux with a display, the login page
// goes to xdg-open (here a script on PATH that hands its arguments to the
// test through a FIFO), and stop waits for it.
func TestOpenBrowserStartsTheOpener(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("xdg-open is the Linux opener")
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "args")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\nprintf '%s' \"$*\" > '" + fifo + "'\n"
	if err := os.WriteFile(filepath.Join(dir, "xdg-open"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	display := func(k string) string {
		if k == "DISPLAY" {
			return ":0"
		}
		return ""
	}
	stop := OpenBrowser(t.Context(), display, "https://auth.example/authorize?x=1")
	f, err := os.Open(fifo) // blocks until the opener writes
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(f)
	f.Close()
	stop()
	if err != nil || string(got) != "https://auth.example/authorize?x=1" {
		t.Errorf("xdg-open got %q, %v", got, err)
	}
}
