package m2_test

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/modelfs/modelfs/internal/testkit/gltfvalidate"
	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/m2"
	"github.com/modelfs/modelfs/translate/m2/m2test"
	"github.com/modelfs/modelfs/translate/metajson/metajsontest"
	"github.com/modelfs/modelfs/translate/scene"
)

// fixture is one test model written in one version.
type fixture struct {
	name    string // e.g. "creature-v256"
	model   string // the .m2 file name
	files   m2test.Files
	version uint32
}

// fixtures writes each fixture model in every version the writer knows.
func fixtures(t testing.TB) []fixture {
	t.Helper()
	models := []struct {
		name string
		base string
		make func() *m2.Model
	}{
		{"creature", "TestBeast", m2test.Creature},
		{"creature-anim-files", "TestBeast", func() *m2.Model { return m2test.External(m2test.Creature(), 1, 2) }},
		{"character", "TestHuman", m2test.Character},
	}
	var out []fixture
	for _, md := range models {
		for _, v := range m2test.Versions {
			files, err := m2test.Write(md.make(), md.base, v.Version, v.Layout, nil)
			if err != nil {
				t.Fatalf("%s %s: %v", md.name, v.Name, err)
			}
			out = append(out, fixture{md.name + "-" + v.Name, md.base + ".m2", files, v.Version})
		}
	}
	return out
}

func decode(t testing.TB, files m2test.Files, name string) *scene.Scene {
	t.Helper()
	s, f, err := translate.Decode(files.Source(name))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if f.Name != m2.Format {
		t.Fatalf("%s: sniffed as %s", name, f.Name)
	}
	return s
}

// TestFixturesTranslate translates every fixture in every version to every output kind: the
// outputs are deterministic, the .json matches its schema, the glTF passes the Khronos
// validator with no errors, and the scene has what the model holds.
func TestFixturesTranslate(t *testing.T) {
	dir := t.TempDir()
	var gltfs []string
	for _, fx := range fixtures(t) {
		t.Run(fx.name, func(t *testing.T) {
			src := fx.files.Source(fx.model)
			m, err := m2.Read(fx.model, src.Data, src.Companion, m2.Options{})
			if err != nil {
				t.Fatal(err)
			}
			s := decode(t, fx.files, fx.model)
			if len(s.Animations) != len(m.Sequences) {
				t.Errorf("%d animations for %d sequences", len(s.Animations), len(m.Sequences))
			}
			for _, a := range s.Animations {
				if len(a.Channels) == 0 {
					t.Errorf("animation %s has no channels", a.Name)
				}
			}
			nodes, _, _ := s.Models()
			if want := len(m.Bones) + len(m.Attachments) + len(m.Particles) + len(m.Ribbons); nodes != want || len(s.Skins) != 1 || len(s.Skins[0].Joints) != want {
				t.Errorf("%d nodes, skins %v; want %d nodes, all joints", nodes, s.Skins, want)
			}
			for _, w := range s.Warnings {
				if !strings.Contains(w, "texture not found") && !strings.Contains(w, "layout") {
					t.Errorf("unexpected warning: %s", w)
				}
			}
			for _, kind := range translate.Kinds {
				opt := translate.EncodeOptions{MTLName: fx.name + ".mtl"}
				a, err := translate.Translate(src, kind, opt)
				if err != nil {
					t.Fatalf("%s: %v", kind, err)
				}
				b, err := translate.Translate(src, kind, opt)
				if err != nil || !bytes.Equal(a, b) {
					t.Errorf("%s: not deterministic (%v)", kind, err)
				}
				switch kind {
				case translate.JSON:
					if err := metajsontest.Validate(a); err != nil {
						t.Errorf(".json does not match the schema: %v", err)
					}
				case translate.GLTF, translate.GLB:
					p := filepath.Join(dir, fx.name+"."+string(kind))
					if err := os.WriteFile(p, a, 0o644); err != nil {
						t.Fatal(err)
					}
					gltfs = append(gltfs, p)
				}
			}
		})
	}
	gltfvalidate.Check(t, gltfs...)
}

