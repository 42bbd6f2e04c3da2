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
	"sync/atomic"
	"syscall"
	"time"
)

// The tree as a mounted file system shows it. A file system looks names up one folder at a
// time and keeps the nodes it found as long as the kernel does; entries are shown as stored
// (a symlink as a link, a FIFO as a FIFO), archives as folders, and the virtual documents
// beside models and textures. Whether a node is of SRC or of an archive is the tree's concern
// alone: a front end sees nodes, their attributes (Stat), and whether a node found now is one
// it already has (Same).

// ErrStale is the error of a node whose entry was replaced since its lookup, or whose document
// was superseded by a new version: the kernel looks the name up again and gets a new node,
// while files already open on the old one read what they opened.
var ErrStale = errors.New("stale node: looked up again")

// ErrNoAttr is the answer of a lookup that must not translate (Listing.Lookup) for a document
// whose size no cache knows yet: it is listed all the same and looked up by name when used.
var ErrNoAttr = errors.New("attributes not known without translating")

// Stat is a node's attributes as a file system shows them.
type Stat struct {
	// Sys is the entry of SRC the attributes come from — the node's own, or a document's
	// source — with its owner, links and times; nil inside an archive.
	Sys fs.FileInfo
	Own bool // Sys as it is: the node is that entry

	Mode     fs.FileMode // type and permission bits
	Size     int64
	MTime    time.Time // the change time too when Sys is nil
	Uid, Gid uint32    // the owner when Sys is nil
}

// ownStat is the Stat of an entry of SRC whose Lstat is fi.
func ownStat(fi fs.FileInfo) Stat {
	return Stat{Sys: fi, Own: true, Mode: fi.Mode(), Size: fi.Size(), MTime: fi.ModTime()}
}

// Top returns the node of the top folder.
func (s *Shown) Top() (*Node, error) { return s.Resolve("/", false) }

// Lookup finds the entry name of the folder n as a file system shows it, with its attributes:
// for a document whose size no cache knows, its model is translated first (a stat can be
// answered from a lookup's attributes, so no stand-in size is ever given). The node serves a
// file system's operations (Lookup, OpenListing, Attr, OpenFile, Readlink, Same) until Drop;
// Stat, Open and ReadDir are for nodes Resolve gives.
// The node is a value, for a file system to keep within its own: one allocation per node.
func (n *Node) Lookup(ctx context.Context, name string) (Node, Stat, error) {
	return n.lookup(ctx, name, nil, true)
}

// lookup is Lookup; hint, when not nil, is an open listing of the folder to take stats from,
// and unless sized a document whose size is not known is ErrNoAttr.
func (n *Node) lookup(ctx context.Context, name string, hint *Listing, sized bool) (Node, Stat, error) {
	if err := n.usable(); err != nil {
		return Node{}, Stat{}, err
	}
	if !n.dir {
		return Node{}, Stat{}, &fs.PathError{Op: "lookup", Path: n.Path(), Err: syscall.ENOTDIR}
	}
	c := n.entry()
	st, err := c.enter(ctx, name, hint, sized)
	if err != nil {
		c.Release()
		return Node{}, Stat{}, err
	}
	return c, st, nil
}

// entry is n, about to step to one of its entries by lookup: a node of its own holding n's
// view, named by its path in the tree alone (see Path): a mount keeps 60,000 nodes for a
// folder of 10,000 models.
func (n *Node) entry() Node {
	if n.view != nil {
		n.view.Retain()
	}
	return Node{s: n.s, view: n.view, rel: n.rel, fi: n.fi, dir: true}
}

