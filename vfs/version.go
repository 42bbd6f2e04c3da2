package vfs

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelfs/modelfs/cache"
	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
)

// A version is one version of one model (or texture) and what its translation made: the key
// of its content, what else it read, and the size of every kind. It is the mount's size index:
// a stat is answered from it whatever the byte caches hold, and it survives remounts in the
// disk cache's journal.
type Version struct {
	key   cache.Key // sourceKey of the source's path and bytes
	id    cache.Key // of exactly these documents: key, deps and fails (see seal)
	deps  []dep     // what the translation read besides the source, in order
	sizes [numKinds]int64
	fails [numKinds]failClass // per kind; a failed kind's size is 0, but failShown's
	mtime int64               // newest mtime of the source and the files it read, ns
	// err is why the kinds failed, when this process saw the translation (texture errors are
	// written into the models that embed the texture).
	err error
	// persist is false for a translation whose inputs may read differently next time (an I/O
	// error): it is neither journaled nor written to disk.
	persist bool
	checked atomic.Int64 // when its deps were last found current, ns since the mount started
	// perm is the read bits its documents show (see access), taken at each check.
	perm atomic.Uint32
}

// numKinds is the length of a version's per-kind arrays, indexed by kindIndex.
const numKinds = translate.NumKinds

// allKinds lists every kind a version can hold, in kindIndex order.
var allKinds = translate.AllKinds

// kindIndex is k's slot in a version's arrays (translate.KindIndex); a kind no table names has
// none, and indexing with it panics rather than share another kind's slot.
func kindIndex(k translate.Kind) int { return translate.KindIndex(k) }

// sizeUnknown marks a kind the translation did not make (it was not enabled).
const sizeUnknown = -1

// has reports whether the version knows the size of kind.
func (v *Version) has(k translate.Kind) bool { return v.sizes[kindIndex(k)] != sizeUnknown }

// readable reports whether the bytes of kind can be served: it was made, or it is a document
// saying why it could not be.
func (v *Version) readable(k translate.Kind) bool {
	c := v.fails[kindIndex(k)]
	return c == failNone || c == failShown
}

// size returns the size of kind (0 for a failed kind).
func (v *Version) size(k translate.Kind) int64 { return max(v.sizes[kindIndex(k)], 0) }

// failClass says why a kind could not be made, as much as its errno needs.
type failClass uint8

const (
	failNone   failClass = iota
	failIO               // the model could not be read, decoded or encoded: EIO
	failPerm             // the source could not be read for lack of permission: EACCES
	failTooBig           // the source or a declared size is beyond the limits: EFBIG
	// failShown: the source could not be translated, and the kind serves a document saying
	// why (translate.FailureDocument) of the size the version records.
	failShown
)

func classOf(err error) failClass {
	switch {
	case errors.Is(err, fs.ErrPermission):
		return failPerm
	case errors.Is(err, codec.ErrTooLarge):
		return failTooBig
	}
	return failIO
}

// failure returns the error a reader of a failed kind gets.
func (v *Version) failure(src string, k translate.Kind) error {
	err := v.err
	if err == nil {
		switch v.fails[kindIndex(k)] {
		case failPerm:
			err = fs.ErrPermission
		case failTooBig:
			err = codec.ErrTooLarge
		case failShown:
			err = errors.New("the source could not be translated: its documents say why")
		default:
			err = syscall.EIO
		}
	}
	return &TranslationError{Path: src, Err: err}
}

// failed returns why v's kinds could not be made, or nil when every kind was.
func (v *Version) failed(src string) error {
	for i, c := range v.fails {
		if c != failNone {
			return v.failure(src, allKinds[i])
		}
	}
	if v.err != nil { // the .json holds the error document
		return &TranslationError{Path: src, Err: v.err}
	}
	return nil
}

// depOp is what a translation asked of the tree.
type depOp uint8

const (
	depFile depOp = iota + 1 // read a file: val is its sum, or its error state
	depFold                  // resolved a name ignoring case: val is the result, "" for none
	depList                  // listed a directory: val is the listing's sum, or its error state
)

// dep is one thing a translation read, and what it found, so that the version can be checked
// against the tree as it is now.
type dep struct {
	op   depOp
	name string // cleaned, relative to the root (a fold query as the decoder asked it)
	val  string
}

// Error states of a file or directory dep's val, in the place of a sum.
const (
	stAbsent     = "\x00absent"
	stRefused    = "\x00refused"
	stNotRegular = "\x00not-regular"
	stTooLarge   = "\x00too-large"
	stError      = "\x00error" // anything else: never taken as current
)

