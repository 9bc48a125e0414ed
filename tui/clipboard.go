package tui

import (
	"encoding/base64"
	"strings"
)

// maxOSC52 is the most a copy sends: terminals cap OSC 52 (xterm at
// 100,000 bytes of base64 by default; tmux's escape buffer is smaller), and
// a longer sequence is dropped whole, so a longer answer is refused with
// a word instead.
const maxOSC52 = 74994 // 100,000 bytes of base64, less the frame

// osc52 is the terminal sequence that puts text on the system clipboard
// (OSC 52, "c"): it works over SSH and, inside tmux, when tmux lets
// programs set the clipboard (set-clipboard on, or external wrapped as
// tmux passthrough). ok is false when text is too long for terminals to
// take.
func osc52(text string, inTmux bool) (seq string, ok bool) {
	if len(text) > maxOSC52 {
		return "", false
	}
	seq = "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(text)) + "\x07"
	if inTmux {
		// tmux takes the sequence itself when set-clipboard allows it; the
		// passthrough form also reaches the outer terminal when it does
		// not (allow-passthrough on).
		return seq + "\x1bPtmux;" + strings.ReplaceAll(seq, "\x1b", "\x1b\x1b") + "\x1b\\", true
	}
	return seq, true
}