// enter makes c, a child of its folder, the entry name there.
func (c *Node) enter(ctx context.Context, name string, hint *Listing, sized bool) (Stat, error) {
	if c.view != nil {
		rel := path.Join(c.rel, name)
		fi, err := c.view.Stat(rel)
		if errors.Is(err, fs.ErrNotExist) {
			return c.enterVirtual(ctx, name, nil, sized)
		}
		if err != nil {
			return Stat{}, err
		}
		// The archive's own spelling, whatever case was asked: one member is one node and
		// one translation however it is asked for.
		c.rel, c.fi, c.dir = path.Join(c.rel, fi.Name()), fi, fi.IsDir()
		return c.archiveStat(fi.Size()), nil
	}
	t := c.s.t
	rel := path.Join(c.rel, name)
	var fi fs.FileInfo
	var err error
	if hint != nil {
		fi, err = hint.lstat(name)
	} else {
		fi, err = t.Lstat(rel)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return c.enterVirtual(ctx, name, nil, sized)
	}
	if err != nil {
		return Stat{}, err
	}
	if t.IsArchive(rel, fi) {
		if v, err := t.OpenArchive(rel); err == nil {
			v.Retain()
			c.view, c.rel, c.fi, c.dir = v, ".", nil, true
			return c.archiveStat(0), nil
		}
		// An archive that cannot be opened is the plain file it is (the tree core logged why).
	}
	c.rel, c.fi, c.dir = rel, stampOf(fi), fi.IsDir()
	return ownStat(fi), nil
}

// entryStamp is what a node found by Lookup keeps of its entry of SRC in place of the
// entry's attributes: its type and file, to tell whether a later look finds the same (see
// Same). A folder of 10,000 models keeps 10,000 of these, and a mount's memory is mostly
// documents.
type entryStamp struct {
	mode     fs.FileMode
	dev, ino uint64
}

func stampOf(fi fs.FileInfo) *entryStamp {
	dev, ino, _ := FileKey(fi)
	return &entryStamp{mode: fi.Mode(), dev: dev, ino: ino}
}

func (s *entryStamp) Name() string       { return "" }
func (s *entryStamp) Size() int64        { return 0 }
func (s *entryStamp) Mode() fs.FileMode  { return s.mode }
func (s *entryStamp) ModTime() time.Time { return time.Time{} }
func (s *entryStamp) IsDir() bool        { return s.mode.IsDir() }
func (s *entryStamp) Sys() any           { return nil }

// fileOfEntry returns the device and inode of the entry fi tells of (a stamp, or an Lstat).
func fileOfEntry(fi fs.FileInfo) (dev, ino uint64) {
	if s, ok := fi.(*entryStamp); ok {
		return s.dev, s.ino
	}
	dev, ino, _ = FileKey(fi)
	return dev, ino
}

// enterVirtual makes c the virtual document name of its folder, when name is one beside a
// model or texture there. srcInfo, when not nil, is a fresh Lstat of the source in SRC.
func (c *Node) enterVirtual(ctx context.Context, name string, srcInfo fs.FileInfo, sized bool) (Stat, error) {
	t := c.s.t
	src, kind, fi, err := c.docSource(name, srcInfo)
	if errors.Is(err, fs.ErrNotExist) {
		return Stat{}, notExist(c.Path())
	}
	if err != nil {
		return Stat{}, err
	}
	if c.view != nil {
		size, known := c.view.KnownSize(src, kind)
		if !known {
			if !sized {
				return Stat{}, ErrNoAttr
			}
			if size, err = c.view.Size(ctx, src, kind); err != nil && !isTranslation(err) {
				return Stat{}, err
			}
		}
		c.rel, c.fi, c.dir, c.kind = src, nil, false, kind
		return c.archiveStat(size), nil
	}
	v := t.Current(src, fi)
	if v == nil || !v.Has(kind) {
		if !sized {
			return Stat{}, ErrNoAttr
		}
		t.ReadAhead(src)
		if v, _, err = t.Document(ctx, src, fi, kind, NeedSize); v == nil || err != nil && !isTranslation(err) {
			return Stat{}, orNotExist(err, c.Path())
		}
	}
	c.rel, c.fi, c.dir, c.kind, c.ver = src, nil, false, kind, v
	return docStat(fi, v, kind), nil
}

func orNotExist(err error, name string) error {
	if err == nil {
		return notExist(name)
	}
	return err
}

