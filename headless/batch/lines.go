package batch

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// bounds limit what is read of a batch or results file, so that endless
// or huge input (/dev/zero, a pipe that never ends) is refused with an
// error naming it, never read into memory without end.
type bounds struct {
	line int64 // bytes in one line
	file int64 // bytes in the whole file
}

// Bounds of a batch or results file: a line holds one prompt or one
// result (an answer: tokens, not megabytes), a file a batch's worth.
const (
	maxLineBytes = 16 << 20
	maxFileBytes = 1 << 30
)

func defaultBounds() bounds { return bounds{line: maxLineBytes, file: maxFileBytes} }

// sizeString spells a byte bound for messages.
func sizeString(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// readLines calls fn with each line of the file at path (numbered from 1,
// without its line ending) and reports whether the file ends with a
// newline (or is empty). A line longer than b.line, or a file longer than
// b.file, ends the read with an error naming path and the line.
func readLines(path string, b bounds, fn func(n int, line []byte)) (terminated bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	var total int64
	for n := 1; ; n++ {
		line, err := readLine(r, b.line)
		total += int64(len(line))
		switch {
		case errors.Is(err, errLineTooLong):
			return false, fmt.Errorf("%s:%d: a line longer than %s: not a file of JSON lines", path, n, sizeString(b.line))
		case total > b.file:
			return false, fmt.Errorf("%s: longer than %s: split it into smaller files", path, sizeString(b.file))
		case err == io.EOF:
			if len(line) > 0 {
				fn(n, line)
			}
			return len(line) == 0, nil
		case err != nil:
			return false, fmt.Errorf("%s: %w", path, err)
		}
		fn(n, bytes.TrimSuffix(line, []byte("\n")))
	}
}

var errLineTooLong = errors.New("line too long")

// readLine reads one line with its newline (without one at the end of
// the input, with io.EOF), at most max bytes of it.
func readLine(r *bufio.Reader, max int64) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if int64(len(line)+len(chunk)) > max+1 { // +1: the newline
			return nil, errLineTooLong
		}
		line = append(line, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}
