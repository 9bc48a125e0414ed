package frontends

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestE2EChatClipboardImage: Ctrl+V with an image in the clipboard (read
// with xclip under X11; here a stand-in xclip on PATH that prints a PNG
// and records its arguments) puts [Image #1] in the composer, and the
// image goes with the message as an input_image. Without a clipboard tool
// Ctrl+V says which to install, and nothing is attached.
func TestE2EChatClipboardImage(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "saw the clipboard")})
	home := writeConfig(t, srv.URL, "")
	dir, tools := t.TempDir(), t.TempDir()
	var pic bytes.Buffer
	if err := png.Encode(&pic, image.NewRGBA(image.Rect(0, 0, 3, 3))); err != nil {
		t.Fatal(err)
	}
	picPath, argsPath := filepath.Join(tools, "pic.png"), filepath.Join(tools, "args")
	if err := os.WriteFile(picPath, pic.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\necho \"$@\" > " + argsPath + "\ncat " + picPath + "\n"
	if err := os.WriteFile(filepath.Join(tools, "xclip"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	c := startChatEnv(t, "Ask anything", "AGENT_HOME="+home+" NO_COLOR=1 DISPLAY=:99 WAYLAND_DISPLAY= PATH="+tools+":"+os.Getenv("PATH"), bin, dir)
	c.keys("-l", "what is this ")
	c.keys("C-v")
	c.waitFor("› what is this [Image #1]")
	c.keys("Enter")
	c.waitFor("saw the clipboard")
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	if body := string(reqs[0].Body); !strings.Contains(body, `"type":"input_image"`) || !strings.Contains(body, "data:image/png;base64,") {
		t.Errorf("the clipboard's image was not sent as an input_image: %s", body)
	}
	if args, _ := os.ReadFile(argsPath); strings.TrimSpace(string(args)) != "-selection clipboard -target image/png -out" {
		t.Errorf("xclip ran with %q", args)
	}

	none := startChatEnv(t, "Ask anything", "AGENT_HOME="+home+" NO_COLOR=1 DISPLAY= WAYLAND_DISPLAY=", bin, dir)
	none.keys("C-v")
	none.waitFor("ctrl+v: no clipboard tool: install wl-paste (Wayland) or xclip (X11)")
	if strings.Contains(none.screen(), "[Image #") {
		t.Errorf("an image was attached without a clipboard:\n%s", none.screen())
	}
}
