package vfs

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io/fs"
	"os"
	"path"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"time"
	"weak"

	"github.com/modelfs/modelfs/cache"
	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
)

// The pipeline behind every virtual file: one load per model version, shared by every kind and
// every caller. A stat needs the version (its sizes), a read the bytes of one kind too. Each is
// looked for in turn in the versions (the size index), the memory tier, the disk tier, and
// only then made, by one decode that produces every enabled kind.
//
// Sources live in a space: SRC's folder (the tree itself), or an archive's view. A space knows
// its versions and how to read and decode its sources; the rest — the coalescing of loads,
// the memory keys, the disk entries and their dependencies, the keeping of documents and the
// failures — is one for every space.

// space is where a load's sources live.
type space interface {
	// loadKey names the load of src among the loads of every space.
	loadKey(src string) string
	// known returns the version of src known to be current without translating, or nil;
	// fi, when not nil, is a fresh Lstat of src.
	known(src string, fi fs.FileInfo) *Version
	// load finds the current version of src, or makes it (see Tree.settle), so that it has
	// kind, and its bytes with needBytes.
	load(src string, kind translate.Kind, n need) (loaded, error)
	// translateModel decodes the model src, whose bytes are data, and hands every enabled kind
	// to k; it returns the format's name.
	translateModel(src string, data []byte, v *Version, k *keeper) (format string)
	// keep records v as the current version of src; journal keeps it beyond the mount where
	// the space does.
	keep(src string, v *Version)
	journal(src string, v *Version)
	// logName is how the logs name src.
	logName(src string) string
}

var _ space = (*Tree)(nil)

func (f *Tree) loadKey(src string) string                 { return src }
func (f *Tree) known(src string, fi fs.FileInfo) *Version { return f.currentVersion(src, fi) }
func (f *Tree) logName(src string) string                 { return src }

// need is what a caller of get needs of a version.
type need uint8

const (
	needSize  need = iota // the sizes, to answer a stat
	needBytes             // the bytes of one kind, to serve a read
)

// lockWait bounds the wait for another process making the same version; past it this one
// makes it too, without the disk tier, which costs time, never bytes; and for a while after,
// the cache does not wait for such locks at all (see cache.Disk.Lock). (A variable for the
// tests.)
var lockWait = 2 * time.Second

// loaded is what one load found or made.
type loaded struct {
	v   *Version
	out map[translate.Kind]Doc // the documents, when the load read or made them
}

// get returns the current version of the model (or texture) at src and, with needBytes, the
// bytes of kind; for a failed kind other than the .json the error is a *TranslationError. fi, when not
// nil, is a fresh Lstat of src. Concurrent callers for one source share one load, each waiting
// on its own ctx.
func (f *Tree) get(ctx context.Context, src string, fi fs.FileInfo, kind translate.Kind, n need) (*Version, Doc, error) {
	return f.getIn(ctx, f, src, fi, kind, n)
}

// getIn is get for the source src of the space sp.
func (f *Tree) getIn(ctx context.Context, sp space, src string, fi fs.FileInfo, kind translate.Kind, n need) (*Version, Doc, error) {
	for range 4 {
		if v := sp.known(src, fi); v != nil {
			if b, err, ok := f.answer(ctx, sp, src, v, nil, kind, n); ok {
				return v, b, err
			}
		}
		r, err := f.loads.Do(ctx, sp.loadKey(src), func() (loaded, error) {
			if !f.life.enter() {
				return loaded{}, errClosed
			}
			defer f.life.leave()
			return sp.load(src, kind, n)
		})
		if err != nil {
			return nil, Doc{}, err
		}
		if b, err, ok := f.answer(ctx, sp, src, r.v, r.out, kind, n); ok {
			return r.v, b, err
		}
		fi = nil // the load served another caller's need: look again
	}
	return nil, Doc{}, &TranslationError{Path: src, Err: errors.New("the document could not be kept long enough to be read")}
}

// answer is what get returns for v when v serves the need: the kind's failure, or with
// needBytes its bytes (from out, which a load filled, or the tiers); ok is false when it does
// not.
func (f *Tree) answer(ctx context.Context, sp space, src string, v *Version, out map[translate.Kind]Doc, kind translate.Kind, n need) (d Doc, err error, ok bool) {
	switch {
	case !v.has(kind):
		return Doc{}, nil, false
	case !v.readable(kind):
		return Doc{}, v.failure(src, kind), true
	case n == needSize:
		return Doc{}, nil, true
	}
	if d, ok := out[kind]; ok {
		return d, nil, true
	}
	b, ok := f.stored(v, kind)
	if !ok {
		return Doc{}, nil, false
	}
	if d, ok = f.docOf(ctx, sp, kind, b); !ok && ctx.Err() == nil {
		f.mem.Remove(memKey(v.id, kind)) // damaged, or its texture changed: made again
	}
	return d, nil, ok
}

