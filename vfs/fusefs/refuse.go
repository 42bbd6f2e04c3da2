//go:build linux || darwin

package fusefs

import (
	"context"
	"syscall"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/modelfs/modelfs/vfs"
)

// Read-only: every operation that would change SRC or the tree fails with EROFS.

// Setattr refuses chmod, chown, truncate and utimes.
func (n *node) Setattr(context.Context, gofs.FileHandle, *fuse.SetAttrIn, *fuse.AttrOut) syscall.Errno {
	return toErrno(vfs.ErrReadOnly)
}

// Setxattr refuses to set extended attributes.
func (n *node) Setxattr(context.Context, string, []byte, uint32) syscall.Errno {
	return toErrno(vfs.ErrReadOnly)
}

// Removexattr refuses to remove extended attributes.
func (n *node) Removexattr(context.Context, string) syscall.Errno { return toErrno(vfs.ErrReadOnly) }

// Getxattr answers ENOSYS: the mount has no extended attributes, and the kernel remembers that
// answer for the whole mount instead of asking again for every file (`ls -l` asks for each).
func (n *node) Getxattr(context.Context, string, []byte) (uint32, syscall.Errno) {
	return 0, syscall.ENOSYS
}

// Listxattr answers ENOSYS, for the same reason as Getxattr.
func (n *node) Listxattr(context.Context, []byte) (uint32, syscall.Errno) {
	return 0, syscall.ENOSYS
}

// Create refuses to create files.
func (n *node) Create(context.Context, string, uint32, uint32, *fuse.EntryOut) (*gofs.Inode, gofs.FileHandle, uint32, syscall.Errno) {
	return nil, nil, 0, toErrno(vfs.ErrReadOnly)
}

// Mkdir refuses to make directories.
func (n *node) Mkdir(context.Context, string, uint32, *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	return nil, toErrno(vfs.ErrReadOnly)
}

// Mknod refuses to make device nodes, FIFOs and sockets.
func (n *node) Mknod(context.Context, string, uint32, uint32, *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	return nil, toErrno(vfs.ErrReadOnly)
}

// Unlink refuses to remove files.
func (n *node) Unlink(context.Context, string) syscall.Errno { return toErrno(vfs.ErrReadOnly) }

// Rmdir refuses to remove directories.
func (n *node) Rmdir(context.Context, string) syscall.Errno { return toErrno(vfs.ErrReadOnly) }

// Rename refuses to rename.
func (n *node) Rename(context.Context, string, gofs.InodeEmbedder, string, uint32) syscall.Errno {
	return toErrno(vfs.ErrReadOnly)
}

// Link refuses to make hard links.
func (n *node) Link(context.Context, gofs.InodeEmbedder, string, *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	return nil, toErrno(vfs.ErrReadOnly)
}

// Symlink refuses to make symlinks.
func (n *node) Symlink(context.Context, string, string, *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	return nil, toErrno(vfs.ErrReadOnly)
}

// CopyFileRange refuses to write by copying.
func (n *node) CopyFileRange(context.Context, gofs.FileHandle, uint64, *gofs.Inode, gofs.FileHandle, uint64, uint64, uint64) (uint32, syscall.Errno) {
	return 0, toErrno(vfs.ErrReadOnly)
}

// Allocate refuses fallocate.
func (n *node) Allocate(context.Context, gofs.FileHandle, uint64, uint64, uint32) syscall.Errno {
	return toErrno(vfs.ErrReadOnly)
}

// writeFlags reports whether open flags ask for anything but reading.
func writeFlags(flags uint32) bool {
	return flags&syscall.O_ACCMODE != syscall.O_RDONLY || flags&(syscall.O_TRUNC|syscall.O_CREAT|syscall.O_APPEND) != 0
}
