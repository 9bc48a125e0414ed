//go:build linux

package sandbox

import (
	"encoding/binary"
	"runtime"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// TestSeccompFilter runs the filter on crafted system calls, including
// the ones a careless filter lets by: high bits in an int argument, a
// foreign ABI.
func TestSeccompFilter(t *testing.T) {
	t.Parallel()
	arch, ok := auditArch[runtime.GOARCH]
	if !ok {
		t.Skipf("no filter for %s", runtime.GOARCH)
	}
	const (
		allow = unix.SECCOMP_RET_ALLOW
		deny  = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
		kill  = unix.SECCOMP_RET_KILL_PROCESS
	)
	type call struct {
		name      string
		arch      uint32
		nr        uint32
		args      [6]uint64
		noNetwork bool
		want      uint32
	}
	calls := []call{
		{"TIOCSTI", arch, unix.SYS_IOCTL, [6]uint64{0, unix.TIOCSTI}, false, deny},
		{"TIOCSTI with high bits", arch, unix.SYS_IOCTL, [6]uint64{0, 1<<32 | unix.TIOCSTI}, false, deny},
		{"TIOCLINUX", arch, unix.SYS_IOCTL, [6]uint64{0, unix.TIOCLINUX}, false, deny},
		{"TCGETS", arch, unix.SYS_IOCTL, [6]uint64{0, unix.TCGETS}, false, allow},
		{"io_uring_setup", arch, unix.SYS_IO_URING_SETUP, [6]uint64{}, false, deny},
		{"AF_UNIX, network off", arch, unix.SYS_SOCKET, [6]uint64{unix.AF_UNIX, unix.SOCK_STREAM}, true, deny},
		{"AF_UNIX with high bits", arch, unix.SYS_SOCKET, [6]uint64{1<<32 | unix.AF_UNIX}, true, deny},
		{"AF_VSOCK, network off", arch, unix.SYS_SOCKET, [6]uint64{unix.AF_VSOCK}, true, deny},
		{"AF_INET, network off", arch, unix.SYS_SOCKET, [6]uint64{unix.AF_INET}, true, allow},
		{"AF_NETLINK, network off", arch, unix.SYS_SOCKET, [6]uint64{unix.AF_NETLINK}, true, allow},
		{"AF_UNIX, network on", arch, unix.SYS_SOCKET, [6]uint64{unix.AF_UNIX}, false, allow},
		{"datagram socketpair", arch, unix.SYS_SOCKETPAIR, [6]uint64{unix.AF_UNIX, unix.SOCK_DGRAM | unix.SOCK_CLOEXEC}, true, deny},
		{"stream socketpair", arch, unix.SYS_SOCKETPAIR, [6]uint64{unix.AF_UNIX, unix.SOCK_STREAM}, true, allow},
		{"read", arch, unix.SYS_READ, [6]uint64{}, true, allow},
		{"foreign ABI", unix.AUDIT_ARCH_I386, 54, [6]uint64{0, unix.TIOCSTI}, false, kill},
	}
	if arch == unix.AUDIT_ARCH_X86_64 {
		calls = append(calls, call{"x32", arch, x32Bit | 514, [6]uint64{0, unix.TIOCSTI}, false, kill})
	}
	for _, c := range calls {
		vm, err := bpf.NewVM(seccompFilter(arch, c.noNetwork))
		if err != nil {
			t.Fatal(err)
		}
		// The VM loads words big-endian; lay each one out where the
		// kernel's seccomp_data has it.
		data := make([]byte, 64)
		binary.BigEndian.PutUint32(data[offNr:], c.nr)
		binary.BigEndian.PutUint32(data[offArch:], c.arch)
		for i, a := range c.args {
			lo := argLo(uint32(i))
			hi := lo + 4
			if lo%8 == 4 {
				hi = lo - 4
			}
			binary.BigEndian.PutUint32(data[lo:], uint32(a))
			binary.BigEndian.PutUint32(data[hi:], uint32(a>>32))
		}
		got, err := vm.Run(data)
		if err != nil {
			t.Fatal(err)
		}
		if uint32(got) != c.want {
			t.Errorf("%s: filter returns %#x; want %#x", c.name, got, c.want)
		}
	}
}
