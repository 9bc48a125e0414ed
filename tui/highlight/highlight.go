// Package highlight colours the chat's code blocks, through
// agent-highlight: a companion program, started on the first code block
// and kept for the chat's life, that lexes with chroma's engine (package
// lexing). agent itself links neither chroma nor regexp2: their code's
// pages and their init were +0.35–0.5 MiB of peak RSS in every agent
// process, agent exec included, which never draws a code block
// (BENCHMARKS.md). Without agent-highlight, or when it fails or stalls,
// code blocks are drawn plain.
package highlight

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/agentcli/agent/internal/companion"
)

// ProgramName is the lexer's program, installed beside agent.
const ProgramName = companion.Highlight

// MaxRequest is the largest request line sent to the lexer; a larger code
// block is drawn plain.
const MaxRequest = 1 << 20

// replyTimeout is how long a block waits for the lexer's answer before
// the chat gives up on colours: it covers the program's start and the
// first block's lexer (tens of milliseconds) many times over.
const replyTimeout = 5 * time.Second

// Class is what a piece of code is, as the chat colours it.
type Class int

// The classes, from chroma's token categories.
const (
	Plain Class = iota
	Keyword
	Type
	Function
	String
	Number
	Comment
	Tag
	Attribute
	Inserted
	Deleted
	Heading
)

// Span is a run of code of one class.
type Span struct {
	Class Class  `json:"c"`
	Text  string `json:"t"`
}

// Request is one code block sent to the lexer, a JSON line.
type Request struct {
	Lang string `json:"lang"`
	Code string `json:"code"`
}

// Response is the lexer's answer to a [Request], a JSON line: the code's
// lines of spans, or OK false for a language it does not know.
type Response struct {
	OK    bool     `json:"ok"`
	Lines [][]Span `json:"lines,omitempty"`
}

// Conn is a started lexer: requests are written to W, responses read from
// R; Close ends it.
type Conn struct {
	W     io.Writer
	R     io.Reader
	Close func() error
}

// Highlighter colours code blocks through the lexer. The zero value is
// ready: nothing is started before the first [Highlighter.Lines] of a
// block with a language. It is safe for concurrent use.
type Highlighter struct {
	// Start starts the lexer; nil starts agent-highlight (found beside
	// agent's executable, else on PATH).
	Start func() (Conn, error)
	// StartFailed, when set, is told once why the lexer could not be
	// found or started (the blocks are then plain), so the chat can say so.
	StartFailed func(error)

	mu      sync.Mutex
	started bool
	failed  bool // the lexer could not start or broke: blocks stay plain
	conn    Conn
	replies chan reply
}

type reply struct {
	resp Response
	err  error
}

// Lines returns code split into lines of classed spans for the language
// lang (a fence's info string: "go", "py", "sh", "diff", ...), or ok false
// when lang is none the lexer knows or there is no lexer (the caller draws
// the block plain).
func (h *Highlighter) Lines(lang, code string) (lines [][]Span, ok bool) {
	lang = strings.ToLower(strings.TrimSpace(lang))
	if i := strings.IndexAny(lang, " {,"); i >= 0 {
		lang = lang[:i] // "go title=x", "python {linenos}"
	}
	if lang == "" {
		return nil, false
	}
	req, err := json.Marshal(Request{Lang: lang, Code: code})
	if err != nil || len(req) >= MaxRequest {
		return nil, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.start() {
		return nil, false
	}
	// The write too is bounded: a lexer that stopped reading fills the pipe.
	wrote := make(chan error, 1)
	go func(w io.Writer) {
		_, err := w.Write(append(req, '\n'))
		wrote <- err
	}(h.conn.W)
	timeout := time.After(replyTimeout)
	select {
	case err := <-wrote:
		if err != nil {
			h.fail()
			return nil, false
		}
	case <-timeout:
		h.fail()
		return nil, false
	}
	select {
	case r := <-h.replies:
		if r.err != nil {
			h.fail()
			return nil, false
		}
		return r.resp.Lines, r.resp.OK
	case <-timeout:
		h.fail()
		return nil, false
	}
}

// start starts the lexer once; it reports whether one is running.
func (h *Highlighter) start() bool {
	if h.started {
		return !h.failed
	}
	h.started = true
	start := h.Start
	if start == nil {
		start = startProgram
	}
	c, err := start()
	if err != nil {
		h.failed = true
		if h.StartFailed != nil {
			h.StartFailed(err)
		}
		return false
	}
	h.conn = c
	h.replies = make(chan reply)
	go read(c.R, h.replies)
	return true
}

// read decodes the lexer's responses into replies until it ends; the last
// one carries the error, and replies is closed after it.
func read(r io.Reader, replies chan<- reply) {
	defer close(replies)
	dec := json.NewDecoder(bufio.NewReader(r))
	for {
		var resp Response
		err := dec.Decode(&resp)
		replies <- reply{resp, err}
		if err != nil {
			return
		}
	}
}

// fail ends a lexer that broke or stalled: the rest of the blocks are
// plain.
func (h *Highlighter) fail() {
	h.failed = true
	_ = h.conn.Close()
	go drain(h.replies)
}

// drain takes the reader's last replies, so that it ends.
func drain(replies <-chan reply) {
	for range replies {
	}
}

// Close ends the lexer, if one is running.
func (h *Highlighter) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.started || h.failed {
		return nil
	}
	h.failed = true
	err := h.conn.Close()
	go drain(h.replies)
	return err
}

// startProgram starts agent-highlight.
func startProgram() (Conn, error) {
	self, _ := os.Executable()
	path, err := companion.Find(self, ProgramName)
	if err != nil {
		return Conn{}, err
	}
	cmd := exec.Command(path)
	in, err := cmd.StdinPipe()
	if err != nil {
		return Conn{}, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return Conn{}, err
	}
	if err := cmd.Start(); err != nil {
		return Conn{}, err
	}
	return Conn{W: in, R: out, Close: func() error {
		_ = in.Close() // the program ends at the end of its input
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			return err
		case <-time.After(replyTimeout):
			_ = cmd.Process.Kill()
			return <-done
		}
	}}, nil
}
