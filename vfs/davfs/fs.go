package davfs

import (
	"context"
	"io"
	"io/fs"
	"mime"
	"os"
	"path"
	"strings"
	"syscall"
	"time"

	"golang.org/x/net/webdav"

	"github.com/modelfs/modelfs/vfs"
)

// fileSystem is the tree as a webdav.FileSystem: read-only, every name resolved through the
// tree core as the FUSE mount resolves it.
type fileSystem struct {
	shown *vfs.Shown
}

var _ webdav.FileSystem = (*fileSystem)(nil)

// Mkdir refuses: the tree is read-only.
func (f *fileSystem) Mkdir(context.Context, string, os.FileMode) error { return vfs.ErrReadOnly }

// RemoveAll refuses: the tree is read-only.
func (f *fileSystem) RemoveAll(context.Context, string) error { return vfs.ErrReadOnly }

// Rename refuses: the tree is read-only.
func (f *fileSystem) Rename(context.Context, string, string) error { return vfs.ErrReadOnly }

// resolve resolves name in the tree shown, as the request ctx may (see public).
func (f *fileSystem) resolve(ctx context.Context, name string) (*vfs.Node, error) {
	return f.shown.Resolve(name, public(ctx))
}

// Stat returns the attributes of name as the tree shows it, translating a model when name is
// one of its documents and its size is not known yet.
func (f *fileSystem) Stat(ctx context.Context, name string) (os.FileInfo, error) {
	n, err := f.resolve(ctx, name)
	if err != nil {
		return nil, err
	}
	defer n.Release()
	a, err := n.Stat(ctx, true)
	if err != nil {
		return nil, err
	}
	return &info{a}, nil
}

// OpenFile opens name for reading; any flag that would write is refused.
func (f *fileSystem) OpenFile(ctx context.Context, name string, flag int, perm os.FileMode) (webdav.File, error) {
	if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_TRUNC|os.O_APPEND) != 0 {
		return nil, vfs.ErrReadOnly
	}
	n, err := f.resolve(ctx, name)
	if err != nil {
		return nil, err
	}
	file, err := open(ctx, n)
	if err != nil {
		n.Release()
		return nil, err
	}
	return file, nil
}

// open opens the node n, which the file holds until it is closed.
func open(ctx context.Context, n *vfs.Node) (*file, error) {
	c, err := n.Open(ctx)
	if err != nil {
		return nil, err
	}
	return &file{n: n, c: c, fi: &info{c.Attr}}, nil
}

// file is an open node.
type file struct {
	n  *vfs.Node
	c  *vfs.Content
	fi *info

	listed bool
}

var _ webdav.File = (*file)(nil)

func (f *file) Read(p []byte) (int, error) {
	if f.c.Reader == nil {
		return 0, &fs.PathError{Op: "read", Path: f.n.Path(), Err: syscall.EISDIR}
	}
	return f.c.Reader.Read(p)
}

func (f *file) Seek(off int64, whence int) (int64, error) {
	if f.c.Reader == nil {
		return 0, nil
	}
	return f.c.Reader.Seek(off, whence)
}

// WriteTo copies the rest of the file to w: a document in memory is written from where its
// pieces are.
func (f *file) WriteTo(w io.Writer) (int64, error) {
	if f.c.Doc != nil {
		at, err := f.c.Reader.Seek(0, io.SeekCurrent)
		if err != nil {
			return 0, err
		}
		n, err := f.c.Doc.WriteFrom(w, at)
		if _, serr := f.c.Reader.Seek(at+n, io.SeekStart); err == nil {
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
	if f.c.Closer != nil {
		err = f.c.Closer.Close()
	}
	f.n.Release()
	return err
}

// Readdir lists the folder as the mount does: its entries and the virtual documents beside
// each model and texture, sorted by name, with exact sizes — translating, in parallel as the
// tree allows, the models whose sizes no cache knows. The whole listing comes at the first
// call, whatever count asks for.
func (f *file) Readdir(count int) ([]os.FileInfo, error) {
	if !f.n.IsDir() {
		return nil, &fs.PathError{Op: "readdir", Path: f.n.Path(), Err: syscall.ENOTDIR}
	}
	if f.listed {
		if count > 0 {
			return nil, io.EOF
		}
		return nil, nil
	}
	f.listed = true
	attrs, err := f.n.ReadDir(context.Background())
	infos := make([]os.FileInfo, len(attrs))
	for i, a := range attrs {
		infos[i] = &info{a}
	}
	return infos, err
}

// info is the attributes of a node, with its ETag and content type for WebDAV.
type info struct{ a vfs.Attr }

var (
	_ webdav.ETager       = (*info)(nil)
	_ webdav.ContentTyper = (*info)(nil)
)

func (i *info) Name() string       { return i.a.Name }
func (i *info) Size() int64        { return i.a.Size }
func (i *info) Mode() fs.FileMode  { return i.a.Mode }
func (i *info) ModTime() time.Time { return i.a.MTime }
func (i *info) IsDir() bool        { return i.a.Mode.IsDir() }
func (i *info) Sys() any           { return nil }

// ETag returns the entity tag: from the content key for a document (two versions with the
// same key have the same bytes), from the file's identity for an entry of SRC or an archive.
func (i *info) ETag(context.Context) (string, error) { return i.a.Tag, nil }

// ContentType returns the type by the name's extension, without reading the file.
func (i *info) ContentType(context.Context) (string, error) { return contentType(i.a.Name), nil }

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
