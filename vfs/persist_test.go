package vfs

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelfs/modelfs/cache"
	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/vfs/vfstest"
)

// openTree opens the tree core of src with a disk tier in dir, without mounting.
func openTree(t *testing.T, src, dir string) *Tree {
	t.Helper()
	tree, err := Open(src, Options{CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tree.Close)
	return tree
}

// The journal brings back what a tree core made; one written for another tree or translator,
// or with damaged records, costs only what it held; superseded records are compacted away.
func TestJournal(t *testing.T) {
	src, dir := sampleTree(t), t.TempDir()
	f := openTree(t, src, dir)
	for _, rel := range sampleModels {
		if _, _, err := f.get(t.Context(), rel, nil, translate.GLTF, needSize); err != nil {
			t.Fatal(err)
		}
	}
	f.close()

	g := openTree(t, src, dir)
	for _, rel := range sampleModels {
		if v := g.currentVersion(rel, nil); v == nil || !v.has(translate.GLB) {
			t.Errorf("%s: not known after reopening the journal", rel)
		}
	}
	if g.translations.Load() != 0 || g.reused.Load() != int64(len(sampleModels)) {
		t.Errorf("reopened: %d translations, %d reused", g.translations.Load(), g.reused.Load())
	}
	g.close()

	// Damage every record but the head: nothing is known, nothing breaks.
	p := filepath.Join(dir, "index", JournalName(src))
	b, _ := os.ReadFile(p)
	head := len(treeRecord(src)) + 12
	for i := head + 20; i < len(b); i += 37 {
		b[i] ^= 0x55
	}
	os.WriteFile(p, b, 0o644)
	h := openTree(t, src, dir)
	if _, _, err := h.get(t.Context(), "Units/Crate.mdx", nil, translate.GLTF, needBytes); err != nil {
		t.Fatal(err)
	}
	h.close()

	// Another translator version's journal is started over.
	d, _ := cache.OpenDisk(cache.DiskOptions{Dir: dir})
	j, _, _ := d.OpenJournal(JournalName(src), nil, 1<<30, func([]byte) {})
	j.Rewrite([][]byte{[]byte("T\x00another tree")})
	j.Close()
	d.Close()
	k := openTree(t, src, dir)
	if k.versions.len() != 0 {
		t.Errorf("%d versions taken from another tree's journal", k.versions.len())
	}
	k.close()

	// Many superseded records are compacted when the journal is opened.
	m := openTree(t, src, dir)
	v, _, _ := m.get(t.Context(), "Units/Crate.mdx", nil, translate.GLTF, needSize)
	for range 3000 {
		m.journal("Units/Crate.mdx", v)
	}
	m.close()
	before, _ := os.Stat(p)
	openTree(t, src, dir).close()
	after, _ := os.Stat(p)
	if after.Size() >= before.Size()/10 {
		t.Errorf("journal of %d bytes compacted to %d", before.Size(), after.Size())
	}
}

// A disk entry whose metadata cannot be read is not taken: the model is made again.
func TestDamagedMetadata(t *testing.T) {
	src, dir := sampleTree(t), t.TempDir()
	f := openTree(t, src, dir)
	v, _, err := f.get(t.Context(), "Units/Crate.mdx", nil, translate.GLTF, needSize)
	if err != nil {
		t.Fatal(err)
	}
	f.close()
	d, _ := cache.OpenDisk(cache.DiskOptions{Dir: dir})
	e, err := d.Get(v.key)
	if err != nil {
		t.Fatal(err)
	}
	var parts []cache.Part
	for _, name := range e.Names() {
		b, _ := e.Read(name)
		parts = append(parts, cache.Part{Name: name, Data: b})
	}
	e.Close()
	if err := d.Put(v.key, []byte{0xff, 0xff, 0xff}, parts); err != nil {
		t.Fatal(err)
	}
	d.Close()
	os.RemoveAll(filepath.Join(dir, "index")) // no journal: the entry is all there is
	os.MkdirAll(filepath.Join(dir, "index"), 0o755)
	g := openTree(t, src, dir)
	got, b, err := g.get(t.Context(), "Units/Crate.mdx", nil, translate.GLTF, needBytes)
	if err != nil || g.translations.Load() == 0 || got.key != v.key {
		t.Fatalf("with damaged metadata: %v, %d translations", err, g.translations.Load())
	}
	if want := vfstest.MustConvert(t, src, "Units/Crate.mdx", translate.GLTF); !b.Equal(want) {
		t.Error("the document made again differs from convert's")
	}
}

// A process that holds a version's lock and stops (Ctrl-Z) delays the mount by lockWait, no
// more: the mount then makes the version itself.
func TestStoppedLockHolder(t *testing.T) {
	defer func(d time.Duration) { lockWait = d }(lockWait)
	lockWait = 200 * time.Millisecond
	src, dir := sampleTree(t), t.TempDir()
	f := openTree(t, src, dir)
	other, err := cache.OpenDisk(cache.DiskOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	data, _ := os.ReadFile(filepath.Join(src, "Units/Crate.mdx"))
	unlock, err := other.Lock(t.Context(), f.sourceKey("Units/Crate.mdx", sha256.Sum256(data)))
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	start := time.Now()
	if _, _, err := f.get(t.Context(), "Units/Crate.mdx", nil, translate.GLTF, needBytes); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < lockWait || d > lockWait+5*time.Second {
		t.Errorf("made in %v with the lock held elsewhere; want lockWait (%v) and a translation", d, lockWait)
	}
	if f.translations.Load() == 0 {
		t.Error("nothing translated")
	}
}

// FuzzRecords feeds arbitrary bytes to the readers of what the disk tier holds for the mount —
// a journal record, a disk entry's metadata — which another process or a damaged disk may
// have written: no panic, and only sound values taken.
func FuzzRecords(f *testing.F) {
	deps := []dep{{op: depFile, name: "Textures/a.blp", val: string(make([]byte, 32))}, {op: depFold, name: "x", val: ""}}
	var fails [numKinds]failClass
	fails[1] = failIO
	f.Add(encodeMeta(deps, fails))
	fx := &Tree{versions: newBounded[*Version](16), files: newBounded[fileState](16), depLists: newBounded[[]dep](16)}
	rec := appendString([]byte{recVersion}, "Units/a.mdx")
	f.Add(append(appendString(rec, string(make([]byte, 32))), 0, 0, 0))
	f.Add(appendIdentity(appendString([]byte{recFile}, "Textures/a.blp"), identity{size: 10, mtime: 5}))
	f.Fuzz(func(t *testing.T, b []byte) {
		if deps, fails, err := decodeMeta(b); err == nil {
			for _, d := range deps {
				if d.op < depFile || d.op > depList {
					t.Fatalf("dep op %d taken", d.op)
				}
			}
			for _, c := range fails {
				if c > failTooBig {
					t.Fatalf("failure class %d taken", c)
				}
			}
		}
		d := decoder{b: b}
		kind := d.byte()
		p := d.string()
		if !d.bad {
			fx.loadRecord(kind, p, d)
		}
	})
}
