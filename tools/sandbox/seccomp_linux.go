package sandbox

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// auditArch is the AUDIT_ARCH_* value of the native system call ABI, for
// the architectures the filter knows.
var auditArch = map[string]uint32{
	"amd64":   unix.AUDIT_ARCH_X86_64,
	"arm64":   unix.AUDIT_ARCH_AARCH64,
	"riscv64": unix.AUDIT_ARCH_RISCV64,
	"ppc64le": unix.AUDIT_ARCH_PPC64LE,
	"s390x":   unix.AUDIT_ARCH_S390X,
	"loong64": unix.AUDIT_ARCH_LOONGARCH64,
}

// x32Bit marks the x32 system call ABI on amd64.
const x32Bit = 0x40000000

// Offsets into struct seccomp_data.
const (
	offNr   = 0
	offArch = 4
	offArgs = 16
)

// seccompAvailable reports whether the kernel can load the filter: it has
// seccomp filters, knows SECCOMP_RET_ERRNO, and this architecture is one
// the filter is written for.
func seccompAvailable() error {
	if _, ok := auditArch[runtime.GOARCH]; !ok {
		return fmt.Errorf("no seccomp filter for %s", runtime.GOARCH)
	}
	action := uint32(unix.SECCOMP_RET_ERRNO)
	if _, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafe.Pointer(&action))); e != 0 {
		return fmt.Errorf("seccomp(SECCOMP_GET_ACTION_AVAIL): %w", e)
	}
	return nil
}

// argLo is the offset of the low 32 bits of system call argument i. The
// kernel truncates int and unsigned int arguments (an ioctl request, a
// socket domain) to those bits, so the filter must compare them alone:
// comparing all 64 would let a caller set the high bits and slip by.
func argLo(i uint32) uint32 {
	off := offArgs + 8*i
	if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		off += 4 // big endian
	}
	return off
}

// Filter results.
var (
	retAllow = bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW}
	retDeny  = bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)}
	retKill  = bpf.RetConstant{Val: unix.SECCOMP_RET_KILL_PROCESS}
)

// seccompFilter returns the filter of every restricted mode, for the
// native architecture arch:
//
//   - ioctl TIOCSTI and TIOCLINUX fail with EPERM, so no command can push
//     input into a terminal (the one agent runs in included);
//   - io_uring is off (EPERM): its operations bypass seccomp;
//   - keyctl, add_key and request_key fail with EPERM, as under container
//     runtimes: the kernel's keyrings (root's included) are not
//     namespaced;
//   - with noNetwork, socket() fails with EPERM for every address family
//     but AF_INET, AF_INET6 (cut by the network namespace and Landlock)
//     and AF_NETLINK (confined to the namespace), so no UNIX socket,
//     pathname or abstract, and no vsock or other family can reach out;
//     socketpair() of datagram sockets fails too, since a datagram can be
//     sent to any pathname socket.
//
// System calls of any other ABI (32-bit compat, x32) kill the process:
// their numbers differ and would bypass the rules.
func seccompFilter(arch uint32, noNetwork bool) []bpf.Instruction {
	prog := []bpf.Instruction{
		bpf.LoadAbsolute{Off: offArch, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: arch, SkipTrue: 1},
		retKill,
		bpf.LoadAbsolute{Off: offNr, Size: 4},
	}
	if arch == unix.AUDIT_ARCH_X86_64 {
		prog = append(prog, bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: x32Bit, SkipFalse: 1}, retKill)
	}
	// block runs body, which must end in a return, when the system call
	// is nr; otherwise it falls through with the number still loaded.
	block := func(nr uintptr, body ...bpf.Instruction) {
		prog = append(prog, bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: uint32(nr), SkipTrue: uint8(len(body))})
		prog = append(prog, body...)
	}
	block(unix.SYS_IOCTL,
		bpf.LoadAbsolute{Off: argLo(1), Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.TIOCSTI, SkipTrue: 2},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.TIOCLINUX, SkipTrue: 1},
		retAllow,
		retDeny,
	)
	for _, nr := range []uintptr{
		unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER,
		unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY,
	} {
		block(nr, retDeny)
	}
	if noNetwork {
		block(unix.SYS_SOCKET,
			bpf.LoadAbsolute{Off: argLo(0), Size: 4},
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_INET, SkipTrue: 3},
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_INET6, SkipTrue: 2},
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_NETLINK, SkipTrue: 1},
			retDeny,
			retAllow,
		)
		block(unix.SYS_SOCKETPAIR,
			bpf.LoadAbsolute{Off: argLo(1), Size: 4},
			bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: 0xf}, // the type without SOCK_NONBLOCK, SOCK_CLOEXEC
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SOCK_DGRAM, SkipTrue: 1},
			retAllow,
			retDeny,
		)
	}
	return append(prog, retAllow)
}

// loadSeccomp installs the filter on every thread of the process (which
// must have no_new_privs), so the command exec'd next inherits it.
func loadSeccomp(noNetwork bool) error {
	arch, ok := auditArch[runtime.GOARCH]
	if !ok {
		return fmt.Errorf("seccomp: no filter for %s", runtime.GOARCH)
	}
	raw, err := bpf.Assemble(seccompFilter(arch, noNetwork))
	if err != nil {
		return fmt.Errorf("seccomp: %w", err)
	}
	filters := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filters[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	prog := unix.SockFprog{Len: uint16(len(filters)), Filter: &filters[0]}
	_, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(filters)
	if e != 0 {
		return fmt.Errorf("seccomp: load filter: %w", e)
	}
	return nil
}
