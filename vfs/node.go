package vfs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"syscall"
	"time"

	"github.com/modelfs/modelfs/cache"
	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
	"golang.org/x/sync/errgroup"
)

// ErrTooLarge is the error of a source larger than a limit allows (Options.MaxSourceSize).
var ErrTooLarge = codec.ErrTooLarge

// Kind is an output kind, as the tree names its virtual documents (translate's).
type Kind = translate.Kind

// VersionID identifies a version of a model's documents: two versions with one id have the
// same bytes (see Version.ID).
type VersionID = cache.Key

// Shown is the tree as a front end shows it from its top (see Tree.Shown), addressed by slash
// paths: a path runs through folders, archives and symlinks
// alike to one Node. Front ends that serve by path (WebDAV, convert -r) speak to it alone.
type Shown struct {
	t   *Tree
	top *ArchiveView // nil for SRC's folder
}

// Tree returns the tree shown.
func (s *Shown) Tree() *Tree { return s.t }

// Node is one name of the tree as shown: an entry of SRC, of an archive, or a virtual
// document. A Node holds its archive view until Release.
type Node struct {
	s    *Shown
	name string         // the path asked for, from the top ("/" for the top); "" after Lookup
	view *ArchiveView   // the archive the node is in (retained), or nil
	rel  string         // its path in the tree, or in view
	fi   fs.FileInfo    // the entry's attributes (what a symlink leads to); nil for a virtual one
	kind translate.Kind // the kind of a virtual document, else ""
	ver  *Version       // the version of a document of SRC a lookup found (see Same)
	dir  bool           // a folder (an archive's too)
	// public is a request that reads as others: a symlink is followed only where others may
	// reach what it leads to, a folder passed only where others may search it.
	public bool
	// dropped is 1 once a file system that kept the node let go of it (see Drop); set and read
	// atomically. (Not an atomic.Uint32: a node is a value a file system keeps within its own.)
	dropped uint32
}

// Attr is what a Node's stat tells.
type Attr struct {
	Name  string
	Size  int64
	Mode  fs.FileMode
	MTime time.Time
	// Tag is a strong entity tag: from the content key for a document (two versions with the
	// same key have the same bytes), from the file's identity for an entry of SRC or an
	// archive.
	Tag string
}

// Release lets go of the node's archive view.
func (n *Node) Release() {
	if n.view != nil {
		n.view.Release()
		n.view = nil
	}
}

// IsDir reports whether the node is a folder (an archive shown as one too).
func (n *Node) IsDir() bool { return n.dir }

// Path is the path the node was resolved from; for a node found by Lookup, its path in the
// tree, or in its archive's file.
func (n *Node) Path() string {
	p := n.rel
	switch {
	case n.name != "":
		return n.name
	case n.kind != "":
		p += "." + string(n.kind)
	}
	if n.view != nil {
		p = path.Join(n.view.name, p)
	}
	return path.Join("/", p)
}

func notExist(name string) error {
	return &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// Resolve walks name from the top as the mount's lookups do: into folders, into archives shown
// as folders, through symlinks that stay inside the tree, and to the virtual documents beside
// models and textures. Special files (FIFOs, sockets, devices) and links leading nowhere are
// not served. A public request goes only through folders others may search.
func (s *Shown) Resolve(name string, public bool) (*Node, error) {
	name = path.Clean("/" + name)
	n := &Node{s: s, name: name, rel: ".", dir: true, public: public}
	if s.top != nil {
		s.top.Retain()
		n.view = s.top
	} else {
		fi, err := s.t.Lstat(".")
		if err != nil {
			return nil, err
		}
		n.fi = fi
	}
	if name == "/" {
		return n, nil
	}
	segs := strings.Split(name[1:], "/")
	for i, seg := range segs {
		last := i == len(segs)-1
		if !n.dir {
			n.Release()
			return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.ENOTDIR}
		}
		if public && n.mode()&0o001 == 0 {
			n.Release()
			return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
		}
		if err := n.step(seg, last); err != nil {
			n.Release()
			if errors.Is(err, fs.ErrNotExist) {
				return nil, notExist(name)
			}
			return nil, err
		}
	}
	return n, nil
}