// stored returns the document of kind of v, as the memory or the disk tier holds it.
func (f *Tree) stored(v *Version, kind translate.Kind) ([]byte, bool) {
	mk := memKey(v.id, kind)
	if b, ok := f.mem.Get(mk); ok {
		return b, true
	}
	if f.disk == nil || !v.persist {
		return nil, false
	}
	e, err := f.disk.Get(v.key)
	if err != nil {
		f.diskError(err)
		return nil, false
	}
	defer e.Close()
	m, err := decodeEntryMeta(e.Meta)
	if err != nil {
		return nil, false
	}
	if size, ok := m.size(e, kind); !ok || size != v.size(kind) || m.fails != v.fails || !depsEqual(m.deps, v.deps) {
		return nil, false // made from other companions, by another mount: not this version's
	}
	b, err := e.Read(kindName(kind))
	if err != nil {
		f.diskError(err)
		return nil, false
	}
	if storedSize(b) != v.size(kind) {
		return nil, false
	}
	f.memPut(mk, b)
	return b, true
}

// load is the body of one shared load of src: it finds the current version, from the versions
// or the disk tier, or makes it, so that it has kind (and its bytes, with needBytes).
func (f *Tree) load(src string, kind translate.Kind, n need) (loaded, error) {
	fi, err := f.sourceInfo(src)
	if err != nil {
		return loaded{}, err
	}
	if !fi.Mode().IsRegular() {
		return loaded{}, errNotModel
	}
	data, st, ok := f.handedOff(src, fi)
	if !ok {
		defer f.holdRead(src, fi.Size())()
		data, st, err = f.readFile(src, src, fi)
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return loaded{}, err // gone since the Lstat
		}
		return loaded{v: f.unreadable(f, src, err)}, nil
	}
	key := f.sourceKey(src, st.sum)
	// The source's bytes are as before (only its times changed, say), and so are its deps.
	v, ok := f.versionOf(src)
	if ok && v.key == key && f.depsHold(v) {
		f.keep(src, v)
		if r, ok := f.serves(f, src, loaded{v: v}, kind, n); ok {
			return r, nil
		}
	}
	return f.settle(f, src, key, st.id.mtime, func() ([]byte, error) { return data, nil }, kind, n)
}

// serves reports whether r, a load's result, serves the need; with the document of kind when
// it was put together from pieces.
func (f *Tree) serves(sp space, src string, r loaded, kind translate.Kind, n need) (loaded, bool) {
	d, _, ok := f.answer(context.Background(), sp, src, r.v, r.out, kind, n)
	if ok && d.pieces != nil {
		r.out = map[translate.Kind]Doc{kind: d}
	}
	return r, ok
}

// settle is the end of every load of src, of sp, whose content key is key and whose mtime
// (ns) is mtime: the version from the disk tier, after waiting for another process making it;
// else made from the bytes read gives (a source that cannot be read is unreadable's).
func (f *Tree) settle(sp space, src string, key cache.Key, mtime int64, read func() ([]byte, error), kind translate.Kind, n need) (loaded, error) {
	if r, ok := f.fromDisk(sp, src, key, mtime, kind, n); ok {
		if r, ok := f.serves(sp, src, r, kind, n); ok {
			return r, nil
		}
	}
	toDisk := f.disk != nil
	if toDisk {
		// Another process sharing the cache may be making it: wait for it (a while: one
		// stopped with Ctrl-Z must not stop this mount), then look again.
		ctx, cancel := context.WithTimeout(context.Background(), lockWait)
		unlock, err := f.disk.Lock(ctx, key)
		cancel()
		if err != nil {
			toDisk = false // it may be writing the entry: leave that to it
		} else {
			defer unlock()
			if r, ok := f.fromDisk(sp, src, key, mtime, kind, n); ok {
				if r, ok := f.serves(sp, src, r, kind, n); ok {
					return r, nil
				}
			}
		}
	}
	data, err := read()
	if err != nil && !damaged(err) {
		return loaded{v: f.unreadable(sp, src, err)}, nil
	}
	return f.make(sp, src, data, err, key, mtime, kind, n, toDisk)
}

// damaged reports whether err says that a source's stored bytes are damaged (an archive's
// member whose checksum or stream is wrong), which they will be every time they are read, as
// opposed to a read that failed (an I/O error, a permission) and may not fail again.
func damaged(err error) bool {
	var errno syscall.Errno
	return IsDataError(err) && !errors.As(err, &errno) && !errors.Is(err, fs.ErrClosed)
}

// depsHold reports whether every dep of v holds.
func (f *Tree) depsHold(v *Version) bool {
	for _, d := range v.deps {
		if !f.current(d) {
			return false
		}
	}
	return true
}

