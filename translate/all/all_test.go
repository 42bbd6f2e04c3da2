package all_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/modelfs/modelfs/internal/testkit/corpus"
	"github.com/modelfs/modelfs/internal/testkit/gltfvalidate"
	"github.com/modelfs/modelfs/translate"
	_ "github.com/modelfs/modelfs/translate/all"
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/internal/testkit/testscene"
	"github.com/modelfs/modelfs/translate/metajson/metajsontest"
	"github.com/modelfs/modelfs/translate/wc3"
	"github.com/modelfs/modelfs/translate/wc3/mdl"
	"github.com/modelfs/modelfs/translate/wc3/mdx"
)

// model is one source file to translate: its name relative to its root, and the root.
type model struct{ root, name string }

func sampleModels(t *testing.T) []model {
	root := filepath.Join(corpus.RepoRoot(t), "testdata", "sample")
	return modelsUnder(t, root)
}

// defectModels are the models of testdata/defects, each with a defect real files carry.
func defectModels(t *testing.T) []model {
	return modelsUnder(t, filepath.Join(corpus.RepoRoot(t), "testdata", "defects"))
}

// corpusModels lists the corpus's Warcraft III models, none when there is no corpus (a
// failure under CI): the checks of the project's own files run whatever the corpus.
func corpusModels(t *testing.T) []model {
	dir := corpus.Optional(t)
	if dir == "" {
		return nil
	}
	return modelsUnder(t, filepath.Join(dir, "wc3"))
}

