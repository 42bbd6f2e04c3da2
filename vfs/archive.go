package vfs

import (
	"context"
	"crypto/sha256"
	"errors"
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
	perm   fs.FileMode // the read bits every archive file grants
	arcs   []archive.Archive
	files  []*os.File

	refs  atomic.Int64 // front-end nodes holding the view (see Retain)
	stale atomic.Bool  // replaced by a view of a changed archive file
	once  sync.Once    // closes the files

	loads cache.Group[arcLoad]
	mu    sync.Mutex
	sizes map[string]*arcDoc // source → what its translation made
	scans map[string]*scan   // folder → where a sequential scan of it is (see readAhead)
	dirs  map[string][]fs.DirEntry
}

// arcDoc is what one member's translation made: each kind's size, or its failure.
type arcDoc struct {
	sizes map[translate.Kind]int64
	errs  map[translate.Kind]error
	shown map[translate.Kind]error // failed kinds whose document says why (see Shown)
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
	perm := fs.FileMode(0o444)
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
		perm &= fi.Mode().Perm()
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
		v.mtime, v.uid, v.gid, v.perm = newest, uid, gid, perm
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

// openView opens the archives rels as one view.
func (t *Tree) openView(rels []string, key string, game *gameArchives) (*ArchiveView, error) {
	v := &ArchiveView{t: t, key: key, sizes: map[string]*arcDoc{}}
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
		a, err := archive.Open(f, st.Size(), archive.Options{Name: rel, ListFiles: t.opt.ListFiles, Warn: t.memberWarning})
		if err != nil {
			f.Close()
			v.close()
			return nil, err
		}
		v.arcs = append(v.arcs, a)
		v.files = append(v.files, f)
	}
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
	v.mu.Lock()
	defer v.mu.Unlock()
	d := v.sizes[src]
	if d == nil {
		return 0, false
	}
	return d.sizes[kind], true
}

// Stat returns the attributes of the entry rel of the archive ("." for its root).
func (v *ArchiveView) Stat(rel string) (fs.FileInfo, error) { return fs.Stat(v.fsys, rel) }

// Member is an open member of an archive.
type Member interface {
	fs.File
	io.ReaderAt
}

