package execprint

import "testing"

func TestScreenRows(t *testing.T) {
	tests := []struct {
		text  string
		width int
		want  int
	}{
		{"", 10, 1}, {"abc", 10, 1}, {"0123456789", 10, 1}, {"0123456789x", 10, 2},
		{"a\nb", 10, 2}, {"a\n", 10, 2}, {"héllo wörld", 5, 3},
	}
	for _, tt := range tests {
		if got := screenRows(tt.text, tt.width); got != tt.want {
			t.Errorf("screenRows(%q, %d) = %d; want %d", tt.text, tt.width, got, tt.want)
		}
	}
}
