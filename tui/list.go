package tui

import (
	"strconv"
	"strings"
)

// popupRows is how many rows a list shows before it scrolls.
const popupRows = 8

// listRow is one row of a list: a label and a one-line description.
type listRow struct {
	label, detail string
	// mark says the row is the current choice (the model in use).
	mark bool
}

// list is a selectable, scrolling list of rows (the / and @ popups, the
// pickers): popupRows visible, the selection kept in view. It is a plain
// value of the model; rows are replaced as the filter changes.
type list struct {
	rows     []listRow
	sel, top int
	// empty is shown when there is no row.
	empty string
}

// set replaces the rows and selects the first.
func (l *list) set(rows []listRow) {
	l.rows, l.sel, l.top = rows, 0, 0
}

// move moves the selection by d, wrapping around at either end.
func (l *list) move(d int) {
	n := len(l.rows)
	if n == 0 {
		return
	}
	l.sel = ((l.sel+d)%n + n) % n
	if l.sel < l.top {
		l.top = l.sel
	}
	if l.sel >= l.top+popupRows {
		l.top = l.sel - popupRows + 1
	}
}

// selected is the selected row's index, -1 when there is none.
func (l *list) selected() int {
	if len(l.rows) == 0 {
		return -1
	}
	return l.sel
}

// Render draws the visible rows: the label column as wide as the widest
// visible label, the description dimmed after it, the selection marked;
// a last line says where the window is when the list scrolls.
func (l *list) Render(width int, lk *look) []string {
	if len(l.rows) == 0 {
		if l.empty == "" {
			return nil
		}
		return []string{lk.dim.Render(truncate("  "+l.empty, width))}
	}
	end := min(len(l.rows), l.top+popupRows)
	labelW := 0
	for _, r := range l.rows[l.top:end] {
		labelW = max(labelW, len([]rune(r.label)))
	}
	labelW = min(labelW, max(8, width/2))
	var out []string
	for i := l.top; i < end; i++ {
		r := l.rows[i]
		cursor, detail := "  ", r.detail
		if i == l.sel {
			cursor = "› "
		}
		if r.mark {
			detail = strings.TrimSuffix("current · "+detail, " · ")
		}
		label := truncate(r.label, labelW)
		pad := strings.Repeat(" ", max(0, labelW-len([]rune(label))))
		line := truncate(cursor+label+pad+"  "+detail, width)
		if i == l.sel {
			out = append(out, lk.accent.Render(line))
			continue
		}
		out = append(out, lk.dim.Render(line))
	}
	if len(l.rows) > popupRows {
		out = append(out, lk.dim.Render(truncate("  "+strconv.Itoa(l.sel+1)+"/"+strconv.Itoa(len(l.rows)), width)))
	}
	return out
}
