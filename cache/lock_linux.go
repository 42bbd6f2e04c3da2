package cache

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// lockFile holds open-file-description locks (F_OFD_SETLK) on one byte per key of one file:
// they exclude every other open of the file — other processes and other Disks of this one —
// and the kernel drops them when the process dies, so a killed daemon never leaves a key
// locked. Callers must not lock one key twice through one Disk (the same description holds it
// already); the mount's coalescing of loads sees to that.
type lockFile struct{ f *os.File }

// openLock opens the lock file in the folder state (see folder: it is checked as every file is).
func openLock(state *folder) (lockFile, error) {
	f, _, err := state.open(lockName, os.O_RDWR|os.O_CREATE)
	return lockFile{f}, err
}

func (l lockFile) close() error {
	if l.f == nil {
		return nil
	}
	return l.f.Close()
}

// lockBackoff bounds the wait between two tries of a lock another process holds.
const (
	lockBackoffMin = time.Millisecond
	lockBackoffMax = 50 * time.Millisecond
)

// Lock takes the lock of key in the cache directory, waiting while another process (or another
// Disk on the same directory) holds it, until ctx ends. Making an entry under its lock, after
// looking for it once more, makes every entry once for all the processes sharing the directory.
// On a file system without such locks it succeeds at once.
//
// A wait that ends with ctx gives ErrLockBusy, and for lockStallFor after it, Lock only tries
// once: a process that holds the lock for long (stopped with Ctrl-Z, or holding the whole
// file) costs the mount one wait, not one for every model. The caller then makes the entry
// without the cache.
func (d *Disk) Lock(ctx context.Context, key Key) (unlock func(), err error) {
	if d.lock.f == nil {
		return func() {}, nil
	}
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0, Start: int64(binary.LittleEndian.Uint64(key[:]) >> 2), Len: 1}
	wait := lockBackoffMin
	stalled := d.lockStalled()
	for {
		err := unix.FcntlFlock(d.lock.f.Fd(), unix.F_OFD_SETLK, &lk)
		if err == nil {
			return func() {
				un := lk
				un.Type = unix.F_UNLCK
				unix.FcntlFlock(d.lock.f.Fd(), unix.F_OFD_SETLK, &un)
			}, nil
		}
		if !errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EACCES) {
			return func() {}, nil // no byte-range locks here: duplicate work at worst
		}
		if stalled {
			return nil, ErrLockBusy
		}
		select {
		case <-ctx.Done():
			d.stallLocks()
			return nil, fmt.Errorf("%w: %w", ErrLockBusy, ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, lockBackoffMax)
	}
}

// holdWhileWriting locks the whole of f, a temporary file being written, for as long as it is
// open, so that cleanTmp can tell a live writer's file from one a killed process left behind.
func holdWhileWriting(f *os.File) {
	lk := unix.Flock_t{Type: unix.F_WRLCK}
	unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk)
}

// abandoned reports whether no live writer holds the temporary file name in tmp.
func abandoned(tmp *folder, name string) bool {
	f, _, err := tmp.open(name, os.O_RDWR)
	if err != nil {
		return false
	}
	defer f.Close()
	lk := unix.Flock_t{Type: unix.F_WRLCK}
	return unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk) == nil
}
