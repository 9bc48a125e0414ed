package tui

import (
	"slices"
	"sort"
)

// transcript is the list of blocks and their layout: where each block
// starts, in lines, at the current width. Only blocks from dirty on are laid
// out again, and a block is re-rendered only when it changed, so streaming
// into the last block costs the same however long the transcript is.
type transcript struct {
	blocks []*block
	// starts[i] is the first line of block i; starts[len(blocks)] is the
	// total line count. Valid up to index dirty.
	starts []int
	dirty  int
	width  int
}

func newTranscript() *transcript { return &transcript{starts: []int{0}} }

// add appends a component and returns its block.
func (t *transcript) add(c component) *block {
	b := &block{c: c, idx: len(t.blocks)}
	t.blocks = append(t.blocks, b)
	t.starts = append(t.starts, 0)
	t.touch(b)
	return b
}

// touch marks b as changed.
func (t *transcript) touch(b *block) {
	b.stale = true
	t.dirty = min(t.dirty, b.idx)
}

// remove deletes b (a retracted partial answer). Later blocks move up.
func (t *transcript) remove(b *block) {
	i := b.idx
	if i >= len(t.blocks) || t.blocks[i] != b {
		return
	}
	t.blocks = slices.Delete(t.blocks, i, i+1)
	t.starts = t.starts[:len(t.starts)-1]
	for j := i; j < len(t.blocks); j++ {
		t.blocks[j].idx = j
	}
	t.dirty = min(t.dirty, i)
}

// restyle marks every block as changed (the theme changed).
func (t *transcript) restyle() {
	for _, b := range t.blocks {
		b.stale = true
	}
	t.dirty = 0
}

// reset empties the transcript.
func (t *transcript) reset() { *t = *newTranscript() }

// layout brings the line positions up to date for width.
func (t *transcript) layout(width int, l *look) {
	if width != t.width {
		t.width, t.dirty = width, 0
	}
	for i := t.dirty; i < len(t.blocks); i++ {
		n := len(t.blocks[i].render(width, l))
		if n > 0 {
			n++ // a blank line separates blocks
		}
		t.starts[i+1] = t.starts[i] + n
	}
	t.dirty = len(t.blocks)
}

// lineCount is the number of lines, as of the last layout.
func (t *transcript) lineCount() int { return t.starts[len(t.blocks)] }

// window returns up to n lines starting at line from, as of the last
// layout. It touches only the blocks it shows.
func (t *transcript) window(from, n int) []string {
	total := t.lineCount()
	if from < 0 {
		from = 0
	}
	out := make([]string, 0, max(0, min(n, total-from)))
	i := sort.Search(len(t.blocks), func(i int) bool { return t.starts[i+1] > from })
	for line := from; i < len(t.blocks) && len(out) < n; i++ {
		lines := t.blocks[i].lines
		for k := line - t.starts[i]; k < t.starts[i+1]-t.starts[i] && len(out) < n; k++ {
			if k < len(lines) {
				out = append(out, lines[k])
			} else {
				out = append(out, "")
			}
		}
		line = t.starts[i+1]
	}
	return out
}
