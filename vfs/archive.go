package vfs

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelfs/modelfs/cache"
	"github.com/modelfs/modelfs/internal/archive"
	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
)

// Archives in the tree: an MPQ archive of SRC is shown as a folder of its members, each model
// and texture with its virtual documents beside it, translated with the archive as the
// model's tree (its textures are looked up in the same archive). A game's data folder shows
// the merged tree of all its archives in the game's load order. An archive is taken as
// unchanged while its file keeps its identity (size, times, inode): its documents are cached
// under that identity.

// ArchiveMode says how archives in SRC are shown.
type ArchiveMode string

// How archives can be shown.
const (
	ArchivesAuto    ArchiveMode = "auto"    // merged when SRC is a game's data folder, else folders
	ArchivesFolders ArchiveMode = "folders" // each archive as a folder of its own name
	ArchivesMerged  ArchiveMode = "merged"  // SRC's archives as one tree, in the game's load order
	ArchivesOff     ArchiveMode = "off"     // archives are plain files
)

// ArchiveView is one archive (or a game's merged archives) as the tree shows it. It is safe for
// concurrent use.
type ArchiveView struct {
	t      *Tree
	fsys   fs.FS  // what the view shows
	lookup fs.FS  // where its models' companions are looked up: fsys, then the game's archives
	key    string // what the documents are cached under: the identities of the archive files
	mtime  time.Time
	uid    uint32
	gid    uint32
	perm   fs.FileMode // the read bits every archive file grants (see openView)
	arcs   []archive.Archive
	files  []*os.File

	name string // the archive's path in SRC, for the logs ("" for a game's merged archives)

	refs  atomic.Int64 // front-end nodes holding the view (see Retain)
	stale atomic.Bool  // replaced by a view of a changed archive file
	once  sync.Once    // closes the files

	mu       sync.Mutex
	versions map[string]*Version // member → the version its load found or made
	scans    map[string]*scan    // folder → where a sequential scan of it is (see readAhead)
	dirs     map[string][]fs.DirEntry
	refused  map[string]bool // members whose opens were refused, logged once
}

// gameArchives are the archives of the game install Options.Game names, opened once.
type gameArchives struct {
	once sync.Once
	arcs []archive.Archive
	fs   fs.FS  // their merged tree, nil when there are none
	key  string // their identities
	err  error
}

// game opens the archives of Options.Game, in load order: where a map's models find the
// game's stock textures.
func (t *Tree) game() (*gameArchives, error) {
	g := &t.gameArcs
	g.once.Do(func() {
		if t.opt.Game == "" {
			return
		}
		arcs, skipped, err := archive.OpenGame(t.opt.Game, archive.Options{ListFiles: t.opt.ListFiles, Warn: t.memberWarning})
		if err != nil {
			g.err = fmt.Errorf("--game: %w", err)
			return
		}
		for _, err := range skipped {
			t.opt.Logger.Warn("game archive left out", "err", err)
		}
		h := sha256.New()
		for _, a := range arcs {
			if fi, err := os.Stat(a.Name()); err == nil {
				writeIdentity(h, a.Name(), fi)
			}
		}
		g.arcs = arcs
		g.key = string(h.Sum(nil))
		if len(g.arcs) > 0 {
			g.fs = archive.Merge(g.arcs)
		}
	})
	return g, g.err
}

// archiveViews holds the views opened, by the archives' names.
type archiveViews struct {
	mu     sync.Mutex
	m      map[string]*ArchiveView
	failed map[string]failedOpen
	opens  cache.Group[*ArchiveView]
}

// IsArchive reports whether the entry rel of the tree, whose Lstat is fi, is an archive shown
// as a folder.
func (t *Tree) IsArchive(rel string, fi fs.FileInfo) bool {
	return t.opt.Archives != ArchivesOff && fi.Mode().IsRegular() && archive.IsArchiveName(rel)
}

