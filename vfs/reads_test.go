package vfs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
)

// Finding 11 of the third trust pass: a source is read (its content is its cache key) before
// its translation is admitted, and loads waiting to be admitted held their sources outside the
// budget: sixteen 20 MB textures were 101 MB of a 414 MB peak. Eight loads of 8 MB textures,
// with one translation at a time and it held up, now hold at most a quarter of the budget in
// sources: the others wait before they read.
func TestSourcesHeldWithinBudget(t *testing.T) {
	src := t.TempDir()
	const n, size = 8, 8 << 20
	for i := range n {
		b := make([]byte, size)
		copy(b, "not a texture, but read all the same")
		b[100] = byte(i)
		if err := os.WriteFile(filepath.Join(src, fmt.Sprintf("t%d.blp", i)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	started, release := make(chan struct{}, n), make(chan struct{})
	tree, err := Open(src, Options{CacheBytes: 64 << 20, MaxParallel: 1, OnTranslate: func(string) {
		started <- struct{}{}
		<-release
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			name := fmt.Sprintf("t%d.blp", i)
			fi, err := tree.SourceInfo(name)
			if err == nil {
				_, _, err = tree.Document(context.Background(), name, fi, translate.PNG, NeedSize)
			}
			if err != nil {
				t.Error(err)
			}
		})
	}
	<-started // one translation runs, held up; the other loads read what they may and wait
	// (a while for them to get there: a bound held the whole time is what is checked)
	time.Sleep(300 * time.Millisecond)
	var during runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&during)
	close(release)
	wg.Wait()
	held := int64(during.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d loads of %d MiB sources, one translation at a time: %d MiB held while it was held up", n, size>>20, held>>20)
	if budget := tree.opt.CacheBytes / readShare; held > budget+size {
		t.Errorf("the loads held %d MiB of sources; a quarter of the budget is %d MiB", held>>20, budget>>20)
	}
}

// A source is damaged (its failure kept, and its documents saying why) only when its stored
// bytes are wrong: an I/O error met reading them, a permission or a closed file may not
// happen again.
func TestDamaged(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&codec.FormatError{Format: "zip", File: "a.zip:m.mdx", Msg: "checksum"}, true},
		{&fs.PathError{Op: "read", Path: "m.mdx", Err: &codec.FormatError{Format: "mpq", Msg: "sector 0"}}, true},
		{&codec.FormatError{Format: "zip", Msg: "reading its local header", Err: &fs.PathError{Op: "read", Err: syscall.EIO}}, false},
		{&ReadError{Path: "m.mdx", Err: fs.ErrClosed}, false},
		{fs.ErrPermission, false},
		{errors.New("other"), false},
	} {
		if got := damaged(c.err); got != c.want {
			t.Errorf("damaged(%v) = %v", c.err, got)
		}
	}
}
