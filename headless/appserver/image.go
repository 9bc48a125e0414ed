package appserver

import (
	"encoding/base64"
	"fmt"
	"mime"
	"os"
	"path/filepath"
	"strings"
)

// maxImage caps a local image sent with a turn.
const maxImage = 20 << 20

// dataURL is the image at path as a data: URL.
func dataURL(path string) (string, error) {
	typ := mime.TypeByExtension(strings.ToLower(filepath.Ext(path)))
	if !strings.HasPrefix(typ, "image/") {
		return "", fmt.Errorf("not an image by its name (%s)", filepath.Ext(path))
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if st.Size() > maxImage {
		return "", fmt.Errorf("%d bytes, more than agent sends (%d)", st.Size(), maxImage)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	typ, _, _ = strings.Cut(typ, ";")
	return "data:" + typ + ";base64," + base64.StdEncoding.EncodeToString(b), nil
}
