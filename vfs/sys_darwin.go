package vfs

import (
	"errors"
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

// rootAt opens rel of parent, just opened as the directory d, as a root of its own.
func rootAt(parent *os.Root, _ *os.File, rel string) (*os.Root, error) {
	return parent.OpenRoot(rel)
}
