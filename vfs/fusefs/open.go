//go:build linux || darwin

package fusefs

import (
	"context"
	"io"
	"sync/atomic"
	"syscall"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/modelfs/modelfs/vfs"
)

// Open opens the file of SRC for reading. The kernel keeps the pages it cached of the file
// while its content is the one it read them from.
func (n *fileNode) Open(ctx context.Context, flags uint32) (gofs.FileHandle, uint32, syscall.Errno) {
	h, errno := n.open(ctx, flags)
	if errno != 0 {
		return nil, 0, errno
	}
	return h, n.openFlags(h.f.Tag), 0
}

// Open opens the file for reading: a document is translated unless a cache has it. The
// kernel keeps the pages it read of it: the node never shows other content.
func (n *fixedNode) Open(ctx context.Context, flags uint32) (gofs.FileHandle, uint32, syscall.Errno) {
	h, errno := n.open(ctx, flags)
	if errno != 0 {
		return nil, 0, errno
	}
	return h, fuse.FOPEN_KEEP_CACHE, 0
}

// open opens the node's file.
func (n *node) open(ctx context.Context, flags uint32) (*fileHandle, syscall.Errno) {
	if writeFlags(flags) {
		return nil, toErrno(vfs.ErrReadOnly)
	}
	ctx, answered := n.m.patient(ctx)
	defer answered()
	f, err := n.vn.OpenFile(ctx)
	if err != nil {
		return nil, toErrno(err)
	}
	return &fileHandle{f: f, name: n.vn.Path(), m: n.m}, 0
}

// fileHandle is an open file.
type fileHandle struct {
	f      *vfs.File
	name   string
	m      *mount
	logged atomic.Bool // a handle logs its first unreadable read only
}

// Read reads from the file; from where a document's bytes are when the range lies in one
// piece. Bytes that cannot be read where they are stored (a damaged sector of an archive's
// member) are an I/O error, logged once here with what is wrong.
func (h *fileHandle) Read(ctx context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	if b, ok := h.f.Slice(off, int64(len(dest))); ok {
		return fuse.ReadResultData(b), 0
	}
	k, err := h.f.ReadAt(dest, off)
	if err != nil && err != io.EOF {
		if vfs.IsDataError(err) && !h.logged.Swap(true) {
			h.m.log.Warn("file unreadable", "path", h.name, "err", err)
		}
		return nil, toErrno(err)
	}
	return fuse.ReadResultData(dest[:k]), 0
}

// Release closes the file.
func (h *fileHandle) Release(ctx context.Context) syscall.Errno { return toErrno(h.f.Close()) }

var (
	_ gofs.FileReader   = (*fileHandle)(nil)
	_ gofs.FileReleaser = (*fileHandle)(nil)
)