// stateOf is the dep val of a file or directory that gave err (or the sum s when err is nil),
// and whether that state is stable enough to build on.
func stateOf(s digest, err error) (string, bool) {
	switch {
	case err == nil:
		return string(s[:]), true
	case errors.Is(err, fs.ErrNotExist):
		return stAbsent, true
	case errors.Is(err, fs.ErrPermission), IsEscape(err):
		return stRefused, true
	case errors.Is(err, errNotRegular), errors.Is(err, syscall.ENOTDIR):
		return stNotRegular, true
	case errors.Is(err, codec.ErrTooLarge):
		return stTooLarge, true
	}
	return stError, false
}

// current reports whether d still holds: the tree reads now as it did for the translation.
func (f *Tree) current(d dep) bool {
	switch d.op {
	case depFile:
		s, err := f.fileSum(d.name, nil)
		val, stable := stateOf(s, err)
		return stable && val == d.val
	case depFold:
		found, _ := f.fold(d.name)
		return found == d.val
	case depList:
		l, err := f.list(d.name)
		var s digest
		if err == nil {
			s = l.listSum()
		}
		val, stable := stateOf(s, err)
		return stable && val == d.val
	}
	return false
}

// sourceKey is the content key of the source src whose bytes have sum s: everything the bytes
// of its documents depend on but its companions, which the version's deps cover.
func (f *Tree) sourceKey(src string, s digest) cache.Key {
	h := sha256.New()
	h.Write(f.keyPrefix)
	h.Write([]byte(src))
	h.Write([]byte{0})
	h.Write(s[:])
	var k cache.Key
	h.Sum(k[:0])
	return k
}

// keyPrefix is what every key of a mount begins with: the translator's version and the
// decoder options, which hold for the whole mount.
func keyPrefix(opt map[string]string) []byte {
	b := []byte("modelfs\x00" + translate.Version + "\x00")
	for _, k := range slices.Sorted(maps.Keys(opt)) {
		b = append(b, k+"="+opt[k]+"\x00"...)
	}
	return append(b, 0)
}

// The version's checked time is kept in ns since the mount started, in an atomic.
func (f *Tree) now() int64 { return int64(time.Since(f.started)) }

// ttl is how long a version checked against the tree is taken as current without checking
// again: the time the kernel itself may go on showing old attributes.
func (f *Tree) ttl() time.Duration { return min(f.opt.AttrTimeout, time.Second) }

// currentVersion returns the version of the model at src if the mount has one and it is
// current, checking it against the tree when its last check is older than the ttl; nil
// otherwise. fi, when not nil, is a fresh Lstat of src. It never translates, and reads a file
// only when its identity changed.
func (f *Tree) currentVersion(src string, fi fs.FileInfo) *Version {
	v, ok := f.versionOf(src)
	if !ok {
		return nil
	}
	now := f.now()
	if time.Duration(now-v.checked.Load()) < f.ttl() {
		return v
	}
	if !f.holds(src, v, fi) {
		return nil
	}
	v.perm.Store(f.access(src, v))
	if v.checked.Swap(now) < 0 {
		f.reused.Add(1) // the first check of a version from the journal
	}
	return v
}

// holds reports whether v is the current version of src.
func (f *Tree) holds(src string, v *Version, fi fs.FileInfo) bool {
	if fi != nil && !fi.Mode().IsRegular() {
		return false
	}
	s, err := f.fileSum(src, fi)
	return err == nil && f.sourceKey(src, s) == v.key && f.depsHold(v)
}

// keep records v as the current version of src.
func (f *Tree) keep(src string, v *Version) {
	v.perm.Store(f.access(src, v))
	v.checked.Store(f.now())
	f.putVersion(src, v)
}

// seal sets v's id from its key and deps, once they are final: they decide every document,
// failures included. The source key alone does not tell two versions apart whose companions
// differ: the memory tier and the kernel's page cache key the documents by the id.
func (v *Version) seal() *Version {
	v.id = versionID(v.key, v.deps)
	return v
}

func versionID(key cache.Key, deps []dep) cache.Key {
	h := sha256.New()
	h.Write(key[:])
	h.Write(encodeMeta(deps, [numKinds]failClass{}))
	var id cache.Key
	h.Sum(id[:0])
	return id
}

// intern returns a list equal to deps that versions share: the models of one folder mostly
// read the same things (the same texture, the same failed lookups on the way to it), and one
// list of twenty deps for each of ten thousand models would cost more than the rest of the
// index.
func (f *Tree) intern(deps []dep) []dep {
	if len(deps) == 0 {
		return nil
	}
	k := string(encodeMeta(deps, [numKinds]failClass{}))
	f.mu.Lock()
	defer f.mu.Unlock()
	if shared, ok := f.depLists.get(k); ok {
		return shared
	}
	deps = slices.Clip(deps)
	f.depLists.put(k, deps)
	return deps
}

