package checkpoint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// workspaceOf makes n files of 4 KiB in 50 directories.
func workspaceOf(b *testing.B, n int) string {
	ws := b.TempDir()
	body := make([]byte, 4096)
	for i := range body {
		body[i] = byte('a' + i%26)
	}
	for i := range n {
		dir := filepath.Join(ws, fmt.Sprintf("pkg%02d", i%50))
		os.MkdirAll(dir, 0o755)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%05d.go", i)), append(body, fmt.Sprint(i)...), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return ws
}

// BenchmarkSnapshot is a turn's checkpoint in a workspace of 5,000 files
// (20 MiB): the first of a workspace (every file hashed and stored), and
// a later one with one file changed (git's index is the stat cache).
func BenchmarkSnapshot(b *testing.B) {
	b.Run("first", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			ws := workspaceOf(b, 5000)
			s := &Store{Dir: filepath.Join(b.TempDir(), "checkpoints")}
			b.StartTimer()
			if _, err := s.Snapshot(context.Background(), ws); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("one-changed", func(b *testing.B) {
		ws := workspaceOf(b, 5000)
		s := &Store{Dir: filepath.Join(b.TempDir(), "checkpoints")}
		if _, err := s.Snapshot(context.Background(), ws); err != nil {
			b.Fatal(err)
		}
		i := 0
		for b.Loop() {
			i++
			os.WriteFile(filepath.Join(ws, "pkg00", "file00000.go"), []byte(fmt.Sprint("changed ", i)), 0o644)
			if _, err := s.Snapshot(context.Background(), ws); err != nil {
				b.Fatal(err)
			}
		}
	})
}
