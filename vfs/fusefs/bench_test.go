//go:build linux

package fusefs

// Benchmarks of the mount against baselines measured in the same run, each reported as a ratio
// with b.ReportMetric. Run them one core's worth at a time, for example:
//
//	go test ./vfs/fusefs -run '^$' -bench . -benchtime 20x -count 5
//
// Peak RSS of a separate mount process and the real `ls -l` are measured by scripts/bench-mount.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/modelfs/modelfs/internal/testkit/corpus"
	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/wc3/wc3test"
	"github.com/modelfs/modelfs/vfs"
)

// benchGridVertices makes an .mdx of about 11 MB whose .gltf is about 20 MB.
const benchGridVertices = 250000

// mountB mounts src like mountT, for benchmarks.
func mountB(b testing.TB, src string, opt vfs.Options) *Server {
	b.Helper()
	if _, err := os.Stat("/dev/fuse"); err != nil {
		b.Skipf("no FUSE: %v", err)
	}
	mnt := b.TempDir()
	srv, err := Mount(src, mnt, opt)
	if err != nil {
		b.Skipf("cannot mount: %v", err)
	}
	b.Cleanup(func() { unmountB(b, srv.Unmount, srv.Wait) })
	return srv
}

// unmountB retries unmount while busy.
func unmountB(b testing.TB, unmount func() error, wait func()) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := unmount()
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EBUSY) || time.Now().After(deadline) {
			b.Errorf("unmount: %v", err)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	wait()
}

// mountGoFuse mounts root with go-fuse's defaults and the mount flags and timeouts modelfs uses,
// so that a comparison isolates modelfs's nodes from FUSE itself.
func mountGoFuse(b testing.TB, root gofs.InodeEmbedder) string {
	b.Helper()
	mnt := b.TempDir()
	sec := vfs.DefaultTimeout
	opts := &gofs.Options{
		EntryTimeout: &sec,
		AttrTimeout:  &sec,
		MountOptions: fuse.MountOptions{
			FsName:             "benchbase",
			Name:               "benchbase",
			Options:            []string{"ro", "default_permissions"},
			DisableReadDirPlus: true,
			DirectMount:        true,
		},
	}
	srv, err := gofs.Mount(mnt, root, opts)
	if err != nil {
		b.Skipf("cannot mount the baseline: %v", err)
	}
	b.Cleanup(func() { unmountB(b, srv.Unmount, srv.Wait) })
	return mnt
}

// memRoot is a directory holding one in-memory file.
type memRoot struct {
	gofs.Inode
	name string
	data []byte
}

func (r *memRoot) OnAdd(ctx context.Context) {
	f := &gofs.MemRegularFile{Data: r.data, Attr: fuse.Attr{Mode: 0o444}}
	r.AddChild(r.name, r.NewPersistentInode(ctx, f, gofs.StableAttr{Mode: syscall.S_IFREG}), false)
}

// mountMemFile serves data as NAME in a minimal go-fuse in-memory file system and returns its path.
func mountMemFile(b testing.TB, name string, data []byte) string {
	return filepath.Join(mountGoFuse(b, &memRoot{name: name, data: data}), name)
}

// gridTree writes a GridModel of n vertices as grid.mdx into a fresh directory.
func gridTree(b testing.TB, n int) string {
	b.Helper()
	data, err := wc3test.MDX(wc3test.GridModel(n))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "grid.mdx"), data, 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}

// readFile opens p, reads it to the end with a 1 MiB buffer (like a copying tool) and closes it.
func readFile(p string, buf []byte) (int64, error) {
	f, err := os.Open(p)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var n int64
	for {
		m, err := f.Read(buf)
		n += int64(m)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// timedRead reads p whole and returns how long it took, failing unless it has size bytes.
func timedRead(b *testing.B, p string, buf []byte, size int64) time.Duration {
	t0 := time.Now()
	n, err := readFile(p, buf)
	d := time.Since(t0)
	if err != nil || n != size {
		b.Fatalf("read %s: %d bytes, %v; want %d", p, n, err, size)
	}
	return d
}

// dropPages drops p's clean pages from the kernel's page cache (POSIX_FADV_DONTNEED, which works
// on FUSE files: they have their own backing device).
func dropPages(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	const fadvDontNeed = 4
	if _, _, e := syscall.Syscall6(syscall.SYS_FADVISE64, f.Fd(), 0, 0, fadvDontNeed, 0, 0); e != 0 {
		return e
	}
	return nil
}

// resident returns how many of p's pages are in the page cache, and how many it has (mincore on a
// shared read-only mapping, which does not fault pages in).
func resident(p string) (in, total int, err error) {
	f, err := os.Open(p)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return 0, 0, err
	}
	m, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return 0, 0, err
	}
	defer syscall.Munmap(m)
	page := os.Getpagesize()
	vec := make([]byte, (len(m)+page-1)/page)
	if _, _, e := syscall.Syscall(syscall.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		return 0, 0, e
	}
	for _, v := range vec {
		in += int(v & 1)
	}
	return in, len(vec), nil
}

