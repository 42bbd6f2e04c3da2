package vfs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/modelfs/modelfs/cache"
	"github.com/modelfs/modelfs/internal/archive"
	_ "github.com/modelfs/modelfs/internal/archive/all" // the archive formats and games
	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
)

// Open opens the game tree at src for serving: the tree core every front end (the FUSE mount,
// WebDAV) serves, with its caches and, when opt names one, the cache directory. Close it when
// done.
func Open(src string, opt Options) (*Tree, error) {
	opt, err := opt.WithDefaults()
	if err != nil {
		return nil, err
	}
	abs, err := CheckDir(src)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, err
	}
	t := newTree(root, opt)
	t.src = abs
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		t.realSrc = real
	}
	if opt.CacheDir != "" {
		if err := t.openDisk(abs); err != nil {
			root.Close()
			return nil, err
		}
	}
	return t, nil
}

// SplitSource splits a SRC given to a front end into the folder to open as the tree and, when
// SRC is an archive file, the archive's name in it: its members are then the whole tree shown.
func SplitSource(src string) (dir, arc string) {
	if st, err := os.Stat(src); err == nil && st.Mode().IsRegular() && archive.IsArchiveName(src) {
		return filepath.Dir(src), filepath.Base(src)
	}
	return src, ""
}

// Shown returns the tree as every front end shows it from its top: SRC's folder; or the
// archive named (see SplitSource); or, for a game's data folder, its archives merged in load
// order.
func (t *Tree) Shown(archive string) (*Shown, error) {
	archives := t.MergedArchives()
	if archive != "" {
		archives = []string{archive}
	}
	if archives == nil {
		return &Shown{t: t}, nil
	}
	v, err := t.OpenArchive(archives...)
	if err != nil {
		return nil, err
	}
	return &Shown{t: t, top: v}, nil
}

// openDisk opens the disk tier in the cache directory and loads the tree's journal from it. A
// cache directory whose own folders or journal are refused (cache.ErrUntrusted: another user's,
// a symlink, a FIFO) costs the disk tier, with a warning, not the mount: whoever may write the
// directory must not be able to keep the mount from coming up.
func (t *Tree) openDisk(absSrc string) error {
	refused := func(err error) {
		t.opt.Logger.Warn("cache directory: refused, not used", "err", err)
	}
	d, err := cache.OpenDisk(cache.DiskOptions{Dir: t.opt.CacheDir, MaxBytes: t.opt.DiskCacheBytes,
		GroupRead: t.opt.CacheGroupRead, OnRefuse: refused})
	if err == nil {
		t.disk = d
		if err = t.openIndex(absSrc); err != nil {
			d.Close()
			t.disk, t.index = nil, nil
			t.versions, t.files = newBounded[*Version](maxVersions), newBounded[fileState](maxVersions)
		}
	}
	if errors.Is(err, cache.ErrUntrusted) {
		t.opt.Logger.Warn("cache directory not used: it holds what this user did not make; serving without it",
			"dir", t.opt.CacheDir, "err", err)
		return nil
	}
	if err != nil {
		return fmt.Errorf("cache directory: %w", err)
	}
	return nil
}

// Close waits for the translations still running and releases what the tree holds open. It may
// be called more than once.
func (t *Tree) Close() { t.closeOnce.Do(t.release) }

func (t *Tree) close() { t.Close() }

func (t *Tree) release() {
	t.life.end()
	t.archives.closeAll()
	for _, a := range t.gameArcs.arcs {
		a.Close()
	}
	if t.index != nil {
		t.index.Close()
	}
	if t.disk != nil {
		t.disk.Close()
	}
	t.root.Close()
}

// CheckDir returns the absolute path of dir, or a *fs.PathError when it is not a directory.
func CheckDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		if codec.IsModelName(abs) || codec.IsTextureName(abs) {
			return "", &fs.PathError{Op: "open", Path: dir, Err: errSourceNotDir}
		}
		return "", &fs.PathError{Op: "open", Path: dir, Err: syscall.ENOTDIR}
	}
	return abs, nil
}

