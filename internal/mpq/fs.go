package mpq

import (
	"io"
	"io/fs"
	"slices"
	"strings"
)

// find walks the tree to name, ignoring case: the games, and every model that names a
// member, do (a model asks for Textures\\Gutz.blp of an archive that spells it textures).
// Listings show one spelling: the first name found.
func (a *Archive) find(op, name string) (*node, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	n := a.root
	if name == "." {
		return n, nil
	}
	for _, p := range strings.Split(name, "/") {
		var next *node
		if n.dir {
			next = n.index[strings.ToLower(p)]
		}
		if next == nil {
			return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
		}
		n = next
	}
	return n, nil
}

// Open opens a member or a directory of the archive.
func (a *Archive) Open(name string) (fs.File, error) {
	n, err := a.find("open", name)
	if err != nil {
		return nil, err
	}
	if n.dir {
		return &dirFile{a: a, n: n}, nil
	}
	m, err := a.openNode(n)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return &File{m: m}, nil
}

// Stat describes a member or directory without opening it.
func (a *Archive) Stat(name string) (fs.FileInfo, error) {
	n, err := a.find("stat", name)
	if err != nil {
		return nil, err
	}
	return a.info(n), nil
}

func (a *Archive) info(n *node) fileInfo {
	if n.dir {
		return fileInfo{n: n}
	}
	return fileInfo{n: n, size: int64(a.blocks[n.block].fsize)}
}

// ReadDir lists a directory, sorted by name. The entries are made once per directory and
// shared (a model's translation lists its folder, and a folder may hold 10,000 models): the
// caller must not change the slice's elements.
func (a *Archive) ReadDir(name string) ([]fs.DirEntry, error) {
	n, err := a.find("readdir", name)
	if err != nil {
		return nil, err
	}
	if !n.dir {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	n.listOnce.Do(func() {
		n.list = make([]fs.DirEntry, len(n.children))
		for i, c := range n.children {
			n.list[i] = fs.FileInfoToDirEntry(a.info(c))
		}
	})
	return slices.Clip(n.list), nil
}

// FindFold resolves a slash-separated name element by element, ignoring case where the exact
// element is absent, from the archive's index (codec.FoldFS): no folder is listed.
func (a *Archive) FindFold(name string) (string, bool) {
	if !fs.ValidPath(name) {
		return "", false
	}
	n := a.root
	if name == "." {
		return ".", true
	}
	for _, p := range strings.Split(name, "/") {
		if !n.dir {
			return "", false
		}
		c := n.index[strings.ToLower(p)]
		if c == nil {
			return "", false
		}
		n = c
	}
	return n.path, true
}

// Members lists every named member's fs path, in the order names were found.
func (a *Archive) Members() []string {
	out := make([]string, len(a.members))
	for i, n := range a.members {
		out[i] = n.path
	}
	return out
}

// dirFile is an open directory.
type dirFile struct {
	a    *Archive
	n    *node
	next int
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return d.a.info(d.n), nil }
func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.n.path, Err: fs.ErrInvalid}
}
func (d *dirFile) Close() error { return nil }

func (d *dirFile) ReadDir(count int) ([]fs.DirEntry, error) {
	rest := d.n.children[d.next:]
	if count > 0 && len(rest) == 0 {
		return nil, io.EOF
	}
	if count > 0 && count < len(rest) {
		rest = rest[:count]
	}
	d.next += len(rest)
	out := make([]fs.DirEntry, len(rest))
	for i, c := range rest {
		out[i] = fs.FileInfoToDirEntry(d.a.info(c))
	}
	return out, nil
}

// ReadFile reads a whole member. Unlike fs.ReadFile it does not trust the member's declared
// size for its buffer: it grows with what actually decodes, so a size that lies costs only
// what the archive really holds.
func (a *Archive) ReadFile(name string) ([]byte, error) {
	f, err := a.Open(name)
	if err != nil {
		return nil, err
	}
	mf, ok := f.(*File)
	if !ok {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	b, err := readAll(mf)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return b, nil
}

// readAll reads a member unit by unit into a buffer that starts at no more than 1 MiB (or
// what its stored bytes could plausibly hold) and grows as the units decode.
func readAll(f *File) ([]byte, error) {
	size := f.m.size
	out := make([]byte, 0, min(size, 1<<20, max(int64(f.m.b.csize)*4, 4096)))
	for off := int64(0); off < size; {
		chunk := min(size-off, max(f.m.sectorSize(), 1))
		if int64(cap(out)-len(out)) < chunk {
			out = append(out, make([]byte, chunk)...)[:len(out)]
		}
		n, err := f.ReadAt(out[len(out):len(out)+int(chunk)], off)
		out = out[:len(out)+n]
		off += int64(n)
		if err != nil && off < size {
			return nil, err
		}
	}
	return out, nil
}