// listedAsArchive reports whether a listing shows the regular file rel as an archive's folder:
// by its name, unless it could not be opened as one (then it is shown as the file it is).
func (t *Tree) listedAsArchive(rel string) bool {
	if t.opt.Archives == ArchivesOff || !archive.IsArchiveName(rel) {
		return false
	}
	t.archives.mu.Lock()
	defer t.archives.mu.Unlock()
	_, failed := t.archives.failed[rel]
	return !failed
}

// MergedArchives returns the archives of SRC's top level to show as one tree, in load order,
// or nil when SRC is not shown merged.
func (t *Tree) MergedArchives() []string {
	switch t.opt.Archives {
	case ArchivesMerged, ArchivesAuto:
	default:
		return nil
	}
	names, err := archive.GameArchives(t.src)
	if err != nil || len(names) == 0 {
		return nil
	}
	if t.opt.Archives == ArchivesAuto && !slices.ContainsFunc(names, isGameBase) {
		return nil
	}
	return names
}

// isGameBase reports whether an archive is one a game's data folder starts with.
func isGameBase(p string) bool {
	switch strings.ToLower(path.Base(p)) {
	case "common.mpq", "base.mpq", "dbc.mpq", "war3.mpq", "war3x.mpq", "patch.mpq":
		return true
	}
	return false
}

// OpenArchive returns the view of the archives rels (one archive, or a game's archives in load
// order, merged), opening them unless a view of these same files is open.
func (t *Tree) OpenArchive(rels ...string) (*ArchiveView, error) {
	h := sha256.New()
	var newest time.Time
	var uid, gid uint32
	for i, rel := range rels {
		fi, err := t.root.Stat(rel)
		if err != nil {
			return nil, err
		}
		if !fi.Mode().IsRegular() {
			return nil, &fs.PathError{Op: "open", Path: rel, Err: syscall.ENOTDIR}
		}
		if id := identityOf(fi); i == 0 {
			uid, gid = id.uid, id.gid
		}
		writeIdentity(h, rel, fi)
		if fi.ModTime().After(newest) {
			newest = fi.ModTime()
		}
	}
	game, err := t.game()
	if err != nil {
		return nil, err
	}
	h.Write([]byte(game.key))
	key := "arc\x00" + string(h.Sum(nil))
	name := strings.Join(rels, "\x00")
	// One view per set of archives, and one failure: a changed archive file replaces them. An
	// old view stays open while front-end nodes hold it (see Release). Archives are opened
	// outside the lock, one open per name at a time.
	if v, err, ok := t.archives.known(name, key); ok {
		return v, err
	}
	return t.archives.opens.Do(context.Background(), name+"\x00"+key, func() (*ArchiveView, error) {
		v, err := t.openView(rels, key, game)
		t.archives.mu.Lock()
		defer t.archives.mu.Unlock()
		if t.archives.m == nil {
			t.archives.m, t.archives.failed = map[string]*ArchiveView{}, map[string]failedOpen{}
		}
		if err != nil {
			if len(t.archives.failed) >= maxScans {
				clear(t.archives.failed)
			}
			t.archives.failed[name] = failedOpen{key, err}
			t.opt.Logger.Warn("archive shown as a plain file", "archive", rels[0], "err", err)
			return nil, err
		}
		v.mtime, v.uid, v.gid = newest, uid, gid
		if old := t.archives.m[name]; old != nil {
			old.stale.Store(true)
			if old.refs.Load() == 0 {
				old.close()
			}
		}
		t.archives.m[name] = v
		return v, nil
	})
}

// closeAll closes every view.
func (a *archiveViews) closeAll() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, v := range a.m {
		v.close()
	}
}

// known returns the view of the archives called name whose identity is key, or the error its
// open failed with; ok is false when neither is known.
func (a *archiveViews) known(name, key string) (v *ArchiveView, err error, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if v := a.m[name]; v != nil && v.key == key {
		return v, nil, true
	}
	if f, ok := a.failed[name]; ok && f.key == key {
		return nil, f.err, true
	}
	return nil, nil, false
}

