package vfs

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"syscall"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/modelfs/modelfs/cache"
	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
)

// node is what every node of the tree shares: its place in SRC and the read-only refusals.
type node struct {
	gofs.Inode
	fsys *fsys
	rel  string // slash-separated path relative to SRC; "." for the root; "" for a virtual document
}

// passNode is a node mirroring an entry of SRC; dev and ino tell whether a later lookup still
// finds the same entry.
type passNode struct {
	node
	dev, ino uint64
}

// dirNode is a directory of SRC.
type dirNode struct{ passNode }

// fileNode is a regular file of SRC, served byte for byte.
type fileNode struct {
	passNode
	cacheState[identity]
}

// linkNode is a symlink of SRC, shown as stored.
type linkNode struct{ passNode }

// specialNode is a FIFO, socket or device node of SRC: attributes only.
type specialNode struct{ passNode }

// virtNode is a virtual document NAME.EXT.KIND beside the model NAME.EXT. Each node shows one
// version of the document, the first it is asked about: the kernel keeps pages and a size per
// inode, so a new version gets a new inode (see lookupVirtual), and a node asked about after its
// version was superseded answers ESTALE, on which the kernel looks the name up again and gets
// the new one, while handles opened on the old node read the old version to its end.
type virtNode struct {
	node
	src  string // the model's path, relative to SRC
	kind translate.Kind

	mu    sync.Mutex
	bound bool
	id    cache.Key // the id of the version shown, once bound
}

// shows binds n to v if it shows no version yet, and reports whether it shows v.
func (n *virtNode) shows(v *version) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.bound {
		n.bound, n.id = true, v.id
	}
	return n.id == v.id
}

// unbound reports whether n has not shown any version yet.
func (n *virtNode) unbound() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return !n.bound
}

// cacheState remembers the content of a file's last open — a passthrough file's identity, a
// virtual document's key — so that the kernel keeps its cached pages only while the content is
// unchanged (FOPEN_KEEP_CACHE). It holds the key itself, not a string of it: a folder of 10,000
// models has 60,000 of these.
type cacheState[K comparable] struct {
	mu   sync.Mutex
	last K
	set  bool
}

// openFlags returns the FUSE open flags for content named key and remembers key.
func (c *cacheState[K]) openFlags(key K) uint32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	keep := c.set && c.last == key
	c.last, c.set = key, true
	if keep {
		return fuse.FOPEN_KEEP_CACHE
	}
	return 0
}

var (
	_ gofs.NodeLookuper       = (*dirNode)(nil)
	_ gofs.NodeReaddirer      = (*dirNode)(nil)
	_ gofs.NodeOpendirHandler = (*dirNode)(nil)
	_ gofs.NodeGetattrer      = (*dirNode)(nil)
	_ gofs.NodeStatfser       = (*dirNode)(nil)
	_ gofs.NodeOpener         = (*fileNode)(nil)
	_ gofs.NodeGetattrer      = (*fileNode)(nil)
	_ gofs.NodeReadlinker     = (*linkNode)(nil)
	_ gofs.NodeGetattrer      = (*linkNode)(nil)
	_ gofs.NodeGetattrer      = (*specialNode)(nil)
	_ gofs.NodeOpener         = (*virtNode)(nil)
	_ gofs.NodeGetattrer      = (*virtNode)(nil)

	_ gofs.NodeSetattrer      = (*node)(nil)
	_ gofs.NodeSetxattrer     = (*node)(nil)
	_ gofs.NodeRemovexattrer  = (*node)(nil)
	_ gofs.NodeCreater        = (*node)(nil)
	_ gofs.NodeMkdirer        = (*node)(nil)
	_ gofs.NodeMknoder        = (*node)(nil)
	_ gofs.NodeUnlinker       = (*node)(nil)
	_ gofs.NodeRmdirer        = (*node)(nil)
	_ gofs.NodeRenamer        = (*node)(nil)
	_ gofs.NodeLinker         = (*node)(nil)
	_ gofs.NodeSymlinker      = (*node)(nil)
	_ gofs.NodeCopyFileRanger = (*node)(nil)
	_ gofs.NodeAllocater      = (*node)(nil)
	_ gofs.NodeOnForgetter    = (*node)(nil)
)

