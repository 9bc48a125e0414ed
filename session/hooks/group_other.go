//go:build !unix

package hooks

import "os/exec"

// ownGroup leaves cmd as it is: without process groups, cancelling kills
// the hook's process alone (exec.CommandContext's default).
func ownGroup(*exec.Cmd) {}