func modelsUnder(t *testing.T, root string) []model {
	var out []model
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !codec.IsModelName(p) {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out = append(out, model{root, filepath.ToSlash(rel)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("no models under %s", root)
	}
	return out
}

func load(t *testing.T, m model) codec.Source {
	t.Helper()
	r, err := os.OpenRoot(m.root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	data, err := fs.ReadFile(codec.RootFS(r), m.name)
	if err != nil {
		t.Fatal(err)
	}
	return codec.Source{Name: m.name, Data: data, FS: codec.RootFS(r)}
}

// TestTranslateEverything translates every shipped sample and every Warcraft III corpus model to
// every output kind: the outputs are deterministic, every .json validates against the schema,
// and every .gltf and .glb passes the Khronos validator with no errors. The outputs are written
// into a tree laid out like the mount — each beside its model's path, with the images the .gltf
// files refer to (textures converted to NAME.EXT.png) — so that the validator checks the image
// references too.
func TestTranslateEverything(t *testing.T) {
	models := append(append(sampleModels(t), defectModels(t)...), corpusModels(t)...)
	var gltfs []string
	trees := map[string]string{} // source root → its mirror
	for _, m := range models {
		out, ok := trees[m.root]
		if !ok {
			out = t.TempDir()
			trees[m.root] = out
		}
		src := load(t, m)
		s, _, err := translate.Decode(src)
		if err != nil {
			t.Errorf("%s: %v", m.name, err)
			continue
		}
		for _, tex := range s.Textures {
			if tex.Look == nil { // painted pictures are embedded
				writeImage(t, m.root, out, tex.Resolved, tex.ImagePath())
			}
		}
		for _, kind := range translate.Kinds {
			opt := translate.EncodeOptions{MTLName: filepath.Base(m.name) + ".mtl"}
			a, err := translate.Translate(src, kind, opt)
			if err != nil {
				t.Errorf("%s → %s: %v", m.name, kind, err)
				continue
			}
			b, err := translate.Translate(src, kind, opt)
			if err != nil || !bytes.Equal(a, b) {
				t.Errorf("%s → %s: not deterministic (%v)", m.name, kind, err)
			}
			if kind == translate.JSON {
				if err := metajsontest.Validate(a); err != nil {
					t.Errorf("%s.json does not match the schema: %v", m.name, err)
				}
			}
			if kind == translate.GLTF || kind == translate.GLB {
				p := filepath.Join(out, filepath.FromSlash(m.name)+"."+string(kind))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, a, 0o644); err != nil {
					t.Fatal(err)
				}
				gltfs = append(gltfs, p)
			}
		}
	}
	gltfvalidate.Check(t, gltfs...)
}

// TestDefectsCostTheirPart: every model of testdata/defects translates and names its defect in
// a warning, a texture's defect included.
func TestDefectsCostTheirPart(t *testing.T) {
	for _, m := range defectModels(t) {
		s, _, err := translate.Decode(load(t, m))
		if err != nil {
			t.Errorf("%s: %v", m.name, err)
			continue
		}
		texture := strings.Contains(m.name, "JPEG") || strings.Contains(m.name, "Alpha")
		if !texture && len(s.Warnings) == 0 {
			t.Errorf("%s: no warning names its defect", m.name)
		}
		if texture {
			src := load(t, m)
			if len(s.Textures) == 0 || s.Textures[0].Resolved == "" {
				t.Fatalf("%s: no texture found: %q", m.name, s.Warnings)
			}
			data, err := src.ReadFile(s.Textures[0].Resolved)
			if err == nil {
				_, err = translate.ConvertTexture(s.Textures[0].Resolved, data)
			}
			if err != nil {
				t.Errorf("%s: its texture: %v", m.name, err)
			}
			// The .json names what the texture departs from its format in.
			doc, err := translate.Translate(src, translate.JSON, translate.EncodeOptions{})
			if err != nil || !bytes.Contains(doc, []byte("JPEG")) || !bytes.Contains(doc, []byte(s.Textures[0].Resolved+`\": offset`)) {
				t.Errorf("%s.json names no texture note (%v):\n%s", m.name, err, doc)
			}
		}
	}
}

// writeImage puts into the mirror tree out the image a .gltf refers to for the texture file
// resolved (relative to root): the file itself, or its PNG translation at imagePath.
func writeImage(t *testing.T, root, out, resolved, imagePath string) {
	t.Helper()
	if resolved == "" {
		return
	}
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(resolved)))
	if err != nil {
		t.Fatal(err)
	}
	if imagePath != resolved {
		if data, err = translate.ConvertTexture(resolved, data); err != nil {
			t.Fatalf("%s: %v", resolved, err)
		}
	}
	p := filepath.Join(out, filepath.FromSlash(imagePath))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// comparable returns a copy of m without what only one of the two forms can express: reader
// warnings and the MDX-only sequence sync points.
func comparable(m *wc3.Model) wc3.Model {
	c := *m
	c.Warnings = nil
	c.Sequences = append([]wc3.Sequence(nil), m.Sequences...)
	for i := range c.Sequences {
		c.Sequences[i].SyncPoint = 0
	}
	return c
}

// TestMDLMatchesMDX reads each model that exists in both forms and requires the same raw model
// and the same scene from both.
func TestMDLMatchesMDX(t *testing.T) {
	// The corpus pair was saved by two different tools: the MDX keeps eight global sequences,
	// the MDL only the one its helper uses (index 7 there, 0 here). Their raw models cannot be
	// equal, so for it only the scenes are compared, without the raw extras.
	type pair struct {
		mdl, mdx string
		rawEqual bool
	}
	var pairs []pair
	sample := filepath.Join(corpus.RepoRoot(t), "testdata", "sample")
	for _, m := range modelsUnder(t, sample) {
		if strings.HasSuffix(m.name, ".mdl") {
			pairs = append(pairs, pair{filepath.Join(sample, m.name), filepath.Join(sample, strings.TrimSuffix(m.name, ".mdl")+".mdx"), true})
		}
	}
	c := corpus.Dir(t)
	pairs = append(pairs, pair{filepath.Join(c, "wc3/Units/Tunable/TunableShield.mdl"), filepath.Join(c, "wc3/Units/Tunable/TunableShield.mdx"), false})
	for _, p := range pairs {
		t.Run(filepath.Base(p.mdl), func(t *testing.T) {
			textData, err := os.ReadFile(p.mdl)
			if err != nil {
				t.Fatal(err)
			}
			binData, err := os.ReadFile(p.mdx)
			if err != nil {
				t.Fatal(err)
			}
			text, err := mdl.Read(p.mdl, textData)
			if err != nil {
				t.Fatal(err)
			}
			bin, err := mdx.Read(p.mdx, binData)
			if err != nil {
				t.Fatal(err)
			}
			a, b := comparable(text), comparable(bin)
			if p.rawEqual && !reflect.DeepEqual(a, b) {
				t.Fatalf("raw models differ:\n%s", diffModels(a, b))
			}
			sa, err := wc3.Build(text, codec.Source{Name: "x"}, "x")
			if err != nil {
				t.Fatal(err)
			}
			sb, err := wc3.Build(bin, codec.Source{Name: "x"}, "x")
			if err != nil {
				t.Fatal(err)
			}
			sa.Warnings, sb.Warnings = nil, nil
			if !p.rawEqual {
				// Extras name global sequences by index, which differs between the two files.
				sa.Extras, sb.Extras = nil, nil
				for i := range sa.Animations {
					sa.Animations[i].Extras = nil
				}
				for i := range sb.Animations {
					sb.Animations[i].Extras = nil
				}
			}
			if !testscene.Same(sa, sb) {
				t.Fatal("scenes differ")
			}
			if len(sa.Nodes) == 0 || len(sa.Animations) != len(text.Sequences) {
				t.Fatalf("%d nodes, %d animations for %d sequences", len(sa.Nodes), len(sa.Animations), len(text.Sequences))
			}
		})
	}
}

// diffModels names the top-level fields that differ.
func diffModels(a, b wc3.Model) string {
	var sb strings.Builder
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	for i := 0; i < va.NumField(); i++ {
		if !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			sb.WriteString("  " + va.Type().Field(i).Name + "\n")
		}
	}
	return sb.String()
}

// TestErrorsNameTheFile checks the error text for unreadable models.
func TestErrorsNameTheFile(t *testing.T) {
	for _, tc := range []struct {
		name string
		data string
		want string
	}{
		{"quake.mdl", "IDPO\x06\x00\x00\x00", "Quake"},
		{"empty.mdx", "", "empty file"},
		{"short.mdx", "MDLX\x56\x45\x52\x53", "mdx"},
		{"junk.mdl", "Version { FormatVersion 800, }\nGeoset { Vertices 1 { { 1, 2 } } }", "mdl"},
	} {
		_, err := translate.Translate(codec.Source{Name: "dir/" + tc.name, Data: []byte(tc.data)}, translate.GLTF, translate.EncodeOptions{})
		if err == nil || !strings.Contains(err.Error(), "dir/"+tc.name) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v; want one naming the file and %q", tc.name, err, tc.want)
		}
		var fe *codec.FormatError
		var ue *codec.UnsupportedError
		if !errors.As(err, &fe) && !errors.As(err, &ue) {
			t.Errorf("%s: error %T is not typed", tc.name, err)
		}
	}
}
