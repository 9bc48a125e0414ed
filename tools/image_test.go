package tools_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcli/agent/tools"
)

// pngBytes is a 1x1 PNG.
var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7\x35\x81\x84\x00\x00\x00\x00IEND\xaeB`\x82")

// TestViewImage: an image file becomes an input_image; a missing file, a
// directory, a text file, a file over the limit and a file in an
// unreadable directory are failed calls the model can read.
func TestViewImage(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	write := func(d, name string, b []byte) {
		if err := os.WriteFile(filepath.Join(d, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(dir, "dot.png", pngBytes)
	write(dir, "notes.txt", []byte("hello"))
	write(home, "secret.png", pngBytes)
	big, err := os.Create(filepath.Join(dir, "big.png"))
	if err != nil {
		t.Fatal(err)
	}
	big.Write(pngBytes)
	big.Truncate(tools.MaxImageBytes + 1)
	big.Close()
	if err := os.Symlink(filepath.Join(home, "secret.png"), filepath.Join(dir, "link.png")); err != nil {
		t.Fatal(err)
	}
	v := tools.NewViewImage(tools.ViewImageOptions{Cwd: dir, Unreadable: []string{home}})
	call := func(path string) tools.Result {
		args, _ := json.Marshal(map[string]string{"path": path})
		return v.Run(t.Context(), &tools.Invocation{Call: tools.Call{Name: "view_image", Input: string(args)}})
	}
	res := call("dot.png")
	if res.Status != tools.StatusCompleted || len(res.Images) != 1 || !strings.HasPrefix(res.Images[0], "data:image/png;base64,") {
		t.Fatalf("dot.png: %+v", res)
	}
	for path, want := range map[string]string{
		"missing.png":                     "no such file",
		dir:                               "is not a file",
		"notes.txt":                       "is not an image (text/plain",
		"big.png":                         "at most",
		filepath.Join(home, "secret.png"): "which the model cannot read",
		"link.png":                        "which the model cannot read",
		"":                                "path is required",
	} {
		res := call(path)
		if res.Status != tools.StatusFailed || len(res.Images) != 0 || !strings.Contains(res.Output, want) || !strings.HasPrefix(res.Output, "view_image: ") {
			t.Errorf("%q: %+v; want a failed call saying %q", path, res, want)
		}
	}
	if res := v.Run(t.Context(), &tools.Invocation{Call: tools.Call{Input: "{"}}); res.Status != tools.StatusFailed {
		t.Errorf("bad arguments: %+v", res)
	}
}
