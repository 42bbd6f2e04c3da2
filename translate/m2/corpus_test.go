package m2_test

import (
	"bytes"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelfs/modelfs/internal/testkit/corpus"
	"github.com/modelfs/modelfs/internal/testkit/gltfvalidate"
	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/m2"
	"github.com/modelfs/modelfs/translate/metajson/metajsontest"
)

// corpusModel is one real model: its root (the extracted game tree) and its name under it.
type corpusModel struct{ root, name string }

// corpusModels lists the .m2 files of the corpus (skipping without it, failing under CI).
func corpusModels(t testing.TB) []corpusModel {
	t.Helper()
	var out []corpusModel
	for _, tree := range []string{"wow", "wow-classic"} {
		root := filepath.Join(corpus.Dir(t), tree)
		for _, p := range corpus.Files(t, tree, ".m2") {
			rel, _ := filepath.Rel(root, p)
			out = append(out, corpusModel{root, filepath.ToSlash(rel)})
		}
	}
	if len(out) < 2 {
		t.Fatalf("%d .m2 files in the corpus; want Rabbit.m2 and GnomePounder.m2", len(out))
	}
	return out
}

// load reads a corpus model as the mount would: companions from its tree, case-insensitively.
func load(t testing.TB, c corpusModel) codec.Source {
	t.Helper()
	r, err := os.OpenRoot(c.root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	data, err := fs.ReadFile(codec.RootFS(r), c.name)
	if err != nil {
		t.Fatal(err)
	}
	return codec.Source{Name: c.name, Data: data, FS: codec.RootFS(r)}
}

// TestCorpus checks what is known of the real files (MANIFEST.tsv and a hex reading), and
// translates them to every output kind with a valid .json and glTF the validator accepts.
func TestCorpus(t *testing.T) {
	type want struct {
		version, layout                               string
		bones, seqs, verts, tris, meshes, attachments int
		anims                                         []string
	}
	wants := map[string]want{
		"Rabbit.m2": {"264", "wrath", 40, 7, 154, 107, 1, 9,
			[]string{"Walk", "Run", "Stand", "CombatWound", "Death", "Stand_1", "Stand_2"}},
		"GnomePounder.m2": {"256", "classic", 104, 11, 3902, 3769, 11, 9,
			[]string{"Stand", "Stand_1", "Stand_2", "Stand_3", "Walk", "Run", "AttackUnarmed", "AttackUnarmed_1", "CreatureSpecial", "StandWound", "Death"}},
	}
	dir := t.TempDir()
	var gltfs []string
	for _, c := range corpusModels(t) {
		base := filepath.Base(c.name)
		t.Run(base, func(t *testing.T) {
			src := load(t, c)
			m, s := readBoth(t, src)
			w, ok := wants[base]
			if !ok {
				t.Fatalf("no expectations for %s", base)
			}
			tris := 0
			_, meshes, _ := s.Models() // the model's own, not the baked effects
			for _, mesh := range s.Meshes[:meshes] {
				tris += len(mesh.Indices) / 3
			}
			if got := m.Layout.Name; got != w.layout || len(m.Bones) != w.bones || len(m.Sequences) != w.seqs ||
				len(m.Vertices) != w.verts || tris != w.tris || meshes != w.meshes || len(m.Attachments) != w.attachments {
				t.Errorf("layout %s, %d bones, %d sequences, %d vertices, %d triangles, %d meshes, %d attachments; want %+v",
					got, len(m.Bones), len(m.Sequences), len(m.Vertices), tris, meshes, len(m.Attachments), w)
			}
			var names []string
			for _, a := range s.Animations {
				names = append(names, a.Name)
			}
			if strings.Join(names, " ") != strings.Join(w.anims, " ") {
				t.Errorf("animations %v; want %v", names, w.anims)
			}
			// Every vertex weight sums to 255 and names a bone (checked by the format notes).
			for i, v := range m.Vertices {
				sum := int(v.Weights[0]) + int(v.Weights[1]) + int(v.Weights[2]) + int(v.Weights[3])
				if sum != 255 {
					t.Fatalf("vertex %d weights sum to %d", i, sum)
				}
				for k := range 4 {
					if v.Weights[k] > 0 && int(v.Bones[k]) >= len(m.Bones) {
						t.Fatalf("vertex %d names bone %d of %d", i, v.Bones[k], len(m.Bones))
					}
				}
			}
			for _, kind := range translate.Kinds {
				out, err := translate.Translate(src, kind, translate.EncodeOptions{MTLName: base + ".mtl"})
				if err != nil {
					t.Fatalf("%s: %v", kind, err)
				}
				again, _ := translate.Translate(src, kind, translate.EncodeOptions{MTLName: base + ".mtl"})
				if !bytes.Equal(out, again) {
					t.Errorf("%s: not deterministic", kind)
				}
				switch kind {
				case translate.JSON:
					if err := metajsontest.Validate(out); err != nil {
						t.Errorf(".json: %v", err)
					}
				case translate.GLTF, translate.GLB:
					p := filepath.Join(dir, base+"."+string(kind))
					if err := os.WriteFile(p, out, 0o644); err != nil {
						t.Fatal(err)
					}
					gltfs = append(gltfs, p)
				}
			}
		})
	}
	gltfvalidate.Check(t, gltfs...)
}

// TestCompressedQuaternions decodes every compressed rotation key of the fixtures and the
// corpus to unit length — and shows that the formula matters: read as s / 32767, the same keys
// are far from unit length.
func TestCompressedQuaternions(t *testing.T) {
	type source struct {
		name string
		src  codec.Source
	}
	var srcs []source
	for _, fx := range fixtures(t) {
		if fx.version >= 260 && !strings.Contains(fx.name, "classic-bones") {
			srcs = append(srcs, source{fx.name, fx.files.Source(fx.model)})
		}
	}
	for _, c := range corpusModels(t) {
		srcs = append(srcs, source{c.name, load(t, c)})
	}
	compressed := 0
	for _, s := range srcs {
		m, err := m2.Read(s.src.Name, s.src.Data, s.src.Companion, m2.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !m.Layout.CompressedQuats {
			continue
		}
		keys, naiveOff := 0, 0
		for bi := range m.Bones {
			for _, k := range m.Bones[bi].Rotation.Keys {
				for j := 0; j+4 <= len(k.Values); j += 4 {
					q := k.Values[j : j+4]
					n := math.Sqrt(float64(q[0])*float64(q[0]) + float64(q[1])*float64(q[1]) + float64(q[2])*float64(q[2]) + float64(q[3])*float64(q[3]))
					if math.Abs(n-1) > 1e-6 {
						t.Fatalf("%s bone %d: key %v has norm %v", s.name, bi, q, n)
					}
					keys++
				}
			}
		}
		raw, err := m2.RawRotations(s.src.Name, s.src.Data, s.src.Companion)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range raw {
			// The formula's own norm, before normalising: 1 to within the int16 quantisation.
			var n, naive float64
			for i, v := range r {
				c := float64(int32(v)-32767) / 32767
				if v < 0 {
					c = float64(int32(v)+32768) / 32767
				}
				n += c * c
				naive += float64(r[i]) * float64(r[i]) / (32767 * 32767)
				if got := m2.DecodeCompQuat(r)[i]; math.Abs(float64(got)-c) > 2e-4 {
					t.Fatalf("%s: DecodeCompQuat(%v)[%d] = %v, the formula gives %v", s.name, r, i, got, c)
				}
			}
			if math.Abs(math.Sqrt(n)-1) > 2e-4 {
				t.Errorf("%s: raw key %v has norm %v before normalising", s.name, r, math.Sqrt(n))
			}
			if math.Abs(math.Sqrt(naive)-1) > 0.01 {
				naiveOff++
			}
		}
		t.Logf("%s: %d rotation keys unit length (%d raw keys checked; read as s/32767, %d of them are off by more than 1%%)", s.name, keys, len(raw), naiveOff)
		compressed += len(raw)
		if strings.HasSuffix(s.name, "Rabbit.m2") && naiveOff == 0 {
			t.Errorf("%s: the naive formula should give non-unit keys", s.name)
		}
	}
	if compressed == 0 {
		t.Fatal("no compressed quaternion checked")
	}
}