// fromDisk looks for the version of src, of sp, with key in the disk tier, and takes it when
// its deps hold.
func (f *Tree) fromDisk(sp space, src string, key cache.Key, mtime int64, kind translate.Kind, n need) (loaded, bool) {
	if f.disk == nil {
		return loaded{}, false
	}
	e, err := f.disk.Get(key)
	if err != nil {
		f.diskError(err)
		return loaded{}, false
	}
	defer e.Close()
	m, err := decodeEntryMeta(e.Meta)
	if err != nil {
		return loaded{}, false
	}
	v := &Version{key: key, deps: m.deps, fails: m.fails, persist: true, mtime: mtime}
	for i := range v.sizes {
		v.sizes[i] = sizeUnknown
	}
	for _, k := range allKinds {
		if size, ok := m.size(e, k); ok {
			v.sizes[kindIndex(k)] = size
		} else if v.fails[kindIndex(k)] != failNone {
			v.sizes[kindIndex(k)] = 0
		}
	}
	if !f.depsHold(v) {
		return loaded{}, false
	}
	// The mtime of the files it read is that of the states the checks just saw.
	for _, d := range v.deps {
		if d.op == depFile {
			if st, ok := f.fileOf(d.name); ok {
				v.mtime = max(v.mtime, st.id.mtime)
			}
		}
	}
	v.deps = f.intern(v.deps)
	v.seal()
	f.reused.Add(1)
	r := loaded{v: v}
	if n == needBytes && v.has(kind) && v.readable(kind) {
		b, err := e.Read(kindName(kind))
		if err != nil {
			f.diskError(err)
			return loaded{}, false
		}
		d, ok := f.docOf(context.Background(), sp, kind, b)
		if !ok || d.size != v.size(kind) {
			return loaded{}, false
		}
		f.memPut(memKey(v.id, kind), b)
		r.out = map[translate.Kind]Doc{kind: d}
	}
	sp.keep(src, v)
	sp.journal(src, v)
	return r, true
}

// unreadable is the version of a source of sp that cannot be read (for lack of permission,
// say): every kind fails, the .json holds the error document, and nothing of it is kept on
// disk.
func (f *Tree) unreadable(sp space, src string, err error) *Version {
	v := &Version{err: err}
	for _, k := range allKinds {
		v.sizes[kindIndex(k)] = 0
		v.fails[kindIndex(k)] = classOf(err)
	}
	doc := translate.ErrorDocument(src, "", err)
	v.key = cache.Key(sha256.Sum256(append([]byte("unreadable\x00"+sp.loadKey(src)+"\x00"), doc...)))
	if f.kinds[".json"] != "" && codec.IsModelName(src) {
		v.sizes[kindIndex(translate.JSON)], v.fails[kindIndex(translate.JSON)] = int64(len(doc)), failNone
	}
	v.seal()
	if v.has(translate.JSON) && v.fails[kindIndex(translate.JSON)] == failNone {
		f.memPut(memKey(v.id, translate.JSON), doc)
	}
	format := ""
	if codec.IsTextureName(src) {
		format = "texture" // for the log's words alone
	}
	f.logFailure(sp.logName(src), v.key, format, err)
	sp.keep(src, v)
	return v
}

// make translates src, whose bytes are data, into every enabled kind from one decode (more
// only when the tree changes under it: see translateModel), and
// keeps the result: the version, the documents on disk as each is made, and in memory the one
// the caller wants (a stat is followed by a read more often than not), the others too without
// a disk tier, as far as there is room. With damage, the source's bytes could not be had
// (see damaged), and every kind fails with it.
func (f *Tree) make(sp space, src string, data []byte, damage error, key cache.Key, mtime int64, want translate.Kind, n need, toDisk bool) (loaded, error) {
	isTexture := codec.IsTextureName(src)
	var read int64 // the bytes of the files the model's translation read
	if damage == nil {
		done := f.admit(src, len(data))
		defer func() { done(read) }()
	}
	v := &Version{key: key, persist: true, mtime: mtime}
	for i := range v.sizes {
		v.sizes[i] = sizeUnknown
	}
	k := &keeper{f: f, sp: sp, v: v, want: want, read: n == needBytes, toDisk: toDisk, docs: map[translate.Kind]Doc{}}
	defer k.abandon()
	var format string
	switch {
	case damage != nil:
		if isTexture {
			format = "texture"
		}
		k.begin()
		kinds := f.modelKinds
		if isTexture {
			kinds = []translate.Kind{translate.PNG}
		}
		for _, kind := range kinds {
			k.doc(kind, nil, damage)
		}
	case isTexture:
		format = "texture"
		png, err := translate.ConvertTexture(src, data)
		k.begin()
		k.doc(translate.PNG, translate.Doc{png}, err)
	default:
		format = sp.translateModel(src, data, v, k)
	}
	if v.err != nil {
		f.failures.Add(1)
		f.logFailure(sp.logName(src), key, format, v.err)
		k.failed(src, format)
	}
	k.finish()
	sp.keep(src, v)
	sp.journal(src, v)
	if k.rec != nil {
		read = k.rec.bytesRead()
	}
	return loaded{v: v, out: k.docs}, nil
}

