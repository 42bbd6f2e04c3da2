// Package vfs is the tree core of modelfs: the read-only virtual tree that every front end serves
// (the FUSE mount in vfs/fusefs, WebDAV), free of any of them.
//
// A Tree mirrors a source tree (SRC): directories and ordinary files pass through unchanged and
// symlinks are shown as symlinks, all read through an *os.Root on SRC so that nothing the tree
// does resolves outside it. Beside every file whose name a registered model format claims
// (codec.IsModelName) stand virtual files NAME.EXT.gltf, .glb, .obj, .mtl and .json, and
// beside every texture NAME.EXT.png, translated on first use with exactly the bytes
// `modelfs convert` writes.
//
// Listing a directory never translates: a virtual file exists when its source's name says it is
// a model. The first stat or read of any kind of a model decodes it once and makes every enabled
// kind from that one scene. What it made is kept in three places: its version (the key of the
// source's content, everything else the translation read, every kind's size) in an index apart
// from the bytes, so that a stat never translates again while the model is unchanged; the
// documents in a byte-budgeted memory LRU; and, with a cache directory, the documents in a
// persistent disk tier keyed by content and the versions in the tree's journal there, so that a
// remount serves an unchanged tree without translating (package cache). A version is checked
// against the tree at most once a second, by the identities (size, times, inode) of the source
// and of each file it read, and by the listings and case-insensitive lookups it made, each kept
// per directory version; a changed file is read and hashed again, and only a changed content
// makes a new translation.
//
// A model (or texture) that fails to translate serves documents that say why: its .json the
// error document (translate.ErrorDocument), its other kinds translate.FailureDocument, so that
// a listing shows a size and Blender an object named after the error. Only a failure that
// may not happen again (an I/O error), a limit and a permission give a *TranslationError. Every operation that would
// change the tree fails with ErrReadOnly. Each front end turns these into its own errors in one
// place (errnos, HTTP statuses).
package vfs

import (
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"time"

	"github.com/modelfs/modelfs/cache"
	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
)

// Options configure a tree and the front end serving it. The zero value means the defaults
// (see WithDefaults).
type Options struct {
	// Kinds lists the virtual files shown: the model kinds beside each model, translate.PNG beside
	// each texture; default all of them.
	Kinds []translate.Kind
	// CacheBytes is the byte budget of translated documents in memory; default
	// DefaultCacheBytes.
	CacheBytes int64
	// CacheDir is the directory of the persistent disk tier; "" for none.
	CacheDir string
	// DiskCacheBytes is the disk tier's budget, remembered by the directory; 0 for the one it
	// remembers (cache.DefaultDiskBytes at first).
	DiskCacheBytes int64
	// CacheGroupRead lets the members of the daemon's group read the cache directory's entries
	// (0640 in 0750 folders); without it only the daemon's user may (0600 in 0700).
	CacheGroupRead bool
	// MaxParallel bounds the translations running at once; default runtime.NumCPU(), at most
	// MaxParallelLimit.
	MaxParallel int
	// MaxSourceSize is the largest source or companion file read, whole, into memory; larger
	// ones are refused (EFBIG, and an error document naming the limit). Default
	// DefaultMaxSourceSize, at most codec.MaxSourceSize.
	MaxSourceSize int64
	// Logger receives one line per mount, unmount and failed model; default: discard.
	Logger *slog.Logger

	// EntryTimeout is how long the kernel may cache a name; default DefaultTimeout, <0 means 0.
	EntryTimeout time.Duration
	// AttrTimeout is how long the kernel may cache attributes; default DefaultTimeout, <0 means 0.
	AttrTimeout time.Duration
	// NegativeTimeout is how long the kernel may cache a missing name; default DefaultTimeout,
	// <0 means 0.
	NegativeTimeout time.Duration

	// AllowOther lets users other than the mounting one see the mount (needs user_allow_other in
	// /etc/fuse.conf when not root).
	AllowOther bool
	// Debug logs every FUSE request and reply (through Logger at debug level).
	Debug bool

	// Archives says how the MPQ archives of SRC are shown; default ArchivesAuto.
	Archives ArchiveMode
	// Game is a game's install or data folder whose archives a map's models find their stock
	// textures in, after the map's own files; "" for none.
	Game string
	// ListFiles are more member names for archives (the (listfile) format), for archives whose
	// own list is missing or incomplete.
	ListFiles [][]byte

	// DecoderOptions are passed to every decoder as codec.Source.Options (name=value, e.g.
	// geosets=all). They hold for the whole mount, as does its cache, so keys need not name them.
	DecoderOptions map[string]string

	// OnTranslate, if set, is called at the start of every translation (one decode of one
	// source, making every kind), from the goroutine that runs it. Tests use it to count
	// translations.
	OnTranslate func(name string)
}

