package vfs

import (
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
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/modelfs/modelfs/translate/codec"
)

// What the mount knows of the files and directories of SRC, so that no translation and no
// check of a model costs more because its folder is big: every file's content sum, remembered
// under its identity (hashed again only when the identity changes), and every directory's
// listing with an index for case-insensitive lookups, made once per version of the directory.

// identity tells two versions of a file apart without reading it.
// Its mode and owner, which change only with its ctime, come along for the permission checks
// (see access).
type identity struct {
	size, mtime, ctime int64 // times in ns
	ino, dev           uint64
	mode, uid, gid     uint32 // st_mode, with the type bits
}

func identityOf(fi fs.FileInfo) identity {
	id := identity{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	statIdentity(&id, fi)
	return id
}

// racyWindow is how recently a file may have changed for its identity not to vouch for its
// content: a second change within one tick of the file system's clock keeps size and times.
// Files changed so recently are hashed again at their next check (as git treats "racily clean"
// entries).
const racyWindow = 2 * time.Second

func (id identity) racy(now time.Time) bool {
	return now.UnixNano()-max(id.mtime, id.ctime) < int64(racyWindow)
}

// digest is a SHA-256 of a file's bytes, of a listing, or of a model's key material.
type digest = [32]byte

// fileState is what the mount last learnt of a file's content.
type fileState struct {
	id   identity
	sum  digest
	racy bool   // its identity cannot vouch for its content (see racyWindow)
	real string // its path inside SRC with no symlink in it, when that is not its name
	acl  bool   // it has an access ACL, which may deny users its mode grants (see access)
}

// bounded is a map of at most about max entries in two generations: when the young one is
// full it becomes the old one, and entries still asked for move back to the young one, so what
// is in use stays and the rest goes.
type bounded[V any] struct {
	max        int
	young, old map[string]V
}

func newBounded[V any](max int) bounded[V] {
	return bounded[V]{max: max, young: map[string]V{}}
}

func (b *bounded[V]) get(k string) (V, bool) {
	if v, ok := b.young[k]; ok {
		return v, true
	}
	v, ok := b.old[k]
	if ok {
		delete(b.old, k)
		b.put(k, v)
	}
	return v, ok
}

func (b *bounded[V]) put(k string, v V) {
	if _, ok := b.young[k]; !ok && len(b.young) >= b.max/2 {
		b.old, b.young = b.young, make(map[string]V, len(b.young))
	}
	b.young[k] = v
}

func (b *bounded[V]) len() int { return len(b.young) + len(b.old) }

// errNotRegular is why a name that is not a regular file is not read (the text of
// translate.ReadFileIn's error).
var errNotRegular = errors.New("not a regular file")

// readFile reads the file clean (a cleaned name inside the root; orig is the name as asked)
// and returns its bytes and state, with the errors codec.RootFS gives, so that a
// translation through the mount reads what `modelfs convert` reads. Only regular files are
// read, and a file the directory says is something else is not even opened, so that a FIFO or
// a device never blocks the daemon.
// fi, when not nil, is a fresh Stat (or Lstat of a regular file) of it.
func (f *Tree) readFile(clean, orig string, fi fs.FileInfo) ([]byte, fileState, error) {
	notRegular := &fs.PathError{Op: "open", Path: orig, Err: errNotRegular}
	if fi == nil {
		fi, _ = f.root.Stat(clean) // an error is the open's to report, as convert's is
	}
	if fi != nil && !fi.Mode().IsRegular() {
		return nil, fileState{}, notRegular
	}
	file, err := f.root.OpenFile(clean, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fileState{}, err
	}
	defer file.Close()
	before, err := file.Stat()
	if err != nil {
		return nil, fileState{}, err
	}
	if !before.Mode().IsRegular() {
		return nil, fileState{}, notRegular
	}
	if err := f.checkSize(orig, before.Size()); err != nil {
		return nil, fileState{}, err
	}
	data := make([]byte, before.Size())
	if _, err := io.ReadFull(file, data); err != nil {
		return nil, fileState{}, &fs.PathError{Op: "read", Path: orig, Err: err}
	}
	st := fileState{id: identityOf(before), sum: sha256.Sum256(data)}
	st.real, st.acl = f.whereAndACL(file, clean)
	after, err := file.Stat()
	st.racy = err != nil || identityOf(after) != st.id || st.id.racy(time.Now())
	f.remember(clean, st)
	return data, st, nil
}

// checkSize refuses a source or companion larger than MaxSourceSize, before it is read.
func (f *Tree) checkSize(name string, size int64) error {
	if limit := f.opt.MaxSourceSize; size > limit {
		return &fs.PathError{Op: "read", Path: name,
			Err: fmt.Errorf("%d bytes, more than the %d MiB a source may have (--max-source-size): %w", size, limit>>20, codec.ErrTooLarge)}
	}
	return nil
}

// readImage is readFile for an image file a translation reads: the bytes of an image whose
// identity is unchanged come from the memory tier or a translation that holds them, so that a
// texture used by ten thousand models is read and hashed once. Images are only read by the pipeline's image checks, which
// never modify them.
func (f *Tree) readImage(clean, orig string) ([]byte, fileState, error) {
	fi, err := f.root.Stat(clean)
	if err == nil && fi.Mode().IsRegular() {
		st, ok := f.fileOf(clean)
		if ok && !st.racy && st.id == identityOf(fi) {
			if data, ok := f.mem.Get(imageKey(st.sum)); ok {
				return data, st, nil
			}
		}
		// Another model's translation holds it while its texture is translated: two models
		// naming one large texture hold one copy of it.
		if data, st, ok := f.handedOff(clean, fi); ok {
			return data, st, nil
		}
	}
	data, st, err := f.readFile(clean, orig, fi)
	if err == nil && len(data) <= maxCachedImage {
		f.memPut(imageKey(st.sum), data)
	}
	return data, st, err
}

// maxCachedImage bounds the images readImage keeps in memory.
const maxCachedImage = 4 << 20

func imageKey(s digest) string { return "image\x00" + string(s[:]) }

// remember records what a read found of the file name, in memory and in the journal.
func (f *Tree) remember(name string, st fileState) {
	if f.swapFile(name, st) {
		f.journalFile(name, st)
	}
}

// swapFile makes st the state known of the file name, and reports whether it differs from the
// one known before (or none was).
func (f *Tree) swapFile(name string, st fileState) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	old, known := f.files.get(name)
	f.files.put(name, st)
	return !known || old != st
}