// translateModel decodes the model src of SRC, again when the tree changed under the decode
// (see decodeModel).
func (f *Tree) translateModel(src string, data []byte, v *Version, k *keeper) (format string) {
	for attempt := 1; ; attempt++ {
		var raced bool
		format, raced = f.decodeModel(src, data, v, k, attempt == maxAttempts)
		if !raced {
			return format
		}
	}
}

// maxAttempts bounds the decodes of one model version whose reads found the mount's index
// stale (a file it listed was gone when read): the last attempt's documents are kept whatever
// they say.
const maxAttempts = 3

// decodeModel decodes the model src (its bytes in data) and hands every enabled kind to k,
// which fills in v; the deps, persistence and mtime of v come from what the decode read. When
// a read found the index stale and last is false, it hands nothing over and returns raced, for
// the caller to decode again on fresh listings: documents that name a file and then fail to
// read it match no state of the tree.
func (f *Tree) decodeModel(src string, data []byte, v *Version, k *keeper, last bool) (format string, raced bool) {
	rec := &recorder{f: f}
	k.rec, k.shared = rec, &rec.shared
	begin := func() { // once everything the translation reads has been read
		if rec.staleIndex() && !last {
			raced = true
			return
		}
		var deps []dep
		deps, v.persist, v.mtime = rec.result(v.mtime)
		v.deps = f.intern(deps)
		k.begin()
	}
	source := codec.Source{Name: src, Data: data, FS: rec, Texture: rec.texture, Options: f.opt.DecoderOptions}
	s, ft, err := translate.Decode(source)
	if ft != nil {
		format = ft.Name
	}
	if err != nil {
		if begin(); !raced {
			for _, kind := range f.modelKinds {
				k.doc(kind, nil, err)
			}
		}
		return format, raced
	}
	if rec.staleIndex() && !last { // the outputs would be thrown away
		s.Release()
		return format, true
	}
	opt := translate.EncodeOptions{MTLName: path.Base(src) + ".mtl"}
	translate.OutputsFunc(source, s, f.modelKinds, opt, func(i int, doc translate.Doc, err error) {
		if i == 0 {
			begin()
		}
		if !raced {
			k.doc(f.modelKinds[i], doc, err)
		}
	})
	s.Release() // the documents are copies: the decoder may reuse the scene's memory
	if len(f.modelKinds) == 0 {
		begin()
	}
	return format, raced
}

// holdRead waits until the source src, of size bytes, may be read and held for its load, and
// counts it in the memory budget until the function it returns is called, when the load ends.
// A source is read (its content is its cache key) before its translation is admitted, and
// held while it waits: without this, sixteen loads of 20 MB textures held 100 MB beside the
// budget (scripts/soak). Reads of models and of textures are bound apart, as translations are
// (a model's load waits for textures', never the reverse); one larger than all of it is read
// alone.
func (f *Tree) holdRead(src string, size int64) (release func()) {
	sem := f.modelReads
	if codec.IsTextureName(src) {
		sem = f.textureReads
	}
	n := min(max(size, 0), f.opt.CacheBytes/readShare)
	sem.Acquire(context.Background(), n)
	f.reading.Add(n)
	f.reserve()
	var once sync.Once
	return func() {
		once.Do(func() {
			f.reading.Add(-n)
			sem.Release(n)
			f.reserve() // the documents may have the room back
		})
	}
}

// readShare is the part of the cache budget the sources held by loads, of models and of
// textures each, may take.
const readShare = 4

// admit waits until the translation of src (size bytes) may start, counts it, and returns what
// ends it, which is told the bytes of the other files the translation read. A translation holds its scene and its documents, about outputFactor times the source
// (a 2.2 MB MDX grid makes 15 MB): it starts once that fits beside the others running (one
// bigger than all of it runs alone), and documents in memory make room for it. A model's
// translation waits for textures: never for a model's slot or memory.
func (f *Tree) admit(src string, size int) (done func(read int64)) {
	slots, memory := f.modelSlots, f.modelMemory
	if codec.IsTextureName(src) {
		slots, memory = f.textureSlots, f.textureMemory
	}
	expect := min(int64(size)*outputFactor, f.opt.CacheBytes/2)
	memory.Acquire(context.Background(), expect)
	slots <- struct{}{}
	f.inflight.Add(expect)
	done = func(read int64) {
		f.inflight.Add(-expect)
		<-slots
		memory.Release(expect)
		if max(expect, read) >= collectAfter {
			f.collect()
		}
	}
	defer func() {
		if p := recover(); p != nil { // give the slot back before the load's recover sees it
			done(0)
			panic(p)
		}
	}()
	f.reserve()
	f.translations.Add(1)
	if f.opt.OnTranslate != nil {
		f.opt.OnTranslate(src)
	}
	return done
}

