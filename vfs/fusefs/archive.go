//go:build linux || darwin

package fusefs

import (
	"context"
	"errors"
	"io"
	"path"
	"sync/atomic"
	"syscall"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/modelfs/modelfs/vfs"
)

// Nodes inside an archive (see vfs.ArchiveView): folders, members served byte for byte, and
// the virtual documents beside models and textures. An archive is unchanged while its file
// is; a changed archive file is a new view, reached through a new lookup of its folder.

// arcNode is what every node inside an archive shares.
type arcNode struct {
	node
	view *vfs.ArchiveView
}

// arcDirNode is a folder of an archive ("." for the archive itself).
type arcDirNode struct{ arcNode }

// arcFileNode is a member of an archive.
type arcFileNode struct{ arcNode }

// arcVirtNode is a virtual document beside a member.
type arcVirtNode struct {
	arcNode
	src  string
	kind vfs.Kind
}

var (
	_ gofs.NodeLookuper       = (*arcDirNode)(nil)
	_ gofs.NodeReaddirer      = (*arcDirNode)(nil)
	_ gofs.NodeOpendirHandler = (*arcDirNode)(nil)
	_ gofs.NodeGetattrer      = (*arcDirNode)(nil)
	_ gofs.NodeOpener         = (*arcFileNode)(nil)
	_ gofs.NodeGetattrer      = (*arcFileNode)(nil)
	_ gofs.NodeOpener         = (*arcVirtNode)(nil)
	_ gofs.NodeGetattrer      = (*arcVirtNode)(nil)
	_ gofs.FileReader         = (*memberHandle)(nil)
	_ gofs.FileReleaser       = (*memberHandle)(nil)
	_ gofs.NodeStatfser       = (*arcDirNode)(nil)
	_ gofs.NodeOnForgetter    = (*arcNode)(nil)
)

// OnForget notes that the kernel let go of the node, and of its hold on the view (a view of an
// archive file since replaced closes once no node holds it).
func (n *arcNode) OnForget() {
	n.node.OnForget()
	n.view.Release()
}

// arcAttr fills out for an entry of the view: the archive file's owner, read bits and time.
func arcAttr(out *fuse.Attr, v *vfs.ArchiveView, dir bool, size int64) {
	uid, gid, perm := v.Owner()
	mode := uint32(syscall.S_IFREG) | uint32(perm)
	if dir {
		mode = syscall.S_IFDIR | uint32(perm) | uint32(perm)>>2 // x where r
	}
	t := v.ModTime()
	*out = fuse.Attr{Mode: mode, Size: uint64(size), Blocks: (uint64(size) + 511) / 512, Nlink: 1,
		Owner: fuse.Owner{Uid: uid, Gid: gid}}
	out.SetTimes(nil, &t, &t)
}

// archiveChild returns the node of the folder an archive of SRC is shown as, with its
// attributes in out, or nil when the archive cannot be opened: it is then shown as the plain
// file it is (and the reason logged).
func (n *dirNode) archiveChild(ctx context.Context, name, rel string, out *fuse.EntryOut) *gofs.Inode {
	v, err := n.m.tree.OpenArchive(rel)
	if err != nil {
		return nil // shown as the plain file it is (the tree core logged why, once)
	}
	arcAttr(&out.Attr, v, true, 0)
	out.SetEntryTimeout(n.m.entryTimeout)
	out.SetAttrTimeout(n.m.attrTimeout)
	if ch := n.GetChild(name); ch != nil {
		if old, ok := ch.Operations().(*arcDirNode); ok && old.view == v {
			return ch
		}
	}
	n.m.tree.Hold(1)
	v.Retain()
	return n.NewInode(ctx, arcRoot(n.m, v), gofs.StableAttr{Mode: syscall.S_IFDIR})
}

// arcRoot is the node of a view's top folder.
func arcRoot(m *mount, v *vfs.ArchiveView) *arcDirNode {
	return &arcDirNode{arcNode{node: node{m: m, rel: "."}, view: v}}
}

// Lookup finds a member, a folder or a virtual document of the archive, translating the member
// unless the document's size is known (see dirNode.lookupVirtual).
func (n *arcDirNode) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	return n.lookup(ctx, name, true, out)
}