// mustResident fails unless p's pages are in the page cache (all: at least 99%, as memory
// pressure from other processes may take a few) or are not (none at all).
func mustResident(b *testing.B, p string, all bool) {
	b.Helper()
	in, total, err := resident(p)
	if err != nil {
		b.Fatalf("mincore %s: %v", p, err)
	}
	if (all && in < total*99/100) || (!all && in != 0) {
		b.Fatalf("%s: %d of %d pages in the page cache; want all=%v", p, in, total, all)
	}
}

func mbps(bytes int64, d time.Duration) float64 { return float64(bytes) / 1e6 / d.Seconds() }

// warmGrid mounts a grid model, translates its .gltf by reading it once and returns the mount
// path of the .gltf and its bytes.
func warmGrid(b *testing.B) (*Server, string, []byte) {
	src := gridTree(b, benchGridVertices)
	srv := mountB(b, src, vfs.Options{})
	p := filepath.Join(srv.MountPoint(), "grid.mdx.gltf")
	data, err := os.ReadFile(p)
	if err != nil {
		b.Fatal(err)
	}
	return srv, p, data
}

// BenchmarkFirstRead reads a large .gltf already translated (in modelfs's cache) but not in the
// kernel's page cache, against the same bytes in a go-fuse MemRegularFile under the same
// conditions. Both files' pages are dropped before every read (POSIX_FADV_DONTNEED; checked with
// mincore), so every byte of both comes through FUSE READ requests. Target: ratio ≥ 0.8.
func BenchmarkFirstRead(b *testing.B) {
	srv, vpath, data := warmGrid(b)
	mpath := mountMemFile(b, "grid.mdx.gltf", data)
	size := int64(len(data))
	buf := make([]byte, 1<<20)
	for _, p := range []string{vpath, mpath} {
		timedRead(b, p, buf, size)
		mustResident(b, p, true)
		if err := dropPages(p); err != nil {
			b.Fatal(err)
		}
		mustResident(b, p, false)
	}
	before := srv.Stats().Translations
	var tv, tm time.Duration
	i := 0
	for b.Loop() {
		b.StopTimer()
		if err := dropPages(vpath); err != nil {
			b.Fatal(err)
		}
		if err := dropPages(mpath); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if i%2 == 0 { // alternate the order, so neither side always runs second
			tv += timedRead(b, vpath, buf, size)
			tm += timedRead(b, mpath, buf, size)
		} else {
			tm += timedRead(b, mpath, buf, size)
			tv += timedRead(b, vpath, buf, size)
		}
		i++
	}
	if got := srv.Stats().Translations; got != before {
		b.Fatalf("%d translations while reading a cached document", got-before)
	}
	n := int64(i) * size
	b.ReportMetric(mbps(n, tv), "modelfs-MB/s")
	b.ReportMetric(mbps(n, tm), "memfile-MB/s")
	b.ReportMetric(tm.Seconds()/tv.Seconds(), "ratio")
	b.ReportMetric(float64(size)/1e6, "file-MB")
}

// BenchmarkWarmRead re-reads a .gltf whose pages the kernel kept (the mount opens an unchanged
// document with FOPEN_KEEP_CACHE) against the same bytes in a regular file on disk, also in the
// page cache. The same bytes in a go-fuse MemRegularFile (also kept) are read too, to tell FUSE's
// own page-cache path from modelfs's (memfile-ratio), and from a file on tmpfs (/dev/shm), whose
// page cache, like FUSE's, is made of small pages rather than ext4's large folios.
// Target: ratio ≥ 0.8.
func BenchmarkWarmRead(b *testing.B) {
	srv, vpath, data := warmGrid(b)
	dpath := filepath.Join(b.TempDir(), "grid.mdx.gltf")
	if err := os.WriteFile(dpath, data, 0o644); err != nil {
		b.Fatal(err)
	}
	mpath := mountMemFile(b, "grid.mdx.gltf", data)
	shm, err := os.MkdirTemp("/dev/shm", "modelfs-bench")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(shm) })
	spath := filepath.Join(shm, "grid.mdx.gltf")
	if err := os.WriteFile(spath, data, 0o644); err != nil {
		b.Fatal(err)
	}
	size := int64(len(data))
	buf := make([]byte, 1<<20)
	paths := []string{vpath, dpath, mpath, spath}
	for _, p := range paths {
		timedRead(b, p, buf, size)
		timedRead(b, p, buf, size)
		mustResident(b, p, true)
	}
	before := srv.Stats().Translations
	var t [4]time.Duration // modelfs, disk, memfile, tmpfs
	i := 0
	for b.Loop() {
		for j := range paths { // rotate the order, so no side always runs first
			k := (i + j) % len(paths)
			t[k] += timedRead(b, paths[k], buf, size)
		}
		i++
	}
	b.StopTimer()
	mustResident(b, vpath, true) // still kept: the reads were served by the page cache
	if got := srv.Stats().Translations; got != before {
		b.Fatalf("%d translations while re-reading a cached document", got-before)
	}
	n := int64(i) * size
	b.ReportMetric(mbps(n, t[0]), "modelfs-MB/s")
	b.ReportMetric(mbps(n, t[1]), "disk-MB/s")
	b.ReportMetric(mbps(n, t[2]), "memfile-MB/s")
	b.ReportMetric(mbps(n, t[3]), "tmpfs-MB/s")
	b.ReportMetric(t[1].Seconds()/t[0].Seconds(), "ratio")
	b.ReportMetric(t[2].Seconds()/t[0].Seconds(), "memfile-ratio")
}