// outputFactor is the memory a translation takes at most, in times its source's size.
const outputFactor = 8

// collectAfter is the expected memory of a translation (or the bytes of the files a model's
// translation read) past which its garbage is collected as soon as it ends. The collector lets
// garbage grow to what is live before it runs again, and what is live is mostly documents
// kept in memory: a translation of a 4096-pixel texture leaves more than 100 MB of garbage,
// which would otherwise stay on top of them. A collection costs little here: documents hold
// no pointers, so there is little to mark.
const collectAfter = 64 << 20

// collect starts a garbage collection, unless one it started is still running, without
// waiting for it: the load's callers need not.
func (f *Tree) collect() {
	if f.collecting.CompareAndSwap(false, true) {
		go func() {
			defer f.collecting.Store(false)
			runtime.GC()
		}()
	}
}

// keeper keeps the documents of one translation as they are made: each goes to the disk
// tier's entry of the version, and only the one wanted (and a texture's PNG, which models
// embed) to memory, so that neither a listing that stats ten thousand models fills the budget
// with documents nobody reads, nor a big model holds all its documents at once. Without a
// disk tier, or once it fails or the entry outgrows it, documents go to memory.
type keeper struct {
	f    *Tree
	v    *Version
	want translate.Kind // the kind the caller asked for
	read bool           // to read it, not only to stat it
	// toDisk is false when the disk tier is not to be written (another process holds the
	// version's lock): the documents go to memory.
	toDisk bool
	w      *cache.Writer
	docs   map[translate.Kind]Doc // kept in memory (for the callers of this load)
	sp     space                  // where the source lives
	rec    *recorder              // the translation of a model of SRC (what it read)
	shared *sharing               // the textures' PNGs the model's translation embedded, or nil
	pieced [numKinds]int64        // the lengths of the documents kept pieced
}

// begin starts the disk entry, once the version's deps, and so its id, are known.
func (k *keeper) begin() {
	k.v.seal()
	if k.f.disk == nil || !k.toDisk || !k.v.persist {
		return
	}
	w, err := k.f.disk.Create(k.v.key)
	if err != nil {
		k.f.diskError(err)
		return
	}
	k.w = w
}

// doc records the outcome of one kind. A document that embeds PNGs the translation shares is
// kept pieced (see pieces.go).
func (k *keeper) doc(kind translate.Kind, doc translate.Doc, err error) {
	v, i := k.v, kindIndex(kind)
	if err != nil {
		v.sizes[i], v.fails[i] = 0, classOf(err)
		if v.err == nil {
			v.err = err
		}
		return
	}
	var stored []byte
	var d Doc
	if k.shared != nil && mayBePieced(kind) {
		if b, pd, ok := piecedForm(doc, k.shared.sharedOf); ok {
			stored, d = b, pd
			k.pieced[i] = d.size
		}
	}
	if stored == nil {
		stored = doc.Bytes()
		d = wholeDoc(stored)
	}
	v.sizes[i], v.fails[i] = d.size, failNone
	if k.w != nil {
		if err := k.w.Part(kindName(kind), stored); err != nil {
			k.fallBack(err)
		}
	}
	switch {
	case kind == translate.PNG, kind == k.want && (k.read || k.w == nil):
		k.hold(kind, stored, d, false)
	case kind == k.want, k.w == nil: // stat'd with a disk tier, or nowhere else to keep it
		k.hold(kind, stored, d, true)
	}
}

// failed replaces the kinds that could not be made with documents saying why: the .json with
// the error document, and the others, when the failure would happen again on the same bytes
// (no read failed, and no limit stopped it), with translate.FailureDocument.
func (k *keeper) failed(src, format string) {
	v := k.v
	for _, kind := range allKinds {
		i := kindIndex(kind)
		if v.fails[i] == failNone || !v.has(kind) {
			continue
		}
		if doc, shown := failureDoc(kind, src, format, v.err, v.fails[i], v.persist); doc != nil {
			k.doc(kind, translate.Doc{doc}, nil)
			if shown {
				v.fails[i] = failShown
			}
		}
	}
}

// failureDoc is what a kind that failed with err (of class) serves in place of its document,
// for a folder's source and an archive's member alike: a model's .json the error document;
// another kind, when the failure will happen again (an I/O error of a version that is kept),
// a document that says why, and shown is true; nil for the others, which read as their error.
// A texture's bytes were read whenever its PNG failed here (one that could not be read never
// comes this far): whatever stopped them decoding — damage, a format modelfs does not read, a
// size beyond the decoders' limits — its PNG is the picture saying why.
func failureDoc(kind translate.Kind, src, format string, err error, class failClass, kept bool) (doc []byte, shown bool) {
	switch {
	case kind == translate.JSON:
		return translate.ErrorDocument(src, format, err), false
	case kept && (class == failIO || kind == translate.PNG):
		return translate.FailureDocument(kind, src, format, err), true
	}
	return nil, false
}

