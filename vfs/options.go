// Package vfs is the read-only FUSE file system of modelfs.
//
// A mount mirrors a source tree (SRC): directories and ordinary files pass through unchanged and
// symlinks are shown as symlinks, all read through an *os.Root on SRC so that nothing the file
// system does resolves outside it. Beside every file whose name a registered model format claims
// (translate.IsModelName) stand virtual files NAME.EXT.gltf, .glb, .obj, .mtl and .json, translated
// on first use with exactly the bytes `modelfs convert` writes and kept in a byte-budgeted LRU
// cache (package cache).
//
// Listing a directory never translates: a virtual file exists when its source's name says it is a
// model. Its size is known only after translation, so a lookup answers with attribute timeout 0 and
// a stat translates (or reads the cache). Cached documents are immutable per key; a key names the
// source's identity (path, size, times, inode), the identities of the companion files its last
// translation read, the output kind and translate.Version, so a changed source gets a new key and a
// new translation on next access.
//
// A model that fails to translate gives EIO on open of its .gltf, .glb, .obj and .mtl; its .json
// holds the error document of metajson.EncodeError. Every mutating operation returns EROFS.
package vfs

import (
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"time"

	"github.com/modelfs/modelfs/cache"
	"github.com/modelfs/modelfs/translate"
)

// Options configure a mount. The zero value means the defaults (see WithDefaults).
type Options struct {
	// Kinds lists the virtual files shown: the model kinds beside each model, translate.PNG beside
	// each texture; default all of them.
	Kinds []translate.Kind
	// CacheBytes is the byte budget of translated documents; default DefaultCacheBytes.
	CacheBytes int64
	// MaxParallel bounds the translations running at once; default runtime.NumCPU().
	MaxParallel int
	// Logger receives one line per mount, unmount and failed model; default: discard.
	Logger *slog.Logger

	// EntryTimeout is how long the kernel may cache a name; default DefaultTimeout, <0 means 0.
	EntryTimeout time.Duration
	// AttrTimeout is how long the kernel may cache attributes; default DefaultTimeout, <0 means 0.
	AttrTimeout time.Duration
	// NegativeTimeout is how long the kernel may cache a missing name; default DefaultTimeout,
	// <0 means 0.
	NegativeTimeout time.Duration
	// QueueTimeout bounds how long a request waits for a free translation slot; 0 means no limit
	// (an interrupted request still stops waiting).
	QueueTimeout time.Duration

	// AllowOther lets users other than the mounting one see the mount (needs user_allow_other in
	// /etc/fuse.conf when not root).
	AllowOther bool
	// Debug logs every FUSE request and reply (through Logger at debug level).
	Debug bool

	// DecoderOptions are passed to every decoder as translate.Source.Options (name=value, e.g.
	// geosets=all). They hold for the whole mount, as does its cache, so keys need not name them.
	DecoderOptions map[string]string

	// OnTranslate, if set, is called at the start of every translation (one source, one kind),
	// from the goroutine that runs it. Tests use it to count translations.
	OnTranslate func(name string, kind translate.Kind)
}

// DefaultCacheBytes is the default cache budget: 256 MiB.
const DefaultCacheBytes = cache.DefaultMaxBytes

// DefaultTimeout is the default entry, attribute and negative-entry timeout: short, so changes in
// SRC show up within about a second.
const DefaultTimeout = time.Second

// WithDefaults returns o with every unset field given its default, or an error for an invalid
// field (an unknown or repeated kind).
func (o Options) WithDefaults() (Options, error) {
	if len(o.Kinds) == 0 {
		o.Kinds = append(slices.Clone(translate.Kinds), translate.PNG)
	} else {
		seen := map[translate.Kind]bool{}
		for _, k := range o.Kinds {
			if _, ok := translate.KindOf(string(k)); !ok {
				return o, fmt.Errorf("unknown output kind %q (want one of %v)", k, append(translate.Kinds, translate.PNG))
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
	if o.QueueTimeout < 0 {
		o.QueueTimeout = 0
	}
	return o, nil
}

// Stats are counters since the mount started.
type Stats struct {
	Translations int64       // translations run (one source, one kind each)
	Failures     int64       // translations that failed
	Cache        cache.Stats // the document cache
}
