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
	set     bool  // a deadline was set, to clear before the connection is reused
	err     error // the first write or flush error, for a relay that cannot see it
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
	n, err := w.ResponseWriter.Write(b)
	w.failed(err)
	return n, err
}

// FlushError flushes buffered bytes to the client within the deadline. A
// writer that cannot flush is not an error: its bytes go out as it writes.
func (w *deadlineWriter) FlushError() error {
	w.arm()
	err := w.rc.Flush()
	if errors.Is(err, http.ErrNotSupported) {
		return nil
	}
	w.failed(err)
	return err
}

// failed keeps the first error of a write or flush.
func (w *deadlineWriter) failed(err error) {
	if err != nil && w.err == nil {
		w.err = err
	}
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
