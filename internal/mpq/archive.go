package mpq

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/modelfs/modelfs/internal/archive"
	"github.com/modelfs/modelfs/translate/codec"
)

// Options say how to open an archive.
type Options struct {
	// Name is the archive's path, used in errors.
	Name string
	// Map reads the header as Warcraft III does (format 1 fields only); set it for .w3m and
	// .w3x files. When Name ends in one of those it is set for you.
	Map bool
	// ListFiles are more member names (lines of the (listfile) format), for archives whose own
	// listfile is missing or incomplete.
	ListFiles [][]byte
	// Warn, when set, is told of what is wrong in a member that is read all the same (a
	// sector whose zlib checksum is wrong, say), once per member. What is wrong in the archive
	// itself is in Warnings.
	Warn func(error)
}

// Archive is an opened MPQ archive. It is an fs.FS whose paths are the members' names with
// '/' for '\'. It is safe for concurrent use.
type Archive struct {
	r    io.ReaderAt
	size int64
	opts Options
	hdr  header

	hashes []hashEntry
	names  map[[2]uint32]bool // the name checks some used slot holds
	blocks []block
	het    *het // format 3 and 4: the HET and BET tables, when the archive is read through them
	bet    *bet

	root     *node
	members  []*node // every named file, in listing order
	warnings []error
	tables   sectorTables
	deleted  []string // names this archive's deletion markers hide in earlier archives

	notedMu sync.Mutex
	noted   map[*node]bool // members whose read was noted (see noteRead)
}

// node is a directory or a member in the archive's tree.
type node struct {
	name     string // base name
	path     string // fs path, '/'-separated
	dir      bool
	children []*node
	index    map[string]*node // by lower-case name, directories only
	block    int              // files only
	arcName  string           // the member's name in the archive, '\'-separated
	unnamed  bool             // the name was made up: the member's real name is not known
	marker   bool             // a deletion marker

	listOnce sync.Once // directories: their entries, made once (see ReadDir)
	list     []fs.DirEntry
}

// Error is a problem with an archive or one of its members.
type Error = codec.FormatError

// Open reads the archive's header and tables and builds its tree of names. Members are read
// only when opened.
func Open(r io.ReaderAt, size int64, opts Options) (*Archive, error) {
	if ext := strings.ToLower(path.Ext(opts.Name)); ext == ".w3m" || ext == ".w3x" {
		opts.Map = true
	}
	var head [8]byte
	if n, _ := r.ReadAt(head[:], 0); n == 8 && string(head[:4]) == "HM3W" && le.Uint32(head[4:]) == 0 {
		opts.Map = true // a Warcraft III map's own header, whatever the file's name
	}
	a := &Archive{r: r, size: size, opts: opts}
	h, err := a.findHeader()
	if err != nil {
		return nil, err
	}
	a.hdr = h
	if h.forcedFormat1 {
		a.warn(a.errorf(h.base+12, nil, "header claims format %d (%d bytes); read as format 1", h.declaredFmt+1, h.declaredSize))
	}
	// As StormLib does, the hash and block tables win where they exist; HET and BET are read
	// when they are all there is (or the others cannot be read).
	classic := h.hashCount > 0 && h.blockCount > 0
	extended := h.format >= 3 && h.hetPos != 0 && h.betPos != 0
	switch {
	case classic:
		if err = a.readClassicTables(); err != nil && extended {
			a.warn(err)
			a.hashes, a.blocks = nil, nil
			err = a.readExtendedTables()
		}
	case extended:
		err = a.readExtendedTables()
	default:
		err = a.errorf(h.base, nil, "no hash table and no HET table")
	}
	if err != nil {
		return nil, err
	}
	a.buildTree()
	return a, nil
}

func (a *Archive) errorf(off int64, cause error, format string, args ...any) *Error {
	return &Error{Format: "mpq", File: a.opts.Name, Offset: off, Msg: fmt.Sprintf(format, args...), Err: cause}
}

func (a *Archive) warn(err error) { a.warnings = append(a.warnings, err) }

// noteRead tells Options.Warn of err, met while reading the member n, unless it was told of
// n already. Before the tree is built (the listfile being read) it is a warning of the
// archive's.
func (a *Archive) noteRead(n *node, err error) {
	if a.root == nil || n == nil || n.path == "" {
		a.warn(err)
		return
	}
	if a.opts.Warn == nil || !a.firstNote(n) {
		return
	}
	a.opts.Warn(err)
}

