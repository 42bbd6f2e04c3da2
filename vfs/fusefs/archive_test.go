package fusefs

import (
	"bytes"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelfs/modelfs/internal/mpq/mpqtest"
	"github.com/modelfs/modelfs/internal/testkit/corpus"
	"github.com/modelfs/modelfs/internal/testkit/fixtures"
	"github.com/modelfs/modelfs/internal/testkit/stormlib"
	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/vfs"
	"github.com/modelfs/modelfs/vfs/vfstest"
)

// members lists the files under dir of a mount that are not virtual documents, relative to dir.
func members(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if _, _, virtual := virtualName(rel); !virtual {
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// virtualName tells a virtual document's name from a member's.
func virtualName(rel string) (src string, kind translate.Kind, ok bool) {
	ext := filepath.Ext(rel)
	kind, ok = translate.KindOf(ext)
	if !ok {
		return "", "", false
	}
	src = strings.TrimSuffix(rel, ext)
	if kind == translate.PNG {
		return src, kind, codec.IsTextureName(src)
	}
	return src, kind, codec.IsModelName(src)
}

// reference is what `modelfs convert` makes of the extracted file rel under root.
func reference(t *testing.T, root, rel string, kind translate.Kind) ([]byte, error) {
	if kind == translate.PNG {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		return translate.ConvertTexture(rel, data)
	}
	return vfstest.Convert(t, root, rel, kind)
}

// TestCorpusArchivesMounted mounts the real archives, each shown as a folder: the members are
// the ones smpq lists, with smpq's bytes, and every virtual document is what convert makes of
// the extracted tree.
func TestCorpusArchivesMounted(t *testing.T) {
	root := filepath.Join(corpus.Dir(t), "archives")
	m := mountT(t, root, vfs.Options{})
	var archives []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			archives = append(archives, p)
		}
		return err
	})
	for _, arc := range archives {
		rel, _ := filepath.Rel(root, arc)
		t.Run(rel, func(t *testing.T) {
			dir := m.path(filepath.ToSlash(rel))
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				t.Fatalf("%s is not shown as a folder: %v", rel, err)
			}
			got := members(t, dir)
			want := stormlib.List(t, arc)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("members differ from smpq -l:\n got %q\nwant %q", got, want)
			}
			extracted := stormlib.Extract(t, arc)
			for _, p := range got {
				b, err := os.ReadFile(filepath.Join(dir, p))
				ref, rerr := os.ReadFile(filepath.Join(extracted, p))
				if err != nil || rerr != nil || !bytes.Equal(b, ref) {
					t.Errorf("%s: differs from smpq -x (%v, %v)", p, err, rerr)
				}
				for _, kind := range append(slices.Clone(translate.Kinds), translate.PNG) {
					name := p + "." + string(kind)
					if _, _, ok := virtualName(name); !ok {
						continue
					}
					want, werr := reference(t, extracted, p, kind)
					got, gerr := os.ReadFile(filepath.Join(dir, name))
					switch {
					case werr != nil && kind != translate.JSON:
						if gerr == nil {
							t.Errorf("%s: read although convert fails (%v)", name, werr)
						}
					case werr != nil:
					case gerr != nil:
						t.Errorf("%s: %v", name, gerr)
					case !bytes.Equal(got, want):
						t.Errorf("%s: %d bytes differ from convert's %d on the extracted tree", name, len(got), len(want))
					}
				}
			}
		})
	}
}

// TestGameDataMounted mounts a game's Data folder: one merged tree, in load order.
func TestGameDataMounted(t *testing.T) {
	data := t.TempDir()
	crate, crateTex, err := mpqtest.WriteGameData(data)
	if err != nil {
		t.Fatal(err)
	}
	m := mountT(t, data, vfs.Options{})
	if b, err := os.ReadFile(m.path("Shared.txt")); err != nil || string(b) != "patched twice" {
		t.Errorf("Shared.txt = %q, %v; want the last patch's", b, err)
	}
	if _, err := os.Stat(m.path("Creature/Old.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Creature/Old.txt despite its deletion marker: %v", err)
	}
	plain := t.TempDir()
	writeFile(t, filepath.Join(plain, "Units", "Crate.mdx"), crate)
	writeFile(t, filepath.Join(plain, "Textures", "Crate.blp"), crateTex)
	for _, kind := range translate.Kinds {
		got, err := os.ReadFile(m.path("Units/Crate.mdx." + string(kind)))
		if err != nil {
			t.Fatal(err)
		}
		if want := vfstest.MustConvert(t, plain, "Units/Crate.mdx", kind); !bytes.Equal(got, want) {
			t.Errorf("Units/Crate.mdx.%s differs from convert of the extracted files", kind)
		}
		if fi, _ := os.Stat(m.path("Units/Crate.mdx." + string(kind))); fi == nil || fi.Size() != int64(len(got)) {
			t.Errorf("Units/Crate.mdx.%s: stat size differs from the bytes", kind)
		}
	}
	if glb, _ := os.ReadFile(m.path("Units/Crate.mdx.glb")); !bytes.Contains(glb, []byte("image/png")) {
		t.Error("the .glb embeds no image: the texture in patch.MPQ was not found")
	}
}