// The metadata of a disk entry: its deps (without identities, which belong to one machine)
// and the failed kinds.
//
//	uvarint n | n × (op byte | uvarint len | name | uvarint len | val) | uvarint m | m × (kind index, class)
func encodeMeta(deps []dep, fails [numKinds]failClass) []byte {
	var b []byte
	b = binary.AppendUvarint(b, uint64(len(deps)))
	for _, d := range deps {
		b = append(b, byte(d.op))
		b = appendString(b, d.name)
		b = appendString(b, d.val)
	}
	n := 0
	for _, c := range fails {
		if c != failNone {
			n++
		}
	}
	b = binary.AppendUvarint(b, uint64(n))
	for i, c := range fails {
		if c != failNone {
			b = append(b, byte(i), byte(c))
		}
	}
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// decoder reads what encodeMeta and the journal write, remembering the first error.
type decoder struct {
	b   []byte
	bad bool
}

func (d *decoder) uvarint() uint64 { return readVarint(d, binary.Uvarint) }

func (d *decoder) varint() int64 { return readVarint(d, binary.Varint) }

// readVarint reads one number with read (binary.Uvarint or binary.Varint).
func readVarint[T uint64 | int64](d *decoder, read func([]byte) (T, int)) T {
	v, n := read(d.b)
	if n <= 0 {
		d.bad = true
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.bad = true
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) string() string {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.bad = true
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

// count reads a count of items each at least min bytes long, checked against what is left.
func (d *decoder) count(min int) int {
	n := d.uvarint()
	if n > uint64(len(d.b)/min) {
		d.bad = true
		return 0
	}
	return int(n)
}

var errBadMeta = errors.New("malformed cache metadata")

func decodeMeta(b []byte) ([]dep, [numKinds]failClass, error) {
	d := decoder{b: b}
	deps, fails := readMeta(&d)
	if d.bad || len(d.b) != 0 {
		return nil, fails, errBadMeta
	}
	return deps, fails, nil
}

// entryMeta is what a disk entry's meta holds: encodeMeta's deps and failures, then the
// lengths of the documents its parts hold pieced (see pieces.go), 0 for the others.
type entryMeta struct {
	deps   []dep
	fails  [numKinds]failClass
	pieced [numKinds]int64
}

// encode is the meta of a disk entry.
func (m *entryMeta) encode() []byte {
	b := encodeMeta(m.deps, m.fails)
	n := 0
	for _, size := range m.pieced {
		if size > 0 {
			n++
		}
	}
	if n == 0 {
		return b // as before pieced documents: an older modelfs reads it
	}
	b = binary.AppendUvarint(b, uint64(n))
	for i, size := range m.pieced {
		if size > 0 {
			b = append(b, byte(i))
			b = binary.AppendUvarint(b, uint64(size))
		}
	}
	return b
}

// decodeEntryMeta reads what entryMeta.encode wrote.
func decodeEntryMeta(b []byte) (m entryMeta, err error) {
	d := decoder{b: b}
	m.deps, m.fails = readMeta(&d)
	if len(d.b) > 0 {
		for range d.count(2) {
			i, size := d.byte(), d.uvarint()
			if int(i) >= numKinds || size == 0 || size > 1<<62 {
				d.bad = true
				break
			}
			m.pieced[i] = int64(size)
		}
	}
	if d.bad || len(d.b) != 0 {
		return entryMeta{}, errBadMeta
	}
	return m, nil
}

// size is the length of the document of kind k an entry holds: its part's, or for a pieced
// document the length the meta gives.
func (m *entryMeta) size(e *cache.Entry, k translate.Kind) (int64, bool) {
	n, ok := e.Size(kindName(k))
	if p := m.pieced[kindIndex(k)]; p > 0 && ok {
		return p, true
	}
	return n, ok
}

// readMeta reads what encodeMeta wrote.
func readMeta(d *decoder) ([]dep, [numKinds]failClass) {
	var fails [numKinds]failClass
	deps := make([]dep, d.count(3))
	for i := range deps {
		deps[i] = dep{op: depOp(d.byte()), name: d.string(), val: d.string()}
		if deps[i].op < depFile || deps[i].op > depList {
			d.bad = true
		}
	}
	for range d.count(2) {
		i, c := d.byte(), failClass(d.byte())
		if int(i) >= numKinds || c > failShown {
			d.bad = true
			break
		}
		fails[i] = c
	}
	return deps, fails
}

// depsEqual reports whether two versions' deps are the same (identities aside).
func depsEqual(a, b []dep) bool {
	return slices.EqualFunc(a, b, func(x, y dep) bool { return x.op == y.op && x.name == y.name && x.val == y.val })
}

// kindName is the name of kind's part in a disk entry.
func kindName(k translate.Kind) string { return string(k) }

// memKey is the key of kind's document of the version whose id is k in the memory tier.
func memKey(k cache.Key, kind translate.Kind) string {
	var b strings.Builder
	b.Grow(len(k) + 1 + len(kind))
	b.Write(k[:])
	b.WriteByte(0)
	b.WriteString(string(kind))
	return b.String()
}
