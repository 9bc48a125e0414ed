//go:build !linux

package sandbox

import (
	"context"
	"errors"
	"runtime"
)

// seccompProbe reports that there is no seccomp outside Linux.
func seccompProbe() error { return errors.New(runtime.GOOS + " has no seccomp") }

// namespaceProbe reports that there are no namespaces outside Linux.
func namespaceProbe(context.Context, bool, bool) error {
	return errors.New(runtime.GOOS + " has no namespaces")
}