// docStat is the Stat of the document of kind of the source whose attributes are fi, in its
// version v: the source's owner and times, but the mtime, the newest of the source and what its
// translation read; the read bits the source and all it was made from grant (see access);
// the document's size.
func docStat(fi fs.FileInfo, v *Version, kind Kind) Stat {
	perm := fi.Mode().Perm() & 0o444 & fs.FileMode(v.Perm()) // the source's as it is now: a chmod shows at once
	return Stat{Sys: fi, Mode: perm, Size: v.Size(kind), MTime: time.Unix(0, max(fi.ModTime().UnixNano(), v.ModTime()))}
}

// archiveStat is the Stat of the node, an entry of an archive, of size bytes: the archive
// file's owner, read bits and time.
func (n *Node) archiveStat(size int64) Stat {
	uid, gid, _ := n.view.Owner()
	if n.dir {
		size = 0
	}
	return Stat{Mode: n.archiveMode(n.dir), Size: size, MTime: n.view.ModTime(), Uid: uid, Gid: gid}
}

// Drop lets go of a node a file system kept (its archive view), once however often it is
// called, and leaves the node as it is: a lookup may still be comparing it (Same), and a
// node the file system revives answers ErrStale. It reports whether this call dropped it.
func (n *Node) Drop() bool {
	if !atomic.CompareAndSwapUint32(&n.dropped, 0, 1) {
		return false
	}
	if n.view != nil {
		n.view.Release()
	}
	return true
}

// usable returns ErrStale for a dropped node of an archive: its view may be closed.
func (n *Node) usable() error {
	if n.view != nil && atomic.LoadUint32(&n.dropped) != 0 {
		return ErrStale
	}
	return nil
}

// Fixed reports whether the node's content never changes while the node is kept: a
// document's node shows one version of it, and an archive does not change under its view.
func (n *Node) Fixed() bool { return n.kind != "" || n.view != nil }

// Same reports whether n and o are the same entry, shown the same way: a file system keeps
// the node it has (and the kernel its inode and cached pages) while a lookup finds the same.
func (n *Node) Same(o *Node) bool {
	switch {
	case atomic.LoadUint32(&n.dropped) != 0:
		return false // let go of: a new node takes its place
	case n.view != o.view || n.rel != o.rel || n.kind != o.kind || n.dir != o.dir:
		return false
	case n.kind != "":
		return n.view != nil || n.ver.id == o.ver.id // a document of SRC: the same version
	case n.view != nil:
		return true // an archive's entries do not change under its view
	}
	dev, ino := fileOfEntry(n.fi)
	odev, oino := fileOfEntry(o.fi)
	return n.fi.Mode().Type() == o.fi.Mode().Type() && dev == odev && ino == oino
}

// Attr returns the node's attributes now. A node of an entry of SRC since replaced, or of a
// document since superseded, is ErrStale — but a folder replaced by a folder shows the new
// one's attributes, as its listings do: a shell sitting in it must not get ESTALE from every
// stat of ".". A document is translated unless a cache knows its size; one that fails to
// translate shows size 0 (and reading it fails).
func (n *Node) Attr(ctx context.Context) (Stat, error) {
	switch {
	case n.usable() != nil:
		return Stat{}, ErrStale
	case n.view != nil && n.kind != "":
		size, err := n.view.Size(ctx, n.rel, n.kind)
		if err != nil && !isTranslation(err) {
			return Stat{}, err
		}
		return n.archiveStat(size), nil
	case n.view != nil && n.dir:
		return n.archiveStat(0), nil
	case n.view != nil:
		fi, err := n.view.Stat(n.rel)
		if err != nil {
			return Stat{}, err
		}
		return n.archiveStat(fi.Size()), nil
	case n.kind != "":
		return n.docAttr(ctx)
	}
	fi, err := n.s.t.Lstat(n.rel)
	if err != nil {
		return Stat{}, err
	}
	if !sameEntry(n.fi, fi) && (!n.fi.IsDir() || !fi.IsDir()) {
		return Stat{}, ErrStale
	}
	return ownStat(fi), nil
}