// step moves the node (a folder) to its entry seg, the last of the path when last.
func (n *Node) step(seg string, last bool) error {
	if n.view != nil {
		return n.stepArchive(seg, last)
	}
	return n.stepTree(seg, last)
}

// stepTree moves the node (a folder of SRC) to its entry seg.
func (n *Node) stepTree(seg string, last bool) error {
	t := n.s.t
	rel := path.Join(n.rel, seg)
	fi, err := t.Lstat(rel)
	if errors.Is(err, fs.ErrNotExist) && last {
		return n.virtual(seg)
	}
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		if fi, err = t.FollowLink(rel); err != nil {
			return notExist(rel) // dangling, or leading out of the tree
		}
		if n.public && !t.OthersReach(rel) {
			return &fs.PathError{Op: "open", Path: rel, Err: fs.ErrPermission}
		}
	}
	switch {
	case t.IsArchive(rel, fi):
		if v, err := t.OpenArchive(rel); err == nil {
			v.Retain()
			n.view, n.rel, n.fi, n.dir = v, ".", fi, true
			return nil
		}
		// An archive that cannot be opened is the plain file it is (the tree core logged why).
	case fi.IsDir():
	case !fi.Mode().IsRegular():
		return notExist(rel)
	}
	n.rel, n.fi, n.dir = rel, fi, fi.IsDir()
	return nil
}

// stepArchive moves the node (a folder of an archive) to its entry seg.
func (n *Node) stepArchive(seg string, last bool) error {
	rel := path.Join(n.rel, seg)
	fi, err := n.view.Stat(rel)
	if errors.Is(err, fs.ErrNotExist) && last {
		return n.virtual(seg)
	}
	if err != nil {
		return err
	}
	// The archive's own spelling, whatever case was asked: one member, one translation.
	n.rel, n.fi, n.dir = path.Join(n.rel, fi.Name()), fi, fi.IsDir()
	return nil
}

// virtual makes the node the virtual document seg of its folder, when seg names one beside a
// model or texture there.
func (n *Node) virtual(seg string) error {
	src, kind, _, err := n.docSource(seg, nil)
	if err != nil {
		return fs.ErrNotExist
	}
	n.rel, n.fi, n.dir, n.kind = src, nil, false, kind
	return nil
}

// docSource returns the source of the document name of the folder n — its path (in an
// archive, the archive's spelling), the document's kind, and the source's attributes (in SRC,
// those of what a symlink leads to) — or fs.ErrNotExist when name is no document beside a
// model or texture there. lstat, when not nil, is a fresh Lstat of the source in SRC; an
// error taking one is returned as it is.
func (n *Node) docSource(name string, lstat fs.FileInfo) (src string, kind Kind, fi fs.FileInfo, err error) {
	t := n.s.t
	srcName, kind, ok := t.Virtual(name)
	if !ok {
		return "", "", nil, fs.ErrNotExist
	}
	src = path.Join(n.rel, srcName)
	if n.view != nil {
		if fi, err = n.view.Stat(src); err != nil || fi.IsDir() {
			return "", "", nil, fs.ErrNotExist
		}
		return path.Join(n.rel, fi.Name()), kind, fi, nil
	}
	if fi = lstat; fi == nil {
		if fi, err = t.Lstat(src); err != nil {
			return "", "", nil, err
		}
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		if fi, err = t.FollowLink(src); err != nil {
			return "", "", nil, fs.ErrNotExist
		}
	}
	if !fi.Mode().IsRegular() {
		return "", "", nil, fs.ErrNotExist
	}
	return src, kind, fi, nil
}

