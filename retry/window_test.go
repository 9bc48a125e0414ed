package retry

import (
	"testing"
	"time"
)

func TestWindow(t *testing.T) {
	w := &Window{Bound: 50 * time.Second}
	for _, c := range []struct {
		d           time.Duration
		serverNamed bool
		want        time.Duration
		ok          bool
	}{
		{10 * time.Second, false, 10 * time.Second, true},
		{20 * time.Second, false, 20 * time.Second, true},
		{time.Minute, false, 15 * time.Second, true}, // what is left before the reserve
		{time.Second, false, 0, false},
		{3 * time.Second, true, 3 * time.Second, true}, // the server's wait is made
		{time.Second, false, 0, false},
	} {
		if got, ok := w.Fit(c.d, c.serverNamed); got != c.want || ok != c.ok {
			t.Errorf("Fit(%v, %v) after %v = %v, %v; want %v, %v", c.d, c.serverNamed, w.Waited()-got, got, ok, c.want, c.ok)
		}
	}
	if w.Waited() != 48*time.Second {
		t.Errorf("Waited = %v", w.Waited())
	}
	w.Close()
	if d, ok := w.Fit(time.Minute, false); !ok || d != 45*time.Second {
		t.Errorf("after Close: %v %v", d, ok)
	}
	var none *Window
	if d, ok := none.Fit(time.Hour, false); !ok || d != time.Hour {
		t.Error("a nil window bounds")
	}
	if d, ok := (&Window{}).Fit(time.Hour, false); !ok || d != time.Hour {
		t.Error("a zero bound bounds")
	}
}
