// Package zipfs registers zip archives (.zip, and Reforged's .w3mod when it is one) with
// package archive. It reads the format itself (store and deflate, zip64, data descriptors),
// because what a hostile archive can make a reader do depends on details a general reader
// leaves open:
//   - the central directory is checked whole when the archive opens: a member whose sizes
//     cannot be true, that unpacks to more than the archive could hold (as MPQ bounds it), or
//     whose bytes are another member's (the zip bomb of many members over one stream) is
//     refused, listed at size 0, and opening it says why;
//   - a member is read as a stream: a reader of one byte inflates a few KiB, not the member;
//     reads back and forth within the last 512 KiB are served from a window, farther back
//     start the stream again; the windows of all open members share one memory budget,
//     charged to archive.Charged;
//   - sizes and checksums are checked against the central directory, the local header, the
//     data descriptor and the archive's length, and a member that reads differently is an
//     error, never short or long bytes;
//   - names are the games': any case finds a member, a NUL shows as ␀, a name that is not
//     UTF-8 keeps its bytes as Latin-1 characters, "." and ".." resolve inside the archive (a
//     name climbing out of it is left out), and of two members of one name the later is shown.
package zipfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelfs/modelfs/internal/archive"
	"github.com/modelfs/modelfs/translate/codec"
)

// formatName is the name zip registers under.
const formatName = "zip"

// MaxMember bounds the size of a member read, as a source's may be at most.
const MaxMember = 512 << 20

func init() {
	archive.Register(archive.Format{
		Name: formatName,
		Exts: []string{".zip", ".w3mod"},
		// A local file header, or the end record of an empty archive.
		Match: func(head []byte) bool {
			return strings.HasPrefix(string(head), "PK\x03\x04") || strings.HasPrefix(string(head), "PK\x05\x06")
		},
		Open: func(r io.ReaderAt, size int64, opt archive.Options) (archive.Archive, error) {
			return Open(r, size, opt)
		},
	})
}

// Archive is an opened zip archive. It is safe for concurrent use.
type Archive struct {
	r        io.ReaderAt
	size     int64
	name     string
	entries  []entry
	t        *tree
	warnings []error
	unwarned int // warnings past maxWarnings

	mu   sync.Mutex
	dirs map[int32][]fs.DirEntry // folder → its listing, made once
}

// Open reads the zip archive of size bytes r reads: its central directory, checked.
func Open(r io.ReaderAt, size int64, opt archive.Options) (*Archive, error) {
	a := &Archive{r: r, size: size, name: opt.Name}
	d, err := findEnd(r, size)
	if err != nil {
		return nil, a.errorf(-1, nil, "%v", err)
	}
	hint := int(min(d.records, d.size/centralLen, 1<<20))
	b := newBuilder(hint, func(format string, args ...any) { a.warn(a.errorf(-1, nil, format, args...)) })
	a.entries = make([]entry, 0, hint)
	if err := a.readDirectory(d, b); err != nil {
		return nil, err
	}
	a.t = b.finish()
	a.entries = slices.Clip(a.entries)
	a.check(a.t, d)
	if n := a.refused(); n > 0 {
		i := a.firstRefused()
		// Kept whatever came before: it is the one that says what the listing does not.
		a.warnings = append(a.warnings, a.errorf(-1, nil, "%d member(s) refused, listed at size 0; the first, %s: %s", n, a.t.path(i), a.refusal(i).Msg))
	}
	return a, nil
}

func (a *Archive) errorf(off int64, cause error, format string, args ...any) *codec.FormatError {
	return &codec.FormatError{Format: formatName, File: a.name, Offset: off, Msg: fmt.Sprintf(format, args...), Err: cause}
}

// maxWarnings bounds the warnings an archive keeps: a hostile one may have a million names
// that climb out of it.
const maxWarnings = 100

func (a *Archive) warn(err error) {
	if a.unwarned++; len(a.warnings) < maxWarnings {
		a.warnings = append(a.warnings, err)
		a.unwarned--
	}
}

