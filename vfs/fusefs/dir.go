//go:build linux || darwin

package fusefs

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"syscall"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/modelfs/modelfs/vfs"
)

// Lookup finds name in SRC, or, when there is no such entry, a virtual document beside a model,
// translating the model unless the document's size is known (see lookupVirtual).
func (n *dirNode) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	rel := path.Join(n.rel, name)
	fi, err := n.m.tree.Lstat(rel)
	if err == nil {
		return n.lookupReal(ctx, name, rel, fi, out), 0
	}
	if errno := toErrno(err); errno != syscall.ENOENT {
		return nil, errno
	}
	return n.lookupVirtual(ctx, name, nil, true, out)
}

// noAttr is what a READDIRPLUS lookup answers for an entry it gives no attributes: the
// kernel lists the entry all the same and looks it up by name when it is used.
const noAttr = syscall.ENOENT

// lookupReal answers the lookup of an entry of SRC whose Lstat is fi.
func (n *dirNode) lookupReal(ctx context.Context, name, rel string, fi fs.FileInfo, out *fuse.EntryOut) *gofs.Inode {
	if n.m.tree.IsArchive(rel, fi) {
		if in := n.archiveChild(ctx, name, rel, out); in != nil {
			return in
		}
	}
	setAttr(&out.Attr, fi)
	out.SetEntryTimeout(n.m.entryTimeout)
	out.SetAttrTimeout(n.m.attrTimeout)
	return n.passChild(ctx, name, rel, fi)
}

// lookupVirtual answers the lookup of name, which is not an entry of SRC: a virtual document, or
// ENOENT. srcInfo, when not nil, is a fresh Lstat of the source, which saves taking another.
//
// Every answer carries the document's true size: a stat can be answered from the kernel's
// cache with a lookup's attributes even when they were given with timeout 0, so a size the mount
// does not know yet is never answered with a stand-in. When sized is true the model is
// translated first; else (READDIRPLUS, which must not translate a whole folder) the answer is
// noAttr.
func (n *dirNode) lookupVirtual(ctx context.Context, name string, srcInfo fs.FileInfo, sized bool, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	srcName, kind, ok := n.m.tree.Virtual(name)
	if !ok {
		return nil, syscall.ENOENT
	}
	src := path.Join(n.rel, srcName)
	fi := srcInfo
	if fi == nil {
		var err error
		if fi, err = n.m.tree.Lstat(src); err != nil {
			return nil, toErrno(err)
		}
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		var err error
		if fi, err = n.m.tree.FollowLink(src); err != nil {
			return nil, syscall.ENOENT
		}
	}
	if !fi.Mode().IsRegular() {
		return nil, syscall.ENOENT
	}
	v := n.m.tree.Current(src, fi)
	if v == nil || !v.Has(kind) {
		if !sized {
			return nil, noAttr
		}
		n.m.tree.ReadAhead(src)
		var err error
		v, _, err = n.m.tree.Document(ctx, src, fi, kind, vfs.NeedSize)
		var fe *vfs.TranslationError
		if v == nil || err != nil && !errors.As(err, &fe) {
			return nil, toErrno(err)
		}
	}
	virtAttr(&out.Attr, fi, v, kind)
	out.SetEntryTimeout(n.m.entryTimeout)
	out.SetAttrTimeout(n.m.attrTimeout)
	// The node already there serves when it shows this version; else the name gets a new node,
	// so that no page or size of one version is taken for another's.
	if ch := n.GetChild(name); ch != nil {
		if old, ok := ch.Operations().(*virtNode); ok && old.kind == kind && old.src == src && old.shows(v) {
			return ch, 0
		}
	}
	vn := &virtNode{node: node{m: n.m}, src: src, kind: kind, id: v.ID()} // its rel is src's (see node)
	n.m.tree.Hold(1)
	return n.NewInode(ctx, vn, gofs.StableAttr{Mode: syscall.S_IFREG}), 0
}

// passChild returns the node for an entry of SRC, reusing the known one while it is the same
// entry, so that the kernel keeps its inode (and cached pages) across lookups.
func (n *dirNode) passChild(ctx context.Context, name, rel string, fi fs.FileInfo) *gofs.Inode {
	dev, ino, _ := vfs.FileKey(fi)
	mode := fileType(fi.Mode())
	if ch := n.GetChild(name); ch != nil && ch.Mode() == mode {
		if p, ok := ch.Operations().(interface{ pass() *passNode }); ok {
			if pn := p.pass(); pn.dev == dev && pn.ino == ino && pn.rel == rel {
				return ch
			}
		}
	}
	var ops gofs.InodeEmbedder
	switch mode {
	case syscall.S_IFDIR:
		ops = &dirNode{passNode{node: node{m: n.m, rel: rel}, dev: dev, ino: ino}}
	case syscall.S_IFREG:
		ops = &fileNode{passNode: passNode{node: node{m: n.m, rel: rel}, dev: dev, ino: ino}}
	case syscall.S_IFLNK:
		ops = &linkNode{passNode{node: node{m: n.m, rel: rel}, dev: dev, ino: ino}}
	default:
		ops = &specialNode{passNode{node: node{m: n.m, rel: rel}, dev: dev, ino: ino}}
	}
	n.m.tree.Hold(1)
	return n.NewInode(ctx, ops, gofs.StableAttr{Mode: mode})
}

