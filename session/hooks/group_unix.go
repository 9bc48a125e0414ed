//go:build unix

package hooks

import (
	"os/exec"
	"syscall"
)

// ownGroup makes cmd and whatever it starts one process group, killed
// together when cmd is cancelled.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