// Warnings lists what is wrong in the archive that it opened despite: names left out,
// members refused; the first maxWarnings of them, and a count of the others.
func (a *Archive) Warnings() []error {
	if a.unwarned > 0 {
		return append(slices.Clip(a.warnings), a.errorf(-1, nil, "and %d more warnings", a.unwarned))
	}
	return slices.Clip(a.warnings)
}

// refused counts the refused members the tree shows.
func (a *Archive) refused() int {
	n := 0
	for i := range a.t.nodes {
		if e := a.t.nodes[i].entry; e >= 0 && a.entries[e].bad != refusedNone {
			n++
		}
	}
	return n
}

// firstRefused returns the first refused member the tree shows.
func (a *Archive) firstRefused() int32 {
	for i := range a.t.nodes {
		if e := a.t.nodes[i].entry; e >= 0 && a.entries[e].bad != refusedNone {
			return int32(i)
		}
	}
	return -1
}

// refusal is the error of the refused member node i, nil when it is not refused.
func (a *Archive) refusal(i int32) *codec.FormatError {
	n := &a.t.nodes[i]
	e := &a.entries[n.entry]
	var msg string
	switch e.bad {
	case refusedNone:
		return nil
	case refusedEncrypted:
		msg = "encrypted; modelfs reads no encrypted member"
	case refusedMethod:
		msg = fmt.Sprintf("compressed with method %d; modelfs reads stored (0) and deflated (8) members", e.method)
	case refusedStored:
		msg = fmt.Sprintf("stored as is, yet its header says %d bytes from %d stored", e.usize, e.csize)
	case refusedTooLarge:
		msg = fmt.Sprintf("of %d bytes, more than the %d a member may have", e.usize, MaxMember)
	case refusedRatio:
		msg = fmt.Sprintf("claims %d bytes from %d stored, more than it can hold or than an archive of %d bytes may unpack to (%d)",
			e.usize, e.csize, a.size, max(1<<20, min(MaxMember, 64*a.size)))
	case refusedPastEnd:
		msg = fmt.Sprintf("its %d stored bytes at %d run past the central directory", e.csize, e.off)
	case refusedOverlap:
		other := &a.entries[a.t.nodes[e.other].entry]
		msg = fmt.Sprintf("its bytes at %d overlap those of %q (at %d): one of them lies about its size, or both are one stream (a zip bomb)",
			e.off, a.t.path(e.other), other.off)
	}
	return a.memberErr(i, e.off, nil, "%s", msg)
}

// memberErr is an error of the member node i, at off in the archive.
func (a *Archive) memberErr(i int32, off int64, cause error, format string, args ...any) *codec.FormatError {
	err := a.errorf(off, cause, format, args...)
	err.File = a.name + ":" + a.t.path(i)
	return err
}

