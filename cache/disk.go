package cache

import (
	"container/list"
	"crypto/cipher"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Key names one disk entry: a SHA-256 of everything its documents depend on.
type Key [32]byte

// String returns the key in hexadecimal, as its file is named.
func (k Key) String() string { return hex.EncodeToString(k[:]) }

// DefaultDiskBytes is the default budget of a Disk: 1 GiB.
const DefaultDiskBytes = 1 << 30

// MinDiskBytes is the smallest budget a Disk accepts: room for its own directories and a few
// entries.
const MinDiskBytes = 4 << 20

// DiskOptions configure a Disk.
type DiskOptions struct {
	Dir      string // the cache directory; made when absent
	MaxBytes int64  // budget for everything in Dir; DefaultDiskBytes when 0
	// Inspect opens an existing cache directory only to look at or clear it: nothing is made,
	// evicted or cleaned up, and any budget is accepted.
	Inspect bool
	// GroupRead lets the members of this process's group read what it writes (files 0640 in
	// folders 0750); without it only its user may (0600 in 0700).
	GroupRead bool
	// OnRefuse, when set, is told of each file or folder of the cache directory that is refused
	// (see ErrUntrusted), once per name.
	OnRefuse func(error)
}

// Part is one named document of a disk entry.
type Part struct {
	Name string
	Data []byte
}

// DiskStats are a Disk's counters since it was opened, and what its directory holds.
type DiskStats struct {
	Hits      int64 // Get that found a sound entry
	Misses    int64 // Get that found none
	Corrupt   int64 // entries found damaged (short, bad checksum) and removed
	Refused   int64 // files and folders refused (see ErrUntrusted)
	Writes    int64 // entries written
	Evictions int64 // entries removed to stay in budget
	Entries   int   // entries held now
	Bytes     int64 // bytes charged now: entries, journals and directories, in 4 KiB blocks
	Max       int64 // the budget
}

// Errors of the disk tier.
var (
	// ErrCorrupt is wrapped by the errors of entries found damaged, or not bound to their key by
	// this directory's secret; such an entry has been removed, and its documents must be made
	// again.
	ErrCorrupt = errors.New("damaged cache entry")
	// ErrPaused is returned by Put for a while after a write failed (a full disk, say), so that
	// the caller carries on from memory without retrying, and logging, every time.
	ErrPaused = errors.New("disk cache writes paused after a failure")
	// ErrNotCacheDir is returned by OpenDisk for a directory that holds other things.
	ErrNotCacheDir = errors.New("not a modelfs cache directory")
	// ErrEntryTooLarge is returned by Put for an entry larger than half the budget, which is
	// not stored: the caller keeps it elsewhere.
	ErrEntryTooLarge = errors.New("entry too large for the disk cache")
	// ErrUntrusted is wrapped by the errors of what the cache finds in its directory and never
	// makes: a symlink, a hard link, a FIFO, a device, or a file or folder of another user. It is
	// never read, written or followed; a folder of the layout that is such makes OpenDisk fail.
	ErrUntrusted = errors.New("refused: not a file or folder this process's user made")
	// ErrLockBusy is returned by Lock when the wait for a key's lock ended, or when an earlier
	// wait ended a short while ago (see Lock).
	ErrLockBusy = errors.New("cache lock held by another process")
)

// Layout: a marker naming the directory as ours; entries in data/XX/KEY, journals in index/,
// small state files, the lock file and the secret in state/, temporary files in tmp/.
const (
	markerName   = "modelfs-cache"
	markerText   = "modelfs disk cache, layout 1\n"
	tagName      = "CACHEDIR.TAG"
	cacheDirTag  = "Signature: 8a477f597d28d172789f06886806bc55\n# This directory is a cache made by modelfs (modelfs cache clear empties it).\n"
	lockName     = ".lock"
	blockSize    = 4096
	pauseAfter   = time.Minute
	tmpMaxAge    = 10 * time.Minute
	rescanEvery  = 30 * time.Second
	maxHeaderLen = 4 << 20
	maxParts     = 64
	maxState     = 1 << 20 // the largest state file read
	maxRefused   = 4096    // names refused remembered, so that each is reported once
)

var layout = []string{"data", "index", "state", "tmp"}

// tmpMinAge is how old a temporary file no writer holds must be to be taken for a killed
// writer's: between making it and locking it, a live writer holds no lock yet. (A variable for
// the tests.)
var tmpMinAge = 5 * time.Second

type diskEntry struct {
	key    Key
	charge int64
}

// Disk is the persistent tier: entries of named parts under content keys, in a directory. It
// is safe for concurrent use, and several processes of one user may share one directory.
//
// Whoever else may write the directory is not trusted (it may sit on a shared disk, or be
// /var/cache/modelfs with a lax mode): every file and folder is opened by a name relative to
// its folder without following symlinks and checked before use (see folder), entries and
// journal records are bound to their keys by a MAC under a secret only this user can read (see
// mac.go), and every read is bounded.
type Disk struct {
	dir      string
	top      *folder
	max      int64
	lock     lockFile
	secret   []byte
	onRefuse func(error)

	mu          sync.Mutex
	lru         *list.List // front = most recently used; values are *diskEntry
	items       map[Key]*list.Element
	used        int64 // everything charged: entries + fixed
	fixed       int64 // directories and journals
	reserved    int64 // room taken by writes under way
	subdirs     map[string]bool
	written     int64 // bytes written since the last scan
	scanned     time.Time
	pausedUntil time.Time
	lockStall   time.Time // until when Lock does not wait (see Lock)
	aeadOnce    sync.Once
	aead        cipher.AEAD // seals parts (see mac.go)
	refused     map[string]bool
	stats       DiskStats
}

// OpenDisk opens (making it when absent) the cache directory opt.Dir: it takes stock of the
// entries there, removes temporary files that a killed process left behind, and evicts down to
// the budget. A directory that is not empty and not a modelfs cache is refused, and so is one
// whose folders are not this user's (ErrUntrusted).
func OpenDisk(opt DiskOptions) (*Disk, error) {
	if opt.MaxBytes != 0 && opt.MaxBytes < MinDiskBytes && !opt.Inspect {
		return nil, fmt.Errorf("disk cache budget of %d bytes is below the minimum of %d", opt.MaxBytes, MinDiskBytes)
	}
	dir, err := filepath.Abs(opt.Dir)
	if err != nil {
		return nil, err
	}
	p := perms{file: 0o600, dir: 0o700, inspect: opt.Inspect}
	if opt.GroupRead {
		p.file, p.dir = 0o640, 0o750
	}
	if !opt.Inspect {
		if err := os.MkdirAll(dir, fs.FileMode(p.dir)); err != nil {
			return nil, err
		}
	}
	top, err := openTop(dir, p)
	if err != nil {
		if opt.Inspect && errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w", dir, ErrNotCacheDir)
		}
		return nil, err
	}
	d := &Disk{dir: dir, top: top, max: opt.MaxBytes, onRefuse: opt.OnRefuse, lru: list.New(),
		items: make(map[Key]*list.Element), subdirs: map[string]bool{}, refused: map[string]bool{}}
	if err := d.open(opt); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

func (d *Disk) open(opt DiskOptions) error {
	if opt.Inspect {
		if b, err := d.top.readSmall(markerName); err != nil || string(b) != markerText {
			return fmt.Errorf("%s: %w", d.dir, ErrNotCacheDir)
		}
	} else if err := d.prepare(); err != nil {
		return err
	}
	state, err := d.top.sub("state", !opt.Inspect)
	if err != nil {
		return err
	}
	defer state.close()
	if !opt.Inspect {
		if d.secret, err = loadSecret(state, d.refuse); err != nil {
			return err
		}
	}
	switch {
	case opt.MaxBytes == 0:
		d.max = d.storedBudget()
	case !opt.Inspect && opt.MaxBytes != d.storedBudget():
		if err := d.WriteState(budgetState, []byte(strconv.FormatInt(opt.MaxBytes, 10)+"\n")); err != nil {
			return err
		}
	}
	if d.lock, err = openLock(state); err != nil && !opt.Inspect {
		return err
	}
	if !opt.Inspect {
		d.cleanTmp()
	}
	d.rescan()
	if !opt.Inspect {
		d.remove(d.evict(0))
	}
	return nil
}

// budgetState names the state file holding the budget last given to the directory, which
// holds for every process that names none: a mount must not shrink what another filled.
const budgetState = "budget"

// storedBudget returns the budget last given to the directory, or DefaultDiskBytes.
func (d *Disk) storedBudget() int64 {
	b, err := d.ReadState(budgetState)
	if err != nil {
		return DefaultDiskBytes
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || n < MinDiskBytes {
		return DefaultDiskBytes
	}
	return n
}

// prepare makes the directory a cache directory, or checks that it is one.
func (d *Disk) prepare() error {
	b, err := d.top.readSmall(markerName)
	switch {
	case err == nil && string(b) != markerText:
		return fmt.Errorf("%s: %w (layout %q; clear it with `modelfs cache clear`)", d.dir, ErrNotCacheDir, strings.TrimSpace(string(b)))
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return err
	case err != nil:
		// No marker: a new cache, in a folder that holds nothing else — or ours, whose marker
		// a crash kept from being written, or someone who may write the folder removed: it
		// holds nothing but the layout.
		names, err := d.top.names()
		if err != nil {
			return err
		}
		for _, n := range names {
			if n != tagName && !strings.HasPrefix(n, ".") && !slices.Contains(layout, n) {
				err := fmt.Errorf("%s: %w: it holds %s and no %s", d.dir, ErrNotCacheDir, n, markerName)
				if !d.top.owned() {
					// Not this user's folder: whoever put it there must not keep the mount
					// from coming up (see ErrUntrusted).
					return fmt.Errorf("%w (%w)", err, ErrUntrusted)
				}
				return err
			}
		}
		if err := d.makeLayout(); err != nil {
			return err
		}
		if err := d.writeAtomic(d.top, markerName, []byte(markerText)); err != nil {
			return err
		}
	}
	if err := d.makeLayout(); err != nil {
		return err
	}
	if _, err := d.top.lstat(tagName); errors.Is(err, fs.ErrNotExist) {
		return d.writeAtomic(d.top, tagName, []byte(cacheDirTag))
	}
	return nil
}

// makeLayout makes the folders of the cache directory, or checks them.
func (d *Disk) makeLayout() error {
	for _, name := range layout {
		sub, err := d.top.sub(name, true)
		if err != nil {
			return err
		}
		sub.close()
	}
	return nil
}

// Dir returns the cache directory's absolute path.
func (d *Disk) Dir() string { return d.dir }

// Close releases the lock file and the directory.
func (d *Disk) Close() error {
	err := d.lock.close()
	if cerr := d.top.close(); err == nil {
		err = cerr
	}
	return err
}

// refuse reports err, the refusal of a file or folder, once per name.
func (d *Disk) refuse(err error) {
	var pe *fs.PathError
	name := err.Error()
	if errors.As(err, &pe) {
		name = pe.Path
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stats.Refused++
	if d.refused[name] {
		return
	}
	if len(d.refused) >= maxRefused {
		clear(d.refused)
	}
	d.refused[name] = true
	if d.onRefuse != nil {
		d.onRefuse(err)
	}
}

// checked is err, reported first when it is a refusal.
func (d *Disk) checked(err error) error {
	if errors.Is(err, ErrUntrusted) {
		d.refuse(err)
	}
	return err
}

// shard opens the folder of key's entry, data/XX, making it (and data) with create.
func (d *Disk) shard(k Key, create bool) (*folder, error) {
	data, err := d.top.sub("data", create)
	if err != nil {
		return nil, d.checked(err)
	}
	defer data.close()
	sub, err := data.sub(k.String()[:2], create)
	return sub, d.checked(err)
}

func blocks(n int64) int64 { return (n + blockSize - 1) / blockSize * blockSize }

// margin is the part of the budget kept free of entries for what grows between two takes of
// stock: directories (which never shrink) and journals.
func (d *Disk) margin() int64 { return d.max / 64 }

// cleanTmp removes the temporary files that killed writers left behind: those no live writer
// holds a lock on, and any old enough that no writer can still own them. Anything else there
// that is not a folder goes too: tmp/ is the cache's own.
func (d *Disk) cleanTmp() {
	tmp, err := d.top.sub("tmp", false)
	if err != nil {
		d.checked(err)
		return
	}
	defer tmp.close()
	names, _ := tmp.names()
	for _, n := range names {
		e, err := tmp.lstat(n)
		if err != nil || e.dir {
			continue
		}
		// A file just made is not locked yet: leave it a few seconds.
		age := time.Since(e.mtime)
		if age > tmpMaxAge || age > tmpMinAge && (!e.regular || !e.owned || abandoned(tmp, n)) {
			tmp.remove(n)
		}
	}
}

// stock is what a scan of the directory found.
type stock struct {
	entries []diskEntry // most recently used first
	fixed   int64
	subdirs map[string]bool
}

// scan takes stock of the directory, without the lock: every entry with its size and last use
// (its mtime), the journals and the directories themselves. What is refused is reported and
// left out.
func (d *Disk) scan() stock {
	var all []found
	st := stock{subdirs: map[string]bool{}}
	if e, err := d.top.lstat("."); err == nil {
		st.fixed += e.disk
	}
	for _, name := range layout {
		sub, err := d.top.sub(name, false)
		if err != nil {
			d.checked(err)
			continue
		}
		if e, err := d.top.lstat(name); err == nil {
			st.fixed += e.disk
		}
		if name == "tmp" {
			sub.close()
			continue // writes under way are charged as they reserve room
		}
		names, _ := sub.names()
		for _, n := range names {
			e, err := sub.lstat(n)
			switch {
			case err != nil:
			case name == "data" && e.dir:
				st.fixed += e.disk
				st.subdirs[n] = true
				all = append(all, d.scanShard(sub, n)...)
			case !e.regular || !e.owned:
				d.refuse(sub.untrusted(n, "not a regular file of this user with one link"))
			case name != "data":
				sub.tighten(n, e)
				st.fixed += e.disk
			}
		}
		sub.close()
	}
	for _, n := range []string{markerName, tagName} {
		if e, err := d.top.lstat(n); err == nil && e.regular {
			st.fixed += e.disk
		}
	}
	slices.SortFunc(all, func(a, b found) int { return b.used.Compare(a.used) })
	st.entries = make([]diskEntry, len(all))
	for i, f := range all {
		st.entries[i] = f.diskEntry
	}
	return st
}

// found is an entry a scan found, with its last use.
type found struct {
	diskEntry
	used time.Time
}

// scanShard returns the entries of the folder data/name, as scan takes them.
func (d *Disk) scanShard(data *folder, name string) []found {
	var out []found
	sub, err := data.sub(name, false)
	if err != nil {
		d.checked(err)
		return nil
	}
	defer sub.close()
	names, _ := sub.names()
	for _, n := range names {
		var k Key
		if c, err := hex.Decode(k[:], []byte(n)); err != nil || c != len(k) || len(n) != 2*len(k) {
			continue
		}
		e, err := sub.lstat(n)
		if err != nil {
			continue
		}
		if !e.regular || !e.owned {
			d.refuse(sub.untrusted(n, "not a regular file of this user with one link"))
			continue
		}
		sub.tighten(n, e)
		out = append(out, found{diskEntry{k, e.disk}, e.mtime})
	}
	return out
}

// rescan takes stock of the directory and makes it what this Disk knows.
func (d *Disk) rescan() {
	st := d.scan()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.lru.Init()
	clear(d.items)
	d.subdirs = st.subdirs
	d.used, d.fixed = st.fixed, st.fixed
	for _, e := range st.entries {
		d.items[e.key] = d.lru.PushBack(&diskEntry{e.key, e.charge})
		d.used += e.charge
	}
	d.stats.Entries = len(d.items)
	d.written = 0
	d.scanned = time.Now()
}

// evict is evictLocked under the lock.
func (d *Disk) evict(room int64) []Key {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.evictLocked(room)
}

// evictLocked drops least recently used entries until room more bytes fit in the budget, and
// returns them, for remove to delete once the lock is released.
func (d *Disk) evictLocked(room int64) []Key {
	var victims []Key
	for d.used+d.reserved+room > d.max-d.margin() {
		el := d.lru.Back()
		if el == nil {
			break
		}
		victims = append(victims, el.Value.(*diskEntry).key)
		d.dropLocked(el)
		d.stats.Evictions++
	}
	return victims
}

// remove deletes the files of evicted entries.
func (d *Disk) remove(keys []Key) {
	for _, k := range keys {
		if sub, err := d.shard(k, false); err == nil {
			sub.remove(k.String())
			sub.close()
		}
	}
}

func (d *Disk) dropLocked(el *list.Element) {
	e := d.lru.Remove(el).(*diskEntry)
	delete(d.items, e.key)
	d.used -= e.charge
	d.stats.Entries = len(d.items)
}

// Stats returns the counters and what the directory holds, as far as this process knows.
func (d *Disk) Stats() DiskStats {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.stats
	s.Entries, s.Bytes, s.Max = len(d.items), d.used, d.max
	return s
}

// Entry is an open disk entry: its metadata and the sizes of its parts, read and checked;
// Read gives a part's bytes. An Entry reads the file it was opened on, so an entry replaced or
// evicted meanwhile is still read whole and unmixed. Close it when done.
type Entry struct {
	Key   Key
	Meta  []byte // the caller's metadata, as given to Put
	parts []part
	f     *os.File
	data  int64 // offset of the first part
	d     *Disk
}

type part struct {
	name     string
	off, len int64
	seal     seal // its GMAC (see mac.go)
}

// Get opens the entry stored under key. It returns an error wrapping fs.ErrNotExist when there
// is none, one wrapping ErrCorrupt (after removing it) when it is damaged or not bound to key,
// and one wrapping ErrUntrusted when what is there is refused.
func (d *Disk) Get(key Key) (*Entry, error) {
	s := key.String()
	f, size, err := d.top.openBeneath("data/"+s[:2]+"/"+s, os.O_RDONLY)
	if err != nil {
		d.count(func(s *DiskStats) { s.Misses++ })
		return nil, d.checked(err)
	}
	e, err := d.readEntry(f, size, key)
	if err != nil {
		d.discard(key, f)
		f.Close()
		return nil, err
	}
	e.d = d
	touch(f) // its last use, for the next process that takes stock
	d.hit(key, size)
	return e, nil
}

// hit counts a hit of the entry of key, of size bytes, and makes it the most recently used.
func (d *Disk) hit(key Key, size int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stats.Hits++
	if el, ok := d.items[key]; ok {
		d.lru.MoveToFront(el)
		return
	}
	// Written by another process.
	d.items[key] = d.lru.PushFront(&diskEntry{key, blocks(size)})
	d.used += blocks(size)
	d.stats.Entries = len(d.items)
}

func (d *Disk) count(f func(*DiskStats)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	f(&d.stats)
}

// discard removes the damaged entry open as f, unless its name now holds another file (a
// sound copy just written by someone else).
func (d *Disk) discard(key Key, f *os.File) {
	if sub, err := d.shard(key, false); err == nil {
		if sub.sameFile(key.String(), f) {
			sub.remove(key.String())
		}
		sub.close()
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stats.Corrupt++
	if el, ok := d.items[key]; ok {
		d.dropLocked(el)
	}
}

// The file of an entry, written front to back as its parts are made:
//
//	"MFSB" | u32 layout (3) | parts, in order | header | u32 header length |
//	MAC of the header | "MFSE"
//	header: key (32 bytes) | uvarint meta length | meta | uvarint part count |
//	        per part: uvarint name length | name | uvarint length | seal of the part
//
// The file is exactly as long as the header says. The header's MAC binds it, and so the key,
// the parts' names and their seals, to the directory's secret; each part's seal (a GMAC under
// a fresh nonce) binds the part's bytes (see mac.go).
const (
	entryMagic  = "MFSB"
	entryEnd    = "MFSE"
	entryLayout = 3
	preamble    = 8
	trailer     = 4 + macLen + 4
)

func corrupt(f *os.File, format string, args ...any) error {
	return fmt.Errorf("%s: %w: %s", f.Name(), ErrCorrupt, fmt.Sprintf(format, args...))
}

// readEntry reads and checks the header of the entry file f, of size bytes, which must be
// key's.
func (d *Disk) readEntry(f *os.File, size int64, key Key) (*Entry, error) {
	var pre [preamble]byte
	var tail [trailer]byte
	if size < preamble+trailer {
		return nil, corrupt(f, "%d bytes, shorter than an empty entry", size)
	}
	if _, err := f.ReadAt(pre[:], 0); err != nil {
		return nil, corrupt(f, "preamble: %v", err)
	}
	if _, err := f.ReadAt(tail[:], size-trailer); err != nil {
		return nil, corrupt(f, "trailer: %v", err)
	}
	if string(pre[:4]) != entryMagic || binary.LittleEndian.Uint32(pre[4:]) != entryLayout || string(tail[trailer-4:]) != entryEnd {
		return nil, corrupt(f, "not a whole entry of layout %d", entryLayout)
	}
	hlen := int64(binary.LittleEndian.Uint32(tail[:]))
	if hlen > maxHeaderLen || preamble+hlen+trailer > size {
		return nil, corrupt(f, "header of %d bytes in a file of %d", hlen, size)
	}
	h := make([]byte, hlen)
	if _, err := f.ReadAt(h, size-trailer-hlen); err != nil {
		return nil, corrupt(f, "header: %v", err)
	}
	if !d.sound(tail[4:4+macLen], macHeader, h) {
		return nil, corrupt(f, "header not bound to this cache's secret")
	}
	r := reader{b: h}
	var k Key
	copy(k[:], r.bytes(len(k)))
	e := &Entry{Key: k, f: f, data: preamble}
	e.Meta = r.bytes(r.count(len(h)))
	n := r.count(maxParts)
	off := int64(0)
	for range n {
		p := part{name: string(r.bytes(r.count(256))), off: off}
		p.len = int64(r.uvarint())
		copy(p.seal[:], r.bytes(sealLen))
		if p.len < 0 || p.len > size {
			r.err = true
		}
		off += p.len
		e.parts = append(e.parts, p)
	}
	switch {
	case r.err || r.n != len(h):
		return nil, corrupt(f, "malformed header")
	case k != key:
		return nil, corrupt(f, "holds key %s", k)
	case preamble+off+hlen+trailer != size:
		return nil, corrupt(f, "%d bytes, want %d", size, preamble+off+hlen+trailer)
	}
	return e, nil
}

// Names returns the names of the entry's parts, in the order they were put.
func (e *Entry) Names() []string {
	out := make([]string, len(e.parts))
	for i, p := range e.parts {
		out[i] = p.name
	}
	return out
}

// Size returns the length of the part named name; ok is false when there is none.
func (e *Entry) Size(name string) (n int64, ok bool) {
	for _, p := range e.parts {
		if p.name == name {
			return p.len, true
		}
	}
	return 0, false
}

// Read returns the bytes of the part named name, checked against their MAC. A part that fails
// the check removes the entry and gives an error wrapping ErrCorrupt; a missing part one
// wrapping fs.ErrNotExist.
func (e *Entry) Read(name string) ([]byte, error) {
	for _, p := range e.parts {
		if p.name != name {
			continue
		}
		b := make([]byte, p.len)
		if _, err := e.f.ReadAt(b, e.data+p.off); err != nil && !(err == io.EOF && len(b) == 0) {
			e.d.discard(e.Key, e.f)
			return nil, corrupt(e.f, "part %s: %v", name, err)
		}
		if !e.d.sealed(p.seal, b) {
			e.d.discard(e.Key, e.f)
			return nil, corrupt(e.f, "part %s: not bound to its key by this cache's secret", name)
		}
		return b, nil
	}
	return nil, &fs.PathError{Op: "read", Path: e.f.Name() + ":" + name, Err: fs.ErrNotExist}
}

// Close closes the entry's file.
func (e *Entry) Close() error { return e.f.Close() }

// Put stores parts and meta under key at once: Create, a Part each, Commit.
func (d *Disk) Put(key Key, meta []byte, parts []Part) error {
	w, err := d.Create(key)
	if err != nil {
		return err
	}
	for _, p := range parts {
		if err := w.Part(p.Name, p.Data); err != nil {
			w.Abort()
			return err
		}
	}
	if err := w.Commit(meta); err != nil {
		w.Abort()
		return err
	}
	return nil
}

// Writer writes one entry part by part, so that its maker need not hold every part at once;
// nothing of it is seen until Commit renames it into place, so a reader — or a process killed
// halfway — never sees a part of it. Room is made for each part as it comes, least recently
// used entries evicted first. After a write fails (a full disk, say) the Disk refuses to
// Create for a minute (ErrPaused).
type Writer struct {
	d        *Disk
	key      Key
	tmp      *folder // tmp/, held while the entry is written
	name     string  // the temporary file's name in tmp, "" once committed or dropped
	f        *os.File
	parts    []part
	off      int64 // bytes of parts written
	reserved int64
	err      error
}

// Create starts the entry of key.
func (d *Disk) Create(key Key) (*Writer, error) {
	paused, catchUp := d.writable()
	if paused {
		return nil, ErrPaused
	}
	if catchUp {
		d.rescan()
	}
	tmp, err := d.top.sub("tmp", true)
	if err != nil {
		return nil, d.failed(d.checked(err))
	}
	w := &Writer{d: d, key: key, tmp: tmp, name: tempName(key.String())}
	f, err := tmp.create(w.name)
	if err != nil {
		tmp.close()
		return nil, d.failed(err)
	}
	holdWhileWriting(f)
	w.f = f
	var pre [preamble]byte
	copy(pre[:], entryMagic)
	binary.LittleEndian.PutUint32(pre[4:], entryLayout)
	if err := w.write(pre[:]); err != nil {
		w.Abort()
		return nil, err
	}
	return w, nil
}

// tempName returns a fresh name for a temporary file of what is called base.
func tempName(base string) string {
	var rnd [8]byte
	rand.Read(rnd[:])
	return "." + base + "." + hex.EncodeToString(rnd[:])
}

// writable reports whether writes are paused, and whether it is time to catch up with what
// other processes sharing the directory wrote: a scan costs a stat of every entry.
func (d *Disk) writable() (paused, catchUp bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return time.Now().Before(d.pausedUntil), d.written > d.max/4 && time.Since(d.scanned) > rescanEvery
}

// failed pauses writing after err and returns it for the caller. A refusal (ErrUntrusted)
// pauses nothing: it concerns one folder, and it has been reported.
func (d *Disk) failed(err error) error {
	if !errors.Is(err, ErrUntrusted) {
		d.pause()
	}
	return fmt.Errorf("disk cache %s: %w", d.dir, err)
}

func (d *Disk) pause() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.pausedUntil = time.Now().Add(pauseAfter)
}

// write makes room for b and writes it.
func (w *Writer) write(b []byte) error {
	if w.err != nil {
		return w.err
	}
	room := int64(len(b))
	if blocks(w.reserved+room) > w.d.max/2 {
		w.err = ErrEntryTooLarge
		return w.err
	}
	w.d.remove(w.d.reserve(blocks(w.reserved+room) - blocks(w.reserved)))
	w.reserved += room
	if _, err := w.f.Write(b); err != nil {
		w.err = w.d.failed(err)
	}
	return w.err
}

// reserve takes n bytes of the budget for a write under way, and returns the entries evicted
// to make room.
func (d *Disk) reserve(n int64) []Key {
	d.mu.Lock()
	defer d.mu.Unlock()
	victims := d.evictLocked(n)
	d.reserved += n
	return victims
}

// Part writes the part named name.
func (w *Writer) Part(name string, data []byte) error {
	if len(w.parts) == maxParts || len(name) > 256 {
		w.err = fmt.Errorf("disk cache: more than %d parts or a name over 256 bytes", maxParts)
		return w.err
	}
	if err := w.write(data); err != nil {
		return err
	}
	w.parts = append(w.parts, part{name: name, off: w.off, len: int64(len(data)), seal: w.d.sealPart(data)})
	w.off += int64(len(data))
	return nil
}

// Recover returns the parts written so far, read back, and drops the entry: what a maker that
// let go of them takes back when the entry cannot be committed.
func (w *Writer) Recover() map[string][]byte {
	out := map[string][]byte{}
	if w.f != nil {
		for _, p := range w.parts {
			b := make([]byte, p.len)
			if _, err := w.f.ReadAt(b, preamble+p.off); err == nil {
				if w.d.sealed(p.seal, b) {
					out[p.name] = b
				}
			}
		}
	}
	w.Abort()
	return out
}

// Abort drops the entry. After Commit it does nothing.
func (w *Writer) Abort() {
	if w.f != nil {
		w.f.Close()
		w.f = nil
	}
	if w.name != "" {
		w.tmp.remove(w.name)
		w.name = ""
	}
	if w.tmp != nil {
		w.tmp.close()
		w.tmp = nil
	}
	w.release()
}

func (w *Writer) release() {
	if w.reserved == 0 {
		return
	}
	w.d.reserve(-blocks(w.reserved))
	w.reserved = 0
}

// Commit writes meta and the header and renames the entry into place, replacing any entry of
// its key. When it fails, the parts are still there for Recover (or Abort).
func (w *Writer) Commit(meta []byte) error {
	if w.err != nil {
		return w.err
	}
	var h []byte
	h = append(h, w.key[:]...)
	h = binary.AppendUvarint(h, uint64(len(meta)))
	h = append(h, meta...)
	h = binary.AppendUvarint(h, uint64(len(w.parts)))
	for _, p := range w.parts {
		h = binary.AppendUvarint(h, uint64(len(p.name)))
		h = append(h, p.name...)
		h = binary.AppendUvarint(h, uint64(p.len))
		h = append(h, p.seal[:]...)
	}
	if len(h) > maxHeaderLen {
		w.err = fmt.Errorf("disk cache: header of %d bytes (at most %d)", len(h), maxHeaderLen)
		return w.err
	}
	n := len(h)
	h = binary.LittleEndian.AppendUint32(h, uint32(n))
	mac := w.d.mac(macHeader, h[:n])
	h = append(h, mac[:]...)
	h = append(h, entryEnd...)
	if err := w.write(h); err != nil {
		return err
	}
	d, sub := w.d, w.key.String()[:2]
	shard, err := d.shard(w.key, true)
	if err == nil {
		err = w.tmp.rename(w.name, shard, w.key.String())
		shard.close()
	}
	if err != nil {
		w.err = d.failed(err)
		return w.err
	}
	w.name = ""
	w.f.Close()
	w.f = nil
	w.tmp.close()
	w.tmp = nil
	charge := blocks(w.reserved)
	w.release()
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.subdirs[sub] {
		d.subdirs[sub] = true
		d.fixed += blockSize
		d.used += blockSize
	}
	if el, ok := d.items[w.key]; ok {
		d.dropLocked(el)
	}
	d.items[w.key] = d.lru.PushFront(&diskEntry{w.key, charge})
	d.used += charge
	d.written += charge
	d.stats.Writes++
	d.stats.Entries = len(d.items)
	return nil
}

// writeAtomic writes data to the file name in the folder to through a temporary file.
func (d *Disk) writeAtomic(to *folder, name string, data []byte) error {
	return d.writeFileAtomic(to, name, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeFileAtomic writes a file with fill in tmp/ and renames it to name in the folder to. No
// fsync: a process killed at any moment leaves the old file or the new one, and a machine that
// loses power may leave a damaged file, which every read checks for.
func (d *Disk) writeFileAtomic(to *folder, name string, fill func(io.Writer) error) error {
	tmp, err := d.top.sub("tmp", true)
	if err != nil {
		return d.checked(err)
	}
	defer tmp.close()
	tn := tempName(name)
	f, err := tmp.create(tn)
	if err != nil {
		return err
	}
	holdWhileWriting(f)
	err = fill(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = tmp.rename(tn, to, name)
	}
	if err != nil {
		tmp.remove(tn)
	}
	return err
}

// tighten puts right the mode of the file name in d, seen as e, when it grants more than the
// cache's modes (a mount with --cache-group-read made it): the open checks and mends it (see
// checkFile). A directory inspected is left as it is.
func (d *folder) tighten(name string, e entry) {
	if e.perm&^d.perm.file == 0 || d.perm.inspect {
		return
	}
	if f, _, err := d.open(name, os.O_RDONLY); err == nil {
		f.Close()
	}
}

// readSmall reads the whole of the file name in d, which must be a regular file of this user
// with one link and at most maxState bytes.
func (d *folder) readSmall(name string) ([]byte, error) {
	f, size, err := d.open(name, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if size > maxState {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d a state file may have", d.name(name), size, maxState)
	}
	return io.ReadAll(io.LimitReader(f, maxState+1))
}

// reader decodes a header, remembering the first error instead of returning it.
type reader struct {
	b   []byte
	n   int
	err bool
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b[r.n:])
	if n <= 0 {
		r.err = true
		return 0
	}
	r.n += n
	return v
}

// count reads a count and checks it against limit.
func (r *reader) count(limit int) int {
	v := r.uvarint()
	if v > uint64(limit) {
		r.err = true
		return 0
	}
	return int(v)
}

func (r *reader) bytes(n int) []byte {
	if r.err || n > len(r.b)-r.n {
		r.err = true
		return nil
	}
	b := r.b[r.n : r.n+n : r.n+n]
	r.n += n
	return b
}

// lockStallFor is how long Lock only tries once after a wait for a lock ended (see Lock).
const lockStallFor = 30 * time.Second

func (d *Disk) lockStalled() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return time.Now().Before(d.lockStall)
}

func (d *Disk) stallLocks() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.lockStall = time.Now().Add(lockStallFor)
}
