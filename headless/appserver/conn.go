package appserver

import (
	"bufio"
	"context"
	"errors"
	"io"
	"sync"

	"github.com/coder/websocket"
)

// Conn carries one client's JSON-RPC messages, one at a time each way:
// a line of standard input or output, or a WebSocket text message.
type Conn interface {
	// Read returns the next message; io.EOF when the client is gone.
	Read(ctx context.Context) ([]byte, error)
	// Write sends one message.
	Write(ctx context.Context, msg []byte) error
	// Close ends the connection.
	Close() error
}

// maxMessage caps one message: a turn's input with images, a long
// command's output.
const maxMessage = 64 << 20

// Lines is a [Conn] of JSON lines over r and w (stdio://).
func Lines(r io.Reader, w io.Writer) Conn {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxMessage)
	return &lines{sc: sc, w: w}
}

type lines struct {
	sc *bufio.Scanner
	mu sync.Mutex
	w  io.Writer
}

func (l *lines) Read(ctx context.Context) ([]byte, error) {
	for l.sc.Scan() {
		if b := l.sc.Bytes(); len(b) > 0 {
			return append([]byte(nil), b...), nil
		}
	}
	if err := l.sc.Err(); err != nil {
		return nil, err
	}
	return nil, io.EOF
}

func (l *lines) Write(ctx context.Context, msg []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, err := l.w.Write(append(msg, '\n'))
	return err
}

func (l *lines) Close() error { return nil }

// WebSocket is a [Conn] of c's text messages.
func WebSocket(c *websocket.Conn) Conn {
	c.SetReadLimit(maxMessage)
	return &wsConn{c: c}
}

type wsConn struct {
	c  *websocket.Conn
	mu sync.Mutex
}

func (w *wsConn) Read(ctx context.Context) ([]byte, error) {
	for {
		typ, b, err := w.c.Read(ctx)
		if err != nil {
			var ce websocket.CloseError
			if errors.As(err, &ce) {
				return nil, io.EOF
			}
			return nil, err
		}
		if typ == websocket.MessageText || typ == websocket.MessageBinary {
			return b, nil
		}
	}
}

func (w *wsConn) Write(ctx context.Context, msg []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.c.Write(ctx, websocket.MessageText, msg)
}

func (w *wsConn) Close() error { return w.c.Close(websocket.StatusNormalClosure, "") }