func (a *Archive) firstNote(n *node) bool {
	a.notedMu.Lock()
	defer a.notedMu.Unlock()
	if a.noted[n] {
		return false
	}
	if a.noted == nil || len(a.noted) >= 4096 {
		a.noted = map[*node]bool{}
	}
	a.noted[n] = true
	return true
}

// abs is the position in the file of pos, relative to the header: in format 1, 32 bits that
// wrap, as the games compute it (protectors place tables before the header that way).
func (a *Archive) abs(pos uint64) int64 {
	if a.hdr.format == 1 {
		return int64(uint32(uint64(a.hdr.base) + pos))
	}
	return a.hdr.base + int64(pos)
}

// Warnings are the problems met while opening: parts of the archive that were skipped.
func (a *Archive) Warnings() []error { return slices.Clip(a.warnings) }

// Format is the archive's format, 1 to 4, as read.
func (a *Archive) Format() int { return a.hdr.format }

// SectorSize is the size of the units members are stored in.
func (a *Archive) SectorSize() int { return 512 << a.hdr.sectorShift }

// Offset is where the archive's header sits in the file.
func (a *Archive) Offset() int64 { return a.hdr.base }

// internal names: never shown as members (StormLib's listings leave them out too).
var internal = map[string]bool{"(listfile)": true, "(attributes)": true, "(signature)": true, "(user data)": true}

// buildTree names every member: by the archive's (listfile) and the caller's lists first,
// then, for blocks no name reaches, File%08d with an extension sniffed from the content.
func (a *Archive) buildTree() {
	a.root = &node{dir: true, path: ".", index: map[string]*node{}}
	named := make([]bool, len(a.blocks))
	known := map[[2]uint32]bool{} // name checks of named members: their other locales are not new files
	lists := a.opts.ListFiles
	if b, err := a.readListfile(); err == nil {
		lists = append([][]byte{b}, lists...)
	} else if !errors.Is(err, fs.ErrNotExist) {
		a.warn(err)
	}
	for _, list := range lists {
		eachName(list, func(name string) { a.addListed(name, named, known) })
	}
	a.addUnnamed(named, known)
	sortTree(a.root)
}

// addListed adds the member a listfile names, if the archive holds it and no other name took
// its block.
func (a *Archive) addListed(name string, named []bool, known map[[2]uint32]bool) {
	bi, ok := a.lookup(name)
	if !ok || named[bi] || internal[strings.ToLower(name)] || a.blocks[bi].flags&flagExists == 0 {
		return
	}
	if a.blocks[bi].flags&flagDeleteMarker != 0 {
		// Listed, as StormLib lists it (an empty file of the archive's), and noted: in a chain
		// it hides the name in the archives before this one.
		named[bi] = true
		a.deleted = append(a.deleted, strings.ReplaceAll(name, "\\", "/"))
		if n := a.add(name, bi); n != nil {
			n.marker = true
		}
		return
	}
	if a.add(name, bi) != nil {
		named[bi] = true
		known[[2]uint32{hashString(name, hashNameA), hashString(name, hashNameB)}] = true
	}
}

// addUnnamed adds the blocks the name tables reach but no listed name did, as File%08d.ext.
func (a *Archive) addUnnamed(named []bool, known map[[2]uint32]bool) {
	internalBlocks := map[int]bool{}
	for name := range internal {
		if bi, ok := a.lookup(name); ok {
			internalBlocks[bi] = true
		}
	}
	for _, ref := range a.nameRefs() {
		bi := ref.block
		if bi < 0 || bi >= len(a.blocks) || named[bi] || ref.hasKey && known[ref.key] {
			continue
		}
		b := a.blocks[bi]
		if b.flags&flagExists == 0 || b.flags&flagDeleteMarker != 0 {
			continue
		}
		if b.flags&(flagCompress|flagImplode) == 0 && b.fsize > uint64(a.size) {
			continue // a decoy: stored as is, yet larger than the archive
		}
		named[bi] = true
		if internalBlocks[bi] {
			continue
		}
		if n := a.add(fmt.Sprintf("File%08d%s", bi, a.sniffExt(bi)), bi); n != nil {
			n.unnamed = true
		}
	}
}

// nameRef is a block some name reaches: a used slot of the hash table or of the HET table.
type nameRef struct {
	block  int
	key    [2]uint32 // the name checks of a hash table slot
	hasKey bool
}