// DefaultCacheBytes is the default cache budget: 256 MiB.
const DefaultCacheBytes = cache.DefaultMaxBytes

// DefaultMaxSourceSize is the default MaxSourceSize: 128 MiB, beyond any model or texture the
// games ship, while a translation of it (about 8 times its size at most) fits a memory limit of
// a few times the default cache.
const DefaultMaxSourceSize = 128 << 20

// MaxParallelLimit bounds MaxParallel: every translation running holds a thread and memory.
const MaxParallelLimit = 256

// DefaultTimeout is the default entry, attribute and negative-entry timeout: short, so changes in
// SRC show up within about a second.
const DefaultTimeout = time.Second

// WithDefaults returns o with every unset field given its default, or an error for an invalid
// field (an unknown or repeated kind).
func (o Options) WithDefaults() (Options, error) {
	switch o.Archives {
	case "":
		o.Archives = ArchivesAuto
	case ArchivesAuto, ArchivesFolders, ArchivesMerged, ArchivesOff:
	default:
		return o, fmt.Errorf("unknown archive mode %q (want auto, folders, merged or off)", o.Archives)
	}
	if len(o.Kinds) == 0 {
		o.Kinds = slices.Clone(translate.AllKinds)
	} else {
		seen := map[translate.Kind]bool{}
		for _, k := range o.Kinds {
			if _, ok := translate.KindOf(string(k)); !ok {
				return o, fmt.Errorf("unknown output kind %q (want one of %v)", k, translate.AllKinds)
			}
			if seen[k] {
				return o, fmt.Errorf("output kind %q given twice", k)
			}
			seen[k] = true
		}
		o.Kinds = slices.Clone(o.Kinds)
	}
	if o.CacheBytes <= 0 {
		o.CacheBytes = DefaultCacheBytes
	}
	if o.MaxParallel <= 0 {
		o.MaxParallel = runtime.NumCPU()
	}
	if o.MaxParallel > MaxParallelLimit {
		return o, fmt.Errorf("%d translations at once is more than the %d allowed", o.MaxParallel, MaxParallelLimit)
	}
	if o.MaxSourceSize <= 0 {
		o.MaxSourceSize = DefaultMaxSourceSize
	}
	o.MaxSourceSize = min(o.MaxSourceSize, codec.MaxSourceSize)
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	for _, d := range []*time.Duration{&o.EntryTimeout, &o.AttrTimeout, &o.NegativeTimeout} {
		switch {
		case *d == 0:
			*d = DefaultTimeout
		case *d < 0:
			*d = 0
		}
	}
	return o, nil
}

// Stats are counters since the mount started.
type Stats struct {
	Translations int64             // translations run (one decode of one source each)
	Failures     int64             // translations that failed
	Reused       int64             // versions taken from the cache directory (journal or disk tier) instead of translated
	Versions     int               // versions held in the size index
	Memory       cache.MemoryStats // the memory tier
	Disk         cache.DiskStats   // the disk tier (zero without one)
}

// KindType returns the media type of the documents of the kind the extension ext names
// (".glb"), for a server's Content-Type.
func KindType(ext string) (string, bool) {
	k, ok := translate.KindOf(ext)
	if !ok {
		return "", false
	}
	info, _ := translate.InfoOf(k)
	return info.MIME, true
}
