package vfs

import (
	"bytes"
	"context"
	"errors"
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
// files, one translation per member whatever the kinds asked (a texture too, which its models
// embed), and a changed archive seen.
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
	// One translation per member: the model, and the texture it embeds, which its own .png
	// then serves without another.
	if _, err := v.Document(ctx, "Textures/Crate.blp", translate.PNG); err != nil {
		t.Fatal(err)
	}
	if n := count.Load(); n != 2 {
		t.Errorf("%d translations for a model's five kinds and its texture's .png, want 2", n)
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
	var count atomic.Int64
	tree, v := gameArchive(t, Options{OnTranslate: func(string) { count.Add(1) }},
		mpqtest.Member{Name: "Units\\Crate.mdx", Data: sampleCrate(t), Zlib: true})
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

// Two models of an archive that embed one texture of it: the texture is translated once, each
// .glb is kept pieced (the PNG once in each tier) with the bytes convert makes, a remount
// translates nothing, and with the PNG gone from both tiers only the texture is made again.
func TestArchivePiecedGLB(t *testing.T) {
	sample := sampleTree(t)
	read := func(p string) []byte {
		b, err := os.ReadFile(filepath.Join(sample, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	crate, tex := read("Units/Crate.mdx"), read("Textures/Crate.blp")
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "Game.mpq"), mpqtest.Archive{Members: []mpqtest.Member{
		{Name: "Units\\A.mdx", Data: crate, Zlib: true},
		{Name: "Units\\B.mdx", Data: crate, Zlib: true},
		{Name: "Textures\\Crate.blp", Data: tex},
	}}.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	extracted := t.TempDir()
	for name, data := range map[string][]byte{"Units/A.mdx": crate, "Units/B.mdx": crate, "Textures/Crate.blp": tex} {
		os.MkdirAll(filepath.Join(extracted, filepath.Dir(name)), 0o755)
		if err := os.WriteFile(filepath.Join(extracted, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string][]byte{}
	for _, m := range []string{"Units/A.mdx", "Units/B.mdx"} {
		want[m] = vfstest.MustConvert(t, extracted, m, translate.GLB)
	}
	dir := t.TempDir()
	const texture = "Textures/Crate.blp"
	glbs := func(f *Tree) (*ArchiveView, []string) {
		t.Helper()
		var translated []string
		var mu sync.Mutex
		f.opt.OnTranslate = func(name string) {
			mu.Lock()
			defer mu.Unlock()
			translated = append(translated, name)
		}
		v, err := f.OpenArchive("Game.mpq")
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []string{"Units/A.mdx", "Units/B.mdx"} {
			b, err := viewBytes(v.Document(t.Context(), m, translate.GLB))
			if err != nil || !bytes.Equal(b, want[m]) {
				t.Fatalf("%s.glb: %v, or not the bytes convert makes", m, err)
			}
		}
		slices.Sort(translated)
		return v, translated
	}
	f := openTree(t, src, dir)
	v, translated := glbs(f)
	if got := strings.Join(translated, " "); got != "Textures/Crate.blp Units/A.mdx Units/B.mdx" {
		t.Errorf("translated %q: each model and the texture once", got)
	}
	for _, m := range []string{"Units/A.mdx", "Units/B.mdx"} {
		ver := v.known(m, nil)
		if b, ok := f.mem.Get(memKey(ver.id, translate.GLB)); !ok || !isPieced(b) {
			t.Errorf("%s.glb is not kept pieced in memory", m)
		}
		e, err := f.disk.Get(ver.key)
		if err != nil {
			t.Fatal(err)
		}
		if meta, err := decodeEntryMeta(e.Meta); err != nil || meta.pieced[kindIndex(translate.GLB)] != int64(len(want[m])) {
			t.Errorf("%s.glb is not pieced on disk: %v", m, err)
		}
		e.Close()
	}
	f.Close()

	g := openTree(t, src, dir)
	v, translated = glbs(g)
	if len(translated) != 0 {
		t.Errorf("translated %q after remounting", translated)
	}
	tkey := v.sourceKey(texture)
	g.mem.Remove(memKey(versionID(tkey, nil), translate.PNG))
	g.mem.Remove(memKey(v.known("Units/A.mdx", nil).id, translate.GLB))
	g.mem.Remove(memKey(v.known("Units/B.mdx", nil).id, translate.GLB))
	removeEntry(t, dir, tkey)
	if _, translated = glbs(g); strings.Join(translated, " ") != texture {
		t.Errorf("translated %q; want the texture alone", translated)
	}
}

// Finding 9 of the third trust pass: a member whose bytes are damaged gets a document saying
// why for every kind, as a model of SRC that does not decode; one larger than a source may be
// fails as a file of SRC does. The archive's other members are served.
func TestArchiveMembersThatFail(t *testing.T) {
	crate := sampleCrate(t)
	var count atomic.Int64
	tree, v := gameArchive(t, Options{MaxSourceSize: int64(len(crate)) + 1024, OnTranslate: func(string) { count.Add(1) }},
		mpqtest.Member{Name: "Units\\Crate.mdx", Data: crate, Zlib: true},
		// A sector whose compression byte names no method.
		mpqtest.Member{Name: "Units\\Damaged.mdx", Stored: []byte{8, 0, 0, 0, 12, 0, 0, 0, 0x04, 1, 2, 3}, Size: 1024, Zlib: true},
		mpqtest.Member{Name: "Units\\Huge.mdx", Data: append(append([]byte{}, crate...), make([]byte, 64<<10)...)})
	ctx := context.Background()
	// A member whose bytes are damaged fails alike every time: every document says why, as a
	// model's that does not decode, and is kept.
	for _, kind := range tree.modelKinds {
		b, err := viewBytes(v.Document(ctx, "Units/Damaged.mdx", kind))
		size, serr := v.Size(ctx, "Units/Damaged.mdx", kind)
		if err != nil || serr != nil || len(b) == 0 || int64(len(b)) != size || !bytes.Contains(b, []byte("unknown compression")) {
			t.Errorf("Units/Damaged.mdx.%s: %d bytes (size %d), %v, %v; want a document saying why", kind, len(b), size, err, serr)
		}
	}
	if ver := v.known("Units/Damaged.mdx", nil); ver == nil || !ver.persist {
		t.Errorf("the damaged member's failure is not kept: %+v", ver)
	} else if _, err := tree.disk.Get(ver.key); err != nil {
		t.Errorf("the damaged member's documents are not in the disk tier: %v", err)
	}
	// One beyond --max-source-size is refused before it is read: its .json says why, its other
	// kinds fail with EFBIG's class, and nothing of it is kept.
	const huge = "Units/Huge.mdx"
	b, err := viewBytes(v.Document(ctx, huge, translate.JSON))
	if err != nil || !bytes.Contains(b, []byte(`"error"`)) {
		t.Errorf("%s.json: %v, %q; want the error document", huge, err, b)
	}
	_, err = v.Document(ctx, huge, translate.GLB)
	var te *TranslationError
	if !errors.As(err, &te) || !errors.Is(err, ErrTooLarge) {
		t.Errorf("%s.glb: %v; want a translation error (%v)", huge, err, ErrTooLarge)
	}
	if size, err := v.Size(ctx, huge, translate.GLB); size != 0 || !errors.As(err, &te) {
		t.Errorf("%s.glb: size %d, %v", huge, size, err)
	}
	if ver := v.known(huge, nil); ver == nil || ver.persist {
		t.Errorf("%s: its failure is kept beyond the mount: %+v", huge, ver)
	} else if _, err := tree.disk.Get(ver.key); err == nil {
		t.Errorf("%s: its failure reached the disk tier", huge)
	}
	if b, err := viewBytes(v.Document(ctx, "Units/Crate.mdx", translate.GLB)); err != nil || !bytes.HasPrefix(b, []byte("glTF")) {
		t.Errorf("the archive's sound member: %v", err)
	}
	if n := count.Load(); n != 1 {
		t.Errorf("%d translations: the members that cannot be read are not translated", n)
	}
}

// sampleCrate is the sample's Units/Crate.mdx.
func sampleCrate(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sampleTree(t), "Units", "Crate.mdx"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// gameArchive writes Game.mpq of members into a new SRC, and opens its tree with opt (and a
// cache directory of its own) and the archive's view.
func gameArchive(t *testing.T, opt Options, members ...mpqtest.Member) (*Tree, *ArchiveView) {
	t.Helper()
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "Game.mpq"), mpqtest.Archive{Members: members}.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	opt.CacheDir = t.TempDir()
	tree, err := Open(src, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tree.Close)
	v, err := tree.OpenArchive("Game.mpq")
	if err != nil {
		t.Fatal(err)
	}
	return tree, v
}
