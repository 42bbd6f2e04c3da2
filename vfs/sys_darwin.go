package vfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// oDirectory makes an open fail on anything but a directory, so that a FIFO put in a
// directory's place is never opened (which would wait for a writer).
const oDirectory = syscall.O_DIRECTORY

// statIdentity fills in what the stat of fi tells beyond its size and mtime: ctime, inode,
// device, mode, owner.
func statIdentity(id *identity, fi fs.FileInfo) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.ctime = st.Ctimespec.Nano()
		id.ino, id.dev = st.Ino, uint64(st.Dev)
		id.mode, id.uid, id.gid = uint32(st.Mode), st.Uid, st.Gid
	}
}

// hasACL reports false: macOS ACLs are not POSIX access ACLs, and the mode is what FUSE's
// default_permissions checks there.
func hasACL(*os.File) bool { return false }

// openedPath reports that the path of an open file is not known here; files are then taken
// to be where their names say.
func openedPath(*os.File) (string, error) { return "", errors.ErrUnsupported }

// rootAt opens the directory d, opened as rel of parent, as a root of its own: through its
// descriptor (/dev/fd duplicates it), so that it is the directory that was checked; by its
// name should /dev/fd refuse.
func rootAt(parent *os.Root, d *os.File, rel string) (*os.Root, error) {
	if r, err := os.OpenRoot(fmt.Sprintf("/dev/fd/%d", d.Fd())); err == nil {
		return r, nil
	}
	return parent.OpenRoot(rel)
}
