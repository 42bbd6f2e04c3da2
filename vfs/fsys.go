package vfs

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelfs/modelfs/cache"
	"github.com/modelfs/modelfs/translate"
)

// maxLogged bounds the set of failed model identities already logged; when it is full it starts
// over, so a mount kept for weeks does not grow without bound.
const maxLogged = 4096

// fsys is the state shared by every node of one mount.
type fsys struct {
	root  *os.Root
	opt   Options
	kinds map[string]translate.Kind // ".gltf" → GLTF, for the enabled kinds
	cache *cache.Cache

	translations atomic.Int64
	failures     atomic.Int64

	mu         sync.Mutex
	companions map[string][]string // source path → companion names its last translation read
	logged     map[string]struct{} // failed model identities already logged
	keys       map[string]keyMemo  // source path → its key, recently computed
}

// keyMemo is a model key and when it was computed. A directory listing looks up every virtual
// file of a model (five or more) within a few milliseconds; computing the key once for all of
// them saves a stat of the source and of each companion per file. A key is reused for at most
// the attribute timeout, the time the kernel itself may go on showing old attributes.
type keyMemo struct {
	k  *modelKey
	at time.Time
}

// maxKeyMemos bounds the key memo; when full it starts over.
const maxKeyMemos = 65536

func newFsys(root *os.Root, opt Options) *fsys {
	f := &fsys{
		root:       root,
		opt:        opt,
		kinds:      make(map[string]translate.Kind),
		cache:      cache.New(cache.Options{MaxBytes: opt.CacheBytes, MaxParallel: opt.MaxParallel}),
		companions: make(map[string][]string),
		logged:     make(map[string]struct{}),
		keys:       make(map[string]keyMemo),
	}
	for _, k := range opt.Kinds {
		f.kinds["."+string(k)] = k
	}
	return f
}

// virtualName splits a name such as "Crate.mdx.gltf" into its source name and kind; ok is false
// when name is not a virtual file of an enabled kind beside a model-named source.
func (f *fsys) virtualName(name string) (src string, kind translate.Kind, ok bool) {
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

// sourceOf reports whether a file named name has virtual files of kind: models have the model
// kinds, textures have PNG.
func sourceOf(name string, kind translate.Kind) bool {
	if kind == translate.PNG {
		return translate.IsTextureName(name)
	}
	return translate.IsModelName(name)
}

// identity is what tells two versions of a file apart.
type identity struct {
	size, mtime, ctime int64 // times in ns
	ino                uint64
}

func identityOf(fi fs.FileInfo) identity {
	id := identity{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.ctime = st.Ctim.Nano()
		id.ino = st.Ino
	}
	return id
}

func (id identity) String() string {
	return strconv.FormatInt(id.size, 10) + ":" + strconv.FormatInt(id.mtime, 10) + ":" +
		strconv.FormatInt(id.ctime, 10) + ":" + strconv.FormatUint(id.ino, 10)
}

// companion is one file a translation read through Source.Open, as it was when read.
type companion struct {
	name  string // cleaned, slash-separated, relative to the root
	state string // identity, or "absent" / "refused" / "error"
	mtime int64  // ns, 0 when not a readable file
}

// cleanCompanion normalises a companion name as translate.ReadFileIn does; ok is false for names
// that leave the root.
func cleanCompanion(name string) (string, bool) {
	clean := path.Clean(strings.ReplaceAll(name, "\\", "/"))
	if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
		return clean, false
	}
	return clean, true
}

// statCompanion returns the current state of the companion name.
func (f *fsys) statCompanion(name string) companion {
	c := companion{name: name}
	clean, ok := cleanCompanion(name)
	if !ok {
		c.state = "refused"
		return c
	}
	fi, err := f.root.Stat(clean)
	switch {
	case err == nil:
		c.state, c.mtime = identityOf(fi).String(), fi.ModTime().UnixNano()
	case errors.Is(err, fs.ErrNotExist):
		c.state = "absent"
	default:
		c.state = "error"
	}
	return c
}

// modelKey identifies one version of one model and the companions it was read with.
type modelKey struct {
	src   string      // source path, slash-separated, relative to the root
	info  fs.FileInfo // the source's Lstat
	model string      // version, path, source identity and companion states
	mtime int64       // newest mtime of the source and its companions, ns
}

// key returns the cache key of kind for this model.
func (k *modelKey) key(kind translate.Kind) string { return string(kind) + "\x00" + k.model }

