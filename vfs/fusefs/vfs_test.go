//go:build linux

package fusefs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/metajson"
	"github.com/modelfs/modelfs/vfs"
	"github.com/modelfs/modelfs/vfs/vfstest"
)

// 1. Listing 1,000 models translates nothing.
func TestListingDoesNotTranslate(t *testing.T) {
	src := t.TempDir()
	var samples [][]byte
	for _, m := range sampleModels {
		data, err := os.ReadFile(filepath.Join(sampleDir(t), m))
		if err != nil {
			t.Fatal(err)
		}
		samples = append(samples, data)
	}
	const n = 1000
	for i := range n {
		ext := filepath.Ext(sampleModels[i%len(sampleModels)])
		writeFile(t, filepath.Join(src, "Units", fmt.Sprintf("Model%04d%s", i, ext)), samples[i%len(samples)])
	}
	writeFile(t, filepath.Join(src, "Units", "readme.txt"), []byte("not a model\n"))
	m := mountT(t, src, vfs.Options{})

	ents, err := os.ReadDir(m.path("Units"))
	if err != nil {
		t.Fatal(err)
	}
	if want := n*(1+len(translate.Kinds)) + 1; len(ents) != want {
		t.Fatalf("%d entries; want %d", len(ents), want)
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			t.Fatalf("%s: type %v", e.Name(), e.Type())
		}
	}
	if !strings.Contains(names(ents), "Model0007.mdx.gltf\n") || strings.Contains(names(ents), "readme.txt.json") {
		t.Fatalf("unexpected listing:\n%.400s", names(ents))
	}
	f, err := os.Open(m.path("Units"))
	if err != nil {
		t.Fatal(err)
	}
	all, err := f.Readdirnames(-1)
	f.Close()
	if err != nil || len(all) != len(ents) {
		t.Fatalf("Readdirnames: %d names, %v", len(all), err)
	}
	if ls, err := exec.LookPath("ls"); err == nil {
		out, err := exec.Command(ls, "-1", "--color=never", m.path("Units")).Output()
		if err != nil {
			t.Fatalf("ls: %v", err)
		}
		if got := strings.Count(string(out), "\n"); got != len(ents) {
			t.Fatalf("ls listed %d names; want %d", got, len(ents))
		}
	}
	if got := m.translations(); got != 0 {
		t.Fatalf("listing caused %d translations; want 0", got)
	}
}

// 2 and 3. stat sizes equal the bytes read, and the bytes are what convert writes.
func TestEveryKindMatchesConvert(t *testing.T) {
	src := sampleDir(t)
	var models atomic.Int64
	m := mountT(t, src, vfs.Options{OnTranslate: func(name string) {
		if codec.IsModelName(name) {
			models.Add(1)
		}
	}})
	for _, rel := range sampleModels {
		for _, kind := range translate.Kinds {
			name := rel + "." + string(kind)
			want := vfstest.MustConvert(t, src, rel, kind)
			fi, err := os.Stat(m.path(name)) // cold: the stat translates
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(m.path(name))
			if err != nil {
				t.Fatal(err)
			}
			if fi.Size() != int64(len(got)) {
				t.Errorf("%s: stat says %d bytes, read %d", name, fi.Size(), len(got))
			}
			if sum(got) != sum(want) {
				t.Errorf("%s: %d bytes differ from convert's %d", name, len(got), len(want))
			}
			if fi.Mode() != 0o444 {
				t.Errorf("%s: mode %v; want -r--r--r--", name, fi.Mode())
			}
			if fi2, err := os.Stat(m.path(name)); err != nil || fi2.Size() != fi.Size() {
				t.Errorf("%s: second stat %v, %v", name, fi2, err)
			}
		}
	}
	if got, want := models.Load(), int64(len(sampleModels)); got != want {
		t.Errorf("%d translations of models; want %d (one per model, for every kind)", got, want)
	}
	if obj, _ := os.ReadFile(m.path("Units/Crate.mdx.obj")); !bytes.Contains(obj, []byte("mtllib Crate.mdx.mtl")) {
		t.Error("obj does not name its mtl")
	}
}