// nameRefs lists the blocks the name tables reach, in slot order.
func (a *Archive) nameRefs() []nameRef {
	var refs []nameRef
	if a.het != nil {
		for slot, h1 := range a.het.nameHash1 {
			if h1 != 0 {
				bi := a.het.index.get(uint64(slot)*uint64(a.het.indexBits), a.het.indexBits)
				refs = append(refs, nameRef{block: int(min(bi, 1<<31-1))})
			}
		}
		return refs
	}
	for _, e := range a.hashes {
		if e.block < hashDeleted {
			refs = append(refs, nameRef{block: int(min(e.block, 1<<31-1)), key: [2]uint32{e.nameA, e.nameB}, hasKey: true})
		}
	}
	return refs
}

// eachName calls fn with each name of a listfile: lines, or ';'-separated, trimmed. Only a
// name the archive holds outlives the call: a listfile of a million names costs its own bytes,
// not a million strings.
func eachName(b []byte, fn func(string)) {
	for len(b) > 0 {
		i := bytes.IndexAny(b, "\n\r;")
		if i < 0 {
			i = len(b)
		}
		if f := bytes.TrimSpace(b[:i]); len(f) > 0 {
			fn(string(f))
		}
		b = b[min(i+1, len(b)):]
	}
}

// listfileLimit bounds the bytes of an archive's own (listfile) read: room for names of what
// it holds (a name is at most a few hundred bytes), at least 4 MiB, at most 64 MiB.
func (a *Archive) listfileLimit() int64 {
	return min(max(4<<20, 1024*int64(len(a.blocks))), 64<<20)
}

// readListfile reads the archive's (listfile), up to listfileLimit: past it the names are
// left out, with a warning.
func (a *Archive) readListfile() ([]byte, error) {
	const name = "(listfile)"
	bi, ok := a.lookup(name)
	if !ok {
		return nil, fs.ErrNotExist
	}
	m, err := a.openNode(&node{name: name, arcName: name, block: bi})
	if err != nil {
		return nil, err
	}
	limit := a.listfileLimit()
	b, err := io.ReadAll(io.LimitReader(io.NewSectionReader(&File{m: m}, 0, m.size), limit))
	if err != nil {
		return nil, err
	}
	if m.size > limit {
		a.warn(a.errorf(-1, nil, "(listfile) of %d bytes for %d files: its names past %d bytes are not read", m.size, len(a.blocks), limit))
		if i := bytes.LastIndexAny(b, "\n\r;"); i >= 0 {
			b = b[:i] // not a name cut in two
		}
	}
	return b, nil
}

// add places a member in the tree and returns its node. Names that no fs path can carry (empty
// elements, "." or "..") are left out with a warning (and nil returned); directories differing
// only in case are one directory.
func (a *Archive) add(arcName string, bi int) *node {
	parts := strings.FieldsFunc(arcName, func(r rune) bool { return r == '\\' || r == '/' })
	if len(parts) == 0 || strings.Contains(arcName, "\\\\") {
		a.warn(a.errorf(-1, nil, "member name %q cannot be a path; left out", arcName))
		return nil
	}
	for _, p := range parts {
		if p == "." || p == ".." || !fs.ValidPath(archive.ShownName(p)) {
			a.warn(a.errorf(-1, nil, "member name %q cannot be a path; left out", arcName))
			return nil
		}
	}
	dir := a.root
	for i, p := range parts {
		p = archive.ShownName(p)
		key := strings.ToLower(p)
		child := dir.index[key]
		last := i == len(parts)-1
		switch {
		case child == nil:
			child = &node{name: p, path: path.Join(dir.path, p), dir: !last}
			if !last {
				child.index = map[string]*node{}
			}
			dir.index[key] = child
			dir.children = append(dir.children, child)
		case last || !child.dir:
			a.warn(a.errorf(-1, nil, "member name %q collides with %q; left out", arcName, child.path))
			return nil
		}
		dir = child
	}
	dir.block, dir.arcName = bi, strings.Join(parts, "\\")
	a.members = append(a.members, dir)
	return dir
}

func sortTree(n *node) {
	slices.SortFunc(n.children, func(x, y *node) int { return strings.Compare(x.name, y.name) })
	for _, c := range n.children {
		if c.dir {
			sortTree(c)
		}
	}
}

// Close has nothing to close: archive.OpenFile, which opens an archive from a file, closes
// the file.
func (a *Archive) Close() error { return nil }

// Name is the archive's path, as Options.Name gave it.
func (a *Archive) Name() string { return a.opts.Name }