// errSourceNotDir is why a model or texture file cannot be a tree.
var errSourceNotDir = errors.New("a model or texture, not a folder: give the folder that holds it (modelfs convert translates one file)")

// Src returns the absolute path of the tree served.
func (t *Tree) Src() string { return t.src }

// Options returns the options the tree was opened with, defaults filled in.
func (t *Tree) Options() Options { return t.opt }

// Stats returns the translation and cache counters.
func (t *Tree) Stats() Stats { return t.stats() }

// Record notes in the cache directory how this serving of the tree (on mnt, for the log) used
// it, for `modelfs cache stats`.
func (t *Tree) Record(mnt string) { t.record(t.src, mnt) }

// Moved reports whether the tree's path no longer leads to the directory served (removed, or
// replaced by another), with the reason; closed is true once the tree was closed.
func (t *Tree) Moved() (reason string, moved, closed bool) {
	served, err1 := t.root.Stat(".")
	if errors.Is(err1, os.ErrClosed) {
		return "", false, true
	}
	now, err2 := os.Stat(t.src)
	switch {
	case err2 != nil:
		return err2.Error(), true, false
	case err1 != nil || !os.SameFile(served, now):
		return "replaced by another directory", true, false
	}
	return "", false, false
}

// Hold counts the nodes a front end keeps for entries of the tree (delta may be negative): the
// memory they take comes before the translated documents' in the cache budget.
func (t *Tree) Hold(delta int64) { t.nodes.Add(delta) }

// Lstat returns the attributes of the entry rel of the tree (slash-separated, "." for the
// root), as the file system has them.
func (t *Tree) Lstat(rel string) (fs.FileInfo, error) { return t.root.Lstat(rel) }

// Readlink returns the target of the symlink rel, as stored.
func (t *Tree) Readlink(rel string) (string, error) { return t.root.Readlink(rel) }

// OpenFile opens the file rel for reading, without blocking (a FIFO answers at once). The
// caller checks what it opened.
func (t *Tree) OpenFile(rel string) (*os.File, error) {
	return t.root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// OpenDir opens the directory rel, a root of its own for the stats of its entries.
func (t *Tree) OpenDir(rel string) (*os.Root, error) { return t.openDir(rel) }

// Entry is one name of a directory as the tree shows it.
type Entry struct {
	Name    string
	Type    fs.FileMode // the type bits as shown: 0 for a regular file, ModeDir for an archive shown as a folder
	Virtual bool        // a document modelfs adds beside a model or texture
}

// List returns the entries of the directory rel, open as dir (OpenDir), as the tree shows them:
// those of the file system, and the virtual documents beside each model and texture, sorted by
// name. It reads names and types only: nothing is translated or stat'ed (but the symlinks that
// may lead to a model).
func (t *Tree) List(dir *os.Root, rel string) ([]Entry, error) {
	d, err := dir.Open(".")
	if err != nil {
		return nil, err
	}
	ents, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return nil, err
	}
	return t.withVirtual(ents, func(e fs.DirEntry) (Entry, bool) {
		entry := Entry{Name: e.Name(), Type: e.Type()}
		if e.Type().IsRegular() && archive.IsArchiveName(e.Name()) && // the name first: no join per entry
			t.listedAsArchive(path.Join(rel, e.Name())) {
			entry.Type = fs.ModeDir
		}
		return entry, e.Type().IsRegular() || t.linkToSource(rel, e)
	}), nil
}

