package davfs

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"os"
	"path"
	"strings"
	"syscall"
	"time"

	"golang.org/x/net/webdav"
	"golang.org/x/sync/errgroup"

	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/vfs"
)

// fileSystem is the tree as a webdav.FileSystem: read-only, every name resolved through the
// tree core as the FUSE mount resolves it.
type fileSystem struct {
	tree *vfs.Tree
	top  *vfs.ArchiveView // the view shown at the top, or nil for SRC's folder
}

var _ webdav.FileSystem = (*fileSystem)(nil)

// Mkdir refuses: the tree is read-only.
func (f *fileSystem) Mkdir(context.Context, string, os.FileMode) error { return vfs.ErrReadOnly }

// RemoveAll refuses: the tree is read-only.
func (f *fileSystem) RemoveAll(context.Context, string) error { return vfs.ErrReadOnly }

// Rename refuses: the tree is read-only.
func (f *fileSystem) Rename(context.Context, string, string) error { return vfs.ErrReadOnly }

// Stat returns the attributes of name as the tree shows it, translating a model when name is
// one of its documents and its size is not known yet.
func (f *fileSystem) Stat(ctx context.Context, name string) (os.FileInfo, error) {
	it, err := f.resolve(ctx, name)
	if err != nil {
		return nil, err
	}
	defer it.release()
	return it.stat(ctx, true)
}

// OpenFile opens name for reading; any flag that would write is refused.
func (f *fileSystem) OpenFile(ctx context.Context, name string, flag int, perm os.FileMode) (webdav.File, error) {
	if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_TRUNC|os.O_APPEND) != 0 {
		return nil, vfs.ErrReadOnly
	}
	it, err := f.resolve(ctx, name)
	if err != nil {
		return nil, err
	}
	file, err := it.open(ctx)
	if err != nil {
		it.release()
		return nil, err
	}
	return file, nil
}

// item is one resolved name: an entry of SRC, of an archive, or a virtual document.
type item struct {
	f    *fileSystem
	name string           // the name asked for, slash-separated from the top
	view *vfs.ArchiveView // the archive the item is in (retained), or nil
	rel  string           // its path in the tree, or in view
	fi   fs.FileInfo      // the entry's attributes (what a symlink leads to); nil for a virtual one
	dir  bool             // a folder (an archive's too)
	kind translate.Kind   // the kind of a virtual document, else ""
	// public is a request that reads as others (see public): a symlink is followed only
	// where others may reach what it leads to.
	public bool
}

func (it *item) release() {
	if it.view != nil {
		it.view.Release()
		it.view = nil
	}
}

func notExist(name string) error {
	return &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// resolve walks name from the top as the mount's lookups do: into folders, into archives shown
// as folders, through symlinks that stay inside the tree, and to the virtual documents beside
// models and textures. Special files (FIFOs, sockets, devices) and links leading nowhere are
// not served. A public request (see public) goes only through folders others may search.
func (f *fileSystem) resolve(ctx context.Context, name string) (*item, error) {
	name = path.Clean("/" + name)
	it := &item{f: f, name: name, rel: ".", dir: true, public: public(ctx)}
	if f.top != nil {
		f.top.Retain()
		it.view = f.top
	} else {
		fi, err := f.tree.Lstat(".")
		if err != nil {
			return nil, err
		}
		it.fi = fi
	}
	if name == "/" {
		return it, nil
	}
	segs := strings.Split(name[1:], "/")
	for i, seg := range segs {
		last := i == len(segs)-1
		if !it.dir {
			it.release()
			return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.ENOTDIR}
		}
		if public(ctx) && it.mode()&0o001 == 0 {
			it.release()
			return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
		}
		var err error
		if it.view != nil {
			err = it.stepArchive(seg, last)
		} else {
			err = it.stepTree(seg, last)
		}
		if err != nil {
			it.release()
			if errors.Is(err, fs.ErrNotExist) {
				return nil, notExist(name)
			}
			return nil, err
		}
	}
	return it, nil
}

// stepTree moves the item (a folder of SRC) to its entry seg.
func (it *item) stepTree(seg string, last bool) error {
	t := it.f.tree
	rel := path.Join(it.rel, seg)
	fi, err := t.Lstat(rel)
	if errors.Is(err, fs.ErrNotExist) && last {
		return it.virtual(seg)
	}
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		if fi, err = t.FollowLink(rel); err != nil {
			return notExist(rel) // dangling, or leading out of the tree
		}
		if it.public && !t.OthersReach(rel) {
			return &fs.PathError{Op: "open", Path: rel, Err: fs.ErrPermission}
		}
	}
	switch {
	case t.IsArchive(rel, fi):
		if v, err := t.OpenArchive(rel); err == nil {
			v.Retain()
			it.view, it.rel, it.fi, it.dir = v, ".", fi, true
			return nil
		}
		// An archive that cannot be opened is the plain file it is (the tree core logged why).
	case fi.IsDir():
	case !fi.Mode().IsRegular():
		return notExist(rel)
	}
	it.rel, it.fi, it.dir = rel, fi, fi.IsDir()
	return nil
}