// Read-only: every operation that would change SRC or the tree fails with EROFS.

// Setattr refuses chmod, chown, truncate and utimes.
func (n *node) Setattr(context.Context, gofs.FileHandle, *fuse.SetAttrIn, *fuse.AttrOut) syscall.Errno {
	return toErrno(errReadOnly)
}

// Setxattr refuses to set extended attributes.
func (n *node) Setxattr(context.Context, string, []byte, uint32) syscall.Errno {
	return toErrno(errReadOnly)
}

// Removexattr refuses to remove extended attributes.
func (n *node) Removexattr(context.Context, string) syscall.Errno { return toErrno(errReadOnly) }

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
	return nil, nil, 0, toErrno(errReadOnly)
}

// Mkdir refuses to make directories.
func (n *node) Mkdir(context.Context, string, uint32, *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	return nil, toErrno(errReadOnly)
}

// Mknod refuses to make device nodes, FIFOs and sockets.
func (n *node) Mknod(context.Context, string, uint32, uint32, *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	return nil, toErrno(errReadOnly)
}

// Unlink refuses to remove files.
func (n *node) Unlink(context.Context, string) syscall.Errno { return toErrno(errReadOnly) }

// Rmdir refuses to remove directories.
func (n *node) Rmdir(context.Context, string) syscall.Errno { return toErrno(errReadOnly) }

// Rename refuses to rename.
func (n *node) Rename(context.Context, string, gofs.InodeEmbedder, string, uint32) syscall.Errno {
	return toErrno(errReadOnly)
}

// Link refuses to make hard links.
func (n *node) Link(context.Context, gofs.InodeEmbedder, string, *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	return nil, toErrno(errReadOnly)
}

// Symlink refuses to make symlinks.
func (n *node) Symlink(context.Context, string, string, *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	return nil, toErrno(errReadOnly)
}

// CopyFileRange refuses to write by copying.
func (n *node) CopyFileRange(context.Context, gofs.FileHandle, uint64, *gofs.Inode, gofs.FileHandle, uint64, uint64, uint64) (uint32, syscall.Errno) {
	return 0, toErrno(errReadOnly)
}

// Allocate refuses fallocate.
func (n *node) Allocate(context.Context, gofs.FileHandle, uint64, uint64, uint32) syscall.Errno {
	return toErrno(errReadOnly)
}

// writeFlags reports whether open flags ask for anything but reading.
func writeFlags(flags uint32) bool {
	return flags&syscall.O_ACCMODE != syscall.O_RDONLY || flags&(syscall.O_TRUNC|syscall.O_CREAT|syscall.O_APPEND) != 0
}

// setAttr fills out from an Lstat of SRC.
func setAttr(out *fuse.Attr, fi fs.FileInfo) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		out.FromStat(st)
	} else {
		*out = *fuse.ToAttr(fi)
	}
	out.Ino = 0 // the mount numbers its own inodes
}

// attrOf is the Getattr of every node mirroring SRC. An entry of that name that is not the
// node's (replaced since the lookup) answers ESTALE: the kernel then looks the name up again,
// as a native file system would have found the new entry. A directory replaced by another shows
// the new one's attributes, as its listings do: a shell sitting in it must not get ESTALE from
// every stat of ".".
func (n *passNode) attrOf(out *fuse.AttrOut) syscall.Errno {
	fi, err := n.fsys.root.Lstat(n.rel)
	if err != nil {
		return toErrno(err)
	}
	if !n.same(fi) && (n.Mode() != syscall.S_IFDIR || !fi.IsDir()) {
		return syscall.ESTALE
	}
	setAttr(&out.Attr, fi)
	out.SetTimeout(n.fsys.opt.AttrTimeout)
	return 0
}

// same reports whether fi is of the entry the node mirrors.
func (n *passNode) same(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || n.dev == 0 && n.ino == 0 || uint64(st.Dev) == n.dev && st.Ino == n.ino
}

