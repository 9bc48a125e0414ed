package sandbox

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// Available returns the Landlock ABI version the kernel offers, as
// go-landlock will use it (an ABI 6+ kernel missing the signal-scoping fix
// counts as 5). The error is an [*UnavailableError] naming the cause when
// the kernel has no usable Landlock; restricted modes then need
// [Policy.BestEffort].
func Available() (abi int, err error) {
	v, err := llsys.LandlockGetABIVersion()
	switch {
	case errors.Is(err, syscall.ENOSYS):
		return 0, &UnavailableError{What: "Landlock", Err: fmt.Errorf("the kernel is built without it (CONFIG_SECURITY_LANDLOCK): %w", err)}
	case errors.Is(err, syscall.EOPNOTSUPP):
		return 0, &UnavailableError{What: "Landlock", Err: fmt.Errorf("it is disabled at boot (add landlock to the lsm= kernel parameter): %w", err)}
	case err != nil:
		return 0, &UnavailableError{What: "Landlock", Err: err}
	case v < 1:
		return 0, &UnavailableError{What: "Landlock", Err: fmt.Errorf("the kernel reports ABI %d", v)}
	}
	if v >= 6 {
		// Mirror go-landlock, which refuses ABI 6 features on kernels
		// without the signal-scoping erratum fix.
		if errata, err := llsys.LandlockGetErrata(); err != nil || errata&0x2 == 0 {
			v = 5
		}
	}
	return v, nil
}

// maxABI is the newest Landlock ABI the helper uses. Later ABIs add
// rights (UDP, pathname UNIX sockets) that would deny by default what this
// package means to allow, so they are opted into deliberately.
const maxABI = 7

// landlockConfig returns the rights the helper handles under abi, which
// must be at least 1: every filesystem right, TCP when the network is off
// (ABI 4+), and the signal scope plus, with the network off, the
// abstract-UNIX-socket scope (ABI 6+).
func landlockConfig(abi int, noNetwork bool) landlock.Config {
	versions := []landlock.Config{
		landlock.V1, landlock.V2, landlock.V3, landlock.V4,
		landlock.V5, landlock.V6, landlock.V7,
	}
	c := versions[min(abi, maxABI)-1]
	if !noNetwork {
		c.HandledAccessNet = 0
		c.Scoped &^= landlock.ScopedSet(llsys.ScopeAbstractUnixSocket)
	}
	return c
}

// devices are the device files every mode may open for writing (and use
// ioctl on, ABI 5+): the ones shells and common tools expect. The
// terminals under /dev/pts are among them only in a private devpts
// instance (privatePts), which holds the command's own alone.
func devices(privatePts bool) []string {
	dev := []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty"}
	if privatePts {
		dev = append(dev, "/dev/ptmx", "/dev/pts")
	}
	return dev
}

// landlockRules returns the rules of s: read and execute everywhere,
// writable devices, and full access (with cross-directory renames, ABI 2+)
// under the writable roots. Landlock allows only what a rule grants, so
// everything else is read-only and, with the network off, no TCP port may
// be bound or connected to.
func landlockRules(s spec) []landlock.Rule {
	dev := landlock.RWFiles(devices(s.PrivatePts)...).IgnoreIfMissing()
	if s.ABI >= 5 {
		dev = dev.WithIoctlDev()
	}
	rules := []landlock.Rule{landlock.RODirs("/"), dev}
	if len(s.Writable) > 0 {
		rw := landlock.RWDirs(s.Writable...)
		if s.ABI >= 2 {
			rw = rw.WithRefer()
		}
		rules = append(rules, rw)
	}
	return rules
}

// restrict applies s's Landlock rules to the whole process, with
// no_new_privs.
func restrict(s spec) error {
	if err := landlockConfig(s.ABI, s.NoNetwork).Restrict(landlockRules(s)...); err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	return nil
}