// withVirtual returns a folder's entries as entry makes them, with the virtual documents of
// the enabled kinds beside each that is a source (as entry says) — unless the folder holds a
// real file of that name — sorted by name.
func (t *Tree) withVirtual(ents []fs.DirEntry, entry func(fs.DirEntry) (Entry, bool)) []Entry {
	real := make(map[string]bool, len(ents))
	for _, e := range ents {
		real[e.Name()] = true
	}
	list := make([]Entry, 0, len(ents))
	for _, e := range ents {
		en, source := entry(e)
		list = append(list, en)
		if !source {
			continue
		}
		for _, k := range t.opt.Kinds {
			if v := e.Name() + "." + string(k); sourceOf(e.Name(), k) && !real[v] {
				list = append(list, Entry{Name: v, Virtual: true})
			}
		}
	}
	slices.SortFunc(list, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
	return list
}

// linkToSource reports whether e, an entry of the directory rel, is a symlink to a regular file
// inside the tree that has virtual documents: a model or a texture, which a translation reads
// through the link.
func (t *Tree) linkToSource(rel string, e fs.DirEntry) bool {
	if e.Type()&fs.ModeSymlink == 0 || !codec.IsModelName(e.Name()) && !codec.IsTextureName(e.Name()) {
		return false
	}
	fi, err := t.followLink(path.Join(rel, e.Name()))
	return err == nil && fi.Mode().IsRegular()
}

// Virtual splits a name such as "Crate.mdx.gltf" into its source's name and kind; ok is false
// when name is not a virtual document of an enabled kind beside a model- or texture-named file.
func (t *Tree) Virtual(name string) (src string, kind translate.Kind, ok bool) {
	return t.virtualName(name)
}

// SourceInfo returns the attributes of the source at src (a model or texture, relative to the
// tree), or when it is a symlink, of what it leads to inside the tree.
func (t *Tree) SourceInfo(src string) (fs.FileInfo, error) { return t.sourceInfo(src) }

// FollowLink returns the attributes of what the symlink rel leads to inside the tree.
func (t *Tree) FollowLink(rel string) (fs.FileInfo, error) { return t.followLink(rel) }

// Current returns the version of the source at src whose attributes are fi, when the tree
// knows it without translating (its sizes are then known), or nil.
func (t *Tree) Current(src string, fi fs.FileInfo) *Version { return t.currentVersion(src, fi) }

// Need says what Document must provide.
type Need int

// What Document is asked for.
const (
	NeedSize  = Need(needSize)  // the version, with every enabled kind's size, to answer a stat
	NeedBytes = Need(needBytes) // and the bytes of the kind, to serve a read
)

// Document returns the current version of the source at src (whose attributes are fi) and,
// with NeedBytes, its document of kind, translating the source unless a cache has it. A kind
// that could not be made gives a document saying why (see Version.Shown), or a
// *TranslationError when it failed for lack of permission, on a limit or on an I/O error;
// the .json always holds the error document then.
func (t *Tree) Document(ctx context.Context, src string, fi fs.FileInfo, kind translate.Kind, n Need) (*Version, Doc, error) {
	return t.get(ctx, src, fi, kind, need(n))
}

// ReadAhead notes that the source at src is being stat'ed: when the stats move through its
// folder in order, the next few sources are translated ahead.
func (t *Tree) ReadAhead(src string) { t.readAhead(src) }

// ID returns what identifies the version's documents: two versions with the same ID have the
// same bytes in every kind.
func (v *Version) ID() cache.Key { return v.id }

// Has reports whether the version knows the size of kind (whether kind was enabled).
func (v *Version) Has(k translate.Kind) bool { return v.has(k) }

// Size returns the size of the version's document of kind, 0 for one that could not be made
// (and that of the document saying why, for one that has it).
func (v *Version) Size(k translate.Kind) int64 { return v.size(k) }

// Shown returns why the document of kind of the source src could not be made when it serves
// a document saying so (translate.FailureDocument) instead, and nil otherwise: for a caller
// such as convert, which keeps only what was made.
func (v *Version) Shown(src string, k translate.Kind) error {
	if v.fails[kindIndex(k)] != failShown {
		return nil
	}
	return v.failure(src, k)
}

// ModTime returns the newest modification time (ns) of the source and of every file its
// translation read.
func (v *Version) ModTime() int64 { return v.mtime }

// Perm returns the read bits the version's documents show: what the source and every file
// and folder its translation read grant.
func (v *Version) Perm() uint32 { return v.perm.Load() }
