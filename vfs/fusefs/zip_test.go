package fusefs

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/vfs"
	"github.com/modelfs/modelfs/vfs/vfstest"
)

// zipTree writes the files of dir named by rels into a zip archive, as a mod tool does.
func zipTree(t *testing.T, dir string, rels ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, rel := range rels {
		fw, err := w.Create(rel)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(data)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A zip archive in SRC (.zip, or Reforged's .w3mod) is a folder: its models beside their
// documents, byte for byte what convert makes of the extracted files, its textures as PNG;
// a .w3mod that is no zip is the plain file it is.
func TestZipMounted(t *testing.T) {
	sample := sampleTree(t)
	rels := []string{"Units/Crate.mdx", "Units/Swinger.mdl", "Textures/Crate.blp", "Textures/Swinger.tga", "ReplaceableTextures/TeamColor/TeamColor00.blp"}
	src := t.TempDir()
	pack := zipTree(t, sample, rels...)
	writeFile(t, filepath.Join(src, "Mods", "Pack.zip"), pack)
	writeFile(t, filepath.Join(src, "Mods", "Pack.w3mod"), pack)
	writeFile(t, filepath.Join(src, "Mods", "Folder.w3mod"), []byte("a Reforged mod kept as a folder elsewhere"))
	m := mountT(t, src, vfs.Options{})
	for _, arc := range []string{"Mods/Pack.zip", "Mods/Pack.w3mod"} {
		if fi, err := os.Stat(m.path(arc)); err != nil || !fi.IsDir() {
			t.Fatalf("%s is not a folder: %v", arc, err)
		}
		for _, model := range []string{"Units/Crate.mdx", "Units/Swinger.mdl"} {
			for _, kind := range translate.Kinds {
				got, err := os.ReadFile(m.path(arc + "/" + model + "." + string(kind)))
				if err != nil {
					t.Errorf("%s/%s.%s: %v", arc, model, kind, err)
					continue
				}
				if want := vfstest.MustConvert(t, sample, model, kind); !bytes.Equal(got, want) {
					t.Errorf("%s/%s.%s: %d bytes, convert of the extracted files makes %d", arc, model, kind, len(got), len(want))
				}
			}
		}
		for _, rel := range rels { // the members themselves, byte for byte
			want, _ := os.ReadFile(filepath.Join(sample, filepath.FromSlash(rel)))
			if got, err := os.ReadFile(m.path(arc + "/" + rel)); err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s/%s: %d bytes, %v; the file has %d", arc, rel, len(got), err, len(want))
			}
		}
		png, err := os.ReadFile(m.path(arc + "/Textures/Crate.blp.png"))
		blp, _ := os.ReadFile(filepath.Join(sample, "Textures", "Crate.blp"))
		want, werr := translate.ConvertTexture("Textures/Crate.blp", blp)
		if err != nil || werr != nil || !bytes.Equal(png, want) {
			t.Errorf("%s/Textures/Crate.blp.png: %d bytes, %v", arc, len(png), err)
		}
	}
	if b, err := os.ReadFile(m.path("Mods/Folder.w3mod")); err != nil || !bytes.HasPrefix(b, []byte("a Reforged mod")) {
		t.Errorf("Mods/Folder.w3mod = %q, %v; want the plain file", b, err)
	}
}
