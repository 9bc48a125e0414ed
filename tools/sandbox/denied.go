package sandbox

import (
	"bytes"
	"errors"
	"os/exec"
)

// Denied reports whether a sandboxed command that failed was probably
// stopped by the sandbox under policy p, so that the caller can tell the
// model (or the user) so, or offer to re-run it outside the sandbox.
//
// err is what the command's Run or Wait returned and output is what it
// wrote (standard error, or standard and error output combined). Like
// Codex, Denied is a heuristic: the command must have failed, and its
// output must mention permission denied, operation not permitted, a
// read-only file system or a busy device (a protected mount point), or,
// with the network off, an unreachable network or a failed name lookup. Exit statuses 126 and 127 (not executable, not
// found) and a helper failure ([ExitHelperFailed] with the helper's
// message) are not denials. Denied is always false under
// [DangerFullAccess].
func Denied(p Policy, err error, output []byte) bool {
	if p.mode() == DangerFullAccess {
		return false
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	if killedBySeccomp(ee) {
		return true
	}
	lower := bytes.ToLower(output)
	switch ee.ExitCode() {
	case 0, 126, 127:
		return false
	case ExitHelperFailed:
		if bytes.Contains(lower, []byte(helperPrefix)) {
			return false
		}
	}
	for _, kw := range denialKeywords(p.networkOff()) {
		if bytes.Contains(lower, []byte(kw)) {
			return true
		}
	}
	return false
}

// helperPrefix starts every message the helper prints, in lower case.
const helperPrefix = "agent sandbox: "

// denialKeywords are the lower-case phrases tools print when the kernel
// refuses what the sandbox forbids: EACCES, EPERM and EROFS from Landlock,
// seccomp and the read-only mounts, EBUSY from moving or removing one of
// those mounts (.git, the agent's home), and with the network off ENETUNREACH and
// resolver failures from the empty network namespace.
func denialKeywords(networkOff bool) []string {
	kws := []string{"permission denied", "operation not permitted", "read-only file system", "device or resource busy"}
	if networkOff {
		kws = append(kws,
			"network is unreachable",
			"temporary failure in name resolution",
			"could not resolve host",
			"name or service not known",
		)
	}
	return kws
}
