package vfs

import (
	"bytes"
	"crypto/sha256"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelfs/modelfs/cache"
	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/vfs/vfstest"
)

// docBytes is what Tree.Document returns, with the document in one slice.
func docBytes(v *Version, d Doc, err error) (*Version, []byte, error) { return v, d.Bytes(), err }

// viewBytes is what ArchiveView.Document returns, with the document in one slice.
func viewBytes(d Doc, err error) ([]byte, error) { return d.Bytes(), err }

// A document in pieces reads as the same bytes in one: every offset and length, across the
// joins, past the end, and written out from any offset.
func TestDocAccess(t *testing.T) {
	whole := []byte("glTF header|PNG one|tail|PNG two")
	docs := map[string]Doc{
		"one piece": wholeDoc(whole),
		"pieces":    {pieces: [][]byte{whole[:11], whole[11:20], {}, whole[20:25], whole[25:]}, size: int64(len(whole))},
	}
	for name, d := range docs {
		if !d.Equal(whole) || !bytes.Equal(d.Bytes(), whole) || d.Size() != int64(len(whole)) {
			t.Errorf("%s: not the whole document", name)
		}
		if d.Equal(whole[1:]) || d.Equal(append(bytes.Clone(whole[:len(whole)-1]), 'x')) {
			t.Errorf("%s: equal to other bytes", name)
		}
		for off := int64(-1); off <= int64(len(whole))+1; off++ {
			for n := int64(0); n <= int64(len(whole))+2; n++ {
				end := min(max(off, 0)+n, int64(len(whole)))
				var want []byte
				if off >= 0 && off < int64(len(whole)) {
					want = whole[off:end]
				}
				b, ok := d.Slice(off, n)
				if ok && !bytes.Equal(b, want) {
					t.Fatalf("%s: Slice(%d, %d) = %q; want %q", name, off, n, b, want)
				}
				if !ok && off >= 0 && len(d.pieces) == 1 {
					t.Fatalf("%s: Slice(%d, %d) copies", name, off, n)
				}
				p := make([]byte, n)
				m, err := d.ReadAt(p, off)
				switch {
				case off < 0:
					if err == nil {
						t.Fatalf("%s: ReadAt at %d: no error", name, off)
					}
				case !bytes.Equal(p[:m], want) || (m < int(n)) != (err == io.EOF):
					t.Fatalf("%s: ReadAt(%d, %d) = %q, %v; want %q", name, n, off, p[:m], err, want)
				}
			}
			if off < 0 {
				continue
			}
			var w bytes.Buffer
			n, err := d.WriteFrom(&w, off)
			if want := whole[min(off, int64(len(whole))):]; err != nil || n != int64(len(want)) || !bytes.Equal(w.Bytes(), want) {
				t.Fatalf("%s: WriteFrom(%d) = %q, %d, %v", name, off, w.Bytes(), n, err)
			}
		}
		if b, err := io.ReadAll(d.Reader()); err != nil || !bytes.Equal(b, whole) {
			t.Errorf("%s: Reader gives %q, %v", name, b, err)
		}
	}
}

// A .glb keeps the PNGs it embeds as references to its textures' own documents, in memory and
// on disk: the bytes are convert's, the texture's PNG is held once, and a .glb whose PNG has
// been let go by both tiers gets it from the texture again.
func TestPiecedGLB(t *testing.T) {
	src, dir := sampleTree(t), t.TempDir()
	const model, texture = "Units/Crate.mdx", "Textures/Crate.blp"
	want := vfstest.MustConvert(t, src, model, translate.GLB)
	data, err := os.ReadFile(filepath.Join(src, texture))
	if err != nil {
		t.Fatal(err)
	}
	png, err := translate.ConvertTexture(texture, data)
	if err != nil || !bytes.Contains(want, png) {
		t.Fatalf("the sample .glb does not embed %s's PNG (%v)", texture, err)
	}

	read := func(f *Tree) (*Version, Doc) {
		t.Helper()
		fi, err := f.SourceInfo(model)
		if err != nil {
			t.Fatal(err)
		}
		v, doc, err := f.Document(t.Context(), model, fi, translate.GLB, NeedBytes)
		if err != nil || !doc.Equal(want) || v.Size(translate.GLB) != int64(len(want)) {
			t.Fatalf("%d bytes (size %d, %v); convert writes %d", doc.Size(), v.Size(translate.GLB), err, len(want))
		}
		return v, doc
	}

	f := openTree(t, src, dir)
	v, doc := read(f)
	stored, ok := f.stored(v, translate.GLB)
	if !ok || !isPieced(stored) || len(stored) > len(want)-len(png)+256 {
		t.Errorf("memory holds %d bytes (pieced %v) for a .glb of %d embedding a PNG of %d", len(stored), isPieced(stored), len(want), len(png))
	}
	// What the read got is the memory tier's: no copy of the .glb or of the PNG beside it.
	tpng, _ := f.mem.Get(memKey(versionID(f.sourceKey(texture, sha256.Sum256(data)), nil), translate.PNG))
	within := func(p []byte) bool {
		for i := range stored {
			if &stored[i] == &p[0] {
				return true
			}
		}
		return false
	}
	for _, p := range doc.pieces {
		if len(p) > 0 && &p[0] != &tpng[0] && !within(p) {
			t.Errorf("a piece of %d bytes is a copy", len(p))
		}
	}
	e, err := f.disk.Get(v.key)
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := e.Size(kindName(translate.GLB)); !ok || n > int64(len(want)-len(png)+256) {
		t.Errorf("the disk entry holds %d bytes for the .glb", n)
	}
	e.Close()
	f.close()

	// Another mount of the cache: nothing is translated.
	g := openTree(t, src, dir)
	read(g)
	if n := g.translations.Load(); n != 0 {
		t.Errorf("%d translations after remounting", n)
	}

	// The texture's PNG gone from both tiers: the texture is translated again, not the model.
	tkey := g.sourceKey(texture, sha256.Sum256(data))
	g.mem.Remove(memKey(versionID(tkey, nil), translate.PNG))
	v, _ = read(g) // from memory still
	g.mem.Remove(memKey(versionID(tkey, nil), translate.PNG))
	g.mem.Remove(memKey(v.id, translate.GLB))
	removeEntry(t, dir, tkey)
	var translated []string
	g.opt.OnTranslate = func(name string) { translated = append(translated, name) }
	read(g)
	if strings.Join(translated, " ") != texture {
		t.Errorf("translated %q; want the texture alone", translated)
	}
}

