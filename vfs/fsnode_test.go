package vfs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelfs/modelfs/internal/mpq/mpqtest"
)

// Nodes looked up by name, as a mount keeps them, in SRC and in an archive alike: the same
// entry found again is Same, a document's node is Same while its version is, a replaced file
// answers ErrStale, and a dropped node lets go of its archive once, is never Same again, and
// answers ErrStale where it would need its archive.
func TestLookupNodes(t *testing.T) {
	sample := sampleTree(t)
	crate, err := os.ReadFile(filepath.Join(sample, "Units", "Crate.mdx"))
	if err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	os.MkdirAll(filepath.Join(src, "Units"), 0o755)
	if err := os.WriteFile(filepath.Join(src, "Units", "Crate.mdx"), crate, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "Game.mpq"), mpqtest.Archive{Members: []mpqtest.Member{
		{Name: "Units\\Crate.mdx", Data: crate, Zlib: true},
	}}.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	tree, err := Open(src, Options{AttrTimeout: time.Nanosecond}) // versions checked at each use
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	shown, err := tree.Shown("")
	if err != nil {
		t.Fatal(err)
	}
	top, err := shown.Top()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	walk := func(names ...string) Node {
		t.Helper()
		n := *top
		n.view = nil // the top holds no view; a copy of it must not release one
		for i, name := range names {
			c, _, err := n.Lookup(ctx, name)
			if err != nil {
				t.Fatalf("%v: %v", names[:i+1], err)
			}
			if i > 0 {
				n.Drop()
			}
			n = c
		}
		return n
	}
	for _, p := range [][]string{{"Units", "Crate.mdx"}, {"Units", "Crate.mdx.glb"}, {"Game.mpq"}, {"Game.mpq", "Units", "crate.MDX"}, {"Game.mpq", "Units", "Crate.mdx.json"}} {
		a, b := walk(p...), walk(p...)
		if !a.Same(&b) {
			t.Errorf("%v: two lookups are not the same node", p)
		}
		if _, err := a.Attr(ctx); err != nil {
			t.Errorf("%v: %v", p, err)
		}
		f, err := a.OpenFile(ctx)
		if a.dir != (err != nil) {
			t.Errorf("%v: open: %v", p, err)
		}
		if f != nil {
			f.Close()
		}
		if !a.Drop() || a.Drop() {
			t.Errorf("%v: Drop does not drop once", p)
		}
		if a.Same(&b) {
			t.Errorf("%v: a dropped node is still the same", p)
		}
		if _, err := a.Attr(ctx); a.view != nil && !errors.Is(err, ErrStale) {
			t.Errorf("%v: a dropped node of an archive: %v, want ErrStale", p, err)
		}
		b.Drop()
	}
	// A dropped folder of an archive is looked in no more.
	arc := walk("Game.mpq", "Units")
	arc.Drop()
	if _, _, err := arc.Lookup(ctx, "Crate.mdx"); !errors.Is(err, ErrStale) {
		t.Errorf("a lookup in a dropped folder of an archive: %v, want ErrStale", err)
	}
	if _, err := arc.OpenListing(); !errors.Is(err, ErrStale) {
		t.Errorf("a listing of a dropped folder of an archive: %v, want ErrStale", err)
	}
	v, err := tree.OpenArchive("Game.mpq")
	if err != nil {
		t.Fatal(err)
	}
	if n := v.refs.Load(); n != 0 {
		t.Errorf("the archive's view is held %d times after every node was dropped", n)
	}
	// A replaced file, and a document whose model changed.
	file, doc := walk("Units", "Crate.mdx"), walk("Units", "Crate.mdx.gltf")
	if err := os.WriteFile(filepath.Join(src, "Units", "new"), append(crate[:len(crate):len(crate)], 0), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(src, "Units", "new"), filepath.Join(src, "Units", "Crate.mdx")); err != nil {
		t.Fatal(err)
	}
	if _, err := file.Attr(ctx); !errors.Is(err, ErrStale) {
		t.Errorf("a replaced file: %v, want ErrStale", err)
	}
	if again := walk("Units", "Crate.mdx.gltf"); again.Same(&doc) {
		t.Error("the document of a changed model is the same node")
	}
	if _, err := doc.OpenFile(ctx); !errors.Is(err, ErrStale) {
		t.Errorf("the document of a changed model: %v, want ErrStale", err)
	}
}
