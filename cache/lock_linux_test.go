package cache

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

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

// A wait for a lock is bounded by its context, and after one ends, waits for locks held
// elsewhere are not waited out for a while: whoever holds the lock file (a process stopped
// with Ctrl-Z, or one that locks all of it) costs the mount one wait, not one per model.
func TestLockWaitsBounded(t *testing.T) {
	dir := t.TempDir()
	a, b := openT(t, dir, 0), openT(t, dir, 0)
	// Another holder of the whole lock file.
	f, err := os.OpenFile(filepath.Join(dir, "state", lockName), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	whole := unixLockAll(t, f)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := a.Lock(ctx, testKey(1)); !errors.Is(err, ErrLockBusy) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a held lock: %v, want ErrLockBusy after the deadline", err)
	}
	start := time.Now()
	for i := range 100 {
		if _, err := a.Lock(context.Background(), testKey(i)); !errors.Is(err, ErrLockBusy) {
			t.Fatalf("key %d after a wait ended: %v, want ErrLockBusy at once", i, err)
		}
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("100 tries of held locks took %v", d)
	}
	whole()
	if u, err := b.Lock(context.Background(), testKey(1)); err != nil {
		t.Fatalf("a lock no one holds: %v", err)
	} else {
		u()
	}
}