// removeEntry deletes the disk tier's entry of key from the cache directory dir.
func removeEntry(t *testing.T, dir string, key cache.Key) {
	t.Helper()
	found := false
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), key.String()) {
			found = os.Remove(p) == nil || found
		}
		return nil
	})
	if !found {
		t.Fatalf("no entry %s in %s", key, dir)
	}
}

// A damaged stored form is refused whatever the damage; never a panic or a read outside it.
func TestDamagedPieced(t *testing.T) {
	f := openTree(t, sampleTree(t), t.TempDir())
	glb := []byte("glTF-and-json-chunk")
	png := []byte("\x89PNG-data")
	var key cache.Key
	doc := translate.Doc{glb, png, []byte("tail")}
	stored, d, ok := piecedForm(doc, func(p []byte) (sharedPNG, bool) {
		return sharedPNG{name: "Textures/None.blp", key: key, size: len(png)}, bytes.Equal(p, png)
	})
	if !ok || !d.Equal(doc.Bytes()) {
		t.Fatal("not pieced")
	}
	// The pieces of its own are the stored form's memory; the PNG the texture's.
	if &d.pieces[0][0] != &stored[bytes.Index(stored, glb)] || &d.pieces[1][0] != &png[0] {
		t.Error("the document's pieces are not the stored form's and the texture's")
	}
	if n, ok := piecedSize(stored); !ok || n != int64(len(glb)+len(png)+4) {
		t.Errorf("size %d, %v", n, ok)
	}
	for i := range stored {
		if _, ok := f.docOf(t.Context(), f, translate.GLB, stored[:i]); ok && i >= len(piecedMagic) {
			t.Errorf("taken truncated to %d bytes", i)
		}
		b := bytes.Clone(stored)
		b[i] ^= 0xff
		f.docOf(t.Context(), f, translate.GLB, b)
	}
	if _, ok := f.docOf(t.Context(), f, translate.GLB, stored); ok {
		t.Error("a reference to a texture that is not there was taken")
	}
	if d, ok := f.docOf(t.Context(), f, translate.OBJ, stored); !ok || !d.Equal(stored) {
		t.Error("a document of a kind never pieced was taken apart")
	}
}

// FuzzStoredForms feeds damaged stored documents and entry metadata to their readers.
func FuzzStoredForms(f *testing.F) {
	var key cache.Key
	stored, _, _ := piecedForm(translate.Doc{[]byte("glTF"), []byte("PNG"), []byte("x")}, func(p []byte) (sharedPNG, bool) {
		return sharedPNG{name: "Textures/Crate.blp", key: key, size: 3}, string(p) == "PNG"
	})
	f.Add(stored)
	m := entryMeta{deps: []dep{{op: depFile, name: "a.blp"}}, pieced: [numKinds]int64{2: 1234}}
	f.Add(m.encode())
	tree, err := Open(f.TempDir(), Options{})
	if err != nil {
		f.Fatal(err)
	}
	defer tree.Close()
	f.Fuzz(func(t *testing.T, b []byte) {
		if d, ok := tree.docOf(t.Context(), tree, translate.GLB, b); ok && !isPieced(b) && !d.Equal(b) {
			t.Error("a whole document changed")
		}
		if m, err := decodeEntryMeta(b); err == nil {
			again, err := decodeEntryMeta(m.encode())
			if err != nil || again.pieced != m.pieced || again.fails != m.fails || len(again.deps) != len(m.deps) {
				t.Errorf("no round trip: %v", err)
			}
		}
	})
}
