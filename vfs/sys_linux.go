package vfs

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// oDirectory makes an open fail on anything but a directory, so that a FIFO put in a
// directory's place is never opened (which would wait for a writer).
const oDirectory = syscall.O_DIRECTORY

// statIdentity fills in what the stat of fi tells beyond its size and mtime: ctime, inode,
// device, mode, owner.
func statIdentity(id *identity, fi fs.FileInfo) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.ctime = st.Ctim.Nano()
		id.ino, id.dev = st.Ino, uint64(st.Dev)
		id.mode, id.uid, id.gid = st.Mode, st.Uid, st.Gid
	}
}

// hasACL reports whether the open file f has a POSIX access ACL.
func hasACL(f *os.File) bool {
	n, err := unix.Fgetxattr(int(f.Fd()), "system.posix_acl_access", nil)
	return err == nil && n > 0
}

// openedPath returns the path the open file f has now, symlinks resolved.
func openedPath(f *os.File) (string, error) {
	return os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
}

// rootAt opens the directory d, opened as rel of parent, as a root of its own: through its
// descriptor, so that it is the directory that was checked.
func rootAt(parent *os.Root, d *os.File, rel string) (*os.Root, error) {
	return os.OpenRoot(fmt.Sprintf("/proc/self/fd/%d", d.Fd()))
}
