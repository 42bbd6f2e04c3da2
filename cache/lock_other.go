//go:build !linux

package cache

import (
	"context"
	"os"
)

// lockFile is a placeholder where open-file-description locks are not available: processes
// sharing a cache directory may then make one entry twice, which costs time, never bytes.
type lockFile struct{ f *os.File }

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

// Lock succeeds at once: see lockFile.
func (d *Disk) Lock(ctx context.Context, key Key) (unlock func(), err error) {
	return func() {}, ctx.Err()
}

// holdWhileWriting does nothing here: cleanTmp goes by age alone.
func holdWhileWriting(f *os.File) {}

// abandoned reports false: without locks, only age tells (see cleanTmp).
func abandoned(tmp *folder, name string) bool { return false }