// Stat returns the node's attributes. A virtual document's size is its exact length, which
// takes a translation unless a cache knows it; one that cannot be made shows size 0 (as in
// the mount), and reading it fails. With readAhead, a document not yet made starts the
// translations of the models after it in its folder (see ReadAhead).
func (n *Node) Stat(ctx context.Context, readAhead bool) (Attr, error) {
	base := path.Base(n.name)
	if n.name == "/" {
		base = "/"
	}
	switch {
	case n.view != nil && n.kind == "":
		return n.archiveAttr(base), nil
	case n.view != nil:
		size, err := n.view.Size(ctx, n.rel, n.kind)
		if err != nil && !isTranslation(err) {
			return Attr{}, err
		}
		return Attr{Name: base, Size: size, Mode: n.archiveMode(false), MTime: n.view.ModTime(),
			Tag: tagOf(n.view.Key(), n.rel, string(n.kind))}, nil
	case n.kind != "":
		t := n.s.t
		fi, err := t.SourceInfo(n.rel)
		if err != nil {
			return Attr{}, err
		}
		if readAhead {
			if v := t.Current(n.rel, fi); v == nil || !v.Has(n.kind) {
				t.ReadAhead(n.rel)
			}
		}
		v, _, err := t.Document(ctx, n.rel, fi, n.kind, NeedSize)
		if v == nil || err != nil && !isTranslation(err) {
			if err == nil {
				err = notExist(n.name)
			}
			return Attr{}, err
		}
		id := v.ID()
		mtime := time.Unix(0, max(fi.ModTime().UnixNano(), v.ModTime()))
		return Attr{Name: base, Size: v.Size(n.kind), Mode: fi.Mode().Perm() & 0o444 & fs.FileMode(v.Perm()), MTime: mtime,
			Tag: tagOf(string(id[:]), string(n.kind))}, nil
	}
	fi := n.fi
	mode := fi.Mode() & (fs.ModeDir | fs.ModePerm)
	if n.dir {
		mode |= fs.ModeDir
	}
	size := fi.Size()
	if n.dir {
		size = 0
	}
	return Attr{Name: base, Size: size, Mode: mode, MTime: fi.ModTime(),
		Tag: tagOf(n.rel, fmt.Sprint(fi.ModTime().UnixNano(), fi.Size()))}, nil
}

func (n *Node) archiveMode(dir bool) fs.FileMode {
	_, _, perm := n.view.Owner()
	if dir {
		return fs.ModeDir | perm | perm>>2
	}
	return perm
}

// archiveAttr returns the attributes of an entry of an archive (or of the archive's folder).
func (n *Node) archiveAttr(base string) Attr {
	var size int64
	if !n.dir {
		size = n.fi.Size()
	}
	return Attr{Name: base, Size: size, Mode: n.archiveMode(n.dir), MTime: n.view.ModTime(),
		Tag: tagOf(n.view.Key(), n.rel)}
}

func isTranslation(err error) bool {
	var te *TranslationError
	return errors.As(err, &te)
}

// mode returns the permission bits of a folder node, without translating anything.
func (n *Node) mode() fs.FileMode {
	if n.view != nil {
		return n.archiveMode(true).Perm()
	}
	return n.fi.Mode().Perm()
}

// readable returns fs.ErrPermission for a public request of what others may not read: a file
// or document, or a folder to list (which takes searching it too).
func (n *Node) readable(ctx context.Context) error {
	if !n.public {
		return nil
	}
	want := fs.FileMode(0o004)
	var mode fs.FileMode
	switch {
	case n.dir:
		want, mode = 0o005, n.mode()
	case n.kind != "" && n.view == nil:
		// The source's own mode first: a model others may not read is not translated for
		// them only to be refused.
		src, err := n.s.t.SourceInfo(n.rel)
		if err != nil {
			return err
		}
		if src.Mode().Perm()&want != want {
			return &fs.PathError{Op: "open", Path: n.name, Err: fs.ErrPermission}
		}
		fallthrough
	default:
		a, err := n.Stat(ctx, false)
		if err != nil {
			return err
		}
		mode = a.Mode.Perm()
	}
	if mode&want != want {
		return &fs.PathError{Op: "open", Path: n.name, Err: fs.ErrPermission}
	}
	return nil
}