// stepArchive moves the item (a folder of an archive) to its entry seg.
func (it *item) stepArchive(seg string, last bool) error {
	rel := path.Join(it.rel, seg)
	fi, err := it.view.Stat(rel)
	if errors.Is(err, fs.ErrNotExist) && last {
		return it.virtual(seg)
	}
	if err != nil {
		return err
	}
	// The archive's own spelling, whatever case was asked: one member, one translation.
	it.rel, it.fi, it.dir = path.Join(it.rel, fi.Name()), fi, fi.IsDir()
	return nil
}

// virtual makes the item the virtual document seg of its folder, when seg names one beside a
// model or texture there.
func (it *item) virtual(seg string) error {
	t := it.f.tree
	srcName, kind, ok := t.Virtual(seg)
	if !ok {
		return fs.ErrNotExist
	}
	src := path.Join(it.rel, srcName)
	if it.view != nil {
		fi, err := it.view.Stat(src)
		if err != nil || fi.IsDir() {
			return fs.ErrNotExist
		}
		src = path.Join(it.rel, fi.Name()) // the archive's spelling
	} else if fi, err := t.SourceInfo(src); err != nil || !fi.Mode().IsRegular() {
		return fs.ErrNotExist
	}
	it.rel, it.fi, it.dir, it.kind = src, nil, false, kind
	return nil
}

// stat returns the item's attributes. A virtual document's size is its exact length, which
// takes a translation unless a cache knows it; one that cannot be made shows size 0 (as in
// the mount), and reading it fails.
func (it *item) stat(ctx context.Context, readAhead bool) (*info, error) {
	base := path.Base(it.name)
	if it.name == "/" {
		base = "/"
	}
	switch {
	case it.view != nil && it.kind == "":
		return it.archiveStat(base), nil
	case it.view != nil:
		size, err := it.view.Size(ctx, it.rel, it.kind)
		if err != nil && !isTranslation(err) {
			return nil, err
		}
		return &info{name: base, size: size, mode: it.archiveMode(false), mtime: it.view.ModTime(),
			etag: etagOf(it.view.Key(), it.rel, string(it.kind))}, nil
	case it.kind != "":
		t := it.f.tree
		fi, err := t.SourceInfo(it.rel)
		if err != nil {
			return nil, err
		}
		if readAhead {
			if v := t.Current(it.rel, fi); v == nil || !v.Has(it.kind) {
				t.ReadAhead(it.rel)
			}
		}
		v, _, err := t.Document(ctx, it.rel, fi, it.kind, vfs.NeedSize)
		if v == nil || err != nil && !isTranslation(err) {
			if err == nil {
				err = notExist(it.name)
			}
			return nil, err
		}
		id := v.ID()
		mtime := time.Unix(0, max(fi.ModTime().UnixNano(), v.ModTime()))
		return &info{name: base, size: v.Size(it.kind), mode: fi.Mode().Perm() & 0o444 & fs.FileMode(v.Perm()), mtime: mtime,
			etag: etagOf(string(id[:]), string(it.kind))}, nil
	}
	fi := it.fi
	mode := fi.Mode() & (fs.ModeDir | fs.ModePerm)
	if it.dir {
		mode |= fs.ModeDir
	}
	size := fi.Size()
	if it.dir {
		size = 0
	}
	return &info{name: base, size: size, mode: mode, mtime: fi.ModTime(),
		etag: etagOf(it.rel, fmt.Sprint(fi.ModTime().UnixNano(), fi.Size()))}, nil
}

func (it *item) archiveMode(dir bool) fs.FileMode {
	_, _, perm := it.view.Owner()
	if dir {
		return fs.ModeDir | perm | perm>>2
	}
	return perm
}

// archiveStat returns the attributes of an entry of an archive (or of the archive's folder).
func (it *item) archiveStat(base string) *info {
	var size int64
	if !it.dir {
		size = it.fi.Size()
	}
	return &info{name: base, size: size, mode: it.archiveMode(it.dir), mtime: it.view.ModTime(),
		etag: etagOf(it.view.Key(), it.rel)}
}

