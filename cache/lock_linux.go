package cache

import (
	"context"
	"encoding/binary"
	"errors"
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

func openLock(path string) (lockFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	return lockFile{f}, err
}

func (l lockFile) close() error { return l.f.Close() }

// lockBackoff bounds the wait between two tries of a lock another process holds.
const (
	lockBackoffMin = time.Millisecond
	lockBackoffMax = 50 * time.Millisecond
)

// Lock takes the lock of key in the cache directory, waiting while another process (or another
// Disk on the same directory) holds it, until ctx ends. Making an entry under its lock, after
// looking for it once more, makes every entry once for all the processes sharing the directory.
// On a file system without such locks it succeeds at once.
func (d *Disk) Lock(ctx context.Context, key Key) (unlock func(), err error) {
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0, Start: int64(binary.LittleEndian.Uint64(key[:]) >> 2), Len: 1}
	wait := lockBackoffMin
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
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
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

// abandoned reports whether no live writer holds the temporary file at path.
func abandoned(path string) bool {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	lk := unix.Flock_t{Type: unix.F_WRLCK}
	return unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk) == nil
}
