package vfs

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelfs/modelfs/internal/mpq/mpqtest"
	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/vfs/vfstest"
)

// The tree core serves an archive without a front end: its listing with the virtual documents
// beside each model, sizes that equal the bytes, the bytes convert makes of the extracted
// files, one translation per member whatever the kinds asked, and a changed archive seen.
func TestArchiveViewWithoutAMount(t *testing.T) {
	sample := sampleTree(t)
	var ms []mpqtest.Member
	for _, p := range []string{"Units/Crate.mdx", "Textures/Crate.blp"} {
		data, err := os.ReadFile(filepath.Join(sample, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, mpqtest.Member{Name: strings.ReplaceAll(p, "/", "\\"), Data: data, Zlib: true})
	}
	src := t.TempDir()
	arc := filepath.Join(src, "Game.mpq")
	if err := os.WriteFile(arc, mpqtest.Archive{Members: ms}.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var count atomic.Int64
	tree, err := Open(src, Options{OnTranslate: func(string) { count.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tree.Close)
	fi, err := tree.Lstat("Game.mpq")
	if err != nil || !tree.IsArchive("Game.mpq", fi) {
		t.Fatalf("Game.mpq is not shown as an archive: %v", err)
	}
	v, err := tree.OpenArchive("Game.mpq")
	if err != nil {
		t.Fatal(err)
	}
	list, err := v.List("Units")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range list {
		names = append(names, e.Name)
	}
	want := []string{"Crate.mdx", "Crate.mdx.glb", "Crate.mdx.gltf", "Crate.mdx.json", "Crate.mdx.mtl", "Crate.mdx.obj"}
	if !slices.Equal(names, want) {
		t.Errorf("Units lists %q, want %q", names, want)
	}
	ctx := context.Background()
	for _, kind := range translate.Kinds {
		size, err := v.Size(ctx, "Units/Crate.mdx", kind)
		if err != nil {
			t.Fatal(err)
		}
		b, err := viewBytes(v.Document(ctx, "Units/Crate.mdx", kind))
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(b)) != size {
			t.Errorf("%s: size %d, %d bytes", kind, size, len(b))
		}
		if ref := vfstest.MustConvert(t, sample, "Units/Crate.mdx", kind); !bytes.Equal(b, ref) {
			t.Errorf("%s differs from convert of the extracted files", kind)
		}
	}
	if n := count.Load(); n != 1 {
		t.Errorf("%d translations for one member's five kinds", n)
	}
	// A changed archive is a new view.
	if err := os.WriteFile(arc, mpqtest.Archive{Members: ms[:1]}.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	v2, err := tree.OpenArchive("Game.mpq")
	if err != nil {
		t.Fatal(err)
	}
	if v2 == v {
		t.Error("the view of a changed archive is the old one")
	}
	if _, err := v.files[0].Stat(); err == nil {
		t.Error("the replaced view, held by nothing, still holds its archive open")
	}
	if _, err := v2.Stat("Textures/Crate.blp"); err == nil {
		t.Error("a member the new archive lacks is still shown")
	}
}

// A remount with the same cache directory serves an archive's documents without translating
// them again.
func TestArchiveDocumentsOutliveTheTree(t *testing.T) {
	sample := sampleTree(t)
	data, err := os.ReadFile(filepath.Join(sample, "Units", "Swinger.mdx"))
	if err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	bad := append([]byte("MDLX"), make([]byte, 40)...)
	if err := os.WriteFile(filepath.Join(src, "Game.mpq"), mpqtest.Archive{Members: []mpqtest.Member{
		{Name: "Units\\Swinger.mdx", Data: data, Zlib: true},
		{Name: "Units\\Broken.mdx", Data: bad},
	}}.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cacheDir := t.TempDir()
	ctx := context.Background()
	var first map[translate.Kind][]byte
	for round := range 2 {
		var count atomic.Int64
		tree, err := Open(src, Options{CacheDir: cacheDir, OnTranslate: func(string) { count.Add(1) }})
		if err != nil {
			t.Fatal(err)
		}
		v, err := tree.OpenArchive("Game.mpq")
		if err != nil {
			t.Fatal(err)
		}
		docs := map[translate.Kind][]byte{}
		for _, kind := range translate.Kinds {
			b, err := viewBytes(v.Document(ctx, "Units/Swinger.mdx", kind))
			if err != nil {
				t.Fatal(err)
			}
			docs[kind] = b
			if size, _ := v.Size(ctx, "Units/Swinger.mdx", kind); size != int64(len(b)) {
				t.Errorf("round %d, %s: size %d, %d bytes", round, kind, size, len(b))
			}
		}
		if b, err := viewBytes(v.Document(ctx, "Units/Broken.mdx", translate.GLTF)); err != nil || !bytes.Contains(b, []byte(`"error: mdx:`)) || v.Shown("Units/Broken.mdx", translate.GLTF) == nil {
			t.Errorf("round %d: a broken model's .gltf: %v, %q", round, err, b)
		}
		if b, err := viewBytes(v.Document(ctx, "Units/Broken.mdx", translate.JSON)); err != nil || !bytes.Contains(b, []byte(`"error"`)) {
			t.Errorf("round %d: the broken model's .json %q, %v", round, b, err)
		}
		want := int64(2)
		if round == 1 {
			want = 0
			for k, b := range docs {
				if !bytes.Equal(b, first[k]) {
					t.Errorf("%s from the cache directory differs", k)
				}
			}
		}
		if n := count.Load(); n != want {
			t.Errorf("round %d: %d translations, want %d", round, n, want)
		}
		first = docs
		tree.Close()
	}
}

// An archive's member goes through the pipeline a file of SRC does: one load however many ask
// at once, its documents in the memory tier under its version's id, and a disk entry in the
// format a folder's model has (a meta that decodes as one, with no dependencies: the archive's
// identity is in the key).
func TestArchiveMembersShareThePipeline(t *testing.T) {
	sample := sampleTree(t)
	data, err := os.ReadFile(filepath.Join(sample, "Units", "Crate.mdx"))
	if err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "Game.mpq"), mpqtest.Archive{Members: []mpqtest.Member{
		{Name: "Units\\Crate.mdx", Data: data, Zlib: true},
	}}.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var count atomic.Int64
	tree, err := Open(src, Options{CacheDir: t.TempDir(), OnTranslate: func(string) { count.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tree.Close)
	v, err := tree.OpenArchive("Game.mpq")
	if err != nil {
		t.Fatal(err)
	}
	const member = "Units/Crate.mdx"
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Go(func() {
			kind := translate.Kinds[i%len(translate.Kinds)]
			if _, err := v.Document(ctx, member, kind); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := count.Load(); n != 1 {
		t.Errorf("%d translations for ten readers of one member", n)
	}
	ver := v.known(member, nil)
	if ver == nil {
		t.Fatal("no version of the member after its documents were read")
	}
	if len(ver.deps) != 0 || !ver.persist || ver.failed(member) != nil {
		t.Errorf("the member's version: deps %v, persist %v, failed %v", ver.deps, ver.persist, ver.failed(member))
	}
	e, err := tree.disk.Get(ver.key)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	m, err := decodeEntryMeta(e.Meta)
	if err != nil || len(m.deps) != 0 {
		t.Fatalf("the member's disk entry: meta %v, deps %v", err, m.deps)
	}
	for _, kind := range translate.Kinds {
		if size, ok := m.size(e, kind); !ok || size != ver.size(kind) {
			t.Errorf("%s: %d bytes on disk (%v), the version says %d", kind, size, ok, ver.size(kind))
		}
		if b, ok := tree.mem.Get(memKey(ver.id, kind)); !ok || storedSize(b) != ver.size(kind) {
			t.Errorf("%s: not in the memory tier under the version's id", kind)
		}
	}
}
