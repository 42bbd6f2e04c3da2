package all_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/modelfs/modelfs/internal/testkit/corpus"
	"github.com/modelfs/modelfs/internal/testkit/fixtures"
	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/gltfenc"
	"github.com/modelfs/modelfs/translate/wc3"
	"github.com/modelfs/modelfs/translate/wc3/mdx"
	"github.com/modelfs/modelfs/translate/wc3/wc3test"
)

// benchTranslate measures the whole pipeline — sniff, decode, build, validate, encode — in MB
// of source per second, on one core (run with -cpu 1).
func benchTranslate(b *testing.B, name string, data []byte, kind translate.Kind) {
	b.Helper()
	src := codec.Source{Name: name, Data: data}
	if _, err := translate.Translate(src, kind, translate.EncodeOptions{}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := translate.Translate(src, kind, translate.EncodeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGrid translates a generated 250,000-vertex grid (about 11 MB as MDX, 30+ MB as MDL).
func BenchmarkGrid(b *testing.B) {
	m := wc3test.GridModel(250000)
	bin, err := wc3test.MDX(m)
	if err != nil {
		b.Fatal(err)
	}
	text, err := wc3test.MDL(m)
	if err != nil {
		b.Fatal(err)
	}
	for _, kind := range []translate.Kind{translate.GLTF, translate.GLB} {
		b.Run("mdx-"+string(kind), func(b *testing.B) { benchTranslate(b, "grid.mdx", bin, kind) })
		b.Run("mdl-"+string(kind), func(b *testing.B) { benchTranslate(b, "grid.mdl", text, kind) })
	}
}

// BenchmarkCorpus translates each real Warcraft III file to .gltf.
func BenchmarkCorpus(b *testing.B) {
	for _, p := range corpus.Files(b, "wc3", ".mdl", ".mdx") {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(filepath.Base(p), func(b *testing.B) { benchTranslate(b, filepath.Base(p), data, translate.GLTF) })
	}
}

// BenchmarkStages splits the MDX grid translation into its stages, to show where time goes.
func BenchmarkStages(b *testing.B) {
	bin, err := wc3test.MDX(wc3test.GridModel(250000))
	if err != nil {
		b.Fatal(err)
	}
	raw, err := mdx.Read("grid.mdx", bin)
	if err != nil {
		b.Fatal(err)
	}
	s, err := wc3.Build(raw, codec.Source{Name: "grid.mdx"}, "mdx")
	if err != nil {
		b.Fatal(err)
	}
	s.MakePlain() // as the pipeline does
	stages := []struct {
		name string
		run  func() error
	}{
		{"read", func() error { _, err := mdx.Read("grid.mdx", bin); return err }},
		{"build", func() error { _, err := wc3.Build(raw, codec.Source{Name: "grid.mdx"}, "mdx"); return err }},
		{"validate", s.Validate},
		{"gltf", func() error { _, err := gltfenc.Encode(s, gltfenc.Options{}); return err }},
		{"glb", func() error { _, err := gltfenc.Encode(s, gltfenc.Options{Binary: true}); return err }},
	}
	for _, st := range stages {
		b.Run(st.name, func(b *testing.B) {
			b.SetBytes(int64(len(bin)))
			for b.Loop() {
				if err := st.run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkHeavy translates the animation-heavy fixtures (a menu scene, a unit of 148
// sequences, a dense MDL) to .glb, and reports the .glb's size against the source's.
func BenchmarkHeavy(b *testing.B) {
	for _, h := range []struct {
		name string
		m    *wc3.Model
		enc  func(*wc3.Model) ([]byte, error)
	}{
		{"HeavyMenu.mdx", fixtures.HeavyMenu(), wc3test.MDX},
		{"HeavyUnit.mdx", fixtures.HeavyUnit(), wc3test.MDX},
		{"HeavyMesh.mdl", fixtures.HeavyMesh(), wc3test.MDL},
	} {
		data, err := h.enc(h.m)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(h.name, func(b *testing.B) {
			out, err := translate.Translate(codec.Source{Name: h.name, Data: data}, translate.GLB, translate.EncodeOptions{})
			if err != nil {
				b.Fatal(err)
			}
			benchTranslate(b, h.name, data, translate.GLB)
			b.ReportMetric(float64(len(out))/float64(len(data)), "glb/source")
		})
	}
}

// BenchmarkOutputs makes every output of each Warcraft III model of the corpus and of the
// sample tree from its game tree, images included, as the mount does on a first read: decode,
// then .gltf, .glb, .json and .obj through translate.OutputsFunc.
func BenchmarkOutputs(b *testing.B) {
	type model struct{ root, path string }
	var models []model
	wc3 := filepath.Join(corpus.Dir(b), "wc3")
	for _, p := range corpus.Files(b, "wc3", ".mdl", ".mdx") {
		models = append(models, model{wc3, p})
	}
	sample := filepath.Join(corpus.RepoRoot(b), "testdata", "sample")
	for _, p := range []string{"Units/Beacon.mdx", "Units/Colossus.mdx", "Units/Crate.mdx", "Units/Swinger.mdx"} {
		models = append(models, model{sample, filepath.Join(sample, p)})
	}
	kinds := []translate.Kind{translate.GLTF, translate.GLB, translate.JSON, translate.OBJ}
	for _, m := range models {
		rel, err := filepath.Rel(m.root, m.path)
		if err != nil {
			b.Fatal(err)
		}
		r, err := os.OpenRoot(m.root)
		if err != nil {
			b.Fatal(err)
		}
		data, err := os.ReadFile(m.path)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(filepath.Base(m.path), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				src := codec.Source{Name: filepath.ToSlash(rel), Data: data, FS: codec.RootFS(r)}
				s, _, err := translate.Decode(src)
				if err != nil {
					b.Fatal(err)
				}
				translate.OutputsFunc(src, s, kinds, translate.EncodeOptions{}, func(int, translate.Doc, error) {})
			}
		})
		r.Close()
	}
}

// BenchmarkReforged translates one generated 250,000-vertex grid written as version 800, as
// version 1000 with the same geometry, and as version 1000 with tangents and skin weights too
// (32 more bytes a vertex), to .glb: what reading and building a Reforged model costs against
// the classic one.
func BenchmarkReforged(b *testing.B) {
	v800 := wc3test.GridModel(250000)
	v1000 := wc3test.GridModel(250000)
	v1000.Version = 1000
	hd := wc3test.GridModel(250000)
	hd.Version = 1000
	for i := range hd.Geosets {
		g := &hd.Geosets[i]
		g.Tangents = make([][4]float32, len(g.Vertices))
		g.Skin = make([]uint8, 8*len(g.Vertices))
		for k := range g.Vertices {
			g.Tangents[k] = [4]float32{1, 0, 0, 1}
			g.Skin[8*k+4] = 255
		}
	}
	for _, c := range []struct {
		name string
		m    *wc3.Model
	}{{"v800", v800}, {"v1000", v1000}, {"v1000-tangents-skin", hd}} {
		data, err := wc3test.MDX(c.m)
		if err != nil {
			b.Fatal(err)
		}
		if os.Getenv("MODELFS_WRITE_GRID") != "" {
			if err := os.WriteFile(filepath.Join(os.Getenv("MODELFS_WRITE_GRID"), c.name+".mdx"), data, 0o644); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(c.name, func(b *testing.B) { benchTranslate(b, "grid.mdx", data, translate.GLB) })
	}
}