func isTranslation(err error) bool {
	var te *vfs.TranslationError
	return errors.As(err, &te)
}

// mode returns the permission bits of a folder item, without translating anything.
func (it *item) mode() fs.FileMode {
	if it.view != nil {
		return it.archiveMode(true).Perm()
	}
	return it.fi.Mode().Perm()
}

// readable returns fs.ErrPermission for a public request (see public) of what others may not
// read: a file or document, or a folder to list (which takes searching it too).
func (it *item) readable(ctx context.Context) error {
	if !public(ctx) {
		return nil
	}
	want := fs.FileMode(0o004)
	var mode fs.FileMode
	switch {
	case it.dir:
		want, mode = 0o005, it.mode()
	case it.kind != "" && it.view == nil:
		// The source's own mode first: a model others may not read is not translated for
		// them only to be refused.
		src, err := it.f.tree.SourceInfo(it.rel)
		if err != nil {
			return err
		}
		if src.Mode().Perm()&want != want {
			return &fs.PathError{Op: "open", Path: it.name, Err: fs.ErrPermission}
		}
		fallthrough
	default:
		fi, err := it.stat(ctx, false)
		if err != nil {
			return err
		}
		mode = fi.mode.Perm()
	}
	if mode&want != want {
		return &fs.PathError{Op: "open", Path: it.name, Err: fs.ErrPermission}
	}
	return nil
}

// open opens the item: a folder for listing, a file or document for reading.
func (it *item) open(ctx context.Context) (*file, error) {
	if err := it.readable(ctx); err != nil {
		return nil, err
	}
	fi, err := it.stat(ctx, false)
	if err != nil {
		return nil, err
	}
	f := &file{it: it, fi: fi}
	switch {
	case it.dir:
	case it.kind != "" && it.view != nil:
		doc, err := it.view.Document(ctx, it.rel, it.kind)
		if err != nil {
			return nil, err
		}
		f.fi.size = doc.Size()
		f.r, f.doc = doc.Reader(), &doc
	case it.kind != "":
		t := it.f.tree
		src, err := t.SourceInfo(it.rel)
		if err != nil {
			return nil, err
		}
		v, doc, err := t.Document(ctx, it.rel, src, it.kind, vfs.NeedBytes)
		if err != nil {
			return nil, err
		}
		id := v.ID()
		f.fi.size, f.fi.etag = doc.Size(), etagOf(string(id[:]), string(it.kind))
		f.r, f.doc = doc.Reader(), &doc
	case it.view != nil:
		m, err := it.view.Open(it.rel)
		if err != nil {
			return nil, err
		}
		f.c = m
		f.r = io.NewSectionReader(m, 0, it.fi.Size())
	default:
		osf, err := it.f.tree.OpenFile(it.rel)
		if err != nil {
			return nil, err
		}
		st, err := osf.Stat()
		if err != nil || !st.Mode().IsRegular() {
			osf.Close()
			return nil, notExist(it.name) // replaced by something else since the lookup
		}
		f.c = osf
		f.r = io.NewSectionReader(osf, 0, st.Size())
		f.fi.size = st.Size()
	}
	return f, nil
}

// file is an open item.
type file struct {
	it  *item
	fi  *info
	r   io.ReadSeeker // the content; nil for a folder
	c   io.Closer     // what the content is read from, closed with the file
	doc *vfs.Doc      // the document r reads, when it is one of the tree's

	listed bool
}

var _ webdav.File = (*file)(nil)

func (f *file) Read(p []byte) (int, error) {
	if f.r == nil {
		return 0, &fs.PathError{Op: "read", Path: f.it.name, Err: syscall.EISDIR}
	}
	return f.r.Read(p)
}

func (f *file) Seek(off int64, whence int) (int64, error) {
	if f.r == nil {
		return 0, nil
	}
	return f.r.Seek(off, whence)
}

// WriteTo copies the rest of the file to w: a document in memory is written in one piece.
func (f *file) WriteTo(w io.Writer) (int64, error) {
	if br, ok := f.r.(*bytes.Reader); ok {
		return br.WriteTo(w)
	}
	if f.doc != nil { // in its pieces, from where the reader is
		at, err := f.r.Seek(0, io.SeekCurrent)
		if err != nil {
			return 0, err
		}
		n, err := f.doc.WriteFrom(w, at)
		if _, serr := f.r.Seek(at+n, io.SeekStart); err == nil {
			err = serr
		}
		return n, err
	}
	return io.Copy(w, struct{ io.Reader }{f})
}

func (f *file) Write([]byte) (int, error) { return 0, vfs.ErrReadOnly }

func (f *file) Stat() (os.FileInfo, error) { return f.fi, nil }

