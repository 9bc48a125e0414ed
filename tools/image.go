package tools

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// MaxImageBytes bounds one image attached to the conversation (-i, or the
// model's view_image).
const MaxImageBytes = 20 << 20

// ImageDataURL reads the image file at path into a data: URL. It refuses
// what is not a regular file, a file over [MaxImageBytes] and a file whose
// content is not an image, naming the path and why.
func ImageDataURL(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a file", path)
	}
	if st.Size() > MaxImageBytes {
		return "", fmt.Errorf("%s: %d bytes; at most %d", path, st.Size(), MaxImageBytes)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxImageBytes+1))
	if err != nil {
		return "", err
	}
	if len(b) > MaxImageBytes {
		return "", fmt.Errorf("%s: more than %d bytes", path, MaxImageBytes)
	}
	return ImageBytesDataURL(path, b)
}

// ImageBytesDataURL is the image b (from what, named in errors: a path,
// "the clipboard") as a data: URL; it refuses more than [MaxImageBytes]
// and what is not an image.
func ImageBytesDataURL(what string, b []byte) (string, error) {
	if len(b) > MaxImageBytes {
		return "", fmt.Errorf("%s: more than %d bytes", what, MaxImageBytes)
	}
	mime := http.DetectContentType(b)
	if !strings.HasPrefix(mime, "image/") {
		return "", fmt.Errorf("%s is not an image (%s)", what, mime)
	}
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(b), nil
}

// ViewImageOptions configures [ViewImage].
type ViewImageOptions struct {
	// Cwd resolves a relative path.
	Cwd string
	// Unreadable are directories whose files the tool refuses, as the
	// sandbox does (the agent home, with its credentials).
	Unreadable []string
}

// ViewImage is Codex's view_image tool: the model attaches a local image
// file to the conversation, sent back as an input_image. A path it cannot
// use is a failed call whose output says why.
type ViewImage struct{ opts ViewImageOptions }

// NewViewImage returns the view_image tool.
func NewViewImage(opts ViewImageOptions) *ViewImage { return &ViewImage{opts: opts} }

// Name implements [Tool].
func (*ViewImage) Name() string { return "view_image" }

// ParallelSafe implements [Tool].
func (*ViewImage) ParallelSafe() bool { return true }

// Spec implements [Tool]: Codex 0.169's, word for word.
func (*ViewImage) Spec() json.RawMessage {
	return functionSpec("view_image",
		"View a local image file from the filesystem when visual inspection is needed. Use this for images already available on disk.",
		map[string]any{
			"type": "object",
			"properties": map[string]any{
				"path": map[string]any{"type": "string", "description": "Local filesystem path to an image file."},
			},
			"required":             []string{"path"},
			"additionalProperties": false,
		})
}

// Run implements [Tool].
func (v *ViewImage) Run(_ context.Context, inv *Invocation) Result {
	var a struct {
		Path string `json:"path"`
	}
	if err := decodeArgs(inv.Call, &a); err != nil {
		return Result{Output: err.Error(), Status: StatusFailed}
	}
	if a.Path == "" {
		return Result{Output: "view_image: path is required", Status: StatusFailed}
	}
	path := a.Path
	if !filepath.IsAbs(path) {
		path = filepath.Join(v.opts.Cwd, path)
	}
	if err := v.readable(path); err != nil {
		return Result{Output: "view_image: " + err.Error(), Status: StatusFailed}
	}
	url, err := ImageDataURL(path)
	if err != nil {
		return Result{Output: "view_image: " + err.Error(), Status: StatusFailed}
	}
	return Result{Images: []string{url}, Status: StatusCompleted}
}

// readable refuses a path inside an unreadable directory, after symbolic
// links.
func (v *ViewImage) readable(path string) error {
	if _, err := filepath.EvalSymlinks(path); err != nil {
		return err
	}
	return unreadable(path, v.opts.Unreadable)
}

// ImageDataURLs reads the image files of -i/--image flags (each a path or
// a comma-separated list of them) into data: URLs ([ImageDataURL]).
func ImageDataURLs(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		for _, path := range strings.Split(p, ",") {
			if path = strings.TrimSpace(path); path == "" {
				continue
			}
			u, err := ImageDataURL(path)
			if err != nil {
				return nil, fmt.Errorf("--image: %w", err)
			}
			out = append(out, u)
		}
	}
	return out, nil
}
