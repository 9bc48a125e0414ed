// Package filelock is agent's one cross-process lock: exclusive advisory
// locks shared by every process on the machine. A lock belongs to an open
// file: closing it, or the death of the process holding it, releases it,
// so a crashed holder never blocks anyone.
//
// [Lock], [TryLock] and [Unlock] lock a file the caller has open and
// writes (the auth store's refresh lock, a rollout's single writer and
// the session index, the chat's history file): flock on unix; elsewhere
// there is no such lock, every call succeeds and callers rely on their
// in-process guards (Windows' LockFileEx would stop writes through the
// caller's other handles).
//
// [LockPath] and [TryLockPath] lock a path: a lock file of its own,
// created if needed, that records the holder's pid ([Holder]) (the retry
// gate's slots and time files): flock on unix, LockFileEx on Windows.
// LockPath's wait ends with its context.
//
// Agent's own processes hold these locks for milliseconds, so a lock held
// longer is held by something else (a stuck process, a stray `flock`):
// [LockWait] waits for it no longer than a bound and its context allow,
// and names the holder's pid (from /proc/locks on Linux) when it gives up.
package filelock
