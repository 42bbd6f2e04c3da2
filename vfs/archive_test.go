package vfs

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
		b, err := v.Document(ctx, "Units/Crate.mdx", kind)
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
	if _, err := v2.Stat("Textures/Crate.blp"); err == nil {
		t.Error("a member the new archive lacks is still shown")
	}
}
