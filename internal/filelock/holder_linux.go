package filelock

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// HolderPID returns the pid of a process holding a flock on the file f is
// open on, as /proc/locks tells; 0 when none is listed or it cannot tell.
func HolderPID(f *os.File) int {
	fi, err := f.Stat()
	if err != nil {
		return 0
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0
	}
	want := strconv.FormatUint(uint64(unix.Major(st.Dev)), 16) + ":" +
		strconv.FormatUint(uint64(unix.Minor(st.Dev)), 16) + ":" + strconv.FormatUint(st.Ino, 10)
	locks, err := os.Open("/proc/locks")
	if err != nil {
		return 0
	}
	defer locks.Close()
	sc := bufio.NewScanner(locks)
	for sc.Scan() {
		// "1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF"; waiters
		// have "->" after the number.
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[1] == "->" || fields[1] != "FLOCK" {
			continue
		}
		if devIno := fields[5]; !sameDevIno(devIno, want) {
			continue
		}
		if pid, err := strconv.Atoi(fields[4]); err == nil && pid != os.Getpid() {
			return pid
		}
	}
	return 0
}

// sameDevIno compares "MAJ:MIN:INO" as /proc/locks spells it (major and
// minor in hex, zero-padded) with want.
func sameDevIno(got, want string) bool {
	g, w := strings.Split(got, ":"), strings.Split(want, ":")
	if len(g) != 3 || len(w) != 3 {
		return false
	}
	for i := range 2 {
		a, err1 := strconv.ParseUint(g[i], 16, 32)
		b, err2 := strconv.ParseUint(w[i], 16, 32)
		if err1 != nil || err2 != nil || a != b {
			return false
		}
	}
	return g[2] == w[2]
}