// 4. 32 concurrent readers of one cold model cause exactly one translation.
func TestConcurrentReadersTranslateOnce(t *testing.T) {
	src := sampleDir(t)
	var hooked atomic.Int64
	m := mountT(t, src, vfs.Options{MaxParallel: 2, OnTranslate: func(name string) {
		if name == "Units/Swinger.mdx" {
			hooked.Add(1)
		}
	}})
	want := vfstest.MustConvert(t, src, "Units/Swinger.mdx", translate.GLB)
	start := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for range 32 {
		wg.Go(func() {
			<-start
			got, err := os.ReadFile(m.path("Units/Swinger.mdx.glb"))
			if err == nil && !bytes.Equal(got, want) {
				err = fmt.Errorf("read %d bytes, want %d", len(got), len(want))
			}
			errs <- err
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	// One translation of the model, and one of each texture its .glb embeds.
	if got, hook := m.translations(), hooked.Load(); got != 1+2 || hook != 1 {
		t.Fatalf("%d translations (of the model: %d); want 3 (the model and its two textures)", got, hook)
	}
}

// Two kinds of one model asked for at once share one translation, which makes both; and
// nothing is translated again once the kernel's attributes and the version's check expire.
func TestConcurrentKindsTranslateOnce(t *testing.T) {
	src := sampleDir(t)
	started := make(chan string, 4)
	release := make(chan struct{})
	m := mountT(t, src, vfs.Options{MaxParallel: 2, OnTranslate: func(name string) {
		started <- name
		if name == "Units/Crate.mdx" {
			<-release
		}
	}})
	kinds := []translate.Kind{translate.GLTF, translate.OBJ}
	var wg sync.WaitGroup
	for _, kind := range kinds {
		wg.Go(func() {
			if _, err := os.ReadFile(m.path("Units/Crate.mdx." + string(kind))); err != nil {
				t.Error(err)
			}
		})
	}
	if name := <-started; name != "Units/Crate.mdx" {
		t.Fatalf("translated %s", name)
	}
	time.Sleep(50 * time.Millisecond) // both readers are waiting now
	close(release)
	wg.Wait()
	// The one translation made every kind, the .glb with the texture it embeds.
	if n := m.translations(); n != 2 {
		t.Fatalf("%d translations; want 2 (the model and its texture)", n)
	}
	time.Sleep(1100 * time.Millisecond) // past the version's check and the kernel's attributes
	for _, kind := range translate.Kinds {
		mustRead(t, m.path("Units/Crate.mdx."+string(kind)))
	}
	if n := m.translations(); n != 2 {
		t.Fatalf("%d translations after reading every kind; want still 2", n)
	}
}

// 5. A budget smaller than the working set evicts and translates again, correctly.
func TestSmallCacheEvicts(t *testing.T) {
	src := sampleDir(t)
	want := map[string][]byte{}
	biggest := 0
	for _, rel := range sampleModels {
		for _, kind := range translate.Kinds {
			out := vfstest.MustConvert(t, src, rel, kind)
			want[rel+"."+string(kind)] = out
			biggest = max(biggest, len(out))
		}
	}
	m := mountT(t, src, vfs.Options{CacheBytes: int64(biggest) + 4096})
	for round := range 3 {
		for _, rel := range sampleModels {
			for _, kind := range translate.Kinds {
				name := rel + "." + string(kind)
				got, err := os.ReadFile(m.path(name))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want[name]) {
					t.Fatalf("round %d: %s differs from convert", round, name)
				}
			}
		}
	}
	st := m.Stats()
	if st.Memory.Evictions == 0 || st.Translations <= int64(len(sampleModels)) {
		t.Fatalf("stats %+v: want evictions and more than %d translations", st, len(want))
	}
	if st.Memory.Bytes > int64(biggest)+4096 {
		t.Fatalf("cache holds %d bytes, over its budget", st.Memory.Bytes)
	}
}

// 6. A modified, a deleted and an added source are each seen through the mount.
func TestSourceChanges(t *testing.T) { bothTiers(t, testSourceChanges) }

func testSourceChanges(t *testing.T, opt vfs.Options) {
	src := t.TempDir()
	sample := sampleDir(t)
	copyFile(t, filepath.Join(sample, "Units/Crate.mdx"), filepath.Join(src, "Units/A.mdx"))
	copyFile(t, filepath.Join(sample, "Units/Crate.mdx"), filepath.Join(src, "Units/B.mdx"))
	m := mountT(t, src, opt)

	before, err := os.ReadFile(m.path("Units/A.mdx.json"))
	if err != nil || !bytes.Equal(before, vfstest.MustConvert(t, src, "Units/A.mdx", translate.JSON)) {
		t.Fatalf("A.mdx.json before the change: %v", err)
	}
	if _, err := os.ReadFile(m.path("Units/B.mdx.gltf")); err != nil {
		t.Fatal(err)
	}

	// Modify: different content and a new mtime.
	copyFile(t, filepath.Join(sample, "Units/Swinger.mdx"), filepath.Join(src, "Units/A.mdx"))
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(src, "Units/A.mdx"), later, later); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []translate.Kind{translate.JSON, translate.GLTF} {
		want := vfstest.MustConvert(t, src, "Units/A.mdx", kind)
		eventually(t, "modified source seen as "+string(kind), func() error {
			fi, err := os.Stat(m.path("Units/A.mdx." + string(kind)))
			if err != nil {
				return err
			}
			got, err := os.ReadFile(m.path("Units/A.mdx." + string(kind)))
			if err != nil {
				return err
			}
			if !bytes.Equal(got, want) || fi.Size() != int64(len(want)) {
				return fmt.Errorf("stat %d, read %d bytes; want %d", fi.Size(), len(got), len(want))
			}
			return nil
		})
	}

	// Delete.
	if err := os.Remove(filepath.Join(src, "Units/B.mdx")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "deleted source gone", func() error {
		for _, name := range []string{"Units/B.mdx", "Units/B.mdx.gltf", "Units/B.mdx.json"} {
			if _, err := os.Stat(m.path(name)); !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("%s: %v", name, err)
			}
		}
		ents, err := os.ReadDir(m.path("Units"))
		if err != nil {
			return err
		}
		if strings.Contains(names(ents), "B.mdx") {
			return fmt.Errorf("still listed:\n%s", names(ents))
		}
		return nil
	})

	// Add.
	copyFile(t, filepath.Join(sample, "Units/Swinger.mdl"), filepath.Join(src, "Units/C.mdl"))
	want := vfstest.MustConvert(t, src, "Units/C.mdl", translate.OBJ)
	eventually(t, "added source seen", func() error {
		got, err := os.ReadFile(m.path("Units/C.mdl.obj"))
		if err != nil {
			return err
		}
		if !bytes.Equal(got, want) {
			return fmt.Errorf("read %d bytes; want %d", len(got), len(want))
		}
		return nil
	})
}