// BenchmarkColdFirstByte opens a model's .gltf through the mount and reads one byte, with the
// document in neither cache (every iteration reads a new copy of the model), against what `modelfs convert` does before writing: read the model and
// translate.Translate it in this process, with the same Source (name, companion opener and
// lister on the root). In-process rather than the binary so that the baseline has no exec, no
// runtime start-up and no output write: the ratio is then the mount's own overhead.
// Target: ratio ≤ 1.2.
func BenchmarkColdFirstByte(b *testing.B) {
	src := gridTree(b, benchGridVertices)
	grid, err := os.ReadFile(filepath.Join(src, "grid.mdx"))
	if err != nil {
		b.Fatal(err)
	}
	srv := mountB(b, src, vfs.Options{CacheBytes: 128 << 20})
	root, err := os.OpenRoot(src)
	if err != nil {
		b.Fatal(err)
	}
	defer root.Close()
	convert := func(name string) int {
		data, err := fs.ReadFile(codec.RootFS(root), name)
		if err != nil {
			b.Fatal(err)
		}
		out, err := translate.Translate(codec.Source{Name: name, Data: data,
			FS: codec.RootFS(root)},
			translate.GLTF, translate.EncodeOptions{MTLName: path.Base(name) + ".mtl"})
		if err != nil {
			b.Fatal(err)
		}
		return len(out)
	}
	firstByte := func(name string) {
		f, err := os.Open(filepath.Join(srv.MountPoint(), name+".gltf"))
		if err != nil {
			b.Fatal(err)
		}
		var one [1]byte
		if n, err := f.Read(one[:]); n != 1 || err != nil {
			b.Fatalf("read: %d, %v", n, err)
		}
		f.Close()
	}
	// Every iteration reads a model the mount has never seen (a new copy of the grid, written
	// outside the timing and already in the page cache): in neither the mount's cache nor the
	// kernel's, and no key memo or attribute of an earlier iteration applies to it.
	n := 0
	fresh := func() string {
		n++
		name := fmt.Sprintf("grid%04d.mdx", n)
		if err := os.WriteFile(filepath.Join(src, name), grid, 0o644); err != nil {
			b.Fatal(err)
		}
		return name
	}
	// Warm up both paths once.
	w := fresh()
	firstByte(w)
	convert(w)
	var tv, tc time.Duration
	i := 0
	before := srv.Stats().Translations
	for b.Loop() {
		b.StopTimer()
		name := fresh()
		b.StartTimer()
		t0 := time.Now()
		if i%2 == 0 {
			firstByte(name)
			t1 := time.Now()
			convert(name)
			tv, tc = tv+t1.Sub(t0), tc+time.Since(t1)
		} else {
			convert(name)
			t1 := time.Now()
			firstByte(name)
			tc, tv = tc+t1.Sub(t0), tv+time.Since(t1)
		}
		i++
	}
	if got := srv.Stats().Translations - before; got != int64(i) {
		b.Fatalf("%d translations in %d iterations; want one each", got, i)
	}
	b.ReportMetric(tv.Seconds()*1e3/float64(i), "mount-ms")
	b.ReportMetric(tc.Seconds()*1e3/float64(i), "convert-ms")
	b.ReportMetric(tv.Seconds()/tc.Seconds(), "ratio")
}