// Content is an opened node: its attributes and, but for a folder, its bytes.
type Content struct {
	Attr   Attr
	Reader io.ReadSeeker // the bytes; nil for a folder
	Doc    *Doc          // the document Reader reads, when it is one of the tree's
	Closer io.Closer     // what the bytes are read from, to close with the content; or nil
}

// Open opens the node: a folder for listing, a file or document for reading.
func (n *Node) Open(ctx context.Context) (*Content, error) {
	if err := n.readable(ctx); err != nil {
		return nil, err
	}
	a, err := n.Stat(ctx, false)
	if err != nil {
		return nil, err
	}
	c := &Content{Attr: a}
	switch {
	case n.dir:
	case n.kind != "" && n.view != nil:
		doc, err := n.view.Document(ctx, n.rel, n.kind)
		if err != nil {
			return nil, err
		}
		c.Attr.Size = doc.Size()
		c.Reader, c.Doc = doc.Reader(), &doc
	case n.kind != "":
		t := n.s.t
		src, err := t.SourceInfo(n.rel)
		if err != nil {
			return nil, err
		}
		v, doc, err := t.Document(ctx, n.rel, src, n.kind, NeedBytes)
		if err != nil {
			return nil, err
		}
		id := v.ID()
		c.Attr.Size, c.Attr.Tag = doc.Size(), tagOf(string(id[:]), string(n.kind))
		c.Reader, c.Doc = doc.Reader(), &doc
	case n.view != nil:
		m, err := n.view.Open(n.rel)
		if err != nil {
			return nil, err
		}
		c.Closer = m
		c.Reader = io.NewSectionReader(m, 0, n.fi.Size())
	default:
		osf, err := n.s.t.OpenFile(n.rel)
		if err != nil {
			return nil, err
		}
		st, err := osf.Stat()
		if err != nil || !st.Mode().IsRegular() {
			osf.Close()
			return nil, notExist(n.name) // replaced by something else since the lookup
		}
		c.Closer = osf
		c.Reader = io.NewSectionReader(osf, 0, st.Size())
		c.Attr.Size = st.Size()
	}
	return c, nil
}

// ReadDir returns the attributes of every entry of the folder, virtual documents included,
// sorted by name — translating, in parallel as the tree allows, the models whose sizes no
// cache knows. An entry gone since the listing, special, or a link leading nowhere is left
// out.
func (n *Node) ReadDir(ctx context.Context) ([]Attr, error) {
	ents, err := n.entries()
	if err != nil {
		return nil, err
	}
	attrs := make([]*Attr, len(ents))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(n.s.t.Options().MaxParallel + 1)
	for i, e := range ents {
		g.Go(func() error {
			child, err := n.Child(e.Name)
			if err != nil {
				return nil
			}
			defer child.Release()
			a, err := child.Stat(gctx, false)
			if err != nil {
				return nil
			}
			attrs[i] = &a
			return nil
		})
	}
	g.Wait()
	out := make([]Attr, 0, len(attrs))
	for _, a := range attrs {
		if a != nil {
			out = append(out, *a)
		}
	}
	return out, ctx.Err()
}

// entries lists the folder as the tree does.
func (n *Node) entries() ([]Entry, error) {
	if err := n.usable(); err != nil {
		return nil, err
	}
	if !n.dir {
		return nil, &fs.PathError{Op: "readdir", Path: n.name, Err: syscall.ENOTDIR}
	}
	if n.view != nil {
		return n.view.List(n.rel)
	}
	dir, err := n.s.t.OpenDir(n.rel)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	return n.s.t.List(dir, n.rel)
}