// 7. Every mutating system call fails with EROFS and SRC is left as it was.
func TestReadOnly(t *testing.T) {
	src := sampleTree(t)
	writeFile(t, filepath.Join(src, "Units/Empty/.keep"), nil)
	if err := os.Remove(filepath.Join(src, "Units/Empty/.keep")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Setxattr(filepath.Join(src, "Units/Crate.mdx"), "user.modelfs", []byte("x"), 0); err != nil {
		t.Logf("no user xattrs on the source fs (%v); removexattr is still checked", err)
	}
	before := treeHash(t, src)
	m := mountT(t, src, vfs.Options{})
	file, virt, dir, empty := m.path("Units/Crate.mdx"), m.path("Units/Crate.mdx.gltf"), m.path("Units"), m.path("Units/Empty")
	if _, err := os.ReadFile(virt); err != nil {
		t.Fatal(err)
	}
	open := func(p string, flags int) func() error {
		return func() error {
			fd, err := syscall.Open(p, flags|syscall.O_CLOEXEC, 0o644)
			if err == nil {
				syscall.Close(fd)
			}
			return err
		}
	}
	ops := []struct {
		name string
		op   func() error
	}{
		{"open O_WRONLY file", open(file, syscall.O_WRONLY)},
		{"open O_RDWR file", open(file, syscall.O_RDWR)},
		{"open O_WRONLY virtual", open(virt, syscall.O_WRONLY)},
		{"open O_RDWR virtual", open(virt, syscall.O_RDWR)},
		{"open O_CREAT new", open(filepath.Join(dir, "new.txt"), syscall.O_CREAT|syscall.O_WRONLY)},
		{"open O_CREAT existing", open(file, syscall.O_CREAT|syscall.O_RDWR)},
		{"mkdir", func() error { return syscall.Mkdir(filepath.Join(dir, "newdir"), 0o755) }},
		{"mknod", func() error { return syscall.Mknod(filepath.Join(dir, "fifo"), syscall.S_IFIFO|0o644, 0) }},
		{"unlink file", func() error { return syscall.Unlink(file) }},
		{"unlink virtual", func() error { return syscall.Unlink(virt) }},
		{"rmdir", func() error { return syscall.Rmdir(empty) }},
		{"rename", func() error { return syscall.Rename(file, filepath.Join(dir, "renamed.mdx")) }},
		{"rename virtual", func() error { return syscall.Rename(virt, filepath.Join(dir, "renamed.gltf")) }},
		{"link", func() error { return syscall.Link(file, filepath.Join(dir, "hard.mdx")) }},
		{"symlink", func() error { return syscall.Symlink("Crate.mdx", filepath.Join(dir, "sym.mdx")) }},
		{"chmod", func() error { return syscall.Chmod(file, 0o777) }},
		{"chmod virtual", func() error { return syscall.Chmod(virt, 0o777) }},
		{"chown", func() error { return syscall.Chown(file, 1, 1) }},
		{"truncate", func() error { return syscall.Truncate(file, 0) }},
		{"truncate virtual", func() error { return syscall.Truncate(virt, 0) }},
		{"utimes", func() error { return syscall.Utimes(file, []syscall.Timeval{{Sec: 1}, {Sec: 1}}) }},
		{"setxattr", func() error { return syscall.Setxattr(file, "user.modelfs", []byte("y"), 0) }},
		{"removexattr", func() error { return syscall.Removexattr(file, "user.modelfs") }},
	}
	for _, o := range ops {
		if err := o.op(); !errors.Is(err, syscall.EROFS) {
			t.Errorf("%s: %v; want EROFS", o.name, err)
		}
	}
	if after := treeHash(t, src); after != before {
		t.Fatal("SRC changed")
	}
}

// The handlers themselves refuse to mutate, whatever the kernel lets through.
func TestHandlersRefuseWrites(t *testing.T) {
	var n node
	ctx := t.Context()
	checks := map[string]syscall.Errno{
		"setattr":     n.Setattr(ctx, nil, nil, nil),
		"setxattr":    n.Setxattr(ctx, "user.x", nil, 0),
		"removexattr": n.Removexattr(ctx, "user.x"),
		"unlink":      n.Unlink(ctx, "x"),
		"rmdir":       n.Rmdir(ctx, "x"),
		"rename":      n.Rename(ctx, "x", nil, "y", 0),
		"allocate":    n.Allocate(ctx, nil, 0, 1, 0),
	}
	_, _, _, checks["create"] = n.Create(ctx, "x", 0, 0o644, nil)
	_, checks["mkdir"] = n.Mkdir(ctx, "x", 0o755, nil)
	_, checks["mknod"] = n.Mknod(ctx, "x", 0o644, 0, nil)
	_, checks["link"] = n.Link(ctx, nil, "x", nil)
	_, checks["symlink"] = n.Symlink(ctx, "x", "y", nil)
	_, checks["copy_file_range"] = n.CopyFileRange(ctx, nil, 0, nil, nil, 0, 1, 0)
	for _, flags := range []int{syscall.O_WRONLY, syscall.O_RDWR, syscall.O_RDONLY | syscall.O_TRUNC, syscall.O_WRONLY | syscall.O_APPEND} {
		_, _, checks[fmt.Sprintf("open file %#x", flags)] = (&fileNode{}).Open(ctx, uint32(flags))
		_, _, checks[fmt.Sprintf("open document %#x", flags)] = (&fixedNode{}).Open(ctx, uint32(flags))
	}
	for name, errno := range checks {
		if errno != syscall.EROFS {
			t.Errorf("%s: %v; want EROFS", name, errno)
		}
	}
}

// 8. A corrupt model: documents that say why (the same bytes from the cache), an error .json
// naming it, neighbours unharmed, one log line.
func TestCorruptModel(t *testing.T) { bothTiers(t, testCorruptModel) }

func testCorruptModel(t *testing.T, opt vfs.Options) {
	src := sampleTree(t)
	data, err := os.ReadFile(filepath.Join(src, "Units/Swinger.mdx"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(src, "Units/Broken.mdx"), data[:len(data)/2])
	m := mountT(t, src, opt)
	_, terr := vfstest.Convert(t, src, "Units/Broken.mdx", translate.JSON)
	if terr == nil {
		t.Fatal("the truncated model translates")
	}

	for range 2 { // the second round is served from the cache
		for _, kind := range []translate.Kind{translate.GLTF, translate.GLB, translate.OBJ, translate.MTL} {
			name := "Units/Broken.mdx." + string(kind)
			st, err := os.Stat(m.path(name))
			if err != nil {
				t.Errorf("stat %s: %v", name, err)
				continue
			}
			b, err := os.ReadFile(m.path(name))
			want := translate.FailureDocument(kind, "Units/Broken.mdx", "mdx", terr)
			if err != nil || !bytes.Equal(b, want) || st.Size() != int64(len(want)) {
				t.Errorf("read %s: %v, size %d, %q; want the failure document %q", name, err, st.Size(), b, want)
			}
		}
		got, err := os.ReadFile(m.path("Units/Broken.mdx.json"))
		if err != nil {
			t.Fatal(err)
		}
		if want := metajson.EncodeError("Units/Broken.mdx", "mdx", terr); !bytes.Equal(got, want) {
			t.Errorf("Broken.mdx.json:\n%s\nwant:\n%s", got, want)
		}
		var doc struct {
			Error  string
			Source struct{ Path, Format string }
		}
		if err := json.Unmarshal(got, &doc); err != nil || !strings.Contains(doc.Error, "Broken.mdx") || doc.Source.Path != "Units/Broken.mdx" {
			t.Errorf("error document %s (%v) does not name the file", got, err)
		}
		for _, rel := range []string{"Units/Swinger.mdx", "Units/Crate.mdx"} {
			got, err := os.ReadFile(m.path(rel + ".gltf"))
			if err != nil || !bytes.Equal(got, vfstest.MustConvert(t, src, rel, translate.GLTF)) {
				t.Errorf("neighbour %s: %v", rel, err)
			}
		}
	}
	if n := m.logs.count(slog.LevelWarn, "model failed to translate"); n != 1 {
		t.Errorf("%d log lines for the failed model; want 1", n)
	}
}

// 9. Files pass through byte for byte with their size, mode and mtime; symlinks stay symlinks.
func TestPassthrough(t *testing.T) {
	src := sampleTree(t)
	writeFile(t, filepath.Join(src, "Docs/notes.txt"), []byte("hello\n"))
	if err := os.Chmod(filepath.Join(src, "Docs/notes.txt"), 0o640); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2003, 7, 1, 12, 0, 0, 123456789, time.UTC)
	if err := os.Chtimes(filepath.Join(src, "Docs/notes.txt"), old, old); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"Units/Link.mdx":   "Crate.mdx",
		"Units/Away.mdx":   "/etc/hostname",
		"Docs/dangling":    "../nowhere/at/all",
		"Docs/outside":     "/etc/hostname",
		"Docs/up-and-away": "../../../../../../etc",
	} {
		if err := os.Symlink(target, filepath.Join(src, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(src, "Docs/fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	m := mountT(t, src, vfs.Options{})

	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		want, err := os.Lstat(p)
		if err != nil {
			return err
		}
		got, err := os.Lstat(m.path(rel))
		if err != nil {
			return err
		}
		if got.Mode() != want.Mode() || got.ModTime() != want.ModTime() || (want.Mode().IsRegular() && got.Size() != want.Size()) {
			t.Errorf("%s: mode %v mtime %v size %d; want %v %v %d", rel, got.Mode(), got.ModTime(), got.Size(), want.Mode(), want.ModTime(), want.Size())
		}
		switch {
		case want.Mode().IsRegular():
			a, _ := os.ReadFile(p)
			b, err := os.ReadFile(m.path(rel))
			if err != nil || !bytes.Equal(a, b) {
				t.Errorf("%s: content differs (%v)", rel, err)
			}
		case want.Mode()&fs.ModeSymlink != 0:
			a, _ := os.Readlink(p)
			b, err := os.Readlink(m.path(rel))
			if err != nil || a != b {
				t.Errorf("%s: link %q, want %q (%v)", rel, b, a, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(m.path("Units/Link.mdx")); err != nil || !bytes.Equal(got, mustRead(t, filepath.Join(src, "Units/Crate.mdx"))) {
		t.Errorf("reading through the symlink: %v", err)
	}
	if m.translations() != 0 {
		t.Errorf("passthrough caused %d translations", m.translations())
	}
	// A symlink to a model inside SRC is a symlink, with the virtual documents of the model it
	// leads to beside it, as convert makes them of the link; one leading outside has none.
	ents, err := os.ReadDir(m.path("Units"))
	if err != nil {
		t.Fatal(err)
	}
	if l := names(ents); !strings.Contains(l, "Link.mdx.gltf\n") || strings.Contains(l, "Away.mdx.") {
		t.Errorf("listing:\n%s\nwant Link.mdx's virtual files and none of Away.mdx's", l)
	}
	if got, err := os.ReadFile(m.path("Units/Link.mdx.gltf")); err != nil || !bytes.Equal(got, vfstest.MustConvert(t, src, "Units/Link.mdx", translate.GLTF)) {
		t.Errorf("Link.mdx.gltf: %v; want convert's translation of the link", err)
	}
	if _, err := os.Lstat(m.path("Units/Away.mdx.gltf")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Away.mdx.gltf: %v; want none beside a symlink leading outside", err)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Kinds chooses which virtual documents appear.
func TestKindsOption(t *testing.T) {
	m := mountT(t, sampleDir(t), vfs.Options{Kinds: []translate.Kind{translate.GLB, translate.JSON}})
	ents, err := os.ReadDir(m.path("Units"))
	if err != nil {
		t.Fatal(err)
	}
	srcEnts, err := os.ReadDir(filepath.Join(sampleDir(t), "Units"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(ents), 3*len(srcEnts); got != want {
		t.Errorf("%d entries; want %d:\n%s", got, want, names(ents))
	}
	if _, err := os.Stat(m.path("Units/Crate.mdx.gltf")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("disabled kind: %v", err)
	}
	if _, err := os.Stat(m.path("Units/Crate.mdx.glb")); err != nil {
		t.Error(err)
	}
	if _, err := Mount(sampleDir(t), t.TempDir(), vfs.Options{Kinds: []translate.Kind{"fbx"}}); err == nil {
		t.Error("an unknown kind was accepted")
	}
}

// Lifecycle: SRC removed under a live mount is logged once; a mount point inside SRC and one
// with a live FUSE mount on it are refused.
func TestMountLifecycle(t *testing.T) {
	saved := sourceCheck
	sourceCheck = 20 * time.Millisecond
	t.Cleanup(func() { sourceCheck = saved })
	parent := t.TempDir()
	src := filepath.Join(parent, "game")
	if err := os.CopyFS(src, os.DirFS(sampleTree(t))); err != nil {
		t.Fatal(err)
	}
	m := mountT(t, src, vfs.Options{})
	if _, err := Mount(src, m.dir, vfs.Options{}); err == nil || !strings.Contains(err.Error(), "already has a FUSE file system") {
		t.Errorf("a second mount on the same point: %v, want a refusal", err)
	}
	inside := filepath.Join(src, "mnt")
	os.Mkdir(inside, 0o755)
	if _, err := Mount(src, inside, vfs.Options{}); err == nil || !strings.Contains(err.Error(), "inside the tree") {
		t.Errorf("a mount point inside SRC: %v, want a refusal", err)
	}
	if err := os.RemoveAll(src); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the vanished source logged", func() error {
		if n := m.logs.count(slog.LevelWarn, "the source tree is gone from its path; the mount shows what remains of the one it opened: remount to show a new one"); n != 1 {
			return fmt.Errorf("%d warnings", n)
		}
		return nil
	})
	time.Sleep(100 * time.Millisecond)
	if n := m.logs.count(slog.LevelWarn, "the source tree is gone from its path; the mount shows what remains of the one it opened: remount to show a new one"); n != 1 {
		t.Errorf("logged %d times, want once", n)
	}
}

// The mount table's paths are octal-escaped; mountedAt finds a mount whose point has a space.
func TestMountinfoPaths(t *testing.T) {
	for in, want := range map[string]string{
		`/tmp/a\040b`:     "/tmp/a b",
		`/tmp/tab\011x`:   "/tmp/tab\tx",
		`/tmp/back\134sl`: `/tmp/back\sl`,
		`/tmp/plain`:      "/tmp/plain",
		`/tmp/short\04`:   `/tmp/short\04`, // not an escape: kept
		`/tmp/bad\999`:    `/tmp/bad\999`,
	} {
		if got := unescapeMountinfo(in); got != want {
			t.Errorf("unescapeMountinfo(%q) = %q, want %q", in, got, want)
		}
	}
	if fstype, ok := mountedAt("/proc"); !ok || fstype != "proc" {
		t.Errorf("mountedAt(/proc) = %q, %v", fstype, ok)
	}
	if _, ok := mountedAt(t.TempDir()); ok {
		t.Error("a fresh temporary directory is a mount point")
	}
}