func buildModel(src string, id identity, comps []companion) string {
	var b strings.Builder
	b.WriteString(translate.Version)
	b.WriteByte(0)
	b.WriteString(src)
	b.WriteByte(0)
	b.WriteString(id.String())
	for _, c := range comps {
		b.WriteByte(0)
		b.WriteString(c.name)
		b.WriteByte('=')
		b.WriteString(c.state)
	}
	return b.String()
}

// modelKeyOf computes the current key of the model at src (cheap: an Lstat of the source and a
// Stat of each companion its last translation read). A source that is missing or not a regular
// file has no virtual files.
func (f *fsys) modelKeyOf(src string) (*modelKey, error) {
	return f.modelKeyWith(src, nil)
}

// modelKeyWith is modelKeyOf given, when fi is not nil, a fresh Lstat of the source.
func (f *fsys) modelKeyWith(src string, fi fs.FileInfo) (*modelKey, error) {
	ttl := min(f.opt.AttrTimeout, time.Second)
	if ttl > 0 {
		f.mu.Lock()
		m, ok := f.keys[src]
		f.mu.Unlock()
		if ok && time.Since(m.at) < ttl {
			return m.k, nil
		}
	}
	k, err := f.computeKey(src, fi)
	if err == nil && ttl > 0 {
		f.mu.Lock()
		if len(f.keys) >= maxKeyMemos {
			clear(f.keys)
		}
		f.keys[src] = keyMemo{k, time.Now()}
		f.mu.Unlock()
	}
	return k, err
}

// computeKey stats the source (unless fi is its Lstat) and its companions and builds the
// model's current key.
func (f *fsys) computeKey(src string, fi fs.FileInfo) (*modelKey, error) {
	if fi == nil {
		var err error
		if fi, err = f.root.Lstat(src); err != nil {
			return nil, err
		}
	}
	if !fi.Mode().IsRegular() {
		return nil, errNotModel
	}
	f.mu.Lock()
	names := f.companions[src]
	f.mu.Unlock()
	comps := make([]companion, len(names))
	k := &modelKey{src: src, info: fi, mtime: fi.ModTime().UnixNano()}
	for i, n := range names {
		comps[i] = f.statCompanion(n)
		k.mtime = max(k.mtime, comps[i].mtime)
	}
	k.model = buildModel(src, identityOf(fi), comps)
	return k, nil
}

// peek returns the cached document of kind for the model's current version without translating;
// ok is false when it is not cached.
func (f *fsys) peek(k *modelKey, kind translate.Kind) (data []byte, err error, ok bool) {
	return f.cache.Peek(k.key(kind))
}

// content returns the document of kind for the model at src, translating it unless cached, and
// the key it was found under.
func (f *fsys) content(ctx context.Context, src string, kind translate.Kind) ([]byte, *modelKey, error) {
	if f.opt.QueueTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.opt.QueueTimeout)
		defer cancel()
	}
	for attempt := 0; ; attempt++ {
		k, err := f.modelKeyOf(src)
		if err != nil {
			return nil, nil, err
		}
		var (
			ran   bool
			comps []companion
		)
		data, err := f.cache.Get(ctx, k.key(kind), func() ([]byte, error) {
			ran = true
			var data []byte
			data, comps, err = f.translate(k, kind)
			return data, err
		})
		if (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) && ctx.Err() == nil && attempt < 8 {
			continue // the load we joined gave up waiting for a slot on its caller's behalf, not ours
		}
		if ran {
			f.remember(k, kind, comps, data, err)
		}
		return data, k, err
	}
}

// remember records the companions a translation read, so that the next key names them, and
// stores its result under that key too, so that recording them does not cost a translation.
func (f *fsys) remember(k *modelKey, kind translate.Kind, comps []companion, data []byte, err error) {
	names := make([]string, len(comps))
	for i, c := range comps {
		names[i] = c.name
	}
	f.mu.Lock()
	same := slices.Equal(f.companions[k.src], names)
	if !same {
		delete(f.keys, k.src) // the key now names other companions
		if len(names) == 0 {
			delete(f.companions, k.src)
		} else {
			f.companions[k.src] = names
		}
	}
	f.mu.Unlock()
	// Even when the recorded names did not change, this translation may have started from a key
	// made before they were known (two kinds of one model translated at once): it is then
	// stored under the key the next lookup will compute, or that lookup would translate again.
	next := string(kind) + "\x00" + buildModel(k.src, identityOf(k.info), comps)
	if next != k.key(kind) {
		f.cache.Get(context.Background(), next, func() ([]byte, error) { return data, err })
		f.cache.Remove(k.key(kind)) // nothing will ask for the old key again: don't let it hold budget
	}
}
