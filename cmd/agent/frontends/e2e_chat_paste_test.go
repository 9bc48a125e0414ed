package frontends

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcli/agent/internal/agenttest"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestE2EChatPasteImageAndBigText: a pasted path of an image file becomes
// [Image #1] in the composer and the image goes with the message as an
// input_image, as Codex 0.171 does; a paste of 3409 characters shows as
// Codex's [Pasted Content 3409 chars] and is sent whole.
func TestE2EChatPasteImageAndBigText(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "saw the image"), rt.Reply("r2", "m2", "read the paste")})
	home := writeConfig(t, srv.URL, "")
	dir := t.TempDir()
	var pic bytes.Buffer
	if err := png.Encode(&pic, image.NewRGBA(image.Rect(0, 0, 2, 2))); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "shot one.png")
	if err := os.WriteFile(shot, pic.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	c := startChat(t, bin, home, dir)
	c.keys("-l", "what is in ")
	c.paste("'" + shot + "'") // as a file manager's drop gives it
	c.waitFor("› what is in [Image #1]")
	c.keys("Enter")
	c.waitFor("saw the image")
	c.waitIdle()
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	body := string(reqs[0].Body)
	if !strings.Contains(body, `"type":"input_image"`) || !strings.Contains(body, "data:image/png;base64,") {
		t.Errorf("the image was not sent as an input_image: %s", body)
	}
	if strings.Contains(body, "shot one.png") {
		t.Errorf("the path was sent as text: %s", body)
	}

	line := strings.Repeat("x", 86) + "\n" // 87 characters
	big := strings.Repeat(line, 39) + strings.Repeat("y", 3409-39*87)
	c.paste(big)
	c.waitFor("› [Pasted Content 3409 chars]")
	c.keys("Enter")
	c.waitFor("read the paste")
	reqs = srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	texts := agenttest.InputTexts(t, reqs[1])
	if last := texts[len(texts)-1]; last != "user: "+big {
		t.Errorf("the paste was not sent whole: last input %q", last[:min(len(last), 200)])
	}
}
