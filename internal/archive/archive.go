// Package archive is the registry of archive formats a tree shows as folders, as translate's
// codec is of model formats: each format says how to recognise an archive of its kind (by
// content, its name as a fallback) and how to open one as an fs.FS, and may say how several
// archives of its kind merge into one tree; a game says in which order its archives load.
// Formats register themselves from their packages' init (see archive/all); the tree, the
// command line and the tests reach archives through here alone.
package archive

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Archive is an opened archive: a read-only tree of its members, safe for concurrent use.
type Archive interface {
	fs.StatFS
	fs.ReadDirFS
	fs.ReadFileFS
	// FindFold resolves name, ignoring case where the exact element is absent, as the games
	// look their files up.
	FindFold(name string) (string, bool)
	// Name is the archive's path, as Options.Name gave it.
	Name() string
	// Close closes what OpenFile opened; an archive opened with Open has nothing to close.
	Close() error
}

// Options say how to open an archive. A format ignores what it has no use for.
type Options struct {
	// Name is the archive's path, used in errors.
	Name string
	// ListFiles are more member names, for formats whose archives may not list all of theirs.
	ListFiles [][]byte
	// Warn, when set, is told of what is wrong in a member that is read all the same.
	Warn func(error)
}

// Format is one archive format.
type Format struct {
	Name string
	// Exts are the extensions of the files that may be archives of the format (lower case,
	// with the dot): a listing shows such a file as a folder.
	Exts []string
	// Match reports whether an archive starts with head (the file's first HeadLen bytes, fewer
	// when it is shorter).
	Match func(head []byte) bool
	// Open opens the archive of size bytes r reads.
	Open func(r io.ReaderAt, size int64, opt Options) (Archive, error)
	// Merge, when set, shows archives of the format as one tree, later ones over earlier ones
	// (a game's patches over its base). Without it, Merge layers them.
	Merge func(arcs []Archive) fs.FS
}

// HeadLen is how much of a file Match is given.
const HeadLen = 1024

// Game is a game whose data folder holds archives that load in an order of its own.
type Game struct {
	Name string
	// Archives lists the archives of the game's install or data folder dir in load order,
	// relative to dir; none when dir is not such a folder.
	Archives func(dir string) ([]string, error)
}

var (
	mu      sync.Mutex
	formats atomic.Pointer[[]Format]
	games   atomic.Pointer[[]Game]
)

// Register adds an archive format. Formats are registered by their packages' init.
func Register(f Format) {
	mu.Lock()
	defer mu.Unlock()
	var fs []Format
	if p := formats.Load(); p != nil {
		fs = slices.Clone(*p)
	}
	fs = append(fs, f)
	formats.Store(&fs)
}

// RegisterGame adds a game's load order.
func RegisterGame(g Game) {
	mu.Lock()
	defer mu.Unlock()
	var gs []Game
	if p := games.Load(); p != nil {
		gs = slices.Clone(*p)
	}
	gs = append(gs, g)
	games.Store(&gs)
}

// Formats returns the registered formats.
func Formats() []Format {
	if p := formats.Load(); p != nil {
		return *p
	}
	return nil
}

// IsArchiveName reports whether a file's name is one a format's archives have. It does not
// allocate: listings ask it of every entry.
func IsArchiveName(name string) bool {
	ext := path.Ext(name)
	for _, f := range Formats() {
		for _, e := range f.Exts {
			if strings.EqualFold(ext, e) {
				return true
			}
		}
	}
	return false
}

// ErrUnknown is the error of a file no format recognises.
var ErrUnknown = errors.New("not an archive of a format modelfs reads")

// Open opens the archive of size bytes r reads, named opt.Name: of the format whose Match
// takes its start, else of the format its name's extension is.
func Open(r io.ReaderAt, size int64, opt Options) (Archive, error) {
	head := make([]byte, min(size, HeadLen))
	if n, err := r.ReadAt(head, 0); n < len(head) {
		return nil, &fs.PathError{Op: "read", Path: opt.Name, Err: err}
	}
	all := Formats()
	for _, f := range all {
		if f.Match != nil && f.Match(head) {
			return f.Open(r, size, opt)
		}
	}
	ext := path.Ext(opt.Name)
	for _, f := range all {
		if slices.ContainsFunc(f.Exts, func(e string) bool { return strings.EqualFold(ext, e) }) {
			return f.Open(r, size, opt)
		}
	}
	return nil, &fs.PathError{Op: "open", Path: opt.Name, Err: ErrUnknown}
}

// OpenFile opens the archive in the named file; its Close closes the file.
func OpenFile(name string, opt Options) (Archive, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("not a regular file")}
	}
	if opt.Name == "" {
		opt.Name = name
	}
	a, err := Open(f, st.Size(), opt)
	if err != nil {
		f.Close()
		return nil, err
	}
	return closing{a, f}, nil
}

// closing is an archive whose Close closes the file it was opened from too.
type closing struct {
	Archive
	f *os.File
}

func (c closing) Close() error {
	err := c.Archive.Close()
	if cerr := c.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Unwrap returns the archive as its format opened it (for what only the format knows).
func Unwrap(a Archive) Archive {
	if c, ok := a.(closing); ok {
		return c.Archive
	}
	return a
}

// Merge shows arcs, in load order, as one tree: by their format's Merge when they share one
// that has it (even a single archive: a game's one archive is merged as a game's many are),
// else each name from the last archive that has it.
func Merge(arcs []Archive) fs.FS {
	if f, ok := formatOf(arcs); ok && f.Merge != nil {
		return f.Merge(arcs) // even one: its Merge may hide what a patch deletes, say
	}
	if len(arcs) == 1 {
		return arcs[0]
	}
	l := make(Layers, len(arcs))
	for i, a := range arcs {
		l[len(arcs)-1-i] = a
	}
	return l
}

// formatOf returns the one format every archive of arcs is of.
func formatOf(arcs []Archive) (Format, bool) {
	var found *Format
	for _, a := range arcs {
		f := formatOfOne(Unwrap(a))
		if f == nil || (found != nil && f.Name != found.Name) {
			return Format{}, false
		}
		found = f
	}
	if found == nil {
		return Format{}, false
	}
	return *found, true
}

// Formatted is what an archive tells of its format.
type Formatted interface{ FormatName() string }

func formatOfOne(a Archive) *Format {
	fa, ok := a.(Formatted)
	if !ok {
		return nil
	}
	all := Formats()
	for i := range all {
		if all[i].Name == fa.FormatName() {
			return &all[i]
		}
	}
	return nil
}

// GameArchives lists the archives of a game's install or data folder dir in load order,
// relative to dir, by the first registered game whose folder it is.
func GameArchives(dir string) ([]string, error) {
	var gs []Game
	if p := games.Load(); p != nil {
		gs = *p
	}
	var first error
	for _, g := range gs {
		names, err := g.Archives(dir)
		if err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		if len(names) > 0 {
			return names, nil
		}
	}
	return nil, first
}

// OpenGame opens the archives of a game's install or data folder (see GameArchives), in load
// order. An archive that cannot be opened is left out; skipped says why, one error each.
func OpenGame(dir string, opt Options) (arcs []Archive, skipped []error, err error) {
	names, err := GameArchives(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, n := range names {
		o := opt
		o.Name = ""
		a, err := OpenFile(filepath.Join(dir, filepath.FromSlash(n)), o)
		if err != nil {
			skipped = append(skipped, err)
			continue
		}
		arcs = append(arcs, a)
	}
	return arcs, skipped, nil
}
