package fusefs

import (
	"archive/zip"
	"bytes"
	"crypto/rand"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/modelfs/modelfs/internal/archive/zipfs/ziptest"
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

// The third trust pass's zip findings, through the mount: a member whose checksum is wrong has
// a document saying why for every kind (9); names as in MPQ (7); a member whose sizes lie is
// listed at 0 and unreadable, and its documents say why (6); a member of 30 MiB in a 500 KB
// zip is read by four readers at once as streams (2); 400 members over one stream are refused
// and list at once (3).
func TestZipHostileMounted(t *testing.T) {
	crate, err := os.ReadFile(filepath.Join(sampleDir(t), "Units", "Crate.mdx"))
	if err != nil {
		t.Fatal(err)
	}
	bad := ziptest.True("Units/Bad.mdx", crate, 8)
	bad.CRC ^= 1
	liar := ziptest.True("Units/Liar.mdx", bytes.Repeat([]byte("x"), 1000), 8)
	liar.USize = 1 << 40
	bomb := make([]byte, 30<<20)
	pad := make([]byte, 470<<10)
	rand.Read(pad)
	src := t.TempDir()
	writeFile(t, filepath.Join(src, "Pack.zip"), ziptest.Zip(
		ziptest.True("Units/Crate.mdx", crate, 8), bad, liar,
		ziptest.True("Units/a\x00b.txt", []byte("nul"), 0),
		ziptest.True("Units/P\xe9on.txt", []byte("latin"), 8),
		ziptest.True("x/./y/../z.txt", []byte("dots"), 0),
		ziptest.True("bomb.bin", bomb, 8),
		ziptest.True("pad.bin", pad, 0)))
	writeFile(t, filepath.Join(src, "Overlap.zip"), ziptest.Zip(ziptest.Overlapping(400, 120<<20)...))
	m := mountT(t, src, vfs.Options{})

	for _, kind := range translate.Kinds {
		name := "Pack.zip/Units/Bad.mdx." + string(kind)
		fi, err := os.Stat(m.path(name))
		b, rerr := os.ReadFile(m.path(name))
		if err != nil || rerr != nil || fi.Size() == 0 || int64(len(b)) != fi.Size() || !bytes.Contains(b, []byte("checksum")) {
			t.Errorf("%s: %v, %v, %d bytes; want a document saying why", name, err, rerr, len(b))
		}
	}
	ents, err := os.ReadDir(m.path("Pack.zip/Units"))
	if got := names(ents); err != nil || !strings.Contains(got, "a\u2400b.txt") || !strings.Contains(got, "Péon.txt") {
		t.Errorf("Pack.zip/Units lists %s, %v", got, err)
	}
	for name, want := range map[string]string{"Pack.zip/UNITS/A\u2400B.TXT": "nul", "Pack.zip/units/péon.txt": "latin", "Pack.zip/x/z.txt": "dots"} {
		if b, err := os.ReadFile(m.path(name)); err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", name, b, err, want)
		}
	}
	if fi, err := os.Stat(m.path("Pack.zip/Units/Liar.mdx")); err != nil || fi.Size() != 0 {
		t.Errorf("Liar.mdx: %v, %v; want size 0", fi, err)
	}
	if _, err := os.ReadFile(m.path("Pack.zip/Units/Liar.mdx")); !errors.Is(err, syscall.EIO) {
		t.Errorf("reading Liar.mdx: %v; want EIO", err)
	}
	if b, err := os.ReadFile(m.path("Pack.zip/Units/Liar.mdx.json")); err != nil || !bytes.Contains(b, []byte("more than the")) {
		t.Errorf("Liar.mdx.json: %q, %v", b, err)
	}
	if n := m.logs.count(slog.LevelWarn, "file unreadable"); n != 1 {
		t.Errorf("%d warnings of an unreadable file; want 1, for Liar.mdx", n)
	}

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if b, err := os.ReadFile(m.path("Pack.zip/bomb.bin")); err != nil || !bytes.Equal(b, bomb) {
				t.Errorf("bomb.bin: %d bytes, %v", len(b), err)
			}
		})
	}
	wg.Wait()
	runtime.ReadMemStats(&after)
	// What the four readers themselves hold (4 × 30 MiB) aside, the mount allocates little.
	if got := after.TotalAlloc - before.TotalAlloc; got > 4*30<<20+32<<20 {
		t.Errorf("four readers of a 30 MiB member: %d bytes allocated", got)
	}

	ents, err = os.ReadDir(m.path("Overlap.zip"))
	if err != nil || len(ents) != 400*(1+len(translate.Kinds)) {
		t.Fatalf("Overlap.zip: %d entries, %v", len(ents), err)
	}
	for _, e := range ents {
		if _, err := os.Stat(m.path("Overlap.zip/" + e.Name())); err != nil {
			t.Errorf("%s: %v", e.Name(), err)
		}
	}
	if n := m.translations(); n != 0 {
		t.Errorf("%d translations; want none: the members that fail are not decoded, and nothing of the refused ones is inflated", n)
	}
}