// Getattr reports the directory's attributes as in SRC.
func (n *dirNode) Getattr(ctx context.Context, f gofs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	return n.attrOf(out)
}

// Getattr reports the file's attributes as in SRC: with a handle open, those of the file it
// reads, as fstat on a native file does after the name was given to another.
func (n *fileNode) Getattr(ctx context.Context, f gofs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	if h, ok := f.(*fileHandle); ok {
		if fi, err := h.f.Stat(); err == nil {
			setAttr(&out.Attr, fi)
			out.SetTimeout(n.fsys.opt.AttrTimeout)
			return 0
		}
	}
	return n.attrOf(out)
}

// Getattr reports the symlink's attributes as in SRC.
func (n *linkNode) Getattr(ctx context.Context, f gofs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	return n.attrOf(out)
}

// Getattr reports the special file's attributes as in SRC.
func (n *specialNode) Getattr(ctx context.Context, f gofs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	return n.attrOf(out)
}

// Statfs reports the file system holding SRC.
func (n *dirNode) Statfs(ctx context.Context, out *fuse.StatfsOut) syscall.Errno {
	d, err := n.fsys.root.Open(".")
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

// Readlink returns the symlink's target as stored.
func (n *linkNode) Readlink(ctx context.Context) ([]byte, syscall.Errno) {
	target, err := n.fsys.root.Readlink(n.rel)
	if err != nil {
		return nil, toErrno(err)
	}
	return []byte(target), 0
}

// Lookup finds name in SRC, or, when there is no such entry, a virtual document beside a model.
// It never translates: a virtual document whose size is not cached is answered with attribute
// timeout 0, so that the kernel asks Getattr for the size.
func (n *dirNode) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	rel := path.Join(n.rel, name)
	fi, err := n.fsys.root.Lstat(rel)
	if err == nil {
		return n.lookupReal(ctx, name, rel, fi, out), 0
	}
	if errno := toErrno(err); errno != syscall.ENOENT {
		return nil, errno
	}
	return n.lookupVirtual(ctx, name, nil, out)
}

// lookupReal answers the lookup of an entry of SRC whose Lstat is fi.
func (n *dirNode) lookupReal(ctx context.Context, name, rel string, fi fs.FileInfo, out *fuse.EntryOut) *gofs.Inode {
	setAttr(&out.Attr, fi)
	out.SetEntryTimeout(n.fsys.opt.EntryTimeout)
	out.SetAttrTimeout(n.fsys.opt.AttrTimeout)
	return n.passChild(ctx, name, rel, fi)
}

// lookupVirtual answers the lookup of name, which is not an entry of SRC: a virtual document, or
// ENOENT. srcInfo, when not nil, is a fresh Lstat of the source, which saves taking another. It
// never translates: the size comes from the model's current version when the mount has one,
// else the attributes are given with timeout 0, so that the kernel asks Getattr for the size.
func (n *dirNode) lookupVirtual(ctx context.Context, name string, srcInfo fs.FileInfo, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	srcName, kind, ok := n.fsys.virtualName(name)
	if !ok {
		return nil, syscall.ENOENT
	}
	src := path.Join(n.rel, srcName)
	fi := srcInfo
	if fi == nil {
		var err error
		if fi, err = n.fsys.root.Lstat(src); err != nil {
			return nil, toErrno(err)
		}
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		var err error
		if fi, err = n.fsys.followLink(src); err != nil {
			return nil, syscall.ENOENT
		}
	}
	if !fi.Mode().IsRegular() {
		return nil, syscall.ENOENT
	}
	v := n.fsys.currentVersion(src, fi)
	virtAttr(&out.Attr, fi, v, kind)
	out.SetEntryTimeout(n.fsys.opt.EntryTimeout)
	if v != nil && v.has(kind) {
		out.SetAttrTimeout(n.fsys.opt.AttrTimeout)
	}
	// The node already there serves when it shows this version, or none yet while this one is
	// not known; else the name gets a new node, so that no page or size of one version is
	// taken for another's.
	if ch := n.GetChild(name); ch != nil {
		if old, ok := ch.Operations().(*virtNode); ok && old.kind == kind && old.src == src {
			if v == nil && old.unbound() || v != nil && old.shows(v) {
				return ch, 0
			}
		}
	}
	vn := &virtNode{node: node{fsys: n.fsys}, src: src, kind: kind} // its rel is src's (see node)
	if v != nil {
		vn.shows(v)
	}
	n.fsys.nodes.Add(1)
	return n.NewInode(ctx, vn, gofs.StableAttr{Mode: syscall.S_IFREG}), 0
}