// listTree writes n copies of testdata/sample/Units/Crate.mdx under different names in Units/ of
// a fresh directory, with the sample's Textures/ beside it as in a game tree (so that resolving
// the texture lists small directories, not the 2,000 models).
func listTree(b testing.TB, n int) string {
	b.Helper()
	sample := filepath.Join(corpus.RepoRoot(b), "testdata", "sample")
	data, err := os.ReadFile(filepath.Join(sample, "Units", "Crate.mdx"))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "Units"), 0o755); err != nil {
		b.Fatal(err)
	}
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, "Units", fmt.Sprintf("Crate%04d.mdx", i)), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.CopyFS(filepath.Join(dir, "Textures"), os.DirFS(filepath.Join(sample, "Textures"))); err != nil && !errors.Is(err, fs.ErrNotExist) {
		b.Fatal(err)
	}
	return dir
}

// lsl is `ls -l` in Go: list dir and Lstat every entry. It returns the number of entries.
func lsl(b *testing.B, dir string) int {
	ents, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range ents {
		if _, err := os.Lstat(filepath.Join(dir, e.Name())); err != nil {
			b.Fatal(err)
		}
	}
	return len(ents)
}

// BenchmarkListing lists (os.ReadDir + os.Lstat of every entry) a directory (Units/) of 2,000 models,
// that is 2,000 sources and 10,000 virtual files, every document translated and cached, against
// the same on the source directory itself (2,000 entries). Two kernel states:
//
//   - expired: 1.1 s between listings, so the kernel's entries (1 s) have expired and every
//     Lstat is a FUSE LOOKUP: what `ls -l` costs when run now and then;
//   - hot: listings back to back, so the kernel answers most Lstats from its own caches.
//
// A go-fuse loopback mount of the source directory is listed too (loopback-ms), as the cost of
// FUSE itself for the 2,000 real entries. Target: ratio ≤ 3.
func BenchmarkListing(b *testing.B) {
	const models = 2000
	tree := listTree(b, models)
	srv := mountB(b, tree, vfs.Options{})
	loop, err := gofs.NewLoopbackRoot(tree)
	if err != nil {
		b.Fatal(err)
	}
	mnt := filepath.Join(srv.MountPoint(), "Units")
	lmnt := filepath.Join(mountGoFuse(b, loop), "Units")
	src := filepath.Join(tree, "Units")

	// Translate and cache every document (two at a time: the mount's default parallelism).
	ents, err := os.ReadDir(mnt)
	if err != nil {
		b.Fatal(err)
	}
	want := models * (1 + len(translate.Kinds))
	if len(ents) != want {
		b.Fatalf("%d entries; want %d", len(ents), want)
	}
	var wg sync.WaitGroup
	names := make(chan string)
	for range 2 {
		wg.Go(func() {
			for n := range names {
				if _, err := os.ReadFile(filepath.Join(mnt, n)); err != nil {
					b.Error(err)
				}
			}
		})
	}
	for _, e := range ents {
		if path.Ext(e.Name()) != ".mdx" {
			names <- e.Name()
		}
	}
	close(names)
	wg.Wait()
	st := srv.Stats()
	// A model is decoded once for all its documents (the log shows the count: more than one
	// per model and texture would mean keys changed between a Getattr and an Open).
	if st.Translations < models || st.Memory.Evictions != 0 {
		b.Fatalf("warm-up: %+v", st)
	}
	b.Logf("warm-up: %d translations for %d models; cache %+v", st.Translations, models, st.Memory)

	for _, mode := range []string{"expired", "hot"} {
		b.Run(mode, func(b *testing.B) {
			before := srv.Stats().Translations
			var tv, ts, tl time.Duration
			i := 0
			for b.Loop() {
				if mode == "expired" {
					b.StopTimer()
					time.Sleep(1100 * time.Millisecond)
					b.StartTimer()
				}
				t0 := time.Now()
				if n := lsl(b, mnt); n != want {
					b.Fatalf("mount: %d entries; want %d", n, want)
				}
				t1 := time.Now()
				if n := lsl(b, src); n != models {
					b.Fatalf("source: %d entries; want %d", n, models)
				}
				t2 := time.Now()
				if n := lsl(b, lmnt); n != models {
					b.Fatalf("loopback: %d entries; want %d", n, models)
				}
				tv, ts, tl = tv+t1.Sub(t0), ts+t2.Sub(t1), tl+time.Since(t2)
				i++
			}
			if got := srv.Stats().Translations; got != before {
				b.Fatalf("listing caused %d translations", got-before)
			}
			ms := func(d time.Duration) float64 { return d.Seconds() * 1e3 / float64(i) }
			b.ReportMetric(ms(tv), "mount-ms")
			b.ReportMetric(ms(ts), "source-ms")
			b.ReportMetric(ms(tl), "loopback-ms")
			b.ReportMetric(tv.Seconds()/ts.Seconds(), "ratio")
			// per listed entry: the mount lists 6 entries for every source entry
			b.ReportMetric(tv.Seconds()/float64(want)/(ts.Seconds()/float64(models)), "per-entry-ratio")
		})
	}
}
