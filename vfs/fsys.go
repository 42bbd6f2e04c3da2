package vfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/modelfs/modelfs/cache"
	"github.com/modelfs/modelfs/internal/archive"
	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
)

// maxLogged bounds the set of failed versions already logged; when it is full it starts over,
// so a mount kept for weeks does not grow without bound.
const maxLogged = 4096

// maxVersions bounds the versions (and, apart, the file states) kept in memory: about 150 bytes
// each, so a tree of a million models fits in the index with room to spare. Beyond it the least
// used are dropped, and made again from the journal's disk entries or by translating.
const maxVersions = 2 << 20

// Tree is one game tree served: the virtual tree every front end shows — names, kinds, sizes,
// content, invalidation, errors — free of FUSE. It is safe for concurrent use.
type Tree struct {
	src        string // the tree's absolute path
	root       *os.Root
	opt        Options
	kinds      map[string]translate.Kind // ".gltf" → GLTF, for the enabled kinds
	modelKinds []translate.Kind          // the enabled kinds of a model, in translate.Kinds order
	keyPrefix  []byte
	started    time.Time

	mem   *cache.Memory
	disk  *cache.Disk    // nil without a disk tier
	index *cache.Journal // the journal of this tree in the disk tier; nil without one
	loads cache.Group[loaded]

	// A model's translation may wait for a texture's (the PNG a .glb embeds), never the other
	// way round, so the two have slots of their own, and memory of their own: each may have
	// translations expected to take up to half the cache running at once (see make).
	modelSlots, textureSlots   chan struct{}
	modelMemory, textureMemory *semaphore.Weighted
	// The sources loads hold, read before their translation is admitted (see holdRead).
	modelReads, textureReads *semaphore.Weighted

	nodes        atomic.Int64 // nodes the kernel holds (see reserve)
	inflight     atomic.Int64 // memory the translations running are expected to take
	reading      atomic.Int64 // the sources loads hold (see holdRead)
	translations atomic.Int64
	failures     atomic.Int64
	reused       atomic.Int64
	diskLogged   atomic.Bool

	dirs       dirs
	handoffs   sync.Map    // texture path → *handoff
	collecting atomic.Bool // a collection collect started is running
	archives   archiveViews
	gameArcs   gameArchives
	life       life
	closeOnce  sync.Once

	mu       sync.Mutex
	versions bounded[*Version]          // source path → its version
	files    bounded[fileState]         // file path → what its content was when last read
	depLists bounded[[]dep]             // shared dep lists (see intern)
	scans    map[string]*scan           // folder → where a sequential scan of it is (see readAhead)
	dirACLs  bounded[dirState]          // folder → whether it has an ACL, by identity (see access)
	groups   map[uint32]map[uint32]bool // user → its groups; nil when the user database cannot tell
	realSrc  string                     // SRC's path with no symlink in it, to place files (see access); "" when unknown
	logged   map[cache.Key]struct{}
}

func newTree(root *os.Root, opt Options) *Tree {
	f := &Tree{
		root:          root,
		opt:           opt,
		kinds:         make(map[string]translate.Kind),
		keyPrefix:     keyPrefix(opt.DecoderOptions),
		started:       time.Now(),
		mem:           cache.NewMemory(opt.CacheBytes),
		modelSlots:    make(chan struct{}, opt.MaxParallel),
		textureSlots:  make(chan struct{}, opt.MaxParallel),
		modelMemory:   semaphore.NewWeighted(opt.CacheBytes / 2),
		textureMemory: semaphore.NewWeighted(opt.CacheBytes / 2),
		modelReads:    semaphore.NewWeighted(opt.CacheBytes / readShare),
		textureReads:  semaphore.NewWeighted(opt.CacheBytes / readShare),
		dirs:          dirs{m: map[string]*listing{}},
		versions:      newBounded[*Version](maxVersions),
		files:         newBounded[fileState](maxVersions),
		depLists:      newBounded[[]dep](maxVersions),
		dirACLs:       newBounded[dirState](maxVersions),
		groups:        make(map[uint32]map[uint32]bool),
		logged:        make(map[cache.Key]struct{}),
		scans:         make(map[string]*scan),
	}
	f.life.idle = sync.NewCond(&f.life.mu)
	for _, k := range opt.Kinds {
		f.kinds["."+string(k)] = k
	}
	for _, k := range translate.Kinds {
		if f.kinds["."+string(k)] != "" {
			f.modelKinds = append(f.modelKinds, k)
		}
	}
	return f
}

// virtualName splits a name such as "Crate.mdx.gltf" into its source name and kind; ok is false
// when name is not a virtual file of an enabled kind beside a model-named source.
func (f *Tree) virtualName(name string) (src string, kind translate.Kind, ok bool) {
	ext := path.Ext(name)
	kind, ok = f.kinds[ext]
	if !ok {
		return "", "", false
	}
	src = strings.TrimSuffix(name, ext)
	if src == "" || !sourceOf(src, kind) {
		return "", "", false
	}
	return src, kind, true
}

