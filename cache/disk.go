package cache

import (
	"container/list"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
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
	Writes    int64 // entries written
	Evictions int64 // entries removed to stay in budget
	Entries   int   // entries held now
	Bytes     int64 // bytes charged now: entries, journals and directories, in 4 KiB blocks
	Max       int64 // the budget
}

// Errors of the disk tier.
var (
	// ErrCorrupt is wrapped by the errors of entries found damaged; such an entry has been
	// removed, and its documents must be made again.
	ErrCorrupt = errors.New("damaged cache entry")
	// ErrPaused is returned by Put for a while after a write failed (a full disk, say), so that
	// the caller carries on from memory without retrying, and logging, every time.
	ErrPaused = errors.New("disk cache writes paused after a failure")
	// ErrNotCacheDir is returned by OpenDisk for a directory that holds other things.
	ErrNotCacheDir = errors.New("not a modelfs cache directory")
	// ErrEntryTooLarge is returned by Put for an entry larger than half the budget, which is
	// not stored: the caller keeps it elsewhere.
	ErrEntryTooLarge = errors.New("entry too large for the disk cache")
)

// Layout: a marker naming the directory as ours, the lock file, entries in data/XX/KEY,
// journals in index/, small state files in state/, temporary files in tmp/.
const (
	markerName   = "modelfs-cache"
	markerText   = "modelfs disk cache, layout 1\n"
	cacheDirTag  = "Signature: 8a477f597d28d172789f06886806bc55\n# This directory is a cache made by modelfs (modelfs cache clear empties it).\n"
	blockSize    = 4096
	pauseAfter   = time.Minute
	tmpMaxAge    = 10 * time.Minute
	rescanEvery  = 30 * time.Second
	maxHeaderLen = 4 << 20
	maxParts     = 64
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// tmpMinAge is how old a temporary file no writer holds must be to be taken for a killed
// writer's: between making it and locking it, a live writer holds no lock yet. (A variable for
// the tests.)
var tmpMinAge = 5 * time.Second

type diskEntry struct {
	key    Key
	charge int64
}

// Disk is the persistent tier: entries of named parts under content keys, in a directory. It
// is safe for concurrent use, and several processes may share one directory.
type Disk struct {
	dir  string
	max  int64
	lock lockFile

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
	stats       DiskStats
}

// OpenDisk opens (making it when absent) the cache directory opt.Dir: it takes stock of the
// entries there, removes temporary files that a killed process left behind, and evicts down to
// the budget. A directory that is not empty and not a modelfs cache is refused.
func OpenDisk(opt DiskOptions) (*Disk, error) {
	if opt.MaxBytes != 0 && opt.MaxBytes < MinDiskBytes && !opt.Inspect {
		return nil, fmt.Errorf("disk cache budget of %d bytes is below the minimum of %d", opt.MaxBytes, MinDiskBytes)
	}
	dir, err := filepath.Abs(opt.Dir)
	if err != nil {
		return nil, err
	}
	if opt.Inspect {
		if b, err := os.ReadFile(filepath.Join(dir, markerName)); err != nil || string(b) != markerText {
			return nil, fmt.Errorf("%s: %w", dir, ErrNotCacheDir)
		}
	} else if err := prepare(dir); err != nil {
		return nil, err
	}
	d := &Disk{dir: dir, max: opt.MaxBytes, lru: list.New(), items: make(map[Key]*list.Element), subdirs: map[string]bool{}}
	switch {
	case opt.MaxBytes == 0:
		d.max = d.storedBudget()
	case !opt.Inspect && opt.MaxBytes != d.storedBudget():
		if err := d.WriteState(budgetState, []byte(strconv.FormatInt(opt.MaxBytes, 10)+"\n")); err != nil {
			return nil, err
		}
	}
	if d.lock, err = openLock(filepath.Join(dir, "lock")); err != nil {
		return nil, err
	}
	if !opt.Inspect {
		d.cleanTmp()
	}
	d.rescan()
	if !opt.Inspect {
		d.remove(d.evict(0))
	}
	return d, nil
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

// prepare makes dir a cache directory, or checks that it is one.
func prepare(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	marker := filepath.Join(dir, markerName)
	if b, err := os.ReadFile(marker); err == nil {
		if string(b) != markerText {
			return fmt.Errorf("%s: %w (layout %q; clear it with `modelfs cache clear`)", dir, ErrNotCacheDir, strings.TrimSpace(string(b)))
		}
	} else {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if e.Name() != "CACHEDIR.TAG" && !strings.HasPrefix(e.Name(), ".") {
				return fmt.Errorf("%s: %w: it holds %s and no %s", dir, ErrNotCacheDir, e.Name(), markerName)
			}
		}
		if err := makeLayout(dir); err != nil {
			return err
		}
		if err := writeAtomic(dir, marker, []byte(markerText)); err != nil {
			return err
		}
	}
	if err := makeLayout(dir); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(dir, "CACHEDIR.TAG")); errors.Is(err, fs.ErrNotExist) {
		return writeAtomic(dir, filepath.Join(dir, "CACHEDIR.TAG"), []byte(cacheDirTag))
	}
	return nil
}

