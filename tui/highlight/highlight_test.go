package highlight_test

import (
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentcli/agent/tui/highlight"
	"github.com/agentcli/agent/tui/highlight/lexing"
)

// lexer is a Start that runs serve in process over pipes, as
// agent-highlight runs lexing.Serve over its standard input and output;
// starts counts the starts.
func lexer(starts *atomic.Int32, serve func(io.Reader, io.Writer) error) func() (highlight.Conn, error) {
	return func() (highlight.Conn, error) {
		starts.Add(1)
		reqR, reqW := io.Pipe()
		respR, respW := io.Pipe()
		done := make(chan struct{})
		go func() {
			defer close(done)
			err := serve(reqR, respW)
			reqR.CloseWithError(io.ErrClosedPipe) // a dead program's input
			respW.CloseWithError(err)
		}()
		return highlight.Conn{W: reqW, R: respR, Close: func() error {
			reqW.Close()
			respR.Close()
			<-done
			return nil
		}}, nil
	}
}

// TestLinesThroughTheLexer: a block goes to the lexer and comes back as
// classed spans; the fence's info string is cut to its language; an
// unknown language is plain; a block with no language, or too big to
// send, starts nothing; the lexer is started once.
func TestLinesThroughTheLexer(t *testing.T) {
	var starts atomic.Int32
	h := &highlight.Highlighter{Start: lexer(&starts, lexing.Serve)}
	defer h.Close()
	if _, ok := h.Lines("", "x := 1"); ok || starts.Load() != 0 {
		t.Fatalf("a block with no language: ok %v, %d starts", ok, starts.Load())
	}
	if _, ok := h.Lines("Go", strings.Repeat("x", highlight.MaxRequest)); ok || starts.Load() != 0 {
		t.Fatalf("a block too big to send: ok %v, %d starts", ok, starts.Load())
	}
	lines, ok := h.Lines(" Go title=main.go", "func main() {}\n// hi\n")
	if !ok || len(lines) != 2 || lines[0][0] != (highlight.Span{Class: highlight.Keyword, Text: "func"}) ||
		lines[1][0] != (highlight.Span{Class: highlight.Comment, Text: "// hi"}) {
		t.Fatalf("go: ok %v, %+v", ok, lines)
	}
	if _, ok := h.Lines("klingon", "qapla'"); ok {
		t.Error("an unknown language was coloured")
	}
	if _, ok := h.Lines("python {linenos}", "x = 1\n"); !ok {
		t.Error("python {linenos} was not coloured")
	}
	if n := starts.Load(); n != 1 {
		t.Errorf("the lexer was started %d times, want 1", n)
	}
}

// TestLexerMissingOrBroken: with no lexer to start, or one that dies,
// blocks are plain, and a lexer that could not start is not tried again
// for every block; StartFailed is told why, once.
func TestLexerMissingOrBroken(t *testing.T) {
	var starts atomic.Int32
	var told []error
	missing := &highlight.Highlighter{Start: func() (highlight.Conn, error) {
		starts.Add(1)
		return highlight.Conn{}, io.ErrUnexpectedEOF
	}, StartFailed: func(err error) { told = append(told, err) }}
	for range 3 {
		if _, ok := missing.Lines("go", "x := 1\n"); ok {
			t.Fatal("coloured without a lexer")
		}
	}
	if n := starts.Load(); n != 1 {
		t.Errorf("a lexer that cannot start was tried %d times, want 1", n)
	}
	if len(told) != 1 || told[0] != io.ErrUnexpectedEOF {
		t.Errorf("StartFailed was told %v; want the start's error, once", told)
	}
	starts.Store(0)
	dies := &highlight.Highlighter{Start: lexer(&starts, func(io.Reader, io.Writer) error { return io.ErrClosedPipe })}
	defer dies.Close()
	for range 2 {
		if _, ok := dies.Lines("go", "x := 1\n"); ok {
			t.Fatal("coloured by a lexer that died")
		}
	}
	if n := starts.Load(); n != 1 {
		t.Errorf("a lexer that died was started %d times, want 1", n)
	}
}

// TestStalledLexer: a lexer that never answers costs the first block 5
// seconds, then it is ended and every block after it is plain at once.
func TestStalledLexer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var starts atomic.Int32
		stalled := func(r io.Reader, _ io.Writer) error {
			_, err := io.Copy(io.Discard, r) // reads every request, answers none
			return err
		}
		h := &highlight.Highlighter{Start: lexer(&starts, stalled)}
		defer h.Close()
		begin := time.Now()
		if _, ok := h.Lines("go", "x := 1\n"); ok {
			t.Fatal("coloured by a lexer that never answered")
		}
		if waited := time.Since(begin); waited != 5*time.Second {
			t.Errorf("the block waited %v, want 5s", waited)
		}
		begin = time.Now()
		if _, ok := h.Lines("go", "y := 2\n"); ok || time.Since(begin) != 0 || starts.Load() != 1 {
			t.Errorf("after the stall: ok %v, waited %v, %d starts", ok, time.Since(begin), starts.Load())
		}
	})
}

// TestLexerNotReading: a lexer that stops reading its input (the pipe
// full) costs the block the same 5 seconds, not a hung chat.
func TestLexerNotReading(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reqR, reqW := io.Pipe()
		respR, respW := io.Pipe()
		h := &highlight.Highlighter{Start: func() (highlight.Conn, error) {
			return highlight.Conn{W: reqW, R: respR, Close: func() error {
				reqR.Close()
				return respW.Close()
			}}, nil
		}}
		begin := time.Now()
		if _, ok := h.Lines("go", "x := 1\n"); ok {
			t.Fatal("coloured by a lexer that reads nothing")
		}
		if waited := time.Since(begin); waited != 5*time.Second {
			t.Errorf("the block waited %v, want 5s", waited)
		}
		synctest.Wait() // the writer and the reader have ended
	})
}
