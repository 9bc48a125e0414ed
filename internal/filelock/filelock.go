// Package filelock takes exclusive advisory locks (flock) on open files,
// shared by every process on the machine: the auth store's refresh lock,
// a rollout's single writer and the session index, the chat's history
// file. A lock belongs to the open file: closing it, or the death of the
// process holding it, releases it, so a crashed holder never blocks
// anyone. On platforms without flock there is no cross-process lock:
// every call succeeds and callers rely on their in-process guards.
//
// Locks on a path rather than an open file (the retry gate's slots) use
// github.com/gofrs/flock.
package filelock
