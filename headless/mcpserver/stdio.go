package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxLineBytes caps one line of the client's input (the SDK's own limit):
// a longer one is answered as a parse error and skipped.
const MaxLineBytes = mcp.DefaultMaxLineLength

// JSON-RPC's error codes for input that is not a request.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// Stdio is the server's transport over r (the client's lines) and w: the
// SDK's newline-delimited JSON, but a line that is not JSON is answered
// with a -32700 parse error and one that is not a JSON-RPC message with
// -32600, and the server reads on. (The SDK's own transport ends the
// connection at the first such line, and with it every call in flight.)
func Stdio(r io.ReadCloser, w io.WriteCloser) mcp.Transport {
	lw := &lockedWriter{w: w}
	return &mcp.IOTransport{Reader: &lineFilter{rc: r, br: bufio.NewReader(r), w: lw}, Writer: lw}
}

// lockedWriter serialises the SDK's writes (each one whole message) with
// the filter's error answers.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return l.w.Close() }

// lineFilter passes the client's well-formed lines on to the SDK and
// answers the others itself.
type lineFilter struct {
	rc      io.Closer
	br      *bufio.Reader
	w       io.Writer
	pending []byte
	err     error
}

func (f *lineFilter) Close() error { return f.rc.Close() }

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		line, tooLong, err := readLine(f.br)
		f.err = err
		switch line = bytes.TrimSpace(line); {
		case tooLong:
			f.answer(nil, codeParseError, fmt.Sprintf("Parse error: a line longer than %d bytes", MaxLineBytes))
		case len(line) == 0:
		default:
			if ok := f.check(line); ok {
				f.pending = append(line, '\n')
			}
		}
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// readLine reads one line of at most MaxLineBytes (less its newline);
// tooLong reports one that was longer, read to its end and dropped.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > MaxLineBytes+1 {
				line, tooLong = nil, true
			} else {
				line = append(line, chunk...)
			}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, tooLong, err
		}
	}
}

// check reports whether line is a JSON-RPC message (or a batch of them)
// the SDK can take, answering it with a parse or invalid-request error
// when it is not.
func (f *lineFilter) check(line []byte) bool {
	if !json.Valid(line) {
		f.answer(nil, codeParseError, "Parse error: the line is not JSON")
		return false
	}
	msgs := []json.RawMessage{line}
	if line[0] == '[' {
		if json.Unmarshal(line, &msgs) != nil || len(msgs) == 0 {
			f.answer(nil, codeInvalidRequest, "Invalid Request: an empty or malformed batch")
			return false
		}
	}
	for _, m := range msgs {
		if _, err := jsonrpc.DecodeMessage(m); err != nil {
			f.answer(requestID(m), codeInvalidRequest, "Invalid Request: "+err.Error())
			return false
		}
	}
	return true
}

// requestID is the id of a message that could not be decoded, when it has
// a valid one (a string or a number), else null.
func requestID(m json.RawMessage) json.RawMessage {
	var v struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(m, &v) == nil && len(v.ID) > 0 && (v.ID[0] == '"' || v.ID[0] == '-' || (v.ID[0] >= '0' && v.ID[0] <= '9')) {
		return v.ID
	}
	return nil
}

// answer writes a JSON-RPC error response to id (nil: null).
func (f *lineFilter) answer(id json.RawMessage, code int, msg string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	_, _ = f.w.Write(append(b, '\n'))
}
