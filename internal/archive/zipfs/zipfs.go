// Package zipfs registers zip archives (.zip, and Reforged's .w3mod when it is one) with
// package archive. Members are read by Go's zip reader (deflate, and the checksum checked at
// each member's end); the tree of names is the package's own, so that a zip written carelessly
// — the same name twice, as appending tools leave it, "./" or "../" entries, backslashes —
// still lists: a name that would leave the archive is left out, and of two members of one
// name the later one is shown.
package zipfs

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelfs/modelfs/internal/archive"
)

// formatName is the name zip registers under.
const formatName = "zip"

// MaxMember bounds the size of a member read, as a source's may be at most.
const MaxMember = 512 << 20

// firstRead is the most a member's read allocates before its bytes arrive: a header can claim
// any size.
const firstRead = 1 << 20

func init() {
	archive.Register(archive.Format{
		Name: formatName,
		Exts: []string{".zip", ".w3mod"},
		// A local file header, or the end record of an empty archive.
		Match: func(head []byte) bool {
			return bytes.HasPrefix(head, []byte("PK\x03\x04")) || bytes.HasPrefix(head, []byte("PK\x05\x06"))
		},
		Open: open,
	})
}

// Archive is an opened zip archive.
type Archive struct {
	r     io.ReaderAt
	name  string
	nodes map[string]*node // by path; "." is the root

	foldOnce sync.Once
	fold     map[string]string // lower-cased path → the path
}

// node is a folder or a member of the archive's tree.
type node struct {
	path     string
	file     *zip.File // nil for a folder
	children []string  // a folder's entries' names, sorted
}