// fallBack takes back into memory what the disk entry held when it cannot be written.
func (k *keeper) fallBack(err error) {
	if !errors.Is(err, cache.ErrEntryTooLarge) {
		k.f.diskError(err)
	}
	for name, b := range k.w.Recover() {
		kind := translate.Kind(name)
		if d, ok := k.f.docOf(context.Background(), k.sp, kind, b); ok {
			k.hold(kind, b, d, kind != translate.PNG && (kind != k.want || !k.read))
		}
	}
	k.w = nil
}

// hold keeps the document of kind in memory, as stored (for the tier) and d (for the callers
// of the load); with maybe, only if it fits without evicting a document that was asked for.
func (k *keeper) hold(kind translate.Kind, stored []byte, d Doc, maybe bool) {
	if cap(stored)-len(stored) > len(stored)/8 && len(d.pieces) == 1 {
		// The encoder's spare room would take budget for nothing. (A stored pieced form has
		// little, and d's pieces are its memory.)
		stored = bytes.Clone(stored)
		d = wholeDoc(stored)
	}
	if k.f.memKeep(memKey(k.v.id, kind), stored, maybe) {
		k.docs[kind] = d
	}
}

// abandon drops the disk entry when it was not committed: a translation that panicked must not
// keep its room in the disk tier's budget, nor its temporary file. After finish it does nothing.
func (k *keeper) abandon() {
	if k.w != nil {
		k.w.Abort()
	}
}

// finish commits the disk entry.
func (k *keeper) finish() {
	if k.w == nil {
		return
	}
	m := entryMeta{deps: k.v.deps, fails: k.v.fails, pieced: k.pieced}
	if err := k.w.Commit(m.encode()); err != nil {
		k.fallBack(err)
	}
}

// texturePNG gives the PNG of a texture a .glb embeds: the texture's own version's (the document
// NAME.EXT.png shows), so that a texture used by ten thousand models is decoded once, and
// shared says so; key is that version's.
func (f *Tree) texturePNG(name string, data []byte, st *fileState) (png []byte, key cache.Key, shared bool, err error) {
	if st != nil {
		key = f.sourceKey(name, st.sum)
	} else {
		key = f.sourceKey(name, sha256.Sum256(data))
	}
	// A texture that failed serves a picture saying so: a model gets the error instead, for
	// its warnings (once the error itself is forgotten, converting again finds it).
	if b, ok := f.mem.Get(memKey(versionID(key, nil), translate.PNG)); ok && !translate.IsFailurePNG(b) {
		return b, key, true, nil // a texture's version reads nothing else
	}
	if codec.IsTextureName(name) {
		if st != nil && !st.racy {
			defer f.handOff(name, data, *st)()
		}
		v, d, err := f.get(context.Background(), name, nil, translate.PNG, needBytes)
		if png, shared, err, ok := ownPNG(v, d, err, key); ok {
			return png, key, shared, err
		}
	}
	png, err = translate.ConvertTexture(name, data)
	return png, key, false, err
}

// ownPNG is what a model's translation embeds of the texture whose version key is key, from
// what the texture's own load gave (v, d, err): its PNG, shared; or the error a failed texture
// gives the model, for its warnings. ok is false when neither is had (the texture changed since
// the model read it, or this process does not know its error): the model then decodes the
// bytes it read itself.
func ownPNG(v *Version, d Doc, err error, key cache.Key) (png []byte, shared bool, perr error, ok bool) {
	var fe *TranslationError
	switch {
	case v == nil || v.key != key: // the file changed since the model read it
	case v.fails[kindIndex(translate.PNG)] == failShown:
		if v.err != nil {
			return nil, false, v.err, true
		}
	case err == nil:
		return d.Bytes(), true, nil, true
	case errors.As(err, &fe) && v.err != nil:
		return nil, false, v.err, true
	}
	return nil, false, nil, false
}

// handoff is a texture file a model's translation read, handed to the texture's own
// translation, which it waits for, so that the file is not read and hashed twice.
type handoff struct {
	data []byte
	st   fileState
}

// handOff offers the bytes of the texture file name, whose state is st, to its translation
// until the function it returns is called.
func (f *Tree) handOff(name string, data []byte, st fileState) (withdraw func()) {
	h := &handoff{data: data, st: st}
	f.handoffs.Store(name, h)
	return func() { f.handoffs.CompareAndDelete(name, h) }
}

