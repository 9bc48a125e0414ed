package gate_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/agentcli/agent/retry/gate"
)

// fakeClock is a wall clock that only moves when a sleep of its own
// advances it; every sleep is recorded.
type fakeClock struct {
	mu    sync.Mutex
	t     time.Time
	slept []time.Duration
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Unix(1_800_000_000, 0)} }

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.slept = append(c.slept, d)
	c.t = c.t.Add(d)
	c.mu.Unlock()
	return ctx.Err()
}

func (c *fakeClock) sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.slept...)
}

func openGate(t *testing.T, dir string, n int, c *fakeClock) *gate.Gate {
	t.Helper()
	g, err := gate.Open(gate.Options{MaxResends: n, Dir: dir, Now: c.now, Sleep: c.sleep, Poll: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestMachineCooldownHoldsOtherProcesses: a delay one process was given
// (a 429 with Retry-After: 7) holds back a first attempt and a re-send of
// another process sharing the directory, for exactly the time left.
func TestMachineCooldownHoldsOtherProcesses(t *testing.T) {
	dir := t.TempDir()
	clock := newFakeClock()
	a := openGate(t, dir, 3, clock)

	// a's cooldown is its own sleep; a's clock does not move while the
	// sleep is held, so b sees the full 7 s ahead of it.
	hs := newHeldSleep()
	done := make(chan error)
	go func() { done <- a.Cooldown(t.Context(), 7*time.Second, hs.sleep) }()
	<-hs.started

	bc := newFakeClockAt(clock.now().Add(2 * time.Second)) // b's process asks 2 s later
	b := openGate(t, dir, 3, bc)
	if err := b.Wait(t.Context()); err != nil {
		t.Fatalf("Wait = %v", err)
	}
	if got := bc.sleeps(); len(got) != 1 || got[0] != 5*time.Second {
		t.Fatalf("other process waited %v; want exactly [5s] (the 7 s cooldown less the 2 s gone)", got)
	}
	release, err := b.Acquire(t.Context())
	if err != nil {
		t.Fatalf("Acquire = %v", err)
	}
	release()
	if got := bc.sleeps(); len(got) != 1 {
		t.Errorf("re-send after the cooldown waited again: %v", got)
	}
	close(hs.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func newFakeClockAt(t0 time.Time) *fakeClock { return &fakeClock{t: t0} }

// TestMachineCooldownKeepsTheLater: two processes' cooldowns: the file
// keeps the later end, whatever order they are written in.
func TestMachineCooldownKeepsTheLater(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Unix(1_800_000_000, 0)
	noSleep := func(context.Context, time.Duration) error { return nil }
	long := openGate(t, dir, 1, newFakeClockAt(t0))
	short := openGate(t, dir, 1, newFakeClockAt(t0))
	if err := long.Cooldown(t.Context(), 30*time.Second, noSleep); err != nil {
		t.Fatal(err)
	}
	if err := short.Cooldown(t.Context(), 2*time.Second, noSleep); err != nil {
		t.Fatal(err)
	}
	c := newFakeClockAt(t0)
	if err := openGate(t, dir, 1, c).Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := c.sleeps(); len(got) != 1 || got[0] != 30*time.Second {
		t.Errorf("waited %v; want [30s]", got)
	}
}

// TestMachineBadCooldownFileDoesNotWedge: garbage in the file is no
// cooldown, not a gate closed forever.
func TestMachineBadCooldownFileDoesNotWedge(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cooldown"), []byte("not a time\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := newFakeClock()
	if err := openGate(t, dir, 1, c).Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := c.sleeps(); len(got) != 0 {
		t.Errorf("waited %v on a garbage cooldown file", got)
	}
}

// TestMachineSlotsBoundAcrossGates: two gates (two processes) sharing a
// directory with one slot: the second re-send waits until the first is
// released.
func TestMachineSlotsBoundAcrossGates(t *testing.T) {
	dir := t.TempDir()
	a := openGate(t, dir, 1, newFakeClock())
	bc := newFakeClock()
	ra, err := a.Acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	polls := 0
	bc2 := &pollingClock{fakeClock: bc, onSleep: func() {
		polls++
		if polls == 3 {
			ra() // the other process's re-send is decided
		}
	}}
	b, err := gate.Open(gate.Options{MaxResends: 1, Dir: dir, Now: bc2.now, Sleep: bc2.sleep, Poll: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	rb, err := b.Acquire(t.Context())
	if err != nil {
		t.Fatalf("Acquire = %v", err)
	}
	rb()
	if polls != 3 {
		t.Errorf("second re-send polled %d times; want 3 (held until the first was released)", polls)
	}
	for _, d := range bc.sleeps() {
		if d != 100*time.Millisecond {
			t.Errorf("poll waited %v; want 100ms", d)
		}
	}
}

type pollingClock struct {
	*fakeClock
	onSleep func()
}

func (p *pollingClock) sleep(ctx context.Context, d time.Duration) error {
	err := p.fakeClock.sleep(ctx, d)
	p.onSleep()
	return err
}

// TestMachineSlotOfKilledProcessIsFreed: a process that holds the only
// slot and is killed with SIGKILL leaves nothing behind: the next re-send
// gets the slot as soon as the process is gone.
func TestMachineSlotOfKilledProcessIsFreed(t *testing.T) {
	if os.Getenv("RETRYGATE_HOLDER_DIR") != "" {
		holdSlot(os.Getenv("RETRYGATE_HOLDER_DIR"))
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestMachineSlotOfKilledProcessIsFreed$")
	cmd.Env = append(os.Environ(), "RETRYGATE_HOLDER_DIR="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "held\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("holder said %q, %v", line, err)
	}

	// While the holder lives, the slot is taken.
	c := newFakeClock()
	ctx, cancel := context.WithCancel(t.Context())
	tries := 0
	g, err := gate.Open(gate.Options{MaxResends: 1, Dir: dir, Now: c.now, Poll: time.Millisecond,
		Sleep: func(ctx context.Context, d time.Duration) error {
			if tries++; tries == 5 {
				cancel()
			}
			return ctx.Err()
		}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Acquire(ctx); err == nil {
		t.Fatal("Acquire succeeded while another process held the only slot")
	}

	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	waited := 0
	g, err = gate.Open(gate.Options{MaxResends: 1, Dir: dir, Now: c.now, Poll: time.Millisecond,
		Sleep: func(context.Context, time.Duration) error { waited++; return nil }})
	if err != nil {
		t.Fatal(err)
	}
	release, err := g.Acquire(t.Context())
	if err != nil {
		t.Fatalf("Acquire after the holder was killed = %v", err)
	}
	release()
	if waited != 0 {
		t.Errorf("waited %d polls for a slot whose holder is dead; want 0", waited)
	}
}

// holdSlot is the killed process: it takes the only slot and blocks.
func holdSlot(dir string) {
	g, err := gate.Open(gate.Options{MaxResends: 1, Dir: dir})
	if err != nil {
		os.Exit(2)
	}
	if _, err := g.Acquire(context.Background()); err != nil {
		os.Exit(3)
	}
	os.Stdout.WriteString("held\n")
	select {}
}

// TestDeadlineFile: the per-provider time files (the gate's cooldown,
// failover's health memory) keep the later of concurrent writes, read a
// missing or garbled file as no time, and leave no temporary file behind.
func TestDeadlineFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "retrygate", "openai")
	path := filepath.Join(dir, "down")
	if got := gate.ReadDeadline(path); !got.IsZero() {
		t.Fatalf("a missing file reads %v; want the zero time", got)
	}
	base := time.Unix(1_800_000_000, 0)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if err := gate.ExtendDeadline(t.Context(), path, base.Add(time.Duration(i)*time.Second)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got, want := gate.ReadDeadline(path), base.Add(7*time.Second); !got.Equal(want) {
		t.Errorf("after 8 concurrent writers: %v; want the latest, %v", got, want)
	}
	if err := gate.ExtendDeadline(t.Context(), path, base); err != nil {
		t.Fatal(err)
	}
	if got := gate.ReadDeadline(path); !got.Equal(base.Add(7 * time.Second)) {
		t.Errorf("an earlier time replaced the later one: %v", got)
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(names) != 2 || names[0] != "down" || names[1] != "down.lock" {
		t.Errorf("the directory holds %q; want the file and its lock only", names)
	}
	os.WriteFile(path, []byte("not a time\n"), 0o600)
	if got := gate.ReadDeadline(path); !got.IsZero() {
		t.Errorf("a garbled file reads %v; want the zero time", got)
	}
}