// lookup returns the node name names, in any case.
func (a *Archive) lookup(op, name string) (int32, error) {
	if !fs.ValidPath(name) {
		return -1, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	i, _, ok := a.t.find(name)
	if !ok {
		return -1, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	return i, nil
}

// Open opens the member or folder name. A member reads at any offset (see member).
func (a *Archive) Open(name string) (fs.File, error) {
	i, err := a.lookup("open", name)
	if err != nil {
		return nil, err
	}
	if a.t.nodes[i].isDir() {
		return &dirFile{a: a, i: i}, nil
	}
	return a.openMember(i)
}

// Stat describes name.
func (a *Archive) Stat(name string) (fs.FileInfo, error) {
	i, err := a.lookup("stat", name)
	if err != nil {
		return nil, err
	}
	fi := a.info(i)
	return &fi, nil
}

// ReadDir lists the folder name, sorted by name. The listing is made once and shared (a
// model's translation lists its folder, which may hold thousands of models): the caller must
// not change its elements.
func (a *Archive) ReadDir(name string) ([]fs.DirEntry, error) {
	i, err := a.lookup("readdir", name)
	if err != nil {
		return nil, err
	}
	if !a.t.nodes[i].isDir() {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a folder")}
	}
	return slices.Clip(a.listing(i)), nil
}

// listing returns the entries of the folder i, sorted by name.
func (a *Archive) listing(i int32) []fs.DirEntry {
	a.mu.Lock()
	defer a.mu.Unlock()
	if l, ok := a.dirs[i]; ok {
		return l
	}
	kids := a.t.children(&a.t.nodes[i])
	infos := make([]fileInfo, len(kids))
	l := make([]fs.DirEntry, len(kids))
	for j, k := range kids {
		infos[j] = a.info(k)
		l[j] = &infos[j]
	}
	slices.SortFunc(l, func(x, y fs.DirEntry) int { return strings.Compare(x.Name(), y.Name()) })
	if a.dirs == nil {
		a.dirs = map[int32][]fs.DirEntry{}
	}
	a.dirs[i] = l
	return l
}

// ReadFile reads the member name whole, checked (see readAll).
func (a *Archive) ReadFile(name string) ([]byte, error) {
	i, err := a.lookup("read", name)
	if err != nil {
		return nil, err
	}
	if a.t.nodes[i].isDir() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("is a folder")}
	}
	return a.readAll(i)
}

// FindFold resolves name in any case, returning it in the archive's spelling.
func (a *Archive) FindFold(name string) (string, bool) {
	if !fs.ValidPath(name) {
		return "", false
	}
	_, p, ok := a.t.find(name)
	return p, ok
}

// Name is the archive's path, as archive.Options.Name gave it.
func (a *Archive) Name() string { return a.name }

// Close has nothing to close: archive.OpenFile closes the file.
func (a *Archive) Close() error { return nil }

// FormatName names the archive's format (see archive.Formatted).
func (a *Archive) FormatName() string { return formatName }

// info describes the node i.
func (a *Archive) info(i int32) fileInfo { return fileInfo{a: a, i: i} }

// fileInfo describes a node; it is its own fs.DirEntry.
type fileInfo struct {
	a *Archive
	i int32
}

func (fi *fileInfo) node() *node { return &fi.a.t.nodes[fi.i] }

func (fi *fileInfo) Name() string { return fi.node().name }
func (fi *fileInfo) Size() int64 {
	n := fi.node()
	if n.isDir() {
		return 0
	}
	if e := &fi.a.entries[n.entry]; e.bad == refusedNone {
		return int64(e.usize)
	}
	return 0
}
func (fi *fileInfo) Mode() fs.FileMode {
	if fi.node().isDir() {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (fi *fileInfo) ModTime() time.Time {
	n := fi.node()
	if n.isDir() {
		return time.Time{}
	}
	return time.Unix(fi.a.entries[n.entry].mtime, 0).UTC()
}
func (fi *fileInfo) IsDir() bool                { return fi.node().isDir() }
func (fi *fileInfo) Sys() any                   { return nil }
func (fi *fileInfo) Type() fs.FileMode          { return fi.Mode().Type() }
func (fi *fileInfo) Info() (fs.FileInfo, error) { return fi, nil }
func (fi *fileInfo) String() string             { return fs.FormatDirEntry(fi) }

// dirFile is an open folder.
type dirFile struct {
	a    *Archive
	i    int32
	read int // entries ReadDir gave
}

func (d *dirFile) Stat() (fs.FileInfo, error) { fi := d.a.info(d.i); return &fi, nil }
func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.a.t.path(d.i), Err: errors.New("is a folder")}
}
func (d *dirFile) Close() error { return nil }

func (d *dirFile) ReadDir(count int) ([]fs.DirEntry, error) {
	rest := d.a.listing(d.i)[d.read:]
	if count > 0 {
		if len(rest) == 0 {
			return nil, io.EOF
		}
		rest = rest[:min(count, len(rest))]
	}
	d.read += len(rest)
	return slices.Clone(rest), nil
}
