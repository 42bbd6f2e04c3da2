package cache

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// unixLockAll locks the whole of f as another process would, and returns the unlock.
func unixLockAll(t *testing.T, f *os.File) func() {
	t.Helper()
	lk := unix.Flock_t{Type: unix.F_WRLCK}
	if err := unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk); err != nil {
		t.Fatal(err)
	}
	return func() {
		lk.Type = unix.F_UNLCK
		unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk)
	}
}