// passChild returns the node for an entry of SRC, reusing the known one while it is the same
// entry, so that the kernel keeps its inode (and cached pages) across lookups.
func (n *dirNode) passChild(ctx context.Context, name, rel string, fi fs.FileInfo) *gofs.Inode {
	var dev, ino uint64
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		dev, ino = st.Dev, st.Ino
	}
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
		ops = &dirNode{passNode{node: node{fsys: n.fsys, rel: rel}, dev: dev, ino: ino}}
	case syscall.S_IFREG:
		ops = &fileNode{passNode: passNode{node: node{fsys: n.fsys, rel: rel}, dev: dev, ino: ino}}
	case syscall.S_IFLNK:
		ops = &linkNode{passNode{node: node{fsys: n.fsys, rel: rel}, dev: dev, ino: ino}}
	default:
		ops = &specialNode{passNode{node: node{fsys: n.fsys, rel: rel}, dev: dev, ino: ino}}
	}
	n.fsys.nodes.Add(1)
	return n.NewInode(ctx, ops, gofs.StableAttr{Mode: mode})
}

// OnForget notes that the kernel let go of the node.
func (n *node) OnForget() { n.fsys.nodes.Add(-1) }

func (n *passNode) pass() *passNode { return n }

// fileType returns the S_IFMT bits of m.
func fileType(m fs.FileMode) uint32 {
	switch m.Type() {
	case fs.ModeDir:
		return syscall.S_IFDIR
	case fs.ModeSymlink:
		return syscall.S_IFLNK
	case fs.ModeNamedPipe:
		return syscall.S_IFIFO
	case fs.ModeSocket:
		return syscall.S_IFSOCK
	case fs.ModeDevice:
		return syscall.S_IFBLK
	case fs.ModeDevice | fs.ModeCharDevice:
		return syscall.S_IFCHR
	}
	return syscall.S_IFREG
}

// Readdir lists the directory as in SRC plus the virtual documents beside each model. It reads
// names and types only; nothing is translated or even stat'ed.
func (n *dirNode) Readdir(ctx context.Context) (gofs.DirStream, syscall.Errno) {
	dir, err := n.fsys.openDir(n.rel)
	if err != nil {
		return nil, toErrno(err)
	}
	defer dir.Close()
	list, errno := n.list(dir)
	if errno != 0 {
		return nil, errno
	}
	ents := make([]fuse.DirEntry, len(list))
	for i, e := range list {
		ents[i] = e.DirEntry
	}
	return gofs.NewListDirStream(ents), 0
}

// OpendirHandle opens the directory for listing. The handle keeps the directory open, so that
// the lookups of a READDIRPLUS (one per listed entry, six per model) cost one fstatat for an
// entry of SRC and none for a virtual document, whose existence the listing itself shows.
func (n *dirNode) OpendirHandle(ctx context.Context, flags uint32) (gofs.FileHandle, uint32, syscall.Errno) {
	dir, err := n.fsys.openDir(n.rel)
	if err != nil {
		return nil, 0, toErrno(err)
	}
	list, errno := n.list(dir)
	if errno != 0 {
		dir.Close()
		return nil, 0, errno
	}
	return &dirHandle{n: n, dir: dir, ents: list}, 0, 0
}

// dirHandle is an open directory: the listing taken at opendir, read from an offset.
type dirHandle struct {
	n    *dirNode
	dir  *os.Root // the directory itself, for stats of its entries
	ents []dirEntry

	mu   sync.Mutex
	next int
	// last is the latest Lstat of an entry of SRC that Lookup made: a model's virtual documents
	// are listed right after it, and their key is computed from it.
	last     fs.FileInfo
	lastName string
}