// fileSum returns the sum of the file name (cleaned, inside the root) as it is now: from
// memory when its identity is unchanged, else by reading it. fi, when not nil, is a fresh Stat
// (or Lstat of a regular file) of it.
func (f *Tree) fileSum(name string, fi fs.FileInfo) (digest, error) {
	if fi == nil {
		var err error
		if fi, err = f.root.Stat(name); err != nil {
			return digest{}, err
		}
	}
	if !fi.Mode().IsRegular() {
		return digest{}, &fs.PathError{Op: "open", Path: name, Err: errNotRegular}
	}
	st, ok := f.fileOf(name)
	if ok && !st.racy && st.id == identityOf(fi) {
		return st.sum, nil
	}
	_, st, err := f.readFile(name, name, fi)
	return st.sum, err
}

// dirRecheck is how long a directory's listing is used before its identity is checked again:
// a model's textures are looked up in a few directories, and a listing of thousands of models
// looks them up thousands of times a second.
const dirRecheck = 200 * time.Millisecond

// maxListed bounds the directory entries kept in listings; beyond it they are dropped and made
// again when asked for.
const maxListed = 4 << 20

// listing is one version of a directory: its names, sorted, and an index of them by folded
// case.
type listing struct {
	id      identity
	racy    bool
	checked time.Time
	names   []string

	once sync.Once
	fold map[string]string // foldKey → the first name in order with that key
	sum  digest            // of the names, what a model that listed the directory depends on
}

// dirs holds the listings.
type dirs struct {
	mu     sync.Mutex
	m      map[string]*listing
	listed int // names held

	expiries uint64 // expireList calls so far: a listing read across one is not kept
}