// writeIdentity writes what tells one version of the file name from another without reading
// it: an archive's documents are cached under it.
func writeIdentity(h io.Writer, name string, fi fs.FileInfo) {
	id := identityOf(fi)
	fmt.Fprintf(h, "%s\x00%d %d %d %d %d\x00", name, id.size, id.mtime, id.ctime, id.ino, id.dev)
}

// failedOpen is an archive that could not be opened, under its identity: it is not tried
// again until its file changes.
type failedOpen struct {
	key string
	err error
}

// openView opens the archives rels as one view. Its entries grant the read bits every
// archive file grants, as seen from the first one's owner and group, as a folder's documents
// do (see access): an archive file with an access ACL, which may deny any user but its owner,
// grants only its owner's class.
func (t *Tree) openView(rels []string, key string, game *gameArchives) (*ArchiveView, error) {
	v := &ArchiveView{t: t, key: key, versions: map[string]*Version{}}
	if len(rels) == 1 {
		v.name = rels[0]
	}
	var owner identity
	perm := uint32(0o444)
	for _, rel := range rels {
		f, err := t.root.Open(rel)
		if err != nil {
			v.close()
			return nil, err
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			v.close()
			return nil, err
		}
		id := identityOf(st)
		if len(v.files) == 0 {
			owner = id
		}
		perm &= t.grants(id, hasACL(f), owner.uid, owner.gid, 4)
		a, err := archive.Open(f, st.Size(), archive.Options{Name: rel, ListFiles: t.opt.ListFiles, Warn: t.memberWarning})
		if err != nil {
			f.Close()
			v.close()
			return nil, err
		}
		t.archiveWarnings(rel, a)
		v.arcs = append(v.arcs, a)
		v.files = append(v.files, f)
	}
	v.perm = fs.FileMode(perm)
	if len(v.arcs) == 1 {
		v.fsys = v.arcs[0]
	} else {
		v.fsys = archive.Merge(v.arcs)
	}
	v.lookup = v.fsys
	if game.fs != nil {
		v.lookup = archive.Layers{v.fsys, game.fs}
	}
	return v, nil
}

func (v *ArchiveView) close() {
	v.once.Do(func() {
		for _, f := range v.files {
			f.Close()
		}
	})
}

// Retain notes that a front end holds the view (a node of it).
func (v *ArchiveView) Retain() { v.refs.Add(1) }

// Release lets go of a Retain; the view of an archive file since replaced closes its files
// when the last holder lets go.
func (v *ArchiveView) Release() {
	if v.refs.Add(-1) == 0 && v.stale.Load() {
		v.close()
	}
}

// Key identifies the view's archives as they are (names, sizes, times): what its documents are
// cached under.
func (v *ArchiveView) Key() string { return v.key }

// ModTime is the newest modification time of the archive files: every entry's time.
func (v *ArchiveView) ModTime() time.Time { return v.mtime }

// Owner returns the owner of the (first) archive file and the read bits all of them grant:
// every entry of the view shows them.
func (v *ArchiveView) Owner() (uid, gid uint32, perm fs.FileMode) { return v.uid, v.gid, v.perm }

// KnownSize returns the size of the document of kind of src when it is known without
// translating.
func (v *ArchiveView) KnownSize(src string, kind translate.Kind) (int64, bool) {
	ver := v.known(src, nil)
	if ver == nil || !ver.has(kind) {
		return 0, false
	}
	return ver.size(kind), true
}

// Stat returns the attributes of the entry rel of the archive ("." for its root).
func (v *ArchiveView) Stat(rel string) (fs.FileInfo, error) { return fs.Stat(v.fsys, rel) }

// Member is an open member of an archive.
type Member interface {
	fs.File
	io.ReaderAt
}