// dirEntry is one listed entry; virtual is true for a document that modelfs adds.
type dirEntry struct {
	fuse.DirEntry
	virtual bool
}

var (
	_ gofs.FileReaddirenter = (*dirHandle)(nil)
	_ gofs.FileSeekdirer    = (*dirHandle)(nil)
	_ gofs.FileLookuper     = (*dirHandle)(nil)
	_ gofs.FileReleasedirer = (*dirHandle)(nil)
)

// Readdirent returns the next entry, or nil at the end.
func (h *dirHandle) Readdirent(ctx context.Context) (*fuse.DirEntry, syscall.Errno) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.next >= len(h.ents) {
		return nil, 0
	}
	de := h.ents[h.next].DirEntry
	h.next++
	de.Off = uint64(h.next) // the offset of the entry after this one
	return &de, 0
}

// Seekdir continues the listing after the entry at offset off (0: from the start).
func (h *dirHandle) Seekdir(ctx context.Context, off uint64) syscall.Errno {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.next = int(min(off, uint64(len(h.ents))))
	return 0
}

// Lookup answers the lookup READDIRPLUS makes for each listed entry.
func (h *dirHandle) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {

	i, found := slices.BinarySearchFunc(h.ents, name, func(e dirEntry, name string) int { return strings.Compare(e.Name, name) })
	if !found {
		return h.n.Lookup(ctx, name, out)
	}
	if h.ents[i].virtual {
		var fi fs.FileInfo
		if srcName, _, ok := h.n.fsys.virtualName(name); ok {
			h.mu.Lock()
			if srcName == h.lastName {
				fi = h.last
			}
			h.mu.Unlock()
		}
		return h.n.lookupVirtual(ctx, name, fi, out)
	}
	fi, err := h.dir.Lstat(name)
	if err != nil {
		return nil, toErrno(err)
	}
	h.mu.Lock()
	h.last, h.lastName = fi, name
	h.mu.Unlock()
	return h.n.lookupReal(ctx, name, path.Join(h.n.rel, name), fi, out), 0
}

// Releasedir closes the directory.
func (h *dirHandle) Releasedir(ctx context.Context, flags uint32) {
	h.dir.Close()
}

// list returns the entries of dir (this node's directory in SRC) as Readdir shows them, sorted
// by name.
func (n *dirNode) list(dir *os.Root) ([]dirEntry, syscall.Errno) {
	d, err := dir.Open(".")
	if err != nil {
		return nil, toErrno(err)
	}
	ents, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return nil, toErrno(err)
	}
	real := make(map[string]bool, len(ents))
	for _, e := range ents {
		real[e.Name()] = true
	}
	list := make([]dirEntry, 0, len(ents))
	for _, e := range ents {
		list = append(list, dirEntry{DirEntry: fuse.DirEntry{Name: e.Name(), Mode: fileType(e.Type())}})
		if !e.Type().IsRegular() && !n.linkToSource(e) {
			continue
		}
		for _, k := range n.fsys.opt.Kinds {
			if v := e.Name() + "." + string(k); sourceOf(e.Name(), k) && !real[v] {
				list = append(list, dirEntry{DirEntry: fuse.DirEntry{Name: v, Mode: syscall.S_IFREG}, virtual: true})
			}
		}
	}
	slices.SortFunc(list, func(a, b dirEntry) int { return strings.Compare(a.Name, b.Name) })
	return list, 0
}

// linkToSource reports whether e is a symlink to a regular file inside SRC that has virtual
// files: a model or a texture, which a translation reads through the link.
func (n *dirNode) linkToSource(e fs.DirEntry) bool {
	if e.Type()&fs.ModeSymlink == 0 || !codec.IsModelName(e.Name()) && !codec.IsTextureName(e.Name()) {
		return false
	}
	fi, err := n.fsys.followLink(path.Join(n.rel, e.Name()))
	return err == nil && fi.Mode().IsRegular()
}