// OnForget notes that the kernel let go of the node.
func (n *node) OnForget() { n.m.tree.Hold(-1) }

func (n *passNode) pass() *passNode { return n }

// Readdir lists the directory as in SRC plus the virtual documents beside each model. It reads
// names and types only; nothing is translated or even stat'ed.
func (n *dirNode) Readdir(ctx context.Context) (gofs.DirStream, syscall.Errno) {
	dir, err := n.m.tree.OpenDir(n.rel)
	if err != nil {
		return nil, toErrno(err)
	}
	defer dir.Close()
	ents, _, errno := n.list(dir)
	if errno != 0 {
		return nil, errno
	}
	return gofs.NewListDirStream(ents), 0
}

// OpendirHandle opens the directory for listing. The handle keeps the directory open, so that
// the lookups of a READDIRPLUS (one per listed entry, six per model) cost one fstatat for an
// entry of SRC and none for a virtual document, whose existence the listing itself shows (and
// which goes without attributes while its size is not known).
func (n *dirNode) OpendirHandle(ctx context.Context, flags uint32) (gofs.FileHandle, uint32, syscall.Errno) {
	dir, err := n.m.tree.OpenDir(n.rel)
	if err != nil {
		return nil, 0, toErrno(err)
	}
	ents, virtual, errno := n.list(dir)
	if errno != 0 {
		dir.Close()
		return nil, 0, errno
	}
	return &dirHandle{dirStream: dirStream{ents: ents}, n: n, dir: dir, virtual: virtual}, 0, 0
}

// dirStream is a listing taken at opendir, read from an offset: what the directory handles of
// a folder of SRC and of an archive share.
type dirStream struct {
	mu   sync.Mutex // guards next, and the fields of the handle that embeds the stream
	ents []fuse.DirEntry
	next int
}

// Readdirent returns the next entry, or nil at the end.
func (s *dirStream) Readdirent(ctx context.Context) (*fuse.DirEntry, syscall.Errno) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.next >= len(s.ents) {
		return nil, 0
	}
	de := s.ents[s.next]
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

// dirHandle is an open directory of SRC.
type dirHandle struct {
	dirStream
	n       *dirNode
	dir     *os.Root // the directory itself, for stats of its entries
	virtual []bool   // by entry: a document that modelfs adds
	// last is the latest Lstat of an entry of SRC that Lookup made: a model's virtual documents
	// are listed right after it, and their key is computed from it.
	last     fs.FileInfo
	lastName string
}

var (
	_ gofs.FileReaddirenter = (*dirHandle)(nil)
	_ gofs.FileSeekdirer    = (*dirHandle)(nil)
	_ gofs.FileLookuper     = (*dirHandle)(nil)
	_ gofs.FileReleasedirer = (*dirHandle)(nil)
)

// Lookup answers the lookup READDIRPLUS makes for each listed entry.
func (h *dirHandle) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	i, found := slices.BinarySearchFunc(h.ents, name, func(e fuse.DirEntry, name string) int { return strings.Compare(e.Name, name) })
	if !found {
		return h.n.Lookup(ctx, name, out)
	}
	if h.virtual[i] {
		var fi fs.FileInfo
		if srcName, _, ok := h.n.m.tree.Virtual(name); ok {
			fi = h.lastInfo(srcName)
		}
		return h.n.lookupVirtual(ctx, name, fi, false, out)
	}
	fi, err := h.dir.Lstat(name)
	if err != nil {
		return nil, toErrno(err)
	}
	h.setLast(name, fi)
	return h.n.lookupReal(ctx, name, path.Join(h.n.rel, name), fi, out), 0
}

// lastInfo returns the Lstat of the entry name when it is the last one looked up, else nil.
func (h *dirHandle) lastInfo(name string) fs.FileInfo {
	h.mu.Lock()
	defer h.mu.Unlock()
	if name == h.lastName {
		return h.last
	}
	return nil
}

func (h *dirHandle) setLast(name string, fi fs.FileInfo) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.last, h.lastName = fi, name
}

// Releasedir closes the directory.
func (h *dirHandle) Releasedir(ctx context.Context, flags uint32) {
	h.dir.Close()
}

// list returns the entries of dir (this node's directory in SRC) as Readdir shows them, sorted
// by name, and which of them are documents modelfs adds.
func (n *dirNode) list(dir *os.Root) ([]fuse.DirEntry, []bool, syscall.Errno) {
	ents, err := n.m.tree.List(dir, n.rel)
	if err != nil {
		return nil, nil, toErrno(err)
	}
	list, virtual := make([]fuse.DirEntry, len(ents)), make([]bool, len(ents))
	for i, e := range ents {
		mode := uint32(syscall.S_IFREG)
		if !e.Virtual {
			mode = fileType(e.Type)
		}
		if e.Archive {
			mode = syscall.S_IFDIR
		}
		list[i], virtual[i] = fuse.DirEntry{Name: e.Name, Mode: mode}, e.Virtual
	}
	return list, virtual, 0
}