// list returns the current listing of the directory dir (cleaned, inside the root).
func (f *Tree) list(dir string) (*listing, error) {
	now := time.Now()
	l, expiries, known, trusted, recent := f.dirs.lookup(dir, now)
	if recent {
		return l, nil
	}
	fi, err := f.root.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, &fs.PathError{Op: "readdir", Path: dir, Err: syscall.ENOTDIR}
	}
	id := identityOf(fi)
	if trusted && known == id {
		f.dirs.recheck(l, expiries, now)
		return l, nil
	}
	d, err := f.root.OpenFile(dir, os.O_RDONLY|oDirectory|syscall.O_NONBLOCK, 0) // never a FIFO's open
	if err != nil {
		return nil, err
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	f.dirs.mu.Lock()
	defer f.dirs.mu.Unlock()
	// A listing expired while this one was read may have been read before the change that
	// expired it: it serves this caller only.
	keep := f.dirs.expiries == expiries
	if l != nil && slices.Equal(l.names, names) { // the same names: keep the index made of them
		if keep {
			l.id, l.racy, l.checked = id, id.racy(now), now
		}
		return l, nil
	}
	nl := &listing{id: id, racy: id.racy(now), checked: now, names: names}
	if !keep {
		return nl, nil
	}
	if old := f.dirs.m[dir]; old != nil {
		f.dirs.listed -= len(old.names)
	}
	if f.dirs.listed+len(names) > maxListed {
		clear(f.dirs.m)
		f.dirs.listed = 0
	}
	f.dirs.m[dir] = nl
	f.dirs.listed += len(names)
	return nl, nil
}

// lookup returns the listing of dir held, if any, and the expiries so far; with it, its
// identity, whether that can be trusted (not racy), and whether it was checked recently (see
// dirRecheck). A listing's fields change under the lock.
func (d *dirs) lookup(dir string, now time.Time) (l *listing, expiries uint64, id identity, trusted, recent bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	l = d.m[dir]
	if l == nil {
		return nil, d.expiries, identity{}, false, false
	}
	return l, d.expiries, l.id, !l.racy, now.Sub(l.checked) < dirRecheck
}

// recheck notes that the listing l was found current at now, unless a listing expired since
// expiries was read (l may be the one that did).
func (d *dirs) recheck(l *listing, expiries uint64, now time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.expiries == expiries {
		l.checked = now
	}
}

// expireList drops the listings of the directory dir and of every folder above it, so that the
// next lookup there reads the directory again: a translation found a file gone that a listing
// showed, and the file may have gone with a folder above it (renamed, say).
func (f *Tree) expireList(dir string) {
	f.dirs.mu.Lock()
	defer f.dirs.mu.Unlock()
	f.dirs.expiries++
	for {
		if old := f.dirs.m[dir]; old != nil {
			f.dirs.listed -= len(old.names)
			delete(f.dirs.m, dir)
		}
		if dir == "." {
			return
		}
		dir = path.Dir(dir)
	}
}

func (l *listing) index() {
	l.once.Do(func() {
		l.fold = make(map[string]string, len(l.names))
		h := sha256.New()
		for _, n := range l.names {
			k := foldKey(n)
			if _, ok := l.fold[k]; !ok {
				l.fold[k] = n
			}
			h.Write([]byte(n))
			h.Write([]byte{0})
		}
		h.Sum(l.sum[:0])
	})
}

// find returns the entry named elem, or else the first whose name equals it ignoring case, as
// codec.Source.FindFold matches.
func (l *listing) find(elem string) (string, bool) {
	if _, ok := slices.BinarySearch(l.names, elem); ok {
		return elem, true
	}
	l.index()
	m, ok := l.fold[foldKey(elem)]
	return m, ok
}

// listSum returns the sum of the listing.
func (l *listing) listSum() digest {
	l.index()
	return l.sum
}

// foldKey maps s to a key equal for exactly the strings strings.EqualFold finds equal to it:
// each rune becomes the smallest rune of its case-folding orbit (invalid UTF-8 decodes to
// U+FFFD, as it does for EqualFold).
func foldKey(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToUpper(s) // for ASCII letters the upper case is the orbit's smallest
	}
	var b strings.Builder
	for _, r := range s {
		m := r
		for g := unicode.SimpleFold(r); g != r; g = unicode.SimpleFold(g) {
			m = min(m, g)
		}
		b.WriteRune(m)
	}
	return b.String()
}

// fold resolves name as codec.Source.FindFold does, from the listings.
func (f *Tree) fold(name string) (string, bool) {
	dir := ""
	for _, elem := range strings.Split(path.Clean(name), "/") {
		l, err := f.list(path.Join(".", dir))
		if err != nil {
			return "", false
		}
		m, ok := l.find(elem)
		if !ok {
			return "", false
		}
		dir = path.Join(dir, m)
	}
	return dir, true
}

// FileKey returns what tells a file apart from others and from its earlier versions beyond its
// size and mtime: its device, inode and ctime (in ns) from fi's stat; zeros where the system
// does not say.
func FileKey(fi fs.FileInfo) (dev, ino uint64, ctime int64) {
	id := identityOf(fi)
	return id.dev, id.ino, id.ctime
}