// Open opens the file of SRC for reading.
func (n *fileNode) Open(ctx context.Context, flags uint32) (gofs.FileHandle, uint32, syscall.Errno) {
	if writeFlags(flags) {
		return nil, 0, toErrno(errReadOnly)
	}
	// Without blocking: the entry may have become a FIFO since the lookup.
	f, err := n.fsys.root.OpenFile(n.rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
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

var (
	_ gofs.FileReader   = (*fileHandle)(nil)
	_ gofs.FileReleaser = (*fileHandle)(nil)
)

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

// virtAttr fills out for the virtual document of kind of the model whose Lstat is fi and whose
// current version is v (nil when not known yet): the source's owner and times (mtime: the
// newest of source and what its translation read), the read bits the source and all it was
// made from grant (see access; the source's alone while v is not known), one link, the
// document's size.
func virtAttr(out *fuse.Attr, fi fs.FileInfo, v *version, kind translate.Kind) {
	setAttr(out, fi)
	size, mtime := int64(0), fi.ModTime().UnixNano()
	perm := uint32(fi.Mode().Perm()) & 0o444 // the source's as it is now: a chmod shows at once
	if v != nil {
		size, mtime, perm = v.size(kind), max(mtime, v.mtime), perm&v.perm.Load()
	}
	out.Mode = syscall.S_IFREG | perm
	out.Size = uint64(size)
	out.Blocks = (uint64(size) + 511) / 512
	out.Nlink = 1
	out.Rdev = 0
	out.Mtime, out.Mtimensec = uint64(mtime/1e9), uint32(mtime%1e9)
}

// Getattr reports the document's exact size, translating the model unless its version is
// known. A model that fails to translate has size 0 here (and its open fails). With a handle
// open, the node shows the handle's version; else a node whose version was superseded answers
// ESTALE, and the kernel looks the name up again.
func (n *virtNode) Getattr(ctx context.Context, f gofs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	if h, ok := f.(*virtHandle); ok {
		out.Attr = h.attr
		out.SetTimeout(n.fsys.opt.AttrTimeout)
		return 0
	}
	fi, err := n.fsys.sourceInfo(n.src)
	if err != nil {
		return toErrno(err)
	}
	if v := n.fsys.currentVersion(n.src, fi); v == nil || !v.has(n.kind) {
		n.fsys.readAhead(n.src)
	}
	v, _, err := n.fsys.get(ctx, n.src, fi, n.kind, needSize)
	var fe *failure
	if v == nil || err != nil && !errors.As(err, &fe) {
		return toErrno(err)
	}
	if !n.shows(v) {
		return syscall.ESTALE
	}
	virtAttr(&out.Attr, fi, v, n.kind)
	out.SetTimeout(n.fsys.opt.AttrTimeout)
	return 0
}

// Open translates the model unless its document is cached and opens the document. The kernel
// may keep the pages it read of it: the node never shows another version.
func (n *virtNode) Open(ctx context.Context, flags uint32) (gofs.FileHandle, uint32, syscall.Errno) {
	if writeFlags(flags) {
		return nil, 0, toErrno(errReadOnly)
	}
	fi, err := n.fsys.sourceInfo(n.src)
	if err != nil {
		return nil, 0, toErrno(err)
	}
	v, data, err := n.fsys.get(ctx, n.src, fi, n.kind, needBytes)
	if v != nil && !n.shows(v) {
		return nil, 0, syscall.ESTALE
	}
	if err != nil {
		return nil, 0, toErrno(err)
	}
	h := &virtHandle{data: data}
	virtAttr(&h.attr, fi, v, n.kind)
	return h, fuse.FOPEN_KEEP_CACHE, 0
}

// virtHandle is an open virtual document: an immutable slice of the cache, and the attributes
// of its version.
type virtHandle struct {
	data []byte
	attr fuse.Attr
}

var _ gofs.FileReader = (*virtHandle)(nil)

// Read copies from the document.
func (h *virtHandle) Read(ctx context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	if off >= int64(len(h.data)) || off < 0 {
		return fuse.ReadResultData(nil), 0
	}
	end := min(off+int64(len(dest)), int64(len(h.data)))
	return fuse.ReadResultData(h.data[off:end]), 0
}
