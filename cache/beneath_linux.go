package cache

import (
	"os"

	"golang.org/x/sys/unix"
)

// openBeneath opens the file at the slash path rel below d, as open does, in one system call:
// openat2 refuses a symlink anywhere on the way (RESOLVE_NO_SYMLINKS), a mount point
// (RESOLVE_NO_XDEV), and anything not below d. The folders on the way are not checked as sub
// checks them: a file a folder of someone else's holds is refused by its own check (another
// owner, more than one link), and what this user's folders hold only this user made. A kernel
// without openat2 (before 5.6) opens folder by folder.
func (d *folder) openBeneath(rel string, flag int) (*os.File, int64, error) {
	how := unix.OpenHow{
		Flags:   uint64(flag | unix.O_NOFOLLOW | unix.O_CLOEXEC | unix.O_NONBLOCK),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_XDEV | unix.RESOLVE_NO_MAGICLINKS,
	}
	fd, err := unix.Openat2(d.fd(), rel, &how)
	switch err {
	case nil:
		return d.take(rel, fd, flag)
	case unix.ENOSYS, unix.EPERM: // no openat2 here (or a seccomp filter refusing it)
		return d.openStepwise(rel, flag)
	}
	return nil, 0, d.openErr(rel, err)
}
