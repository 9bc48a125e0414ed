// Package filelock is agent's one cross-process lock: exclusive advisory
// locks shared by every process on the machine, the same on every OS. A
// lock belongs to an open file: closing it, or the death of the process
// holding it, releases it, so a crashed holder never blocks anyone.
//
// [TryLock], [Lock] and [Unlock] lock a file the caller has open (a
// rollout held by its single writer, the chat's history file, a lock file
// whose content the caller keeps itself). [TryLockPath] and [LockPath]
// lock a lock file of their own at a path, created if needed, recording
// the holder's pid in it ([Holder]): the retry gate's slots and time
// files, the session index, auth.json's refresh lock.
//
// The lock is flock on unix. On Windows it is LockFileEx on one byte far
// past any data (2^62), so the locked range never stops reads or writes of
// the file's content through other handles. Where neither exists (js,
// wasip1, plan9) there is no cross-process lock: every call succeeds and
// callers rely on their in-process guards.
//
// Agent's own processes hold these locks for milliseconds, so a lock held
// longer is held by something else (a stuck process, a stray `flock`):
// [Lock] and [LockPath] wait for it no longer than a bound and their
// context allow, and name the holder's pid (from /proc/locks on Linux,
// else the pid a lock file records) when they give up.
package filelock