// lookup is Lookup; with sized false (READDIRPLUS) a document whose size is not known yet is
// answered noAttr instead of translated.
func (n *arcDirNode) lookup(ctx context.Context, name string, sized bool, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	rel := path.Join(n.rel, name)
	fi, err := n.view.Stat(rel)
	if err == nil {
		// Names in archives are found whatever their case: a node, and what it translates,
		// goes by the archive's own spelling, so that one member is one node and one
		// translation however it is asked for.
		rel = path.Join(n.rel, fi.Name())
		arcAttr(&out.Attr, n.view, fi.IsDir(), fi.Size())
		out.SetEntryTimeout(n.m.entryTimeout)
		out.SetAttrTimeout(n.m.attrTimeout)
		// The node already there serves while it is of this view: the kernel keeps its inode
		// and pages.
		if ch := n.GetChild(name); ch != nil {
			switch old := ch.Operations().(type) {
			case *arcDirNode:
				if fi.IsDir() && old.view == n.view && old.rel == rel {
					return ch, 0
				}
			case *arcFileNode:
				if !fi.IsDir() && old.view == n.view && old.rel == rel {
					return ch, 0
				}
			}
		}
		n.m.tree.Hold(1)
		n.view.Retain()
		if fi.IsDir() {
			return n.NewInode(ctx, &arcDirNode{arcNode{node: node{m: n.m, rel: rel}, view: n.view}}, gofs.StableAttr{Mode: syscall.S_IFDIR}), 0
		}
		return n.NewInode(ctx, &arcFileNode{arcNode{node: node{m: n.m, rel: rel}, view: n.view}}, gofs.StableAttr{Mode: syscall.S_IFREG}), 0
	}
	if errno := toErrno(err); errno != syscall.ENOENT {
		return nil, errno
	}
	srcName, kind, ok := n.m.tree.Virtual(name)
	if !ok {
		return nil, syscall.ENOENT
	}
	src := path.Join(n.rel, srcName)
	fi, err = n.view.Stat(src)
	if err != nil || fi.IsDir() {
		return nil, syscall.ENOENT
	}
	src = path.Join(n.rel, fi.Name()) // the archive's spelling (see above)
	size, known := n.view.KnownSize(src, kind)
	if !known {
		if !sized {
			return nil, noAttr
		}
		var err error
		size, err = n.view.Size(ctx, src, kind)
		var fe *vfs.TranslationError
		if err != nil && !errors.As(err, &fe) {
			return nil, toErrno(err)
		}
	}
	arcAttr(&out.Attr, n.view, false, size)
	out.SetEntryTimeout(n.m.entryTimeout)
	out.SetAttrTimeout(n.m.attrTimeout)
	if ch := n.GetChild(name); ch != nil {
		if old, ok := ch.Operations().(*arcVirtNode); ok && old.view == n.view && old.src == src && old.kind == kind {
			return ch, 0
		}
	}
	n.m.tree.Hold(1)
	n.view.Retain()
	vn := &arcVirtNode{arcNode: arcNode{node: node{m: n.m, rel: src}, view: n.view}, src: src, kind: kind}
	return n.NewInode(ctx, vn, gofs.StableAttr{Mode: syscall.S_IFREG}), 0
}

// Readdir lists the folder with the virtual documents beside each model and texture.
func (n *arcDirNode) Readdir(ctx context.Context) (gofs.DirStream, syscall.Errno) {
	ents, errno := n.list()
	if errno != 0 {
		return nil, errno
	}
	return gofs.NewListDirStream(ents), 0
}

// list returns the entries of the folder, sorted by name.
func (n *arcDirNode) list() ([]fuse.DirEntry, syscall.Errno) {
	list, err := n.view.List(n.rel)
	if err != nil {
		return nil, toErrno(err)
	}
	ents := make([]fuse.DirEntry, len(list))
	for i, e := range list {
		mode := uint32(syscall.S_IFREG)
		if e.Type.IsDir() {
			mode = syscall.S_IFDIR
		}
		ents[i] = fuse.DirEntry{Name: e.Name, Mode: mode}
	}
	return ents, 0
}

