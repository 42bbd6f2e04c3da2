package mpq

import (
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// Chain is the merged view of a game's archives in load order: a member of a later archive
// replaces the member of the same name (ignoring case, as the games do) in earlier ones, and a
// later archive's deletion marker hides it. It is an fs.FS, safe for concurrent use.
type Chain struct {
	root *chainNode
}

type chainNode struct {
	name     string
	dir      bool
	children map[string]*chainNode // by lower-case name
	sorted   []*chainNode
	arc      *Archive // files: the archive holding the member
	member   string   // files: its path there
}

// NewChain merges archives, given in load order: the last has the final word.
func NewChain(archives []*Archive) *Chain {
	root := &chainNode{dir: true, children: map[string]*chainNode{}}
	for _, a := range archives {
		for _, p := range a.deleted {
			root.remove(strings.Split(p, "/"))
		}
		for _, n := range a.members {
			if !n.marker {
				root.insert(strings.Split(n.path, "/"), a, n.path)
			}
		}
	}
	root.sort()
	return &Chain{root: root}
}

func (n *chainNode) insert(parts []string, a *Archive, member string) {
	key := strings.ToLower(parts[0])
	c := n.children[key]
	if len(parts) == 1 {
		if c != nil && c.dir {
			return // a folder of that name already: keep it (an archive cannot hold both)
		}
		name := parts[0]
		if c != nil {
			name = c.name // an override keeps the name as first spelt: names stay put across patches
		}
		n.children[key] = &chainNode{name: name, arc: a, member: member}
		return
	}
	if c == nil || !c.dir {
		c = &chainNode{name: parts[0], dir: true, children: map[string]*chainNode{}}
		n.children[key] = c
	}
	c.insert(parts[1:], a, member)
}

func (n *chainNode) remove(parts []string) {
	key := strings.ToLower(parts[0])
	c := n.children[key]
	switch {
	case c == nil:
	case len(parts) == 1:
		if !c.dir {
			delete(n.children, key)
		}
	case c.dir:
		c.remove(parts[1:])
		if len(c.children) == 0 {
			delete(n.children, key)
		}
	}
}

func (n *chainNode) sort() {
	for _, c := range n.children {
		n.sorted = append(n.sorted, c)
		if c.dir {
			c.sort()
		}
	}
	slices.SortFunc(n.sorted, func(x, y *chainNode) int { return strings.Compare(x.name, y.name) })
}

func (c *Chain) find(op, name string) (*chainNode, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	n := c.root
	if name == "." {
		return n, nil
	}
	for _, p := range strings.Split(name, "/") {
		next := n.children[strings.ToLower(p)] // case ignored, as in an archive (see Archive.find)
		if !n.dir || next == nil {
			return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
		}
		n = next
	}
	return n, nil
}

// Open opens a member or folder of the merged tree.
func (c *Chain) Open(name string) (fs.File, error) {
	n, err := c.find("open", name)
	if err != nil {
		return nil, err
	}
	if !n.dir {
		f, err := n.arc.Open(n.member)
		if err != nil {
			return nil, err
		}
		return chainFile{f.(*File), n.name}, nil
	}
	return &chainDir{n: n, path: name}, nil
}

// Stat describes a member or folder.
func (c *Chain) Stat(name string) (fs.FileInfo, error) {
	n, err := c.find("stat", name)
	if err != nil {
		return nil, err
	}
	return n.info(name), nil
}

// ReadDir lists a folder, sorted by name.
func (c *Chain) ReadDir(name string) ([]fs.DirEntry, error) {
	n, err := c.find("readdir", name)
	if err != nil {
		return nil, err
	}
	if !n.dir {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	return n.entries(n.sorted), nil
}

// FindFold resolves a name ignoring case where the exact element is absent (codec.FoldFS).
func (c *Chain) FindFold(name string) (string, bool) {
	if !fs.ValidPath(name) {
		return "", false
	}
	if name == "." {
		return ".", true
	}
	n := c.root
	var parts []string
	for _, p := range strings.Split(name, "/") {
		if !n.dir {
			return "", false
		}
		next := n.children[strings.ToLower(p)]
		if next == nil {
			return "", false
		}
		n = next
		parts = append(parts, n.name)
	}
	return strings.Join(parts, "/"), true
}

func (n *chainNode) info(p string) fs.FileInfo {
	if n.dir {
		name := n.name // the first spelling, whatever case p asked with
		if name == "" {
			name = path.Base(p)
		}
		return fileInfo{n: &node{name: name, path: p, dir: true}}
	}
	fi, err := n.arc.Stat(n.member)
	if err != nil {
		return fileInfo{n: &node{name: n.name, path: p}}
	}
	return named{fi, n.name}
}

// chainFile is an open member under the name the merged tree gives it.
type chainFile struct {
	*File
	name string
}

func (f chainFile) Stat() (fs.FileInfo, error) {
	fi, err := f.File.Stat()
	return named{fi, f.name}, err
}

// named is a member's FileInfo under the name the merged tree gives it.
type named struct {
	fs.FileInfo
	name string
}

func (n named) Name() string { return n.name }

func (n *chainNode) entries(cs []*chainNode) []fs.DirEntry {
	out := make([]fs.DirEntry, len(cs))
	for i, c := range cs {
		out[i] = fs.FileInfoToDirEntry(c.info(c.name))
	}
	return out
}

type chainDir struct {
	n    *chainNode
	path string
	next int
}

func (d *chainDir) Stat() (fs.FileInfo, error) { return d.n.info(d.path), nil }
func (d *chainDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.path, Err: fs.ErrInvalid}
}
func (d *chainDir) Close() error { return nil }
func (d *chainDir) ReadDir(count int) ([]fs.DirEntry, error) {
	rest := d.n.sorted[d.next:]
	if count > 0 && len(rest) == 0 {
		return nil, io.EOF
	}
	if count > 0 && count < len(rest) {
		rest = rest[:count]
	}
	d.next += len(rest)
	return d.n.entries(rest), nil
}

// ReadFile reads a whole member (see Archive.ReadFile).
func (c *Chain) ReadFile(name string) ([]byte, error) {
	n, err := c.find("read", name)
	if err != nil {
		return nil, err
	}
	if n.dir {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	return n.arc.ReadFile(n.member)
}
