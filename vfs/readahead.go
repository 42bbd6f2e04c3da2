package vfs

import (
	"context"
	"path"
	"slices"

	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
)

// Read-ahead. `ls -l`, a file manager or Blender's file browser stats a folder's files one
// after the other, so a cold folder would be translated one model at a time on one core. When
// a caller has to wait for a translation of a model that follows, in the folder's order, the
// one the previous wait was for, the next few are started in the background, as the kernel
// reads ahead of a sequential reader: the scan then has every core working for it. A single
// stat starts nothing, and listing a folder still translates nothing. It needs a disk tier,
// which keeps what it made until it is read.

// readAheadGap is how far (in names) two waits may be apart to count as one scan.
const readAheadGap = 8

// maxScans bounds the folders whose scan position is remembered.
const maxScans = 1024

// scan is where a sequential scan of one folder is: the index in the folder's listing of the
// last source waited for, and of the last source started ahead.
type scan struct{ last, ahead int }

// readAhead notes that a caller waits for src, and starts the sources after it when the
// caller scans the folder in order.
func (f *Tree) readAhead(src string) {
	if f.disk == nil {
		// Without a disk tier what a read-ahead made may be evicted before it is read, and
		// made again: it would cost more than it saves.
		return
	}
	textures := codec.IsTextureName(src)
	kind := translate.PNG
	if !textures {
		if len(f.modelKinds) == 0 {
			return
		}
		kind = f.modelKinds[0]
	}
	window := 2 * cap(f.modelSlots) // enough to keep every slot busy while the scan waits
	dir, base := path.Dir(src), path.Base(src)
	l, err := f.list(dir)
	if err != nil {
		return
	}
	i, ok := slices.BinarySearch(l.names, base)
	if !ok {
		return
	}
	next := f.scanAhead(dir, l, i, textures, kind, window)
	for _, p := range next {
		go f.get(context.Background(), p, nil, kind, needSize)
	}
}

// scanAhead records that the scan of dir reached its entry i, and returns the sources of kind
// (textures or models) past it that the read-ahead should take, up to window entries on.
func (f *Tree) scanAhead(dir string, l *listing, i int, textures bool, kind translate.Kind, window int) []string {
	var next []string
	f.mu.Lock()
	defer f.mu.Unlock()
	sc := f.scans[dir]
	if sc == nil {
		if len(f.scans) >= maxScans {
			clear(f.scans)
		}
		sc = &scan{last: -readAheadGap - 1, ahead: -1}
		f.scans[dir] = sc
	}
	if i > sc.last && i-sc.last <= readAheadGap {
		for j := max(i+1, sc.ahead+1); j < len(l.names) && j <= i+window; j++ {
			sc.ahead = j
			if name := l.names[j]; codec.IsTextureName(name) == textures && sourceOf(name, kind) {
				next = append(next, path.Join(dir, name))
			}
		}
	}
	sc.last = i
	return next
}