// handedOff returns the bytes and state of the file src a translation handed off, when its
// identity is still fi's.
func (f *Tree) handedOff(src string, fi fs.FileInfo) ([]byte, fileState, bool) {
	v, ok := f.handoffs.Load(src)
	if !ok {
		return nil, fileState{}, false
	}
	h := v.(*handoff)
	if h.st.racy || h.st.id != identityOf(fi) {
		return nil, fileState{}, false
	}
	return h.data, h.st, true
}

// recorder is a translation's view of the tree: it answers the decoder's companion reads,
// listings and lookups, and remembers each, with what it found, as the version's deps; it also
// notices when a file its lookups showed is gone (see noteGone).
type recorder struct {
	f *Tree

	mu       sync.Mutex
	deps     []dep
	seen     map[depKey]string // the val first found
	unstable bool              // something read gave an error that may not be there next time
	mtime    int64             // the newest mtime of the files read

	shown map[string]bool     // files FindFold found in the index
	lists map[string]*listing // listings ReadDir gave from the index, by folder
	stale bool                // a file the index showed was gone when read

	shared sharing              // the textures' PNGs texture gave
	images map[string]imageRead // the images read, by name
	read   int64                // the bytes of the files read
}

// bytesRead is the bytes of the files the translation read.
func (r *recorder) bytesRead() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.read
}

// texture is the codec.TextureFunc of the translation (see Tree.texturePNG).
func (r *recorder) texture(name string, data []byte) ([]byte, error) {
	png, key, shared, err := r.f.texturePNG(name, data, r.imageState(name, data))
	if shared {
		r.shared.note(png, sharedPNG{name: name, key: key, size: len(png)})
	}
	return png, err
}

// imageRead is an image file ReadFile read: its state, and where its bytes are. The pointer is
// weak so that the translation lets go of the bytes once it is done with them (see
// translate's imageFiles.prepare) while the record lasts.
type imageRead struct {
	st fileState
	at weak.Pointer[byte]
}

// noteImage notes that ReadFile gave data as the image file name, whose state is st.
func (r *recorder) noteImage(name string, data []byte, st fileState) {
	if len(data) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.images == nil {
		r.images = map[string]imageRead{}
	}
	r.images[name] = imageRead{st: st, at: weak.Make(&data[0])}
}

// imageState returns the state of the image file name when data is the very bytes ReadFile
// gave of it.
func (r *recorder) imageState(name string, data []byte) *fileState {
	if len(data) == 0 {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	im, ok := r.images[name]
	if !ok || im.at.Value() != &data[0] || int64(len(data)) != im.st.id.size {
		return nil
	}
	return &im.st
}

// staleIndex reports whether a file the index showed this translation was gone when read.
func (r *recorder) staleIndex() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stale
}

// noteGone is told of a read of name that found no file. When the index showed the file to
// this translation and it is truly gone (a dangling symlink is listed and reads as absent,
// every time), the index is stale: the translation is marked so and the listings on the way
// to the file are dropped.
func (r *recorder) noteGone(name string) {
	dir, base := path.Dir(name), path.Base(name)
	l, shown := r.shownBy(dir, name)
	if !shown && l != nil {
		_, shown = slices.BinarySearch(l.names, base) // names never change once listed
	}
	if !shown {
		return
	}
	if _, err := r.f.root.Lstat(name); !errors.Is(err, fs.ErrNotExist) {
		return
	}
	r.markStale()
	r.f.expireList(dir)
}

// shownBy returns the listing of dir the index gave this translation, and whether a lookup
// found name in it.
func (r *recorder) shownBy(dir, name string) (*listing, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lists[dir], r.shown[name]
}

func (r *recorder) markStale() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stale = true
}

// readAt notes a file read of n bytes whose mtime is mtime.
func (r *recorder) readAt(mtime int64, n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.mtime = max(r.mtime, mtime)
	r.read += int64(n)
}

// listed notes the listing of dir the index gave.
func (r *recorder) listed(dir string, l *listing) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lists == nil {
		r.lists = map[string]*listing{}
	}
	r.lists[dir] = l
}

// found notes that a lookup found name in the index.
func (r *recorder) found(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.shown == nil {
		r.shown = map[string]bool{}
	}
	r.shown[name] = true
}

type depKey struct {
	op   depOp
	name string
}

func (r *recorder) add(d dep, stable bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !stable {
		r.unstable = true
	}
	k := depKey{d.op, d.name}
	if val, ok := r.seen[k]; ok {
		if val != d.val {
			r.unstable = true // it changed while the decoder read it twice: keep nothing of this
		}
		return
	}
	if r.seen == nil {
		r.seen = map[depKey]string{}
	}
	r.seen[k] = d.val
	r.deps = append(r.deps, d)
}

// result returns the deps, whether the translation may be kept beyond this mount, and the
// newest of mtime and the mtimes of the files read.
func (r *recorder) result(mtime int64) ([]dep, bool, int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.deps, !r.unstable, max(mtime, r.mtime)
}