// Open opens the member rel for reading at any offset.
func (v *ArchiveView) Open(rel string) (Member, error) {
	f, err := v.fsys.Open(rel)
	if err != nil {
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
	d, _, err := v.document(ctx, src, kind, false)
	if err != nil {
		return 0, err
	}
	if e := d.errs[kind]; e != nil {
		return 0, e
	}
	return d.sizes[kind], nil
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
		go v.document(context.Background(), p, kind, false)
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
				if _, known := v.sizes[path.Join(dir, name)]; !known {
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

func (v *ArchiveView) listed(dir string) ([]fs.DirEntry, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	ents, ok := v.dirs[dir]
	return ents, ok
}

// doc returns what the translation of src made, when the view knows it.
func (v *ArchiveView) doc(src string) *arcDoc {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.sizes[src]
}

// putDoc records what the translation of src made.
func (v *ArchiveView) putDoc(src string, d *arcDoc) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.sizes[src] = d
}

// Document returns the bytes of the document of kind of the member src, translating it unless
// the memory tier has them. The bytes are shared and must not be changed.
func (v *ArchiveView) Document(ctx context.Context, src string, kind translate.Kind) (Doc, error) {
	for range 4 {
		d, b, err := v.document(ctx, src, kind, true)
		if err != nil {
			return Doc{}, err
		}
		if e := d.errs[kind]; e != nil {
			return Doc{}, e
		}
		if b != nil {
			return wholeDoc(b), nil
		}
	}
	return Doc{}, &TranslationError{Path: src, Err: errors.New("the document could not be kept long enough to be read")}
}

// Shown returns why the document of kind of the member src could not be made when it serves a
// document saying so instead (see Version.Shown), and nil otherwise, or when src was not
// translated yet.
func (v *ArchiveView) Shown(src string, kind translate.Kind) error {
	if d := v.doc(src); d != nil {
		return d.shown[kind]
	}
	return nil
}

func (v *ArchiveView) memKey(src string, kind translate.Kind) string {
	return v.key + "\x00" + src + "\x00" + string(kind)
}

// document returns what the translation of src made and, with bytes, the document of kind
// (nil when the memory tier let it go: the caller asks again, which translates again).
func (v *ArchiveView) document(ctx context.Context, src string, kind translate.Kind, bytes bool) (*arcDoc, []byte, error) {
	if d := v.doc(src); d != nil {
		if !bytes || d.errs[kind] != nil {
			return d, nil, nil
		}
		if b, ok := v.t.mem.Get(v.memKey(src, kind)); ok {
			return d, b, nil
		}
	}
	out, err := v.loads.Do(ctx, src, func() (arcLoad, error) {
		if !v.t.life.enter() {
			return arcLoad{}, errClosed
		}
		defer v.t.life.leave()
		if r, ok := v.fromDisk(src, kind, bytes); ok {
			return r, nil
		}
		return v.translate(src)
	})
	if err != nil {
		return nil, nil, err
	}
	b := out.docs[kind]
	if bytes && b == nil && out.doc.errs[kind] == nil {
		// Joined a load that asked for sizes only, served from the disk tier: read the
		// document from there too.
		if r, ok := v.fromDisk(src, kind, true); ok {
			b = r.docs[kind]
		}
	}
	return out.doc, b, nil
}

type arcLoad struct {
	doc  *arcDoc
	docs map[translate.Kind][]byte
}

// translate makes every enabled document of the member src.
func (v *ArchiveView) translate(src string) (arcLoad, error) {
	kinds := v.t.modelKinds
	if codec.IsTextureName(src) {
		kinds = []translate.Kind{translate.PNG}
	}
	if !slices.ContainsFunc(kinds, func(k translate.Kind) bool { return sourceOf(src, k) }) {
		return arcLoad{}, errNotModel
	}
	d := &arcDoc{sizes: map[translate.Kind]int64{}, errs: map[translate.Kind]error{}, shown: map[translate.Kind]error{}}
	docs := map[translate.Kind][]byte{}
	put := func(k translate.Kind, b []byte, err error) {
		if err != nil {
			d.errs[k] = &TranslationError{Path: src, Err: err}
			return
		}
		d.sizes[k] = int64(len(b))
		docs[k] = b
		v.t.memPut(v.memKey(src, k), b)
	}
	data, err := v.readMember(src)
	readErr := err
	done := v.t.admit(src, len(data)) // the tree's slots and memory, shared with its own sources
	defer done(0)
	format := ""
	switch {
	case err != nil:
		for _, k := range kinds {
			put(k, nil, err)
		}
	case codec.IsTextureName(src):
		format = "texture"
		png, err := translate.ConvertTexture(src, data)
		put(translate.PNG, png, err)
	default:
		source := codec.Source{Name: src, Data: data, FS: limited{v.lookup, v.t}, Options: v.t.opt.DecoderOptions}
		s, ft, derr := translate.Decode(source)
		if ft != nil {
			format = ft.Name
		}
		if derr != nil {
			err = derr
			for _, k := range kinds {
				put(k, nil, derr)
			}
			break
		}
		opt := translate.EncodeOptions{MTLName: path.Base(src) + ".mtl"}
		translate.OutputsFunc(source, s, kinds, opt, func(i int, doc translate.Doc, e error) {
			if e != nil && err == nil {
				err = e
			}
			put(kinds[i], doc.Bytes(), e)
		})
		s.Release()
	}
	if err != nil {
		v.t.failures.Add(1)
		v.t.opt.Logger.Warn("translation failed", "archive member", src, "format", format, "err", err)
		// As a folder's models do (keeper.failed): documents saying why, but for I/O
		// errors and limits.
		for _, k := range kinds {
			if d.errs[k] == nil {
				continue
			}
			doc, shown := failureDoc(k, src, format, err, classOf(err), readErr == nil)
			if doc == nil {
				continue
			}
			if shown {
				d.shown[k] = d.errs[k]
			}
			delete(d.errs, k)
			put(k, doc, nil)
		}
	}
	v.putDoc(src, d)
	if readErr == nil {
		v.toDisk(src, d, docs)
	}
	return arcLoad{doc: d, docs: docs}, nil
}

// diskKey is the key of a member's documents in the disk tier: the archives' identities (and
// the game's), the member, the decoder options.
func (v *ArchiveView) diskKey(src string) cache.Key {
	h := sha256.New()
	h.Write(v.t.keyPrefix)
	h.Write([]byte(v.key))
	h.Write([]byte{0})
	h.Write([]byte(src))
	var k cache.Key
	h.Sum(k[:0])
	return k
}

// toDisk keeps what a translation made in the disk tier: every document, and in the meta the
// kinds that failed with why, so that a remount serves them without translating again.
func (v *ArchiveView) toDisk(src string, d *arcDoc, docs map[translate.Kind][]byte) {
	if v.t.disk == nil {
		return
	}
	var meta []byte
	var parts []cache.Part
	for _, k := range allKinds {
		if e := d.errs[k]; e != nil {
			meta = fmt.Appendf(meta, "%s\x00%s\n", k, strings.ReplaceAll(e.Error(), "\n", " "))
			continue
		}
		if e := d.shown[k]; e != nil {
			meta = fmt.Appendf(meta, "%s\x01%s\n", k, strings.ReplaceAll(e.Error(), "\n", " "))
		}
		if b, ok := docs[k]; ok {
			parts = append(parts, cache.Part{Name: kindName(k), Data: b})
		}
	}
	v.t.diskError(v.t.disk.Put(v.diskKey(src), meta, parts))
}

// fromDisk reads what an earlier translation of src left in the disk tier: the sizes and
// failures, and with bytes the document of kind.
func (v *ArchiveView) fromDisk(src string, kind translate.Kind, bytes bool) (arcLoad, bool) {
	if v.t.disk == nil {
		return arcLoad{}, false
	}
	e, err := v.t.disk.Get(v.diskKey(src))
	if err != nil {
		v.t.diskError(err)
		return arcLoad{}, false
	}
	defer e.Close()
	d := &arcDoc{sizes: map[translate.Kind]int64{}, errs: map[translate.Kind]error{}, shown: map[translate.Kind]error{}}
	for _, line := range strings.Split(strings.TrimSuffix(string(e.Meta), "\n"), "\n") {
		if k, msg, ok := strings.Cut(line, "\x00"); ok {
			d.errs[translate.Kind(k)] = &TranslationError{Path: src, Err: errors.New(msg)}
		} else if k, msg, ok := strings.Cut(line, "\x01"); ok {
			d.shown[translate.Kind(k)] = &TranslationError{Path: src, Err: errors.New(msg)}
		}
	}
	for _, k := range allKinds {
		if size, ok := e.Size(kindName(k)); ok {
			d.sizes[k] = size
		}
	}
	docs := map[translate.Kind][]byte{}
	if bytes && d.errs[kind] == nil {
		b, err := e.Read(kindName(kind))
		if err != nil {
			v.t.diskError(err)
			return arcLoad{}, false
		}
		docs[kind] = b
		v.t.memPut(v.memKey(src, kind), b)
	}
	v.t.reused.Add(1)
	v.putDoc(src, d)
	return arcLoad{doc: d, docs: docs}, true
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