func open(r io.ReaderAt, size int64, opt archive.Options) (archive.Archive, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, &fs.PathError{Op: "open", Path: opt.Name, Err: fmt.Errorf("zip: %w", err)}
	}
	a := &Archive{r: r, name: opt.Name, nodes: map[string]*node{".": {path: "."}}}
	for _, f := range zr.File {
		p, ok := cleanName(f.Name)
		if !ok {
			continue
		}
		if strings.HasSuffix(f.Name, "/") || strings.HasSuffix(f.Name, `\`) {
			a.dir(p)
			continue
		}
		if n := a.nodes[p]; n != nil && n.file == nil {
			continue // a folder of that name already
		}
		a.dir(path.Dir(p))
		if a.nodes[p] == nil {
			parent := a.nodes[path.Dir(p)]
			parent.children = append(parent.children, path.Base(p))
		}
		a.nodes[p] = &node{path: p, file: f} // the later of two of one name
	}
	for _, n := range a.nodes {
		slices.Sort(n.children)
	}
	return a, nil
}

// cleanName is a member's name as a path of the archive's tree, or ok false for one that
// names no place inside it.
func cleanName(name string) (string, bool) {
	slashed := strings.ReplaceAll(name, `\`, "/")
	p := path.Clean("/" + slashed)[1:]
	if p == "" || !fs.ValidPath(p) {
		return "", false
	}
	for _, elem := range strings.Split(slashed, "/") {
		if elem == ".." {
			return "", false // meant to leave the archive: not shown anywhere
		}
	}
	return p, true
}

// dir makes p and its parents folders. A member of a folder's name gives way to the folder.
func (a *Archive) dir(p string) {
	if p == "." {
		return
	}
	if n := a.nodes[p]; n != nil {
		n.file = nil
		return
	}
	parent := path.Dir(p)
	a.dir(parent)
	a.nodes[p] = &node{path: p}
	a.nodes[parent].children = append(a.nodes[parent].children, path.Base(p))
}

// lookup returns the node name, checked.
func (a *Archive) lookup(op, name string) (*node, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	n := a.nodes[name]
	if n == nil {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	return n, nil
}

// Open opens the member or folder name. A member reads at any offset: a stored one from the
// archive itself (its checksum unchecked, as a reader of a range cannot), a compressed one
// from its bytes, read whole (see read).
func (a *Archive) Open(name string) (fs.File, error) {
	n, err := a.lookup("open", name)
	if err != nil {
		return nil, err
	}
	if n.file == nil {
		return &dirFile{a: a, n: n}, nil
	}
	if n.file.Method == zip.Store && n.file.Flags&1 == 0 {
		if off, err := n.file.DataOffset(); err == nil {
			return &member{info: a.info(n), SectionReader: io.NewSectionReader(a.r, off, int64(n.file.CompressedSize64))}, nil
		}
	}
	b, err := a.read(n)
	if err != nil {
		return nil, err
	}
	return &member{info: a.info(n), SectionReader: io.NewSectionReader(bytes.NewReader(b), 0, int64(len(b)))}, nil
}

// Stat describes name.
func (a *Archive) Stat(name string) (fs.FileInfo, error) {
	n, err := a.lookup("stat", name)
	if err != nil {
		return nil, err
	}
	return a.info(n), nil
}

// ReadDir lists the folder name, sorted by name.
func (a *Archive) ReadDir(name string) ([]fs.DirEntry, error) {
	n, err := a.lookup("readdir", name)
	if err != nil {
		return nil, err
	}
	if n.file != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a folder")}
	}
	out := make([]fs.DirEntry, len(n.children))
	for i, c := range n.children {
		out[i] = fs.FileInfoToDirEntry(a.info(a.nodes[path.Join(n.path, c)]))
	}
	return out, nil
}

// ReadFile reads the member name.
func (a *Archive) ReadFile(name string) ([]byte, error) {
	n, err := a.lookup("read", name)
	if err != nil {
		return nil, err
	}
	if n.file == nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("is a folder")}
	}
	return a.read(n)
}

// read reads the member n whole: refused beyond MaxMember before it is read, the memory grown
// as its bytes arrive, and an error when they are not the size and checksum its header gives.
func (a *Archive) read(n *node) ([]byte, error) {
	fail := func(err error) error { return &fs.PathError{Op: "read", Path: n.path, Err: err} }
	size := n.file.UncompressedSize64
	if size > MaxMember {
		return nil, fail(fmt.Errorf("zip: member of %d bytes, more than the %d a member may have", size, MaxMember))
	}
	rc, err := n.file.Open()
	if err != nil {
		return nil, fail(fmt.Errorf("zip: %w", err))
	}
	defer rc.Close()
	buf := bytes.NewBuffer(make([]byte, 0, min(size, firstRead)))
	if _, err := buf.ReadFrom(io.LimitReader(rc, int64(size)+1)); err != nil {
		return nil, fail(fmt.Errorf("zip: %w", err))
	}
	if uint64(buf.Len()) != size {
		return nil, fail(fmt.Errorf("zip: member of %d bytes where its header says %d", buf.Len(), size))
	}
	return buf.Bytes(), nil
}

// FindFold resolves name, ignoring case where the exact name is absent.
func (a *Archive) FindFold(name string) (string, bool) {
	if !fs.ValidPath(name) {
		return "", false
	}
	if a.nodes[name] != nil {
		return name, true
	}
	a.foldOnce.Do(func() {
		a.fold = make(map[string]string, len(a.nodes))
		for p := range a.nodes {
			k := strings.ToLower(p)
			if q, dup := a.fold[k]; !dup || p < q { // of several spellings, one for good
				a.fold[k] = p
			}
		}
	})
	p, ok := a.fold[strings.ToLower(name)]
	return p, ok
}

// Name is the archive's path, as archive.Options.Name gave it.
func (a *Archive) Name() string { return a.name }

// Close has nothing to close: archive.OpenFile closes the file.
func (a *Archive) Close() error { return nil }

// FormatName names the archive's format (see archive.Formatted).
func (a *Archive) FormatName() string { return formatName }

// info describes the node n.
func (a *Archive) info(n *node) fileInfo { return fileInfo{n} }

type fileInfo struct{ n *node }

func (i fileInfo) Name() string { return path.Base(i.n.path) }
func (i fileInfo) Size() int64 {
	if i.n.file == nil {
		return 0
	}
	return int64(i.n.file.UncompressedSize64)
}
func (i fileInfo) Mode() fs.FileMode {
	if i.n.file == nil {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (i fileInfo) ModTime() time.Time {
	if i.n.file == nil {
		return time.Time{}
	}
	return i.n.file.Modified
}
func (i fileInfo) IsDir() bool { return i.n.file == nil }
func (i fileInfo) Sys() any    { return nil }

// member is an open member: it reads at any offset.
type member struct {
	info fileInfo
	*io.SectionReader
}

func (m *member) Stat() (fs.FileInfo, error) { return m.info, nil }
func (m *member) Close() error               { return nil }

// dirFile is an open folder.
type dirFile struct {
	a    *Archive
	n    *node
	ents []fs.DirEntry // its entries, once ReadDir has asked
	read int           // entries ReadDir gave
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return d.a.info(d.n), nil }
func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.n.path, Err: errors.New("is a folder")}
}
func (d *dirFile) Close() error { return nil }

func (d *dirFile) ReadDir(count int) ([]fs.DirEntry, error) {
	if d.ents == nil {
		all, err := d.a.ReadDir(d.n.path)
		if err != nil {
			return nil, err
		}
		d.ents = all
	}
	rest := d.ents[d.read:]
	if count > 0 {
		if len(rest) == 0 {
			return nil, io.EOF
		}
		rest = rest[:min(count, len(rest))]
	}
	d.read += len(rest)
	return rest, nil
}
