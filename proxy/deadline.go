package proxy

import (
	"errors"
	"net/http"
	"time"
)

// deadlineWriter is a ResponseWriter whose every write and flush must
// complete within timeout: a client that stops reading makes it fail with
// os.ErrDeadlineExceeded instead of blocking the handler (and the
// upstream stream it relays) for ever. Only the socket buffers and one
// relay chunk are held meanwhile.
type deadlineWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	set     bool // a deadline was set, to clear before the connection is reused
}

func newDeadlineWriter(w http.ResponseWriter, timeout time.Duration) *deadlineWriter {
	return &deadlineWriter{ResponseWriter: w, rc: http.NewResponseController(w), timeout: timeout}
}

// arm sets the deadline for the next write. A writer that cannot take one
// (not a net/http connection) writes without.
func (w *deadlineWriter) arm() {
	if w.rc.SetWriteDeadline(time.Now().Add(w.timeout)) == nil {
		w.set = true
	}
}

// Write implements http.ResponseWriter.
func (w *deadlineWriter) Write(b []byte) (int, error) {
	w.arm()
	return w.ResponseWriter.Write(b)
}

// FlushError flushes buffered bytes to the client within the deadline.
func (w *deadlineWriter) FlushError() error {
	w.arm()
	return w.rc.Flush()
}

// Flush implements http.Flusher, for httputil.ReverseProxy.
func (w *deadlineWriter) Flush() { _ = w.FlushError() }

// Unwrap lets http.ResponseController reach the connection's other
// methods (Hijack, EnableFullDuplex).
func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// clear removes the deadline, so a kept-alive connection's next request
// does not inherit it.
func (w *deadlineWriter) clear() {
	if w.set {
		_ = w.rc.SetWriteDeadline(time.Time{})
	}
}

// flush flushes w, reporting the error a plain http.Flusher hides.
func flush(w http.ResponseWriter) error {
	if f, ok := w.(interface{ FlushError() error }); ok {
		return f.FlushError()
	}
	err := http.NewResponseController(w).Flush()
	if errors.Is(err, http.ErrNotSupported) {
		return nil
	}
	return err
}
