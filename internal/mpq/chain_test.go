package mpq_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/modelfs/modelfs/internal/archive"
	"github.com/modelfs/modelfs/internal/mpq"
	"github.com/modelfs/modelfs/internal/mpq/mpqtest"
	"github.com/modelfs/modelfs/translate"
	_ "github.com/modelfs/modelfs/translate/all"
	"github.com/modelfs/modelfs/translate/codec"
)

func TestLoadOrder(t *testing.T) {
	got := mpq.LoadOrder([]string{
		"patch-Y.MPQ", "enUS/patch-enUS-2.MPQ", "patch.MPQ", "common.MPQ", "enUS/locale-enUS.MPQ",
		"patch-3.MPQ", "expansion.MPQ", "enUS/patch-enUS.MPQ", "lichking.MPQ", "common-2.MPQ",
		"patch-2.MPQ", "custom.MPQ", "enUS/lichking-speech-enUS.MPQ",
	})
	want := []string{
		"common.MPQ", "common-2.MPQ", "expansion.MPQ", "lichking.MPQ", "enUS/locale-enUS.MPQ",
		"enUS/lichking-speech-enUS.MPQ", "custom.MPQ", "patch.MPQ", "patch-2.MPQ", "patch-3.MPQ",
		"patch-Y.MPQ", "enUS/patch-enUS.MPQ", "enUS/patch-enUS-2.MPQ",
	}
	if !slices.Equal(got, want) {
		t.Errorf("load order\n got %q\nwant %q", got, want)
	}
	w3 := mpq.LoadOrder([]string{"War3Patch.mpq", "war3x.mpq", "War3xLocal.mpq", "war3.mpq"})
	if want := []string{"war3.mpq", "war3x.mpq", "War3xLocal.mpq", "War3Patch.mpq"}; !slices.Equal(w3, want) {
		t.Errorf("Warcraft III load order %q, want %q", w3, want)
	}
}

// TestChain mounts a test Data folder of several archives: later patches override earlier
// files (whatever the case of their names), deletion markers hide them, and a model in one
// archive finds its texture in another, translating to the same bytes as the extracted tree.
func TestChain(t *testing.T) {
	data := t.TempDir()
	crate, crateTex, err := mpqtest.WriteGameData(data)
	if err != nil {
		t.Fatal(err)
	}
	names, err := mpq.GameArchives(data)
	if err != nil {
		t.Fatal(err)
	}
	var archives []*mpq.Archive
	for _, n := range names {
		a, err := archive.OpenFile(filepath.Join(data, n), archive.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.Close() })
		archives = append(archives, archive.Unwrap(a).(*mpq.Archive))
	}
	chain := mpq.NewChain(archives)
	if b, err := fs.ReadFile(chain, "Shared.txt"); err != nil || string(b) != "patched twice" {
		t.Errorf("Shared.txt = %q, %v; want the last patch's", b, err)
	}
	if _, err := fs.Stat(chain, "Creature/Old.txt"); err == nil {
		t.Error("Creature/Old.txt is shown despite the deletion marker")
	}
	var all []string
	fs.WalkDir(chain, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			all = append(all, p)
		}
		return err
	})
	if want := []string{"Shared.txt", "Textures/Crate.blp", "Units/Crate.mdx"}; !slices.Equal(all, want) {
		t.Errorf("merged tree %q, want %q", all, want)
	}
	if err := fstest.TestFS(chain, all...); err != nil {
		t.Error(err)
	}

	// The model finds its texture in the other archive: the .glb embeds it, the same bytes
	// as a translation of the extracted files.
	src := codec.Source{Name: "Units/Crate.mdx", Data: crate, FS: chain}
	got, err := translate.Translate(src, translate.GLB, translate.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	plain := t.TempDir()
	os.MkdirAll(filepath.Join(plain, "Units"), 0o755)
	os.MkdirAll(filepath.Join(plain, "Textures"), 0o755)
	os.WriteFile(filepath.Join(plain, "Units", "Crate.mdx"), crate, 0o644)
	os.WriteFile(filepath.Join(plain, "Textures", "Crate.blp"), crateTex, 0o644)
	want, err := translate.Translate(codec.Source{Name: "Units/Crate.mdx", Data: crate, FS: os.DirFS(plain)}, translate.GLB, translate.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("the model translated from the archives differs from the extracted tree's")
	}
	if !bytes.Contains(got, []byte("image/png")) {
		t.Error("the .glb embeds no image: the texture in patch.MPQ was not found")
	}
}

// The archive trees resolve names ignoring case themselves (no folder listed per lookup).
var (
	_ codec.FoldFS = (*mpq.Archive)(nil)
	_ codec.FoldFS = (*mpq.Chain)(nil)
	_ codec.FoldFS = archive.Layers(nil)
)

// archive.IsArchiveName is asked of every entry of every listing: with MPQ registered, it must
// not allocate.
func TestIsArchiveNameAllocates(t *testing.T) {
	names := []string{"Footman.MDX", "patch-Y.MPQ", "Map.W3x", "readme.txt"}
	if n := testing.AllocsPerRun(100, func() {
		for _, n := range names {
			archive.IsArchiveName(n)
		}
	}); n != 0 {
		t.Errorf("%v allocations", n)
	}
	if !archive.IsArchiveName("patch-Y.MPQ") || !archive.IsArchiveName("x.w3m") || archive.IsArchiveName("x.mdx") {
		t.Error("IsArchiveName misnames")
	}
}