// comparable strips from a scene what legitimately differs between versions: the version, the
// legacy timeline windows, the layout named in the metadata and layout-detection warnings, and
// the baked effects (their random numbers come from the file's bytes).
func comparable(s *scene.Scene) *scene.Scene {
	c := *s
	c.Source.Version = 0
	nodes, meshes, shapes := s.Models()
	c.Nodes, c.Meshes, c.Shapes, c.Effects, c.Emitters = s.Nodes[:nodes], s.Meshes[:meshes], s.Shapes[:shapes], scene.Effects{}, nil
	c.Warnings = slices.DeleteFunc(slices.Clone(s.Warnings), func(w string) bool { return strings.Contains(w, "layout") })
	c.Animations = slices.Clone(s.Animations)
	for i := range c.Animations {
		a := &c.Animations[i]
		a.Start, a.End = 0, 0
		a.Channels = slices.DeleteFunc(slices.Clone(a.Channels), func(ch scene.Channel) bool { return ch.Node >= nodes })
		ex := scene.Extras{}
		for k, v := range a.Extras {
			if k != "window" && k != "animFile" {
				ex[k] = v
			}
		}
		a.Extras = ex
	}
	// The metadata summarises tracks as stored, which differs between the timeline and the
	// per-sequence layouts; the geoset choice must not.
	c.Extras = scene.Extras{}
	for k, v := range s.Extras {
		switch k {
		case "geosets", "geosetPolicy", "missingAnimFiles", "globalSequences":
			c.Extras[k] = v
		}
	}
	c.Nodes = slices.Clone(c.Nodes)
	for i := range c.Nodes {
		ex := scene.Extras{}
		for k, v := range c.Nodes[i].Extras {
			if k != "nameCRC" {
				ex[k] = v
			}
		}
		c.Nodes[i].Extras = ex
	}
	return &c
}

// TestSameAcrossVersions writes the same model as v256, v260–263 (each layout), v264 and v272
// and requires the same geometry, skeleton, materials and animation keys from all.
func TestSameAcrossVersions(t *testing.T) {
	byModel := map[string]*scene.Scene{}
	for _, fx := range fixtures(t) {
		model := fx.name[:strings.LastIndex(fx.name, "-v")]
		s := comparable(decode(t, fx.files, fx.model))
		ref, ok := byModel[model]
		if !ok {
			byModel[model] = s
			continue
		}
		if !reflect.DeepEqual(ref.Meshes, s.Meshes) {
			t.Errorf("%s: meshes differ from the first version's", fx.name)
		}
		if !reflect.DeepEqual(ref.Nodes, s.Nodes) || !reflect.DeepEqual(ref.Skins, s.Skins) {
			t.Errorf("%s: skeleton differs from the first version's", fx.name)
		}
		if !reflect.DeepEqual(ref.Materials, s.Materials) || !reflect.DeepEqual(ref.Textures, s.Textures) {
			t.Errorf("%s: materials or textures differ from the first version's", fx.name)
		}
		if len(ref.Animations) != len(s.Animations) {
			t.Fatalf("%s: %d animations, first version %d", fx.name, len(s.Animations), len(ref.Animations))
		}
		for i := range s.Animations {
			if !reflect.DeepEqual(ref.Animations[i], s.Animations[i]) {
				a, b := ref.Animations[i], s.Animations[i]
				t.Errorf("%s: animation %s differs from the first version's", fx.name, a.Name)
				for c := range min(len(a.Channels), len(b.Channels)) {
					if !reflect.DeepEqual(a.Channels[c], b.Channels[c]) {
						t.Logf("  channel %d (node %d %s):\n  first %v %v\n  this  %v %v", c, a.Channels[c].Node, a.Channels[c].Path,
							a.Channels[c].Times, a.Channels[c].Values, b.Channels[c].Times, b.Channels[c].Values)
						break
					}
				}
				if !reflect.DeepEqual(a.Extras, b.Extras) {
					t.Logf("  extras\n  first %v\n  this  %v", a.Extras, b.Extras)
				}
			}
		}
		if !reflect.DeepEqual(ref.Extras, s.Extras) {
			for k := range ref.Extras {
				if !reflect.DeepEqual(ref.Extras[k], s.Extras[k]) {
					t.Errorf("%s: extras %q differ from the first version's:\n%v\n%v", fx.name, k, ref.Extras[k], s.Extras[k])
				}
			}
		}
		if !slices.Equal(ref.Warnings, s.Warnings) {
			t.Errorf("%s: warnings differ:\n%q\n%q", fx.name, ref.Warnings, s.Warnings)
		}
	}
	if len(byModel) != 3 {
		t.Fatalf("%d models compared", len(byModel))
	}
}