// OpendirHandle opens the folder for listing, with a handle that answers READDIRPLUS's lookups
// without translating.
func (n *arcDirNode) OpendirHandle(ctx context.Context, flags uint32) (gofs.FileHandle, uint32, syscall.Errno) {
	ents, errno := n.list()
	if errno != 0 {
		return nil, 0, errno
	}
	return &arcDirHandle{dirStream: dirStream{ents: ents}, n: n}, 0, 0
}

// arcDirHandle is an open folder of an archive.
type arcDirHandle struct {
	dirStream
	n *arcDirNode
}

var (
	_ gofs.FileReaddirenter = (*arcDirHandle)(nil)
	_ gofs.FileSeekdirer    = (*arcDirHandle)(nil)
	_ gofs.FileLookuper     = (*arcDirHandle)(nil)
)

// Lookup answers the lookup READDIRPLUS makes for each listed entry, never translating.
func (h *arcDirHandle) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	return h.n.lookup(ctx, name, false, out)
}

// Getattr reports the folder's attributes.
func (n *arcDirNode) Getattr(ctx context.Context, f gofs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	arcAttr(&out.Attr, n.view, true, 0)
	out.SetTimeout(n.m.attrTimeout)
	return 0
}

// Statfs reports the file system holding SRC.
func (n *arcDirNode) Statfs(ctx context.Context, out *fuse.StatfsOut) syscall.Errno {
	return (&dirNode{passNode{node: node{m: n.m, rel: "."}}}).Statfs(ctx, out)
}

// Getattr reports the member's size.
func (n *arcFileNode) Getattr(ctx context.Context, f gofs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	fi, err := n.view.Stat(n.rel)
	if err != nil {
		return toErrno(err)
	}
	arcAttr(&out.Attr, n.view, false, fi.Size())
	out.SetTimeout(n.m.attrTimeout)
	return 0
}

// Open opens the member: reads decode only the sectors they cover.
func (n *arcFileNode) Open(ctx context.Context, flags uint32) (gofs.FileHandle, uint32, syscall.Errno) {
	if writeFlags(flags) {
		return nil, 0, toErrno(vfs.ErrReadOnly)
	}
	f, err := n.view.Open(n.rel)
	if err != nil {
		return nil, 0, toErrno(err)
	}
	return &memberHandle{f: f, name: n.rel, log: n.m}, fuse.FOPEN_KEEP_CACHE, 0
}

// memberHandle is an open member of an archive.
type memberHandle struct {
	f      vfs.Member
	name   string
	log    *mount
	logged atomic.Bool // a handle logs its first failing read only
}

// Read reads from the member. A sector that cannot be read is an I/O error, logged once here
// with what is wrong in it.
func (h *memberHandle) Read(ctx context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	k, err := h.f.ReadAt(dest, off)
	if err != nil && !errors.Is(err, io.EOF) {
		if !h.logged.Swap(true) {
			h.log.log.Warn("archive member unreadable", "member", h.name, "err", err)
		}
		return nil, syscall.EIO
	}
	return fuse.ReadResultData(dest[:k]), 0
}

// Release closes the member.
func (h *memberHandle) Release(ctx context.Context) syscall.Errno { return toErrno(h.f.Close()) }

// Getattr reports the document's exact size, translating the member the first time.
func (n *arcVirtNode) Getattr(ctx context.Context, f gofs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	size, err := n.view.Size(ctx, n.src, n.kind)
	var fe *vfs.TranslationError
	if err != nil && !errors.As(err, &fe) {
		return toErrno(err)
	}
	arcAttr(&out.Attr, n.view, false, size)
	out.SetTimeout(n.m.attrTimeout)
	return 0
}

// Open translates the member unless its document is cached, and opens the document.
func (n *arcVirtNode) Open(ctx context.Context, flags uint32) (gofs.FileHandle, uint32, syscall.Errno) {
	if writeFlags(flags) {
		return nil, 0, toErrno(vfs.ErrReadOnly)
	}
	data, err := n.view.Document(ctx, n.src, n.kind)
	if err != nil {
		return nil, 0, toErrno(err)
	}
	h := &virtHandle{doc: data}
	arcAttr(&h.attr, n.view, false, data.Size())
	return h, fuse.FOPEN_KEEP_CACHE, 0
}