// sameEntry reports whether b is of the entry a was (where the system says).
func sameEntry(a, b fs.FileInfo) bool {
	dev, ino := fileOfEntry(a)
	bdev, bino := fileOfEntry(b)
	return dev == 0 && ino == 0 || bdev == 0 && bino == 0 || dev == bdev && ino == bino
}

// docAttr is Attr for a document of SRC.
func (n *Node) docAttr(ctx context.Context) (Stat, error) {
	t := n.s.t
	fi, err := t.SourceInfo(n.rel)
	if err != nil {
		return Stat{}, err
	}
	if v := t.Current(n.rel, fi); v == nil || !v.Has(n.kind) {
		t.ReadAhead(n.rel)
	}
	v, _, err := t.Document(ctx, n.rel, fi, n.kind, NeedSize)
	if v == nil || err != nil && !isTranslation(err) {
		return Stat{}, orNotExist(err, n.Path())
	}
	if v.id != n.ver.id {
		return Stat{}, ErrStale
	}
	return docStat(fi, v, n.kind), nil
}

// Readlink returns the target of the node, a symlink of SRC, as stored.
func (n *Node) Readlink() (string, error) {
	if n.view != nil || n.kind != "" || n.fi.Mode()&fs.ModeSymlink == 0 {
		return "", &fs.PathError{Op: "readlink", Path: n.Path(), Err: syscall.EINVAL}
	}
	return n.s.t.Readlink(n.rel)
}

// File is a node opened for reading.
type File struct {
	r    io.ReaderAt
	doc  *Doc     // a document's bytes, which r reads
	os   *os.File // an entry of SRC, which r reads
	c    io.Closer
	stat Stat
	// Tag tells one content of the file from another: the kernel keeps the pages it cached
	// of an earlier open while the tag is the same. Nil when the node's content never
	// changes (a document's version, an archive's member).
	Tag any
}

// OpenFile opens the node for reading: an entry of SRC, an archive's member, or a document,
// which is translated unless a cache has it. A node whose entry was replaced since the lookup
// (or whose document was superseded) is ErrStale.
func (n *Node) OpenFile(ctx context.Context) (*File, error) {
	switch {
	case n.usable() != nil:
		return nil, ErrStale
	case n.dir:
		return nil, &fs.PathError{Op: "open", Path: n.Path(), Err: syscall.EISDIR}
	case n.view != nil && n.kind != "":
		doc, err := n.view.Document(ctx, n.rel, n.kind)
		if err != nil {
			return nil, err
		}
		return &File{r: doc, doc: &doc, stat: n.archiveStat(doc.Size())}, nil
	case n.view != nil:
		m, err := n.view.Open(n.rel)
		if err != nil {
			return nil, err
		}
		return &File{r: memberReader{m, n.rel}, c: m, stat: n.archiveStat(n.fi.Size())}, nil
	case n.kind != "":
		t := n.s.t
		fi, err := t.SourceInfo(n.rel)
		if err != nil {
			return nil, err
		}
		v, doc, err := t.Document(ctx, n.rel, fi, n.kind, NeedBytes)
		if v != nil && n.ver != nil && v.id != n.ver.id {
			return nil, ErrStale
		}
		if err != nil {
			return nil, err
		}
		return &File{r: doc, doc: &doc, stat: docStat(fi, v, n.kind)}, nil
	}
	// Without blocking: the entry may have become a FIFO since the lookup.
	f, err := n.s.t.OpenFile(n.rel)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() || !sameEntry(n.fi, fi) {
		f.Close()
		return nil, ErrStale
	}
	return &File{r: f, os: f, c: f, stat: ownStat(fi), Tag: identityOf(fi)}, nil
}

// ReadAt reads from the file. A member of an archive whose bytes cannot be read gives an
// error IsDataError reports.
func (f *File) ReadAt(p []byte, off int64) (int, error) { return f.r.ReadAt(p, off) }

// Slice returns the n bytes at off where they are, when the file is a document and they lie
// in one piece of it.
func (f *File) Slice(off, n int64) ([]byte, bool) {
	if f.doc == nil {
		return nil, false
	}
	return f.doc.Slice(off, n)
}

