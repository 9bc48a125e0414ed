package gate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentcli/agent/internal/atomicfile"
	"github.com/agentcli/agent/internal/filelock"
	"github.com/agentcli/agent/retry"
)

// Options configure a gate made by [Open].
type Options struct {
	// MaxResends bounds the re-sends in flight at once, in this process and,
	// with Dir, on the whole machine; values below 1 mean 1.
	MaxResends int
	// Dir, when set, is a directory every process sharing the gate opens
	// (AGENT_HOME/retrygate/<provider>): cooldowns are written there, so a
	// delay one process was given holds back all of them, and re-send slots
	// are file locks there, so the bound holds across processes. The kernel
	// drops a dead process's locks at once: a killed process never leaves
	// a slot taken.
	Dir string
	// Now reads the wall clock that cooldowns written to Dir are measured
	// on; default [time.Now].
	Now func() time.Time
	// Sleep waits out another process's cooldown and the poll interval
	// between tries for a machine-wide slot; default a real timer.
	Sleep func(context.Context, time.Duration) error
	// Poll is how often a caller waiting for a machine-wide slot tries
	// again; default 50 ms.
	Poll time.Duration
}

// machine is the part of a gate that lives in a directory.
type machine struct {
	dir   string
	slots int
	now   func() time.Time
	sleep func(context.Context, time.Duration) error
	poll  time.Duration

	// cooldown caches the cooldown file's time by the file's identity
	// (ExtendDeadline replaces it whole: a new inode, size and time), so a
	// request's pass through the gate costs a stat, not an open and a read.
	mu       sync.Mutex
	coolFile os.FileInfo
	coolAt   time.Time
}

// Open returns a gate for o. Without o.Dir it is [New](o.MaxResends);
// with it, the gate is shared with every process that opens the same
// directory. The directory is created (0700) if needed.
func Open(o Options) (*Gate, error) {
	g := New(o.MaxResends)
	if o.Dir == "" {
		return g, nil
	}
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("retry gate: %w", err)
	}
	m := &machine{dir: o.Dir, slots: max(o.MaxResends, 1), now: o.Now, sleep: o.Sleep, poll: o.Poll}
	if m.now == nil {
		m.now = time.Now
	}
	if m.sleep == nil {
		m.sleep = retry.Sleep // only ctx ends it: a chat's "retry now" never cuts another process's cooldown
	}
	if m.poll <= 0 {
		m.poll = 50 * time.Millisecond
	}
	g.machine = m
	return g, nil
}

// DirFor returns the gate directory of provider id under home
// (AGENT_HOME): one gate per provider account.
func DirFor(home, id string) string {
	clean := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, id)
	if clean == "" || clean == "." || clean == ".." {
		clean = "_"
	}
	return filepath.Join(home, "retrygate", clean)
}

func (m *machine) cooldownPath() string { return filepath.Join(m.dir, "cooldown") }

// notBefore reads the machine-wide cooldown: no request before it.
func (m *machine) notBefore() time.Time {
	path := m.cooldownPath()
	fi, err := os.Stat(path)
	if err != nil {
		return time.Time{}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if c := m.coolFile; c != nil && os.SameFile(c, fi) && c.ModTime().Equal(fi.ModTime()) && c.Size() == fi.Size() {
		return m.coolAt
	}
	m.coolFile, m.coolAt = fi, ReadDeadline(path)
	return m.coolAt
}

// extend moves the machine-wide cooldown to at least until.
func (m *machine) extend(ctx context.Context, until time.Time) error {
	return ExtendDeadline(ctx, m.cooldownPath(), until)
}

// ReadDeadline returns the time kept in the file at path, as
// [ExtendDeadline] writes it: the per-provider state beside the gate (its
// cooldown, failover's health memory). A missing or unreadable file is the
// zero time: a bad file must never wedge every process.
func ReadDeadline(path string) time.Time {
	b, err := os.ReadFile(path)
	if err != nil {
		return time.Time{}
	}
	ns, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return time.Time{}
	}
	return time.Unix(0, ns)
}

// ExtendDeadline moves the time kept in the file at path to at least
// until, creating its directory (0700) if needed. The file is replaced
// atomically ([atomicfile.Write]) under a lock (path+".lock"), so every
// process sharing it reads a whole time and concurrent writers keep the
// later one (the lock is [filelock.LockPath]'s, on every OS). A lock another process holds past [filelock.DefaultMaxWait]
// (agent's own hold it for microseconds) fails the call with a
// [*filelock.HeldError] naming that process, instead of hanging; the wait
// also ends with ctx (Ctrl-C), with its error.
func ExtendDeadline(ctx context.Context, path string, until time.Time) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	l, err := filelock.LockPath(ctx, path+".lock", filelock.Wait{})
	if err != nil {
		return err
	}
	defer l.Unlock()
	if cur := ReadDeadline(path); !cur.Before(until) {
		return nil
	}
	return atomicfile.Write(path, []byte(strconv.FormatInt(until.UnixNano(), 10)+"\n"), 0o600)
}

// waitCooldown waits until the machine-wide cooldown has passed; block is
// called once if the caller has to wait.
func (m *machine) waitCooldown(ctx context.Context, block func()) error {
	for {
		d := m.notBefore().Sub(m.now())
		if d <= 0 {
			return ctx.Err()
		}
		block()
		if err := m.sleep(ctx, d); err != nil {
			return err
		}
	}
}

// takeSlot takes one of the machine's re-send slots: an exclusive lock on
// one of the files slot-0 … slot-(N-1). It polls while all are held.
func (m *machine) takeSlot(ctx context.Context, block func()) (release func(), err error) {
	for {
		for i := range m.slots {
			l, err := filelock.TryLockPath(filepath.Join(m.dir, "slot-"+strconv.Itoa(i)))
			if err != nil {
				return nil, fmt.Errorf("retry gate: %w", err)
			}
			if l != nil {
				var once sync.Once
				return func() { once.Do(func() { l.Unlock() }) }, nil
			}
		}
		block()
		if err := m.sleep(ctx, m.poll); err != nil {
			return nil, err
		}
	}
}
