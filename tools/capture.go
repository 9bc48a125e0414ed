package tools

// CaptureHeadBytes and CaptureTailBytes bound what agent keeps of a
// command's output between two looks at it (a tool call's result, or a
// write_stdin poll): the first and the last bytes, as the reference client
// keeps 1 MiB in all. Whatever lies between is counted, not kept, so a
// command printing gigabytes costs agent no more memory than one printing
// two megabytes.
const (
	CaptureHeadBytes = 512 << 10
	CaptureTailBytes = 512 << 10
)

// HeadTail is an io.Writer keeping the first headMax and the last tailMax
// bytes written to it and counting all of them. Its zero value keeps
// nothing; use [NewHeadTail]. It is not safe for concurrent use.
type HeadTail struct {
	headMax, tailMax int
	head             []byte
	tail             []byte // a ring of up to tailMax bytes once full
	start            int    // where the oldest byte of a full tail ring is
	total            int64
}

// NewHeadTail returns a HeadTail keeping headMax bytes of head and tailMax
// of tail.
func NewHeadTail(headMax, tailMax int) *HeadTail {
	return &HeadTail{headMax: max(headMax, 0), tailMax: max(tailMax, 0)}
}

// Write implements io.Writer; it never fails.
func (h *HeadTail) Write(p []byte) (int, error) {
	n := len(p)
	h.total += int64(n)
	if room := h.headMax - len(h.head); room > 0 {
		k := min(room, len(p))
		h.head = append(h.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 || h.tailMax == 0 {
		return n, nil
	}
	if len(p) >= h.tailMax {
		h.tail = append(h.tail[:0], p[len(p)-h.tailMax:]...)
		h.start = 0
		return n, nil
	}
	if room := h.tailMax - len(h.tail); room > 0 {
		k := min(room, len(p))
		h.tail = append(h.tail, p[:k]...)
		p = p[k:]
	}
	for len(p) > 0 { // the ring is full: overwrite the oldest bytes
		k := copy(h.tail[h.start:], p)
		p = p[k:]
		h.start = (h.start + k) % h.tailMax
	}
	return n, nil
}

// Head returns the first bytes written, at most headMax of them.
func (h *HeadTail) Head() []byte { return h.head }

// Tail returns the last bytes written after the head, at most tailMax of
// them, oldest first.
func (h *HeadTail) Tail() []byte {
	if h.start == 0 {
		return h.tail
	}
	return append(append([]byte(nil), h.tail[h.start:]...), h.tail[:h.start]...)
}

// Total is the count of every byte written.
func (h *HeadTail) Total() int64 { return h.total }

// Omitted is the count of bytes written between the head and the tail
// that were not kept.
func (h *HeadTail) Omitted() int64 { return h.total - int64(len(h.head)) - int64(len(h.tail)) }

// Reset forgets everything written, keeping the bounds.
func (h *HeadTail) Reset() {
	h.head, h.tail, h.start, h.total = h.head[:0], h.tail[:0], 0, 0
}