// Stat returns the attributes of what was opened: for an entry of SRC, of the file it reads,
// as fstat on a native file does after the name was given to another.
func (f *File) Stat() (Stat, error) {
	if f.os != nil {
		fi, err := f.os.Stat()
		if err != nil {
			return Stat{}, err
		}
		return ownStat(fi), nil
	}
	return f.stat, nil
}

// Close closes the file.
func (f *File) Close() error {
	if f.c == nil {
		return nil
	}
	return f.c.Close()
}

// memberReader reads an archive's member; a sector that cannot be read is a ReadError.
type memberReader struct {
	m    Member
	name string
}

func (r memberReader) ReadAt(p []byte, off int64) (int, error) {
	k, err := r.m.ReadAt(p, off)
	if err != nil && !errors.Is(err, io.EOF) {
		err = &ReadError{Path: r.name, Err: err}
	}
	return k, err
}

// Listing is an open folder: its entries as listed when it was opened, and lookups of them
// that never translate (a READDIRPLUS answers one per entry, six per model) and take the
// stats of SRC's entries from the open folder.
type Listing struct {
	n       *Node
	Entries []Entry  // sorted by name
	dir     *os.Root // the folder in SRC; nil in an archive

	mu sync.Mutex
	// last is the latest Lstat of an entry of SRC a lookup made: a model's documents are
	// listed right after it, and their attributes come from it.
	last     fs.FileInfo
	lastName string
}

// OpenListing opens the folder n for listing.
func (n *Node) OpenListing() (*Listing, error) {
	if err := n.usable(); err != nil {
		return nil, err
	}
	if !n.dir {
		return nil, &fs.PathError{Op: "opendir", Path: n.Path(), Err: syscall.ENOTDIR}
	}
	l := &Listing{n: n}
	if n.view != nil {
		ents, err := n.view.List(n.rel)
		if err != nil {
			return nil, err
		}
		l.Entries = ents
		return l, nil
	}
	dir, err := n.s.t.OpenDir(n.rel)
	if err != nil {
		return nil, err
	}
	ents, err := n.s.t.List(dir, n.rel)
	if err != nil {
		dir.Close()
		return nil, err
	}
	l.Entries, l.dir = ents, dir
	return l, nil
}

// Close closes the folder.
func (l *Listing) Close() {
	if l.dir != nil {
		l.dir.Close()
	}
}

// Lookup finds the entry name of the folder as Node.Lookup does, but never translates: a
// document whose size no cache knows yet is ErrNoAttr. A name the listing does not hold is
// looked up as by Node.Lookup.
func (l *Listing) Lookup(ctx context.Context, name string) (Node, Stat, error) {
	i, found := slices.BinarySearchFunc(l.Entries, name, func(e Entry, name string) int { return strings.Compare(e.Name, name) })
	switch {
	case !found:
		return l.n.Lookup(ctx, name)
	case l.Entries[i].Virtual && l.dir != nil:
		c := l.n.entry()
		var fi fs.FileInfo
		if srcName, _, ok := l.n.s.t.Virtual(name); ok {
			fi = l.lastInfo(srcName)
		}
		st, err := c.enterVirtual(ctx, name, fi, false)
		if err != nil {
			c.Release()
			return Node{}, Stat{}, err
		}
		return c, st, nil
	case l.dir != nil:
		return l.n.lookup(ctx, name, l, false)
	}
	return l.n.lookup(ctx, name, nil, false)
}

// lstat takes the Lstat of the entry name from the open folder, and remembers it for the
// documents listed after it.
func (l *Listing) lstat(name string) (fs.FileInfo, error) {
	fi, err := l.dir.Lstat(name)
	if err == nil {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.last, l.lastName = fi, name
	}
	return fi, err
}

// lastInfo returns the Lstat of the entry name when it is the last one looked up, else nil.
func (l *Listing) lastInfo(name string) fs.FileInfo {
	l.mu.Lock()
	defer l.mu.Unlock()
	if name == l.lastName {
		return l.last
	}
	return nil
}