// Child resolves the entry name of the folder n.
func (n *Node) Child(name string) (*Node, error) {
	child := n.child(name)
	if err := child.step(name, true); err != nil {
		child.Release()
		return nil, err
	}
	return child, nil
}

// child is n, about to step to its entry name: a node of its own, holding n's view.
func (n *Node) child(name string) *Node {
	c := &Node{s: n.s, name: path.Join(n.name, name), view: n.view, rel: n.rel, fi: n.fi, dir: true, public: n.public}
	if c.view != nil {
		c.view.Retain()
	}
	return c
}

// tagOf makes a strong entity tag of the parts that identify a version of a file.
func tagOf(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return `"` + hex.EncodeToString(h.Sum(nil)[:12]) + `"`
}

// Readable returns fs.ErrPermission for a public request of what others may not read (see
// Resolve), nil otherwise.
func (n *Node) Readable(ctx context.Context) error { return n.readable(ctx) }

// Entries lists the folder as the tree does — names, types, which are virtual — without
// stating any.
func (n *Node) Entries() ([]Entry, error) { return n.entries() }

// KnownSize returns the size of the virtual document name of the folder n when a cache knows
// it, without translating.
func (n *Node) KnownSize(name string) (int64, bool) {
	t := n.s.t
	srcName, kind, ok := t.Virtual(name)
	if !ok {
		return 0, false
	}
	src := path.Join(n.rel, srcName)
	if n.view != nil {
		return n.view.KnownSize(src, kind)
	}
	fi, err := t.SourceInfo(src)
	if err != nil {
		return 0, false
	}
	if v := t.Current(src, fi); v != nil && v.Has(kind) {
		return v.Size(kind), true
	}
	return 0, false
}

// VirtualChild resolves the virtual document name of the folder n, which Entries listed as
// virtual, without looking for an entry of that name first.
func (n *Node) VirtualChild(name string) (*Node, error) {
	child := n.child(name)
	if err := child.virtual(name); err != nil {
		child.Release()
		return nil, notExist(child.name)
	}
	return child, nil
}

// Known returns the size and time of the document n when a cache knows them without
// translating, and its kind was made (not a document saying why it was not).
func (n *Node) Known() (size int64, mtime time.Time, ok bool) {
	if n.kind == "" {
		return 0, time.Time{}, false
	}
	if n.view != nil {
		size, ok := n.view.KnownSize(n.rel, n.kind)
		return size, n.view.ModTime(), ok && n.view.Shown(n.rel, n.kind) == nil
	}
	t := n.s.t
	fi, err := t.SourceInfo(n.rel)
	if err != nil {
		return 0, time.Time{}, false
	}
	v := t.Current(n.rel, fi)
	if v == nil || !v.Has(n.kind) || v.Shown(n.rel, n.kind) != nil {
		return 0, time.Time{}, false
	}
	return v.Size(n.kind), time.Unix(0, max(fi.ModTime().UnixNano(), v.ModTime())), true
}

// Made returns the document n and its time, as made: a kind that failed is its error, not
// the document the mount shows in its place.
func (n *Node) Made(ctx context.Context) (Doc, time.Time, error) {
	if n.kind == "" {
		return Doc{}, time.Time{}, &fs.PathError{Op: "read", Path: n.name, Err: errors.New("not a document")}
	}
	if n.view != nil {
		data, err := n.view.Document(ctx, n.rel, n.kind)
		if err == nil {
			err = n.view.Shown(n.rel, n.kind)
		}
		return data, n.view.ModTime(), err
	}
	t := n.s.t
	fi, err := t.SourceInfo(n.rel)
	if err != nil {
		return Doc{}, time.Time{}, err
	}
	v, data, err := t.Document(ctx, n.rel, fi, n.kind, NeedBytes)
	if err == nil {
		err = v.Shown(n.rel, n.kind)
	}
	if err != nil {
		return Doc{}, time.Time{}, err
	}
	return data, time.Unix(0, max(fi.ModTime().UnixNano(), v.ModTime())), nil
}
