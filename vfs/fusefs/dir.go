//go:build linux || darwin

package fusefs

import (
	"context"
	"sync"
	"syscall"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/modelfs/modelfs/vfs"
)

// Lookup finds name in the folder: an entry, or a document beside a model or texture, whose
// model is translated unless a cache knows the document's size. Every answer carries the true
// size: a stat can be answered from the kernel's cache with a lookup's attributes even when
// they were given with timeout 0.
func (n *dirNode) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	ctx, answered := n.m.patient(ctx)
	defer answered()
	vn, st, err := n.vn.Lookup(ctx, name)
	if err != nil {
		return nil, toErrno(err)
	}
	return n.child(ctx, name, vn, st, out), 0
}

// noAttr is what a READDIRPLUS lookup answers for an entry it gives no attributes: the
// kernel lists the entry all the same and looks it up by name when it is used.
const noAttr = syscall.ENOENT

// child answers a lookup that found vn, whose attributes are st: with the node already there
// when it shows the same (the kernel keeps its inode and cached pages), else with a new one.
func (n *dirNode) child(ctx context.Context, name string, vn vfs.Node, st vfs.Stat, out *fuse.EntryOut) *gofs.Inode {
	setStat(&out.Attr, st)
	out.SetEntryTimeout(n.m.entryTimeout)
	out.SetAttrTimeout(n.m.attrTimeout)
	if ch := n.GetChild(name); ch != nil {
		if old, ok := ch.Operations().(interface{ shown() *vfs.Node }); ok && old.shown().Same(&vn) {
			vn.Release()
			return ch
		}
	}
	n.m.tree.Hold(1)
	return n.NewInode(ctx, newNode(n.m, vn, st), gofs.StableAttr{Mode: fileType(st.Mode)})
}

// Readdir lists the folder with the documents beside each model and texture. It reads names
// and types only: nothing is translated or even stat'ed.
func (n *dirNode) Readdir(ctx context.Context) (gofs.DirStream, syscall.Errno) {
	ents, err := n.vn.Entries()
	if err != nil {
		return nil, toErrno(err)
	}
	return gofs.NewListDirStream(dirEntries(ents)), 0
}

// OpendirHandle opens the folder for listing. The handle keeps the folder open, so that the
// lookups of a READDIRPLUS (one per listed entry, six per model) cost one fstatat for an entry
// of SRC and none for a document, whose existence the listing itself shows (and which goes
// without attributes while its size is not known: READDIRPLUS never translates).
func (n *dirNode) OpendirHandle(ctx context.Context, flags uint32) (gofs.FileHandle, uint32, syscall.Errno) {
	l, err := n.vn.OpenListing()
	if err != nil {
		return nil, 0, toErrno(err)
	}
	return &dirHandle{dirStream: dirStream{ents: l.Entries}, n: n, l: l}, 0, 0
}

// dirEntries is a listing as the kernel is told it.
func dirEntries(ents []vfs.Entry) []fuse.DirEntry {
	list := make([]fuse.DirEntry, len(ents))
	for i, e := range ents {
		list[i] = dirEntry(e)
	}
	return list
}

// dirEntry is an entry of a listing as the kernel is told it.
func dirEntry(e vfs.Entry) fuse.DirEntry {
	mode := uint32(syscall.S_IFREG)
	if !e.Virtual {
		mode = fileType(e.Type)
	}
	return fuse.DirEntry{Name: e.Name, Mode: mode}
}

// dirStream is a listing taken at opendir (the tree's, not a copy: a folder of 10,000 models
// lists 60,000 entries), read from an offset.
type dirStream struct {
	mu   sync.Mutex // guards next
	ents []vfs.Entry
	next int
}

// Readdirent returns the next entry, or nil at the end.
func (s *dirStream) Readdirent(ctx context.Context) (*fuse.DirEntry, syscall.Errno) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.next >= len(s.ents) {
		return nil, 0
	}
	de := dirEntry(s.ents[s.next])
	s.next++
	de.Off = uint64(s.next) // the offset of the entry after this one
	return &de, 0
}

// Seekdir continues the listing after the entry at offset off (0: from the start).
func (s *dirStream) Seekdir(ctx context.Context, off uint64) syscall.Errno {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next = int(min(off, uint64(len(s.ents))))
	return 0
}

// dirHandle is an open folder.
type dirHandle struct {
	dirStream
	n *dirNode
	l *vfs.Listing
}

var (
	_ gofs.FileReaddirenter = (*dirHandle)(nil)
	_ gofs.FileSeekdirer    = (*dirHandle)(nil)
	_ gofs.FileLookuper     = (*dirHandle)(nil)
	_ gofs.FileReleasedirer = (*dirHandle)(nil)
)

// Lookup answers the lookup READDIRPLUS makes for each listed entry, never translating.
func (h *dirHandle) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	vn, st, err := h.l.Lookup(ctx, name)
	if err != nil {
		return nil, toErrno(err)
	}
	return h.n.child(ctx, name, vn, st, out), 0
}

// Releasedir closes the folder.
func (h *dirHandle) Releasedir(ctx context.Context, flags uint32) { h.l.Close() }

// Statfs reports the file system holding SRC.
func (n *dirNode) Statfs(ctx context.Context, out *fuse.StatfsOut) syscall.Errno {
	d, err := n.m.tree.OpenFile(".")
	if err != nil {
		return toErrno(err)
	}
	defer d.Close()
	var st syscall.Statfs_t
	if err := syscall.Fstatfs(int(d.Fd()), &st); err != nil {
		return toErrno(err)
	}
	out.FromStatfsT(&st)
	return 0
}