// Open opens the member rel for reading at any offset. A member the archive refuses (its
// sizes lie, its bytes are another's) is logged the first time it is opened.
func (v *ArchiveView) Open(rel string) (Member, error) {
	f, err := v.fsys.Open(rel)
	if err != nil {
		if IsDataError(err) && v.firstRefusal(rel) {
			v.t.opt.Logger.Warn("file unreadable", "path", v.logName(rel), "err", err)
		}
		return nil, err
	}
	if m, ok := f.(Member); ok {
		return m, nil
	}
	f.Close()
	return nil, &fs.PathError{Op: "open", Path: rel, Err: syscall.EISDIR}
}

// List returns the entries of the folder rel of the archive, with the virtual documents beside
// each model and texture, sorted by name.
func (v *ArchiveView) List(rel string) ([]Entry, error) {
	ents, err := v.listing(rel)
	if err != nil {
		return nil, err
	}
	return v.t.withVirtual(ents, func(e fs.DirEntry) (Entry, bool) {
		return Entry{Name: e.Name(), Type: e.Type()}, !e.IsDir()
	}), nil
}

// Size returns the size of the document of kind of the member src, translating it the first
// time. A scan of a folder's sizes in order translates the members ahead of it (as the tree's
// own read-ahead does).
func (v *ArchiveView) Size(ctx context.Context, src string, kind translate.Kind) (int64, error) {
	if _, known := v.KnownSize(src, kind); !known {
		v.readAhead(src, kind)
	}
	ver, _, err := v.t.getIn(ctx, v, src, nil, kind, needSize)
	if err != nil {
		return 0, err
	}
	return ver.size(kind), nil
}

// readAhead is the tree's read-ahead (see Tree.readAhead) for the members of an archive.
func (v *ArchiveView) readAhead(src string, kind translate.Kind) {
	if v.t.disk == nil {
		return
	}
	dir, base := path.Dir(src), path.Base(src)
	ents, err := v.listing(dir)
	if err != nil {
		return
	}
	i, ok := slices.BinarySearchFunc(ents, base, func(e fs.DirEntry, name string) int { return strings.Compare(e.Name(), name) })
	if !ok {
		return
	}
	textures := codec.IsTextureName(src)
	window := 2 * cap(v.t.modelSlots)
	next := v.scanAhead(dir, ents, i, textures, kind, window)
	for _, p := range next {
		go v.t.getIn(context.Background(), v, p, nil, kind, needSize)
	}
}

// scanAhead records that the scan of dir reached its entry i, and returns the members of kind
// (textures or models) past it, not translated yet, that the read-ahead should take.
func (v *ArchiveView) scanAhead(dir string, ents []fs.DirEntry, i int, textures bool, kind translate.Kind, window int) []string {
	var next []string
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.scans == nil || len(v.scans) >= maxScans {
		v.scans = map[string]*scan{}
	}
	sc := v.scans[dir]
	if sc == nil {
		sc = &scan{last: -readAheadGap - 1, ahead: -1}
		v.scans[dir] = sc
	}
	if i > sc.last && i-sc.last <= readAheadGap {
		for j := max(i+1, sc.ahead+1); j < len(ents) && j <= i+window; j++ {
			sc.ahead = j
			if name := ents[j].Name(); !ents[j].IsDir() && codec.IsTextureName(name) == textures && sourceOf(name, kind) {
				if _, known := v.versions[path.Join(dir, name)]; !known {
					next = append(next, path.Join(dir, name))
				}
			}
		}
	}
	sc.last = i
	return next
}