// A recorder is the translation's tree (codec.Source.FS): every read, listing and lookup
// through it is recorded. Names are the tree's own (codec.ValidName), as decoders and the
// pipeline make them from references (codec.Clean); anything else is refused, and recorded so.

// Open is there for fs.FS: decoders read through ReadFile and ReadDir, which are recorded.
func (r *recorder) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
}

// ReadFile reads the file name, recording what it found.
func (r *recorder) ReadFile(name string) ([]byte, error) {
	if !codec.ValidName(name) {
		r.add(dep{op: depFile, name: name, val: stRefused}, true)
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	clean := name
	read := r.f.readFile
	image := codec.IsTextureName(clean) || imageExt(clean)
	if image {
		read = func(clean, orig string, _ fs.FileInfo) ([]byte, fileState, error) { return r.f.readImage(clean, orig) }
	}
	data, st, err := read(clean, name, nil)
	val, stable := stateOf(st.sum, err)
	r.add(dep{op: depFile, name: clean, val: val}, stable)
	if err == nil && image {
		r.noteImage(clean, data, st)
	}
	if val == stAbsent {
		r.noteGone(clean)
	}
	if err == nil {
		n := len(data)
		if image && n <= maxCachedImage {
			n = 0 // most likely the memory tier's (see readImage): no new memory
		}
		r.readAt(st.id.mtime, n)
	}
	return data, err
}

// ReadDir lists the folder name from the mount's index, recording the listing's sum.
func (r *recorder) ReadDir(dir string) ([]fs.DirEntry, error) {
	if !codec.ValidName(dir) {
		return nil, &fs.PathError{Op: "readdir", Path: dir, Err: fs.ErrPermission}
	}
	clean := dir
	l, err := r.f.list(clean)
	var s digest
	if err == nil {
		s = l.listSum()
	}
	val, stable := stateOf(s, err)
	r.add(dep{op: depList, name: clean, val: val}, stable)
	if err != nil {
		return nil, err
	}
	r.listed(clean, l)
	out := make([]fs.DirEntry, len(l.names))
	for i, n := range l.names {
		out[i] = &entry{root: r.f.root, dir: clean, name: n}
	}
	return out, nil
}

// FindFold resolves name ignoring case from the mount's index, recording what it found.
func (r *recorder) FindFold(name string) (string, bool) {
	found, ok := r.f.fold(name)
	r.add(dep{op: depFold, name: name, val: found}, true)
	if ok {
		r.found(found)
	}
	return found, ok
}

// entry is a name of a listing from the mount's index, its type and info looked up when asked.
type entry struct {
	root      *os.Root
	dir, name string
	once      sync.Once
	info      fs.FileInfo
	err       error
}

func (e *entry) Name() string { return e.name }

func (e *entry) Info() (fs.FileInfo, error) {
	e.once.Do(func() { e.info, e.err = e.root.Lstat(path.Join(e.dir, e.name)) })
	return e.info, e.err
}

func (e *entry) Type() fs.FileMode {
	if fi, err := e.Info(); err == nil {
		return fi.Mode().Type()
	}
	return 0
}

func (e *entry) IsDir() bool { return e.Type().IsDir() }

// logFailure logs a failed model once per version.
func (f *Tree) logFailure(src string, key cache.Key, format string, err error) {
	var fe *TranslationError
	if errors.As(err, &fe) {
		err = fe.Err
	}
	if f.firstLog(key) {
		msg := "model failed to translate"
		if format == "texture" {
			msg = "texture failed to decode"
		}
		f.opt.Logger.Warn(msg, "path", src, "format", format, "err", err)
	}
}

// diskError logs a failure of the disk tier once: after one, writes pause (and ErrPaused is not
// logged), and a missing entry is no failure.
func (f *Tree) diskError(err error) {
	if err == nil || errors.Is(err, fs.ErrNotExist) || errors.Is(err, cache.ErrPaused) || errors.Is(err, cache.ErrUntrusted) {
		return // ErrUntrusted: the disk tier reported it (see openDisk)
	}
	if errors.Is(err, cache.ErrCorrupt) {
		f.opt.Logger.Warn("disk cache entry damaged; made again", "err", err)
		return
	}
	if f.diskLogged.CompareAndSwap(false, true) {
		f.opt.Logger.Warn("disk cache unavailable; serving from memory", "err", err)
	}
}

// imageExt reports whether name is a PNG or JPEG image, which outputs embed as they are.
func imageExt(name string) bool {
	switch codec.Ext(name) {
	case ".png", ".jpg", ".jpeg":
		return true
	}
	return false
}

// firstLog reports whether the failure of the version key is to be logged: the first time it
// is seen (within maxLogged).
func (f *Tree) firstLog(key cache.Key) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, done := f.logged[key]; done {
		return false
	}
	if len(f.logged) >= maxLogged {
		clear(f.logged)
	}
	f.logged[key] = struct{}{}
	return true
}