// TestGameDataWMO mounts a Data folder whose world object is spread over the archives: its
// root and textures in the base archive, a group in a patch, the doodads' model in a later
// patch. The WMO finds each in load order, and translates as convert does the extracted tree.
func TestGameDataWMO(t *testing.T) {
	data, plain := t.TempDir(), t.TempDir()
	creature, err := fixtures.Creature()
	if err != nil {
		t.Fatal(err)
	}
	var base, patch, patch2 []mpqtest.Member
	add := func(to *[]mpqtest.Member, f fixtures.Texture) {
		*to = append(*to, mpqtest.Member{Name: strings.ReplaceAll(f.Path, "/", `\`), Data: f.Data, Zlib: true})
		writeFile(t, filepath.Join(plain, filepath.FromSlash(f.Path)), f.Data)
	}
	for _, f := range fixtures.Hall() {
		switch {
		case strings.HasSuffix(f.Path, "_001.wmo"):
			add(&patch, f)
			base = append(base, mpqtest.Member{Name: strings.ReplaceAll(f.Path, "/", `\`), Data: []byte("an older group, patched")})
		default:
			add(&base, f)
		}
	}
	for _, f := range creature {
		if strings.HasSuffix(f.Path, ".m2") || strings.HasSuffix(f.Path, ".skin") || strings.HasSuffix(f.Path, "TestBeastSkin.blp") {
			add(&patch2, f)
		}
	}
	writeFile(t, filepath.Join(data, "common.MPQ"), mpqtest.Archive{Format: 2, Members: base}.Bytes())
	writeFile(t, filepath.Join(data, "patch.MPQ"), mpqtest.Archive{Format: 2, Members: patch}.Bytes())
	writeFile(t, filepath.Join(data, "patch-2.MPQ"), mpqtest.Archive{Format: 2, Members: patch2}.Bytes())
	m := mountT(t, data, vfs.Options{})
	const hall = "World/wmo/Hall/Hall.wmo"
	for _, kind := range translate.Kinds {
		got, err := os.ReadFile(m.path(hall + "." + string(kind)))
		if err != nil {
			t.Fatal(err)
		}
		if want := vfstest.MustConvert(t, plain, hall, kind); !bytes.Equal(got, want) {
			t.Errorf("%s.%s differs from convert of the extracted files", hall, kind)
		}
	}
	meta, _ := os.ReadFile(m.path(hall + ".json"))
	if !bytes.Contains(meta, []byte(`"warnings": []`)) || !bytes.Contains(meta, []byte(`"file": "Creature/TestBeast/TestBeast.m2"`)) {
		t.Errorf("the WMO did not find its group, doodads and textures across the archives:\n%s", meta)
	}
	for _, name := range []string{"Hall_000.wmo.gltf", "Hall_001.wmo.json"} {
		if _, err := os.Stat(m.path("World/wmo/Hall/" + name)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("a group file has a virtual file %s: %v", name, err)
		}
	}
}

// TestOneArchiveMounted mounts an archive file itself, and checks an archive that cannot be
// read shows as the plain file it is while the rest of the mount serves.
func TestOneArchiveMounted(t *testing.T) {
	dir := t.TempDir()
	arc := filepath.Join(dir, "Models.mpq")
	writeFile(t, arc, mpqtest.Archive{Members: []mpqtest.Member{
		{Name: "a\\b.txt", Data: []byte("member"), Zlib: true},
		{Name: "bad.txt", Stored: []byte{8, 0, 0, 0, 12, 0, 0, 0, 0x04, 1, 2, 3}, Size: 4096, Zlib: true},
	}}.Bytes())
	writeFile(t, filepath.Join(dir, "Broken.mpq"), []byte("not an archive at all"))
	m := mountT(t, arc, vfs.Options{})
	if b, err := os.ReadFile(m.path("a/b.txt")); err != nil || string(b) != "member" {
		t.Errorf("a/b.txt = %q, %v", b, err)
	}
	if _, err := os.ReadFile(m.path("bad.txt")); !errors.Is(err, syscall.EIO) {
		t.Errorf("a member with an unknown compression reads with %v, want EIO", err)
	}
	if m.logs.count(slog.LevelWarn, "file unreadable") == 0 {
		t.Error("the unreadable member was not logged")
	}
	// Inodes inside an archive stay while the archive does.
	ino := func(p string) uint64 {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Sys().(*syscall.Stat_t).Ino
	}
	before := ino(m.path("a/b.txt"))
	time.Sleep(1100 * time.Millisecond) // past the entry timeout: the kernel looks it up again
	if after := ino(m.path("a/b.txt")); after != before {
		t.Errorf("a member's inode changed from %d to %d", before, after)
	}

	m2 := mountT(t, dir, vfs.Options{})
	for range 3 {
		if b, err := os.ReadFile(m2.path("Broken.mpq")); err != nil || string(b) != "not an archive at all" {
			t.Errorf("Broken.mpq = %q, %v; want the plain file", b, err)
		}
		time.Sleep(1100 * time.Millisecond)
	}
	if n := m2.logs.count(slog.LevelWarn, "archive shown as a plain file"); n != 1 {
		t.Errorf("the broken archive was logged %d times, want once", n)
	}
	if ents, err := os.ReadDir(m2.dir); err != nil || !slices.ContainsFunc(ents, func(e os.DirEntry) bool { return e.Name() == "Broken.mpq" && e.Type().IsRegular() }) {
		t.Errorf("the listing does not show Broken.mpq as a plain file once it failed: %v", err)
	}
	if b, err := os.ReadFile(m2.path("Models.mpq/a/b.txt")); err != nil || string(b) != "member" {
		t.Errorf("Models.mpq/a/b.txt = %q, %v", b, err)
	}
	m3 := mountT(t, dir, vfs.Options{Archives: vfs.ArchivesOff})
	if fi, err := os.Stat(m3.path("Models.mpq")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("with archives off, Models.mpq is not a plain file: %v", err)
	}
}

// TestMapWithGame mounts a folder holding a map whose model names a texture only the game's
// archives have: with Game set it is found, after the map's own files; the map's folder still
// lists the map's members only.
func TestMapWithGame(t *testing.T) {
	crate, tex, err := fixtures.CrateFiles()
	if err != nil {
		t.Fatal(err)
	}
	dir, game := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(dir, "Crate.w3x"), mpqtest.Archive{Prefix: 512, Members: []mpqtest.Member{{Name: "Units\\Crate.mdx", Data: crate, Zlib: true}}}.Bytes())
	writeFile(t, filepath.Join(game, "war3.mpq"), mpqtest.Archive{Members: []mpqtest.Member{{Name: "Textures\\Crate.blp", Data: tex, Zlib: true}}}.Bytes())

	plain := mountT(t, dir, vfs.Options{})
	withGame := mountT(t, dir, vfs.Options{Game: game})
	a, err := os.ReadFile(plain.path("Crate.w3x/Units/Crate.mdx.glb"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(withGame.path("Crate.w3x/Units/Crate.mdx.glb"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(a, []byte("image/png")) || !bytes.Contains(b, []byte("image/png")) {
		t.Error("the stock texture should be found in the game's archives with Game set, and only then")
	}
	if got := members(t, withGame.path("Crate.w3x")); !slices.Equal(got, []string{"Units/Crate.mdx"}) {
		t.Errorf("the map's folder lists %q; want its own members only", got)
	}
}

// Names inside an archive are the game's: a lookup by any case finds the member (listings
// keep the archive's spelling), and a name holding a NUL is shown with a substitute that
// looks up. Plain folders stay as their file system has them: case counts.
func TestArchiveNamesAsTheGameSpellsThem(t *testing.T) {
	dir := t.TempDir()
	blp, err := os.ReadFile(filepath.Join(sampleDir(t), "Textures/Crate.blp"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "Map.mpq"), mpqtest.Archive{Members: []mpqtest.Member{
		{Name: "textures\\gutz.blp", Data: blp, Zlib: true},
		{Name: "odd\\a\x00b.txt", Data: []byte("member")},
	}}.Bytes())
	writeFile(t, filepath.Join(dir, "Plain/Gutz.txt"), []byte("plain"))
	m := mountT(t, dir, vfs.Options{})
	for _, rel := range []string{"Map.mpq/Textures/Gutz.blp", "Map.mpq/TEXTURES/gutz.BLP", "Map.mpq/textures/gutz.blp", "Map.mpq/Textures/Gutz.blp.png", "Map.mpq/TEXTURES/GUTZ.BLP.png"} {
		if fi, err := os.Stat(m.path(rel)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", rel, err)
		}
	}
	if n := m.translations(); n != 1 {
		t.Errorf("%d translations of one texture asked for in two spellings, want 1", n)
	}
	if ents, err := os.ReadDir(m.path("Map.mpq")); err != nil || names(ents) != "odd\ntextures\n" {
		t.Errorf("Map.mpq lists %s (%v), want the archive's own spelling", names(ents), err)
	}
	ents, err := os.ReadDir(m.path("Map.mpq/odd"))
	if err != nil || len(ents) != 1 {
		t.Fatalf("odd: %v, %v", ents, err)
	}
	if b, err := os.ReadFile(m.path("Map.mpq/odd/" + ents[0].Name())); err != nil || string(b) != "member" {
		t.Errorf("the member named with a NUL, as %q: %q, %v", ents[0].Name(), b, err)
	}
	if _, err := os.Stat(m.path("Plain/gutz.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a plain folder's file by another case: %v, want not found", err)
	}
}
