package vfs

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelfs/modelfs/internal/testkit/corpus"
	"github.com/modelfs/modelfs/translate"
	_ "github.com/modelfs/modelfs/translate/all" // every source format
	"github.com/modelfs/modelfs/vfs/vfstest"
)

// sampleModels are Warcraft III models of the sample tree.
var sampleModels = []string{"Units/Crate.mdl", "Units/Crate.mdx", "Units/Swinger.mdl", "Units/Swinger.mdx"}

// sampleTree copies the sample tree into a fresh directory and returns it.
func sampleTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(corpus.RepoRoot(t), "testdata", "sample"))); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The tree core serves a tree without any front end: listings with the virtual documents beside
// each model and texture, exact sizes, the bytes convert writes, one decode per model whatever
// the kinds asked, errors for a broken model, and a change to a source seen.
func TestTreeWithoutAMount(t *testing.T) {
	src := sampleTree(t)
	translations := map[string]int{} // by source
	tree, err := Open(src, Options{OnTranslate: func(name string) { translations[name]++ }})
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()

	dir, err := tree.OpenDir("Units")
	if err != nil {
		t.Fatal(err)
	}
	ents, err := tree.List(dir, "Units")
	dir.Close()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, e := range ents {
		names[e.Name] = e.Virtual
	}
	if v, ok := names["Swinger.mdx.glb"]; !ok || !v {
		t.Errorf("no virtual Swinger.mdx.glb in %v", names)
	}
	if v, ok := names["Swinger.mdx"]; !ok || v {
		t.Errorf("Swinger.mdx missing or virtual")
	}
	if !slices.IsSortedFunc(ents, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) }) {
		t.Error("listing not sorted")
	}
	if len(translations) != 0 {
		t.Errorf("listing translated %v", translations)
	}

	src1 := "Units/Swinger.mdx"
	fi, err := tree.SourceInfo(src1)
	if err != nil {
		t.Fatal(err)
	}
	if tree.Current(src1, fi) != nil {
		t.Error("a version known before any translation")
	}
	ctx := context.Background()
	for _, kind := range translate.Kinds {
		want := vfstest.MustConvert(t, src, src1, kind)
		v, data, err := docBytes(tree.Document(ctx, src1, fi, kind, NeedBytes))
		if err != nil || !bytes.Equal(data, want) || v.Size(kind) != int64(len(want)) {
			t.Errorf("%s: %d bytes (size %d, %v); convert writes %d", kind, len(data), v.Size(kind), err, len(want))
		}
	}
	if translations[src1] != 1 {
		t.Errorf("%d translations for every kind of one model; want 1", translations[src1])
	}
	if v := tree.Current(src1, fi); v == nil || !v.Has(translate.GLTF) {
		t.Error("the version is not current after its translation")
	}

	// A broken model: its kinds fail with a TranslationError, its .json holds the error.
	broken := filepath.Join(src, "Units", "Broken.mdx")
	if err := os.WriteFile(broken, []byte("MDLXbroken"), 0o644); err != nil {
		t.Fatal(err)
	}
	bfi, err := tree.SourceInfo("Units/Broken.mdx")
	if err != nil {
		t.Fatal(err)
	}
	var te *TranslationError
	if v, doc, err := docBytes(tree.Document(ctx, "Units/Broken.mdx", bfi, translate.GLB, NeedBytes)); err != nil || !bytes.HasPrefix(doc, []byte("glTF")) || int64(len(doc)) != v.Size(translate.GLB) {
		t.Errorf("broken .glb: %v, %d bytes; want the failure document", err, len(doc))
	} else if err := v.Shown("Units/Broken.mdx", translate.GLB); !errors.As(err, &te) {
		t.Errorf("broken .glb shows %v; want a TranslationError", err)
	}
	if _, doc, err := docBytes(tree.Document(ctx, "Units/Broken.mdx", bfi, translate.JSON, NeedBytes)); err != nil || !bytes.Contains(doc, []byte(`"error"`)) {
		t.Errorf("broken .json: %v\n%s", err, doc)
	}

	// A changed source is a new version, with the new bytes.
	data, _ := os.ReadFile(filepath.Join(src, "Units", "Crate.mdx"))
	later := time.Now().Add(time.Hour)
	if err := os.WriteFile(filepath.Join(src, src1), data, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(filepath.Join(src, src1), later, later)
	time.Sleep(1100 * time.Millisecond) // versions are checked at most once a second
	fi2, _ := tree.SourceInfo(src1)
	_, got, err := docBytes(tree.Document(ctx, src1, fi2, translate.OBJ, NeedBytes))
	if want := vfstest.MustConvert(t, src, src1, translate.OBJ); err != nil || !bytes.Equal(got, want) {
		t.Errorf("after the change: %v, %d bytes; convert writes %d", err, len(got), len(want))
	}

	// Names the tree does not have, and names that leave it.
	if _, _, ok := tree.Virtual("Swinger.mdx.fbx"); ok {
		t.Error("an unknown kind is virtual")
	}
	if _, err := tree.Lstat("../x"); err == nil {
		t.Error("a name leaving the tree was looked up")
	}
	if _, err := tree.OpenFile("Units/none"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestGrants checks the class arithmetic of access on entries owned by others.
func TestGrants(t *testing.T) {
	const me, mine, other, theirs = 1000, 100, 2000, 200
	f := &Tree{groups: map[uint32]map[uint32]bool{me: nil}} // my groups unknown
	known := &Tree{groups: map[uint32]map[uint32]bool{me: {mine: true, theirs: true}}}
	for _, c := range []struct {
		f        *Tree
		mode     uint32
		uid, gid uint32
		acl      bool
		want     uint32
	}{
		{f, 0o644, me, mine, false, 0o444},
		{f, 0o600, me, mine, false, 0o400},
		{f, 0o000, me, mine, false, 0},
		{f, 0o640, other, mine, false, 0o040}, // my group's members read it (its owner too); I may be outside its group
		{f, 0o644, other, theirs, false, 0o444},
		{f, 0o604, other, theirs, false, 0o000}, // its group may hold me or my group's members
		{f, 0o444, other, mine, false, 0o444},
		{f, 0o044, other, mine, false, 0o400},       // I read it; its owner, who may be in my group, does not
		{f, 0o640, me, theirs, false, 0o400},        // mine, but my group's members may not be in its group
		{known, 0o640, other, theirs, false, 0o400}, // I am in its group, as the user database says
		{f, 0o640, other, theirs, false, 0o000},     // unknown: I may not be
		{f, 0o644, me, mine, true, 0o400},           // an ACL may deny anyone but its owner
		{f, 0o644, other, mine, true, 0o000},
	} {
		id := identity{mode: syscall.S_IFREG | c.mode, uid: c.uid, gid: c.gid}
		if got := c.f.grants(id, c.acl, me, mine, 4); got != c.want {
			t.Errorf("mode %o uid %d gid %d acl %v: %o, want %o", c.mode, c.uid, c.gid, c.acl, got, c.want)
		}
	}
}

// A file deleted after the index listed its folder but before a translation read it — a texture
// found by a case-folding lookup, a WoW creature skin guessed from a listing of the model's
// folder, a model's .skin — gives the
// documents of the tree without it (the decode runs again on a fresh listing), never a mixture
// that names the file and then fails to read it.
func TestIndexOutOfDate(t *testing.T) {
	for _, tc := range []struct{ model, gone string }{
		{"Units/Swinger.mdl", "Textures/Swinger.tga"},
		{"Creature/TestBeast/TestBeast.m2", "Creature/TestBeast/TestBeastSkin.blp"},
		{"Creature/TestBeast/TestBeast.m2", "Creature/TestBeast/TestBeast00.skin"},
		{"World/wmo/Hall/Hall.wmo", "World/wmo/Hall/Hall_001.wmo"},
		{"World/wmo/Hall/Hall.wmo", "Creature/TestBeast/TestBeast.m2"},
	} {
		t.Run(path.Base(tc.gone), func(t *testing.T) {
			src := sampleTree(t)
			tree, err := Open(src, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer tree.Close()
			dir := path.Dir(tc.gone)
			if _, err := tree.list(dir); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(filepath.Join(src, tc.gone)); err != nil {
				t.Fatal(err)
			}
			// The listing taken before the removal stays in use, however slow the machine.
			tree.dirs.mu.Lock()
			tree.dirs.m[dir].checked = time.Now().Add(time.Hour)
			tree.dirs.mu.Unlock()

			fi, err := tree.SourceInfo(tc.model)
			if err != nil {
				t.Fatal(err)
			}
			for _, kind := range []translate.Kind{translate.JSON, translate.GLB, translate.GLTF} {
				_, got, err := docBytes(tree.Document(context.Background(), tc.model, fi, kind, NeedBytes))
				if want := vfstest.MustConvert(t, src, tc.model, kind); err != nil || !bytes.Equal(got, want) {
					t.Errorf("%s: %v, %d bytes; convert of the tree without %s writes %d:\n%.600s", kind, err, len(got), tc.gone, len(want), got)
				}
			}
		})
	}
}

// A dangling symlink is listed but reads as no file, every time: that is the tree's state, not
// a stale index, and costs no second decode.
func TestDanglingTexture(t *testing.T) {
	src := sampleTree(t)
	const model, texture = "Units/Swinger.mdl", "Textures/Swinger.tga"
	if err := os.Remove(filepath.Join(src, texture)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("nowhere.tga", filepath.Join(src, texture)); err != nil {
		t.Fatal(err)
	}
	tree, err := Open(src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	rec := &recorder{f: tree}
	if found, ok := rec.FindFold(texture); !ok || found != texture {
		t.Fatalf("FindFold: %q, %v", found, ok)
	}
	if _, err := rec.ReadFile(texture); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("ReadFile of a dangling symlink: %v", err)
	}
	if rec.staleIndex() {
		t.Error("a dangling symlink made the index stale")
	}
	if _, err := rec.ReadFile("Textures/none.tga"); !errors.Is(err, fs.ErrNotExist) || rec.staleIndex() {
		t.Errorf("a file never listed: %v, stale %v", err, rec.staleIndex())
	}
	fi, err := tree.SourceInfo(model)
	if err != nil {
		t.Fatal(err)
	}
	if _, got, err := docBytes(tree.Document(context.Background(), model, fi, translate.JSON, NeedBytes)); err != nil || !bytes.Contains(got, []byte("Swinger.tga")) {
		t.Errorf("json: %v\n%.400s", err, got)
	}
}
