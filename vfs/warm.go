package vfs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
)

// WarmEvent reports one source Warm is done with.
type WarmEvent struct {
	Path        string // relative to the tree, slash-separated
	Err         error  // why it could not be translated (its documents say so too), or nil
	Done, Total int    // sources done so far, and in all
}

// WarmStats sum up a Warm.
type WarmStats struct {
	Sources      int   // models and textures in the tree
	Failed       int   // sources that could not be translated
	Translations int64 // translations run; the rest came from the cache directory
}

// Warm fills the disk tier in opt.CacheDir with every model and texture of the tree at src —
// the documents a mount of it would serve, every enabled kind — translating jobs sources at
// once, and calls report (from one goroutine at a time) as each is done. A later mount of src
// on the same cache directory serves them without translating. It stops early when ctx ends.
func Warm(ctx context.Context, src string, opt Options, jobs int, report func(WarmEvent)) (WarmStats, error) {
	if opt.CacheDir == "" {
		return WarmStats{}, errors.New("warm: no cache directory")
	}
	if jobs > 0 {
		opt.MaxParallel = jobs
	}
	opt, err := opt.WithDefaults()
	if err != nil {
		return WarmStats{}, err
	}
	abs, err := CheckDir(src)
	if err != nil {
		return WarmStats{}, err
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return WarmStats{}, err
	}
	f := newTree(root, opt)
	if err := f.openDisk(abs); err != nil {
		root.Close()
		return WarmStats{}, err
	}
	defer f.close()

	var sources []string
	err = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && f.offers(p) {
			sources = append(sources, p)
		}
		return nil
	})
	if err != nil {
		return WarmStats{}, fmt.Errorf("warm %s: %w", abs, err)
	}
	st := WarmStats{Sources: len(sources)}
	work := make(chan string)
	var mu sync.Mutex
	done := 0
	var wg sync.WaitGroup
	for range opt.MaxParallel {
		wg.Go(func() {
			for p := range work {
				kind := translate.PNG
				if !codec.IsTextureName(p) {
					kind = f.modelKinds[0]
				}
				v, _, err := f.get(ctx, p, nil, kind, needBytes)
				if err == nil {
					err = v.failed(p)
				}
				func() {
					mu.Lock()
					defer mu.Unlock()
					done++
					if err != nil && ctx.Err() == nil {
						st.Failed++
					}
					if report != nil && ctx.Err() == nil {
						report(WarmEvent{Path: p, Err: err, Done: done, Total: len(sources)})
					}
				}()
			}
		})
	}
	for _, p := range sources {
		select {
		case work <- p:
			continue
		case <-ctx.Done():
		}
		break
	}
	close(work)
	wg.Wait()
	st.Translations = f.translations.Load()
	return st, ctx.Err()
}

// offers reports whether the source at p has virtual files of an enabled kind.
func (f *Tree) offers(p string) bool {
	name := filepath.Base(p)
	if codec.IsTextureName(name) {
		return f.kinds[".png"] != ""
	}
	return codec.IsModelName(name) && len(f.modelKinds) > 0
}
