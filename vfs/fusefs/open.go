//go:build linux || darwin

package fusefs

import (
	"context"
	"io"
	"os"
	"syscall"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/modelfs/modelfs/vfs"
)

// Open opens the file of SRC for reading.
func (n *fileNode) Open(ctx context.Context, flags uint32) (gofs.FileHandle, uint32, syscall.Errno) {
	if writeFlags(flags) {
		return nil, 0, toErrno(vfs.ErrReadOnly)
	}
	// Without blocking: the entry may have become a FIFO since the lookup.
	f, err := n.m.tree.OpenFile(n.rel)
	if err != nil {
		return nil, 0, toErrno(err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, toErrno(err)
	}
	if !fi.Mode().IsRegular() || !n.same(fi) {
		f.Close()
		return nil, 0, syscall.ESTALE // replaced since the lookup: the kernel looks it up again
	}
	return &fileHandle{f: f}, n.openFlags(identityOf(fi)), 0
}

// fileHandle is an open file of SRC.
type fileHandle struct{ f *os.File }

// Read reads from the file of SRC.
func (h *fileHandle) Read(ctx context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	n, err := h.f.ReadAt(dest, off)
	if err != nil && err != io.EOF {
		return nil, toErrno(err)
	}
	return fuse.ReadResultData(dest[:n]), 0
}

// Release closes the file of SRC.
func (h *fileHandle) Release(ctx context.Context) syscall.Errno {
	return toErrno(h.f.Close())
}

// Open translates the model unless its document is cached and opens the document. The kernel
// may keep the pages it read of it: the node never shows another version.
func (n *virtNode) Open(ctx context.Context, flags uint32) (gofs.FileHandle, uint32, syscall.Errno) {
	if writeFlags(flags) {
		return nil, 0, toErrno(vfs.ErrReadOnly)
	}
	fi, err := n.m.tree.SourceInfo(n.src)
	if err != nil {
		return nil, 0, toErrno(err)
	}
	v, data, err := n.m.tree.Document(ctx, n.src, fi, n.kind, vfs.NeedBytes)
	if v != nil && !n.shows(v) {
		return nil, 0, syscall.ESTALE
	}
	if err != nil {
		return nil, 0, toErrno(err)
	}
	h := &virtHandle{doc: data}
	virtAttr(&h.attr, fi, v, n.kind)
	return h, fuse.FOPEN_KEEP_CACHE, 0
}

// virtHandle is an open virtual document: immutable pieces of the cache, and the attributes
// of its version.
type virtHandle struct {
	doc  vfs.Doc
	attr fuse.Attr
}

// Read serves from the document: from where its bytes are when the range lies in one piece.
func (h *virtHandle) Read(ctx context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	if b, ok := h.doc.Slice(off, int64(len(dest))); ok {
		return fuse.ReadResultData(b), 0
	}
	n, _ := h.doc.ReadAt(dest, off) // io.EOF at the end
	return fuse.ReadResultData(dest[:n]), 0
}

var (
	_ gofs.FileReader   = (*fileHandle)(nil)
	_ gofs.FileReleaser = (*fileHandle)(nil)
)

var _ gofs.FileReader = (*virtHandle)(nil)