func (f *file) Close() error {
	var err error
	if f.c != nil {
		err = f.c.Close()
	}
	f.it.release()
	return err
}

// Readdir lists the folder as the mount does: its entries and the virtual documents beside
// each model and texture, sorted by name, with exact sizes — translating, in parallel as the
// tree allows, the models whose sizes no cache knows. The whole listing comes at the first
// call, whatever count asks for.
func (f *file) Readdir(count int) ([]os.FileInfo, error) {
	if !f.it.dir {
		return nil, &fs.PathError{Op: "readdir", Path: f.it.name, Err: syscall.ENOTDIR}
	}
	if f.listed {
		if count > 0 {
			return nil, io.EOF
		}
		return nil, nil
	}
	f.listed = true
	return f.it.list(context.Background())
}

// list returns the attributes of every entry of the folder.
func (it *item) list(ctx context.Context) ([]os.FileInfo, error) {
	var ents []vfs.Entry
	if it.view != nil {
		var err error
		if ents, err = it.view.List(it.rel); err != nil {
			return nil, err
		}
	} else {
		dir, err := it.f.tree.OpenDir(it.rel)
		if err != nil {
			return nil, err
		}
		ents, err = it.f.tree.List(dir, it.rel)
		dir.Close()
		if err != nil {
			return nil, err
		}
	}
	infos := make([]os.FileInfo, len(ents))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(it.f.tree.Options().MaxParallel + 1)
	for i, e := range ents {
		g.Go(func() error {
			child, err := it.f.resolveChild(it, e.Name)
			if err != nil {
				return nil // gone since the listing, special, or a link leading nowhere: left out
			}
			defer child.release()
			fi, err := child.stat(gctx, false)
			if err != nil {
				return nil
			}
			infos[i] = fi
			return nil
		})
	}
	g.Wait()
	out := infos[:0]
	for _, fi := range infos {
		if fi != nil {
			out = append(out, fi)
		}
	}
	return out, ctx.Err()
}

// knownSize returns the size of the document name of the folder it when a cache knows it,
// without translating.
func (f *fileSystem) knownSize(it *item, name string) (int64, bool) {
	srcName, kind, ok := f.tree.Virtual(name)
	if !ok {
		return 0, false
	}
	src := path.Join(it.rel, srcName)
	if it.view != nil {
		return it.view.KnownSize(src, kind)
	}
	fi, err := f.tree.SourceInfo(src)
	if err != nil {
		return 0, false
	}
	if v := f.tree.Current(src, fi); v != nil && v.Has(kind) {
		return v.Size(kind), true
	}
	return 0, false
}

// resolveChild resolves the entry name of the folder it.
func (f *fileSystem) resolveChild(it *item, name string) (*item, error) {
	child := &item{f: f, name: path.Join(it.name, name), view: it.view, rel: it.rel, fi: it.fi, dir: true, public: it.public}
	if child.view != nil {
		child.view.Retain()
	}
	var err error
	if child.view != nil {
		err = child.stepArchive(name, true)
	} else {
		err = child.stepTree(name, true)
	}
	if err != nil {
		child.release()
		return nil, err
	}
	return child, nil
}

// info is the attributes of an item, with its ETag and content type for WebDAV.
type info struct {
	name  string
	size  int64
	mode  fs.FileMode
	mtime time.Time
	etag  string
}

var (
	_ webdav.ETager       = (*info)(nil)
	_ webdav.ContentTyper = (*info)(nil)
)

func (i *info) Name() string       { return i.name }
func (i *info) Size() int64        { return i.size }
func (i *info) Mode() fs.FileMode  { return i.mode }
func (i *info) ModTime() time.Time { return i.mtime }
func (i *info) IsDir() bool        { return i.mode.IsDir() }
func (i *info) Sys() any           { return nil }

// ETag returns the entity tag: from the content key for a document (two versions with the
// same key have the same bytes), from the file's identity for an entry of SRC or an archive.
func (i *info) ETag(context.Context) (string, error) { return i.etag, nil }

// ContentType returns the type by the name's extension, without reading the file.
func (i *info) ContentType(context.Context) (string, error) { return contentType(i.name), nil }

// contentType is the type of the file name by its extension.
func contentType(name string) string {
	ext := strings.ToLower(path.Ext(name))
	if t, ok := vfs.KindType(ext); ok { // of the documents modelfs makes, and of such sources
		return t
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	return "application/octet-stream"
}

// etagOf makes a strong entity tag of the parts that identify a version of a file.
func etagOf(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return `"` + hex.EncodeToString(h.Sum(nil)[:12]) + `"`
}