// listing returns a folder's entries, listed once: an archive does not change under its view.
func (v *ArchiveView) listing(dir string) ([]fs.DirEntry, error) {
	if ents, ok := v.listed(dir); ok {
		return ents, nil
	}
	ents, err := fs.ReadDir(v.fsys, dir)
	if err != nil {
		return nil, err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.dirs == nil || len(v.dirs) >= maxScans {
		v.dirs = map[string][]fs.DirEntry{}
	}
	v.dirs[dir] = ents
	return ents, nil
}

// firstRefusal reports whether the member rel's open was not refused before.
func (v *ArchiveView) firstRefusal(rel string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.refused == nil || len(v.refused) >= maxScans {
		v.refused = map[string]bool{}
	}
	first := !v.refused[rel]
	v.refused[rel] = true
	return first
}

func (v *ArchiveView) listed(dir string) ([]fs.DirEntry, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	ents, ok := v.dirs[dir]
	return ents, ok
}

// Document returns the bytes of the document of kind of the member src, translating it unless
// a cache has them. The bytes are shared and must not be changed.
func (v *ArchiveView) Document(ctx context.Context, src string, kind translate.Kind) (Doc, error) {
	_, d, err := v.t.getIn(ctx, v, src, nil, kind, needBytes)
	return d, err
}

// Shown returns why the document of kind of the member src could not be made when it serves a
// document saying so instead (see Version.Shown), and nil otherwise, or when src was not
// translated yet.
func (v *ArchiveView) Shown(src string, kind translate.Kind) error {
	if ver := v.known(src, nil); ver != nil {
		return ver.Shown(src, kind)
	}
	return nil
}

// An archive's view is a space of the pipeline (see space): its members are its sources, each
// version known for the view's life (an archive does not change under its view), and its
// models are decoded with the view's tree, then the game's, as their companions' tree.

var _ space = (*ArchiveView)(nil)

func (v *ArchiveView) loadKey(src string) string { return v.key + "\x00" + src }

func (v *ArchiveView) known(src string, _ fs.FileInfo) *Version {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.versions[src]
}

func (v *ArchiveView) keep(src string, ver *Version) {
	ver.perm.Store(uint32(v.perm))
	v.mu.Lock()
	defer v.mu.Unlock()
	v.versions[src] = ver
}

// journal keeps nothing: the disk tier holds the members' versions, under the archives'
// identities.
func (v *ArchiveView) journal(string, *Version) {}

func (v *ArchiveView) logName(src string) string { return path.Join(v.name, src) }

// sourceKey is the content key of the member src: the archives' identities (and the game's)
// stand for its bytes, and for its companions'.
func (v *ArchiveView) sourceKey(src string) cache.Key {
	h := sha256.New()
	h.Write(v.t.keyPrefix)
	h.Write([]byte("member\x00"))
	h.Write([]byte(v.key))
	h.Write([]byte{0})
	h.Write([]byte(src))
	var k cache.Key
	h.Sum(k[:0])
	return k
}

// load finds the version of the member src in the disk tier, or makes it.
func (v *ArchiveView) load(src string, kind translate.Kind, n need) (loaded, error) {
	if !sourceOf(src, translate.PNG) && !slices.ContainsFunc(v.t.modelKinds, func(k translate.Kind) bool { return sourceOf(src, k) }) {
		return loaded{}, errNotModel
	}
	release := func() {}
	defer func() { release() }()
	read := func() ([]byte, error) {
		fi, err := fs.Stat(v.fsys, src)
		if err != nil {
			return nil, err
		}
		if err := v.t.checkSize(src, fi.Size()); err != nil {
			return nil, err // refused before it waits for room it would not use
		}
		release = v.t.holdRead(src, fi.Size())
		return v.readMember(src)
	}
	return v.t.settle(v, src, v.sourceKey(src), v.mtime.UnixNano(), read, kind, n)
}

// translateModel decodes the member src and hands every enabled kind to k. A texture it
// embeds that is a member of the view is its own version's PNG, as in a folder: decoded once
// however many models use it, and kept once in the tiers (see pieces.go).
func (v *ArchiveView) translateModel(src string, data []byte, ver *Version, k *keeper) (format string) {
	f := v.t
	k.shared = &sharing{}
	texture := func(name string, data []byte) ([]byte, error) { return v.texturePNG(name, data, k.shared) }
	source := codec.Source{Name: src, Data: data, FS: limited{v.lookup, f}, Texture: texture, Options: f.opt.DecoderOptions}
	s, ft, err := translate.Decode(source)
	if ft != nil {
		format = ft.Name
	}
	k.begin()
	if err != nil {
		for _, kind := range f.modelKinds {
			k.doc(kind, nil, err)
		}
		return format
	}
	opt := translate.EncodeOptions{MTLName: path.Base(src) + ".mtl"}
	translate.OutputsFunc(source, s, f.modelKinds, opt, func(i int, doc translate.Doc, err error) {
		k.doc(f.modelKinds[i], doc, err)
	})
	s.Release()
	return format
}

// texturePNG gives the PNG of the texture name, whose bytes are data, that a model of the view
// embeds: when it is a member of the view, its own version's (noted in shared), else made here.
func (v *ArchiveView) texturePNG(name string, data []byte, shared *sharing) ([]byte, error) {
	if f, ok := v.fsys.(codec.FoldFS); ok {
		if canon, ok := f.FindFold(name); ok {
			name = canon // the archive's spelling: one member, one version
		}
	}
	if fi, err := fs.Stat(v.fsys, name); err == nil && !fi.IsDir() && fi.Size() == int64(len(data)) && codec.IsTextureName(name) {
		// The view's own tree comes first in the models' lookups: data is this member's.
		key := v.sourceKey(name)
		ver, d, err := v.t.getIn(context.Background(), v, name, nil, translate.PNG, needBytes)
		if png, own, err, ok := ownPNG(ver, d, err, key); ok {
			if own {
				shared.note(png, sharedPNG{name: name, key: key, size: len(png)})
			}
			return png, err
		}
	}
	return translate.ConvertTexture(name, data)
}

// readMember reads a member whole, within the size a source may have.
func (v *ArchiveView) readMember(src string) ([]byte, error) {
	fi, err := fs.Stat(v.fsys, src)
	if err != nil {
		return nil, err
	}
	if err := v.t.checkSize(src, fi.Size()); err != nil {
		return nil, err
	}
	return fs.ReadFile(v.fsys, src)
}

// maxArchiveWarnings bounds the warnings logged of one archive when it opens.
const maxArchiveWarnings = 10

// archiveWarnings logs what the archive rel opened despite (members left out or refused),
// once per opening of its file.
func (t *Tree) archiveWarnings(rel string, a archive.Archive) {
	w, ok := archive.Unwrap(a).(interface{ Warnings() []error })
	if !ok {
		return
	}
	all := w.Warnings()
	for i, err := range all {
		if i == maxArchiveWarnings {
			t.opt.Logger.Warn("archive opened despite more defects", "archive", rel, "more", len(all)-i)
			break
		}
		t.opt.Logger.Warn("archive opened despite a defect", "archive", rel, "err", err)
	}
}

// memberWarning logs what is wrong in an archive member read all the same (once per member).
func (t *Tree) memberWarning(err error) {
	t.opt.Logger.Warn("archive member read despite a defect", "err", err)
}

// limited is an archive's tree as a translation reads it: a file larger than a source may be
// (Options.MaxSourceSize) is refused before it is read, as in a folder, whatever size a
// hostile archive's header claims.
type limited struct {
	fsys fs.FS
	t    *Tree
}

func (l limited) Open(name string) (fs.File, error)          { return l.fsys.Open(name) }
func (l limited) Stat(name string) (fs.FileInfo, error)      { return fs.Stat(l.fsys, name) }
func (l limited) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(l.fsys, name) }

func (l limited) ReadFile(name string) ([]byte, error) {
	fi, err := fs.Stat(l.fsys, name)
	if err != nil {
		return nil, err
	}
	if err := l.t.checkSize(name, fi.Size()); err != nil {
		return nil, err
	}
	return fs.ReadFile(l.fsys, name)
}

// FindFold resolves name as the archive's tree does (every archive's tree has FindFold).
func (l limited) FindFold(name string) (string, bool) {
	if f, ok := l.fsys.(codec.FoldFS); ok {
		return f.FindFold(name)
	}
	return "", false
}
