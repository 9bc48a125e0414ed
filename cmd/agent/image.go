package main

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"strings"
)

// maxImageBytes bounds one attached image.
const maxImageBytes = 20 << 20

// imageURLs reads -i/--image files into data: URLs.
func imageURLs(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		for _, path := range strings.Split(p, ",") {
			if path = strings.TrimSpace(path); path == "" {
				continue
			}
			st, err := os.Stat(path)
			if err != nil {
				return nil, fmt.Errorf("--image: %w", err)
			}
			if st.Size() > maxImageBytes {
				return nil, fmt.Errorf("--image %s: %d bytes; at most %d", path, st.Size(), maxImageBytes)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return nil, fmt.Errorf("--image: %w", err)
			}
			mime := http.DetectContentType(b)
			if !strings.HasPrefix(mime, "image/") {
				return nil, fmt.Errorf("--image %s: not an image (%s)", path, mime)
			}
			out = append(out, "data:"+mime+";base64,"+base64.StdEncoding.EncodeToString(b))
		}
	}
	return out, nil
}