// makeLayout makes the subdirectories of the cache directory dir.
func makeLayout(dir string) error {
	for _, sub := range []string{"data", "index", "state", "tmp"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return err
		}
	}
	return nil
}

// Dir returns the cache directory's absolute path.
func (d *Disk) Dir() string { return d.dir }

// Close releases the lock file.
func (d *Disk) Close() error { return d.lock.close() }

func (d *Disk) path(k Key) string {
	s := k.String()
	return filepath.Join(d.dir, "data", s[:2], s)
}

func blocks(n int64) int64 { return (n + blockSize - 1) / blockSize * blockSize }

// onDisk returns what the file or directory fi takes on disk, as du(1) counts it.
func onDisk(fi fs.FileInfo) int64 { return max(allocated(fi), blocks(fi.Size())) }

// margin is the part of the budget kept free of entries for what grows between two takes of
// stock: directories (which never shrink) and journals.
func (d *Disk) margin() int64 { return d.max / 64 }

// cleanTmp removes the temporary files that killed writers left behind: those no live writer
// holds a lock on, and any old enough that no writer can still own them.
func (d *Disk) cleanTmp() {
	tmp := filepath.Join(d.dir, "tmp")
	ents, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range ents {
		p := filepath.Join(tmp, e.Name())
		// A file just made is not locked yet: leave it a few seconds.
		if fi, err := e.Info(); err == nil && (time.Since(fi.ModTime()) > tmpMaxAge || time.Since(fi.ModTime()) > tmpMinAge && abandoned(p)) {
			os.Remove(p)
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
// (its mtime), the journals and the directories themselves.
func (d *Disk) scan() stock {
	type found struct {
		diskEntry
		used time.Time
	}
	var all []found
	st := stock{subdirs: map[string]bool{}}
	for _, sub := range []string{".", "data", "index", "state", "tmp"} {
		if fi, err := os.Lstat(filepath.Join(d.dir, sub)); err == nil {
			st.fixed += onDisk(fi)
		}
	}
	subs, _ := os.ReadDir(filepath.Join(d.dir, "data"))
	for _, sub := range subs {
		fi, err := sub.Info()
		if !sub.IsDir() || err != nil {
			continue
		}
		st.subdirs[sub.Name()] = true
		st.fixed += onDisk(fi)
		ents, _ := os.ReadDir(filepath.Join(d.dir, "data", sub.Name()))
		for _, e := range ents {
			var k Key
			if n, err := hex.Decode(k[:], []byte(e.Name())); err != nil || n != len(k) || len(e.Name()) != 2*len(k) {
				continue
			}
			fi, err := e.Info()
			if err != nil || !fi.Mode().IsRegular() {
				continue
			}
			all = append(all, found{diskEntry{k, onDisk(fi)}, fi.ModTime()})
		}
	}
	for _, sub := range []string{".", "index", "state", "tmp"} { // marker, tag, journals, states, writes
		ents, _ := os.ReadDir(filepath.Join(d.dir, sub))
		for _, e := range ents {
			if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() {
				st.fixed += onDisk(fi)
			}
		}
	}
	slices.SortFunc(all, func(a, b found) int { return b.used.Compare(a.used) })
	st.entries = make([]diskEntry, len(all))
	for i, f := range all {
		st.entries[i] = f.diskEntry
	}
	return st
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
		os.Remove(d.path(k))
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
	crc      uint32
}

// Get opens the entry stored under key. It returns an error wrapping fs.ErrNotExist when there
// is none, and one wrapping ErrCorrupt (after removing it) when it is damaged.
func (d *Disk) Get(key Key) (*Entry, error) {
	p := d.path(key)
	f, err := os.Open(p)
	if err != nil {
		d.count(func(s *DiskStats) { s.Misses++ })
		return nil, err
	}
	e, err := readEntry(f, key)
	if err != nil {
		d.discard(key, f)
		f.Close()
		return nil, err
	}
	e.d = d
	now := time.Now()
	os.Chtimes(p, now, now) // its last use, for the next process that takes stock
	d.hit(key, f)
	return e, nil
}

// hit counts a hit of the entry of key, open as f, and makes it the most recently used.
func (d *Disk) hit(key Key, f *os.File) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stats.Hits++
	if el, ok := d.items[key]; ok {
		d.lru.MoveToFront(el)
	} else if fi, err := f.Stat(); err == nil { // written by another process
		d.items[key] = d.lru.PushFront(&diskEntry{key, blocks(fi.Size())})
		d.used += blocks(fi.Size())
		d.stats.Entries = len(d.items)
	}
}

func (d *Disk) count(f func(*DiskStats)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	f(&d.stats)
}

// discard removes the damaged entry open as f, unless its name now holds another file (a
// sound copy just written by someone else).
func (d *Disk) discard(key Key, f *os.File) {
	p := d.path(key)
	if a, err := f.Stat(); err == nil {
		if b, err := os.Lstat(p); err == nil && os.SameFile(a, b) {
			os.Remove(p)
		}
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
//	"MFSB" | u32 layout (2) | parts, in order | header | u32 header length |
//	u32 CRC-32C of the header | "MFSE"
//	header: key (32 bytes) | uvarint meta length | meta | uvarint part count |
//	        per part: uvarint name length | name | uvarint length | u32 CRC-32C of the part
//
// The file is exactly as long as the header says.
const (
	entryMagic  = "MFSB"
	entryEnd    = "MFSE"
	entryLayout = 2
	preamble    = 8
	trailer     = 12
)

func corrupt(f *os.File, format string, args ...any) error {
	return fmt.Errorf("%s: %w: %s", f.Name(), ErrCorrupt, fmt.Sprintf(format, args...))
}

// readEntry reads and checks the header of the entry file f, which must be key's.
func readEntry(f *os.File, key Key) (*Entry, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
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
	if string(pre[:4]) != entryMagic || binary.LittleEndian.Uint32(pre[4:]) != entryLayout || string(tail[8:]) != entryEnd {
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
	if crc32.Checksum(h, castagnoli) != binary.LittleEndian.Uint32(tail[4:]) {
		return nil, corrupt(f, "header checksum")
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
		p.crc = r.u32()
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

// Read returns the bytes of the part named name, checked against their checksum. A part that
// fails the check removes the entry and gives an error wrapping ErrCorrupt; a missing part one
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
		if crc32.Checksum(b, castagnoli) != p.crc {
			e.d.discard(e.Key, e.f)
			return nil, corrupt(e.f, "part %s: checksum", name)
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
	f        *os.File
	tmp      string
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
	w := &Writer{d: d, key: key}
	var rnd [8]byte
	rand.Read(rnd[:])
	w.tmp = filepath.Join(d.dir, "tmp", "."+key.String()+"."+hex.EncodeToString(rnd[:]))
	f, err := os.OpenFile(w.tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
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

// writable reports whether writes are paused, and whether it is time to catch up with what
// other processes sharing the directory wrote: a scan costs a stat of every entry.
func (d *Disk) writable() (paused, catchUp bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return time.Now().Before(d.pausedUntil), d.written > d.max/4 && time.Since(d.scanned) > rescanEvery
}

// failed pauses writing after err and returns it for the caller.
func (d *Disk) failed(err error) error {
	d.pause()
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
	w.parts = append(w.parts, part{name: name, off: w.off, len: int64(len(data)), crc: crc32.Checksum(data, castagnoli)})
	w.off += int64(len(data))
	return nil
}

// Recover returns the parts written so far, read back, and drops the entry: what a maker that
// let go of them takes back when the entry cannot be committed.
func (w *Writer) Recover() map[string][]byte {
	out := map[string][]byte{}
	if w.tmp != "" {
		if r, err := os.Open(w.tmp); err == nil {
			for _, p := range w.parts {
				b := make([]byte, p.len)
				if _, err := r.ReadAt(b, preamble+p.off); err == nil && crc32.Checksum(b, castagnoli) == p.crc {
					out[p.name] = b
				}
			}
			r.Close()
		}
	}
	w.Abort()
	return out
}

// Abort drops the entry.
func (w *Writer) Abort() {
	if w.f != nil {
		w.f.Close()
		w.f = nil
	}
	if w.tmp != "" {
		os.Remove(w.tmp)
		w.tmp = ""
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
		h = binary.LittleEndian.AppendUint32(h, p.crc)
	}
	if len(h) > maxHeaderLen {
		w.err = fmt.Errorf("disk cache: header of %d bytes (at most %d)", len(h), maxHeaderLen)
		return w.err
	}
	h = binary.LittleEndian.AppendUint32(h, uint32(len(h)))
	h = binary.LittleEndian.AppendUint32(h, crc32.Checksum(h[:len(h)-4], castagnoli))
	h = append(h, entryEnd...)
	if err := w.write(h); err != nil {
		return err
	}
	d, sub := w.d, w.key.String()[:2]
	err := w.f.Close()
	w.f = nil
	if err == nil && !d.hasSubdir(sub) {
		err = os.MkdirAll(filepath.Join(d.dir, "data", sub), 0o755)
	}
	if err == nil {
		err = os.Rename(w.tmp, d.path(w.key))
		if errors.Is(err, fs.ErrNotExist) { // another process cleared the directory
			if err = os.MkdirAll(filepath.Join(d.dir, "data", sub), 0o755); err == nil {
				err = os.Rename(w.tmp, d.path(w.key))
			}
		}
	}
	if err != nil {
		w.err = d.failed(err)
		return w.err
	}
	w.tmp = ""
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

func (d *Disk) hasSubdir(sub string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.subdirs[sub]
}

// writeAtomic writes data to path (inside the cache directory dir) through a temporary file.
func writeAtomic(dir, path string, data []byte) error {
	return writeFileAtomic(dir, path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeFileAtomic writes a file with fill in dir's tmp folder and renames it to path. No fsync: a process killed at any moment leaves the
// old file or the new one, and a machine that loses power may leave a damaged file, which
// every read checks for.
func writeFileAtomic(dir, path string, fill func(io.Writer) error) error {
	tmp := filepath.Join(dir, "tmp") // made by prepare before anything is written
	var rnd [8]byte
	rand.Read(rnd[:])
	name := filepath.Join(tmp, "."+filepath.Base(path)+"."+hex.EncodeToString(rnd[:]))
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	holdWhileWriting(f)
	err = fill(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	if err != nil {
		os.Remove(name)
	}
	return err
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

func (r *reader) u32() uint32 {
	b := r.bytes(4)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(b)
}
