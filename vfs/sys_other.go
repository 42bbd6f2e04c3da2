//go:build !linux && !darwin

package vfs

import (
	"errors"
	"io/fs"
	"os"
)

// oDirectory is 0: there is no such open flag here.
const oDirectory = 0

// statIdentity fills in the mode from fi's (the stat of this system has no inode or ctime
// that the standard library exposes portably); the owner stays 0.
func statIdentity(id *identity, fi fs.FileInfo) {
	id.mode = uint32(fi.Mode().Perm())
	switch {
	case fi.IsDir():
		id.mode |= 0o040000
	case fi.Mode().IsRegular():
		id.mode |= 0o100000
	}
}

// hasACL reports false: only POSIX access ACLs are looked at.
func hasACL(*os.File) bool { return false }

// openedPath reports that the path of an open file is not known here; files are then taken
// to be where their names say.
func openedPath(*os.File) (string, error) { return "", errors.ErrUnsupported }

// rootAt opens rel of parent, just opened as the directory d, as a root of its own, by its
// name: a directory swapped for another in between is the one opened (this system offers no
// way to open a root through a descriptor).
func rootAt(parent *os.Root, _ *os.File, rel string) (*os.Root, error) {
	return parent.OpenRoot(rel)
}