// sourceInfo returns the Lstat of the source at src, or when it is a symlink, the Stat of what
// it leads to inside SRC: a symlinked model or texture is translated as the file it names.
func (f *Tree) sourceInfo(src string) (fs.FileInfo, error) {
	fi, err := f.root.Lstat(src)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return fi, err
	}
	return f.followLink(src)
}

// openDir opens the directory rel of SRC as a root of its own without ever blocking: an entry
// that is a FIFO by now (a directory replaced since its lookup) fails with ENOTDIR instead of
// waiting for a writer. The root is opened through the directory's descriptor where the system
// allows (rootAt), so that it is the directory that was checked.
func (f *Tree) openDir(rel string) (*os.Root, error) {
	d, err := f.root.OpenFile(rel, os.O_RDONLY|oDirectory|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	r, err := rootAt(f.root, d, rel)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", rel, err)
	}
	return r, nil
}

// followLink returns the Stat of what the symlink at rel leads to, which must be inside SRC.
func (f *Tree) followLink(rel string) (fs.FileInfo, error) {
	return f.root.Stat(rel)
}

// sourceOf reports whether a file named name has virtual files of kind: models have the model
// kinds, textures have PNG.
func sourceOf(name string, kind translate.Kind) bool {
	if kind == translate.PNG {
		return codec.IsTextureName(name)
	}
	return codec.IsModelName(name)
}

// life lets close wait for the loads still running (a read-ahead, a caller that gave up)
// before it closes what they use; a load that starts after close began fails with errClosed.
// Loads nest (a model's waits for its textures'), which an RWMutex would deadlock on.
type life struct {
	mu     sync.Mutex
	idle   *sync.Cond
	n      int
	closed bool
}

// errClosed is what a load started after the tree core began closing returns.
var errClosed = errors.New("the mount is closing")

func (l *life) enter() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false
	}
	l.n++
	return true
}

func (l *life) leave() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n--; l.n == 0 {
		l.idle.Broadcast()
	}
}

// end refuses new loads and waits for the running ones.
func (l *life) end() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	for l.n > 0 {
		l.idle.Wait()
	}
}

// What the mount's state costs in memory, measured with a heap profile of a folder of 10,000
// models (60,000 nodes): a go-fuse node with ours about 500 bytes, a version about 200, a file
// state about 150, a listed name about 100.
const (
	nodeCost    = 500
	versionCost = 200
	fileCost    = 150
	nameCost    = 100
)

// memPut keeps a document in the memory tier, whose budget first sets aside what the mount's
// own state takes: --cache-size bounds everything the mount keeps for what it translated, the
// nodes a listing makes the kernel hold included, and documents get what is left.
func (f *Tree) memPut(key string, data []byte) { f.memKeep(key, data, false) }

// memKeep is memPut, or with maybe, PutIfRoom: for a document kept in case it is asked for.
func (f *Tree) memKeep(key string, data []byte, maybe bool) bool {
	f.reserve()
	if maybe {
		return f.mem.PutIfRoom(key, data)
	}
	f.mem.Put(key, data)
	return true
}

// reserve sets aside in the memory tier's budget what the mount holds besides documents: its
// own state, the translations running (see make), the sources loads hold, and the archive
// members being read.
func (f *Tree) reserve() {
	state := f.indexCost() + f.dirs.cost()
	state += max(f.nodes.Load(), 0) * nodeCost
	if f.disk == nil {
		// Without a disk tier a document evicted is a decode again: keep half for them.
		state = min(state, f.opt.CacheBytes/2)
	}
	// The streams of the archive members open (see archive.Charged) are the process's, not
	// one tree's: counted in full, they can only make the documents' share smaller.
	f.mem.SetReserve(state + f.inflight.Load() + f.reading.Load() + archive.Charged())
}

// indexCost is what the versions and file states take in memory.
func (f *Tree) indexCost() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return int64(f.versions.len())*versionCost + int64(f.files.len())*fileCost
}

// cost is what the listings take in memory.
func (d *dirs) cost() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return int64(d.listed) * nameCost
}

// Every lock in the tree core is released by a defer on the line after it is taken (a rule
// internal/codecheck holds the module to): loads run under recover (cache.Group), and a panic
// that left a lock held would hang every later caller instead of failing one. Short sections
// live in these accessors for that reason.

// fileOf returns the state the tree knows of the file name.
func (f *Tree) fileOf(name string) (fileState, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.files.get(name)
}

// versionOf returns the version the tree knows of the source src.
func (f *Tree) versionOf(src string) (*Version, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.versions.get(src)
}

// versionCount returns how many versions the tree knows.
func (f *Tree) versionCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.versions.len()
}

// putVersion makes v the version the tree knows of src.
func (f *Tree) putVersion(src string, v *Version) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.versions.put(src, v)
}
