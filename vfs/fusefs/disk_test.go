//go:build linux

package fusefs

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/vfs"
	"github.com/modelfs/modelfs/vfs/vfstest"
)

// countingMount mounts src with opt and counts the translations of models (by name) and of
// textures.
type counts struct {
	mu     sync.Mutex
	models map[string]int
	all    atomic.Int64
}

func (c *counts) hook(name string) {
	c.all.Add(1)
	if codec.IsModelName(name) {
		c.mu.Lock()
		c.models[name]++
		c.mu.Unlock()
	}
}

func (c *counts) model(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.models[name]
}

func (c *counts) modelTotal() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.models {
		n += v
	}
	return n
}

func newCounts() *counts { return &counts{models: map[string]int{}} }

// lsL runs `ls -l` on dir and returns its output.
func lsL(t *testing.T, dir string) string {
	t.Helper()
	out, err := exec.Command("ls", "-l", "--color=never", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("ls -l %s: %v\n%s", dir, err, out)
	}
	return string(out)
}

// readAll reads every file under the mount dir and returns the bytes by relative path; each
// stat's size must equal the bytes read.
func readAll(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil && !errors.Is(err, syscall.EIO) {
			return err
		}
		if err == nil && fi.Size() != int64(len(b)) {
			t.Errorf("%s: stat says %d bytes, read %d", p, fi.Size(), len(b))
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkConvert fails unless every virtual document in got is what convert makes of the tree
// at src.
func checkConvert(t *testing.T, src string, got map[string][]byte) {
	t.Helper()
	n := 0
	for rel, b := range got {
		ext := filepath.Ext(rel)
		kind, ok := translate.KindOf(ext)
		model := strings.TrimSuffix(rel, ext)
		if !ok || (kind == translate.PNG && !codec.IsTextureName(model)) || (kind != translate.PNG && !codec.IsModelName(model)) {
			continue
		}
		n++
		var want []byte
		if kind == translate.PNG {
			raw, err := os.ReadFile(filepath.Join(src, model))
			if err != nil {
				t.Fatal(err)
			}
			want, _ = translate.ConvertTexture(model, raw)
		} else {
			want, _ = vfstest.Convert(t, src, model, kind)
		}
		if !bytes.Equal(b, want) {
			t.Errorf("%s: %d bytes differ from convert's %d", rel, len(b), len(want))
		}
	}
	if n == 0 {
		t.Fatal("no virtual documents read")
	}
}

// Acceptance: `ls -l` of a model's folder and reading all five of its kinds is one decode.
func TestOneDecodePerModel(t *testing.T) {
	for _, disk := range []bool{false, true} {
		t.Run(fmt.Sprintf("disk=%v", disk), func(t *testing.T) {
			src := sampleTree(t)
			c := newCounts()
			opt := vfs.Options{OnTranslate: c.hook}
			if disk {
				opt.CacheDir = t.TempDir()
			}
			m := mountT(t, src, opt)
			lsL(t, m.path("Units"))
			for _, rel := range sampleModels {
				for _, kind := range translate.Kinds {
					mustRead(t, m.path(rel+"."+string(kind)))
				}
			}
			lsL(t, m.path("Units"))
			for _, rel := range sampleModels {
				if n := c.model(rel); n != 1 {
					t.Errorf("%s: %d decodes; want 1", rel, n)
				}
			}
		})
	}
}

// Acceptance: with the bytes evicted by a small budget, stats still translate nothing: sizes
// are kept apart from the bytes.
func TestSizesOutliveEviction(t *testing.T) {
	src := sampleTree(t)
	c := newCounts()
	m := mountT(t, src, vfs.Options{CacheBytes: 4096, OnTranslate: c.hook})
	before := lsL(t, m.path("Units"))
	first := c.all.Load()
	if first == 0 {
		t.Fatal("ls -l translated nothing")
	}
	time.Sleep(1100 * time.Millisecond) // past the kernel's attributes and the versions' check
	if after := lsL(t, m.path("Units")); after != before {
		t.Errorf("ls -l changed:\n%s\nthen\n%s", before, after)
	}
	if got := c.all.Load(); got != first {
		t.Errorf("the second ls -l translated %d more times; want 0", got-first)
	}
	if st := m.Stats(); st.Memory.Evictions == 0 && st.Memory.Entries > 1 {
		t.Errorf("the budget kept the documents: %+v", st.Memory)
	}
}

// Acceptance: after unmount and mount on the same cache directory, nothing is translated, and
// every byte is convert's.
func TestRemountServesWithoutTranslating(t *testing.T) {
	src := sampleTree(t)
	dir := t.TempDir()
	c := newCounts()
	m := mountT(t, src, vfs.Options{CacheDir: dir, OnTranslate: c.hook})
	first := readAll(t, m.dir)
	if c.all.Load() == 0 {
		t.Fatal("nothing translated")
	}
	if err := m.Unmount(); err != nil {
		t.Fatal(err)
	}
	for _, budget := range []int64{0, 4096} { // bytes from memory, or all from disk
		c2 := newCounts()
		m2 := mountT(t, src, vfs.Options{CacheDir: dir, CacheBytes: budget, OnTranslate: c2.hook})
		lsL(t, m2.path("Units"))
		got := readAll(t, m2.dir)
		if n := c2.all.Load(); n != 0 {
			t.Errorf("budget %d: the remount translated %d times; want 0", budget, n)
		}
		if len(got) != len(first) {
			t.Errorf("budget %d: %d files, then %d", budget, len(first), len(got))
		}
		checkConvert(t, src, got)
		if st := m2.Stats(); st.Reused == 0 {
			t.Errorf("budget %d: stats %+v: nothing reused", budget, st)
		}
		if err := m2.Unmount(); err != nil {
			t.Fatal(err)
		}
	}
}

// filledCache copies the sample tree, mounts it on a fresh cache directory, reads everything
// and unmounts: the cache directory then holds all of it.
func filledCache(t *testing.T) (src, dir string) {
	t.Helper()
	src, dir = sampleTree(t), t.TempDir()
	m := mountT(t, src, vfs.Options{CacheDir: dir})
	readAll(t, m.dir)
	if err := m.Unmount(); err != nil {
		t.Fatal(err)
	}
	return src, dir
}

// A source or a companion changed between two mounts is translated again, never served from
// the cache directory.
func TestRemountSeesChanges(t *testing.T) {
	src, dir := filledCache(t)
	// Same size and mtime for the source: only its content says it changed.
	crate := filepath.Join(src, "Units/Crate.mdl")
	fi, _ := os.Stat(crate)
	data := mustRead(t, crate)
	data = bytes.Replace(data, []byte("Crate"), []byte("Crat3"), 1)
	writeFile(t, crate, data)
	os.Chtimes(crate, fi.ModTime(), fi.ModTime())
	// A texture with new pixels.
	copyFile(t, filepath.Join(src, "Textures/Crate.blp"), filepath.Join(src, "Textures/Swinger.blp"))
	os.Remove(filepath.Join(src, "Textures/Swinger.tga"))

	c := newCounts()
	m2 := mountT(t, src, vfs.Options{CacheDir: dir, OnTranslate: c.hook})
	checkConvert(t, src, readAll(t, m2.dir))
	for _, rel := range []string{"Units/Crate.mdl", "Units/Swinger.mdl", "Units/Swinger.mdx"} {
		if c.model(rel) != 1 {
			t.Errorf("%s translated %d times after its inputs changed; want 1", rel, c.model(rel))
		}
	}
	if c.model("Units/Crate.mdx") != 0 {
		t.Errorf("the unchanged Crate.mdx was translated again")
	}
}

// A damaged entry in the cache directory is made again, never served.
func TestDamagedEntryIsRemade(t *testing.T) {
	src, dir := filledCache(t)
	n := 0
	filepath.WalkDir(filepath.Join(dir, "data"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			b[len(b)-1] ^= 0xff // the last byte of the last part
			os.WriteFile(p, b, 0o644)
			n++
		}
		return nil
	})
	if n == 0 {
		t.Fatal("no entries on disk")
	}
	m2 := mountT(t, src, vfs.Options{CacheDir: dir, CacheBytes: 4096})
	checkConvert(t, src, readAll(t, m2.dir))
	if m2.logs.count(slog.LevelWarn, "disk cache entry damaged; made again") == 0 {
		t.Error("no damaged entry was reported")
	}
}

// Acceptance: two mounts of one tree sharing one cache directory, read at once: the right
// bytes, and each model translated once in all.
func TestSharedCacheDirTranslatesOnce(t *testing.T) {
	src := t.TempDir()
	for i := range 24 {
		rel := sampleModels[i%len(sampleModels)]
		copyFile(t, filepath.Join(sampleDir(t), rel), filepath.Join(src, "Units", fmt.Sprintf("M%02d%s", i, filepath.Ext(rel))))
	}
	for _, tx := range sampleTextures {
		copyFile(t, filepath.Join(sampleDir(t), tx), filepath.Join(src, tx))
	}
	dir := t.TempDir()
	c := newCounts()
	a := mountT(t, src, vfs.Options{CacheDir: dir, OnTranslate: c.hook})
	b := mountT(t, src, vfs.Options{CacheDir: dir, OnTranslate: c.hook})
	var wg sync.WaitGroup
	results := make([]map[string][]byte, 4)
	for i := range results {
		m := []*mounted{a, b}[i%2]
		wg.Go(func() { results[i] = readAll(t, m.dir) })
	}
	wg.Wait()
	for _, r := range results {
		checkConvert(t, src, r)
	}
	for i := range 24 {
		rel := fmt.Sprintf("Units/M%02d%s", i, filepath.Ext(sampleModels[i%len(sampleModels)]))
		if n := c.model(rel); n != 1 {
			t.Errorf("%s: translated %d times by the two mounts; want 1", rel, n)
		}
	}
}

// A cache directory that cannot be written (a full disk) costs one log line: the mount serves
// from memory.
func TestFullCacheDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		skipOrFail(t, "a full disk is made with a small tmpfs, which needs root")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=64k"); err != nil {
		skipOrFail(t, "mount tmpfs: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	src := sampleTree(t)
	c := newCounts()
	m := mountT(t, src, vfs.Options{CacheDir: dir, DiskCacheBytes: 64 << 20, OnTranslate: c.hook})
	checkConvert(t, src, readAll(t, m.dir))
	if n := m.logs.count(slog.LevelWarn, "disk cache unavailable; serving from memory"); n != 1 {
		t.Errorf("%d log lines for the full disk; want 1", n)
	}
	// What could not go to disk stayed in memory: one decode per model still.
	for _, rel := range sampleModels {
		if n := c.model(rel); n != 1 {
			t.Errorf("%s: %d decodes with the disk full; want 1", rel, n)
		}
	}
}

// Read-ahead: stats moving through a folder in order start the models after them; one stat
// alone starts nothing.
func TestReadAhead(t *testing.T) {
	src := t.TempDir()
	for i := range 20 {
		copyFile(t, filepath.Join(sampleDir(t), "Units/Crate.mdx"), filepath.Join(src, fmt.Sprintf("M%02d.mdx", i)))
	}
	c := newCounts()
	m := mountT(t, src, vfs.Options{OnTranslate: c.hook, MaxParallel: 2, CacheDir: t.TempDir()})
	if _, err := os.Stat(m.path("M05.mdx.json")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if n := c.modelTotal(); n != 1 {
		t.Fatalf("one stat translated %d models; want 1", n)
	}
	for _, name := range []string{"M00.mdx.json", "M01.mdx.json"} {
		if _, err := os.Stat(m.path(name)); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "the next models translated ahead", func() error {
		for _, name := range []string{"M02.mdx", "M03.mdx", "M04.mdx"} {
			if c.model(name) != 1 {
				return fmt.Errorf("%s not translated", name)
			}
		}
		return nil
	})
	time.Sleep(100 * time.Millisecond)
	if n := c.modelTotal(); n > 2+2*2+1 {
		t.Errorf("%d models translated; read-ahead went further than its window", n)
	}
	got := slices.Sorted(func(yield func(string) bool) {
		c.mu.Lock()
		defer c.mu.Unlock()
		for k := range c.models {
			if !yield(k) {
				return
			}
		}
	})
	t.Logf("translated: %v", got)
}
