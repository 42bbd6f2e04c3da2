package m2_test

import (
	"encoding/binary"
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/m2"
	"github.com/modelfs/modelfs/translate/m2/m2test"
	"github.com/modelfs/modelfs/translate/scene"
)

// write writes a fixture model as one version.
func write(t testing.TB, m *m2.Model, base string, version uint32, l m2.Layout) m2test.Files {
	t.Helper()
	fs, err := m2test.Write(m, base, version, l, nil)
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// patched returns a copy of files with the uint32 at off of name replaced.
func patched(files m2test.Files, name string, off int, v uint32) m2test.Files {
	out := m2test.Files{}
	for n, b := range files {
		out[n] = b
	}
	b := slices.Clone(files[name])
	binary.LittleEndian.PutUint32(b[off:], v)
	out[name] = b
	return out
}

func u32(b []byte, off int) int { return int(binary.LittleEndian.Uint32(b[off:])) }

// decodeLimited decodes src and fails t if the decoder allocates more than limit bytes.
func decodeLimited(t *testing.T, src codec.Source, limit uint64) (*scene.Scene, error) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s, _, err := translate.Decode(src)
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > limit {
		t.Errorf("decoding allocated %d bytes (limit %d)", got, limit)
	}
	var ie *codec.InternalError
	if errors.As(err, &ie) {
		t.Fatalf("decoder panicked: %v", err)
	}
	return s, err
}

// TestBadFiles feeds broken models to the decoder: each gives a typed error naming the file,
// or a degraded model with a warning saying what was left out — never a panic or a large
// allocation.
func TestBadFiles(t *testing.T) {
	v264 := write(t, m2test.Creature(), "TestBeast", 264, m2.LayoutWrath)
	v256 := write(t, m2test.Creature(), "TestBeast", 256, m2.LayoutClassic)
	ext := write(t, m2test.External(m2test.Creature(), 1, 2), "TestBeast", 264, m2.LayoutWrath)
	const name = "TestBeast.m2"
	m264 := v264[name]
	bones264 := u32(m264, 0x2c+4)
	skin := v264["TestBeast00.skin"]
	animWalk := m2.AnimFileName("TestBeast", 4, 0)
	bones256 := u32(v256[name], 0x34+4)
	textures264 := u32(m264, 0x50+4)

	type errCase struct {
		name  string
		files m2test.Files
		want  string // in the error text
		typ   string // "format" or "unsupported"
	}
	errCases := []errCase{
		{"empty", m2test.Files{name: nil}, "empty file", "unsupported"},
		{"md21", m2test.Files{name: append([]byte("MD21\x10\x00\x00\x00MD20"), m264[4:]...)}, "MD21", "unsupported"},
		{"version 300", patched(v264, name, 4, 300), "version 300", "unsupported"},
		{"short header", m2test.Files{name: m264[:100]}, "header", "format"},
		{"magic only", m2test.Files{name: []byte("MD20")}, "header", "format"},
		{"sequences past the end", patched(v264, name, 0x1c, 1<<30), "sequences", "format"},
		{"bones past the end", patched(v264, name, 0x2c+4, uint32(len(m264)-10)), "bones", "format"},
		{"vertices past the end", patched(v264, name, 0x3c, 0xffffffff), "vertices", "format"},
		{"global sequences past the end", patched(v264, name, 0x14, 0x7fffffff), "global sequences", "format"},
	}
	for _, c := range errCases {
		t.Run(c.name, func(t *testing.T) {
			_, err := decodeLimited(t, c.files.Source(name), 16<<20)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q; want one naming %s and %q", err, name, c.want)
			}
			var fe *codec.FormatError
			var ue *codec.UnsupportedError
			switch {
			case c.typ == "format" && !errors.As(err, &fe):
				t.Errorf("error %T, want *codec.FormatError", err)
			case c.typ == "unsupported" && !errors.As(err, &ue):
				t.Errorf("error %T, want *codec.UnsupportedError", err)
			}
		})
	}
	// The decoder refuses MD21 itself too (the registry never hands it one).
	if _, err := m2.Decode(codec.Source{Name: name, Data: []byte("MD21\x00\x00\x00\x00")}); err == nil || !strings.Contains(err.Error(), "MD21") {
		t.Errorf("m2.Decode of MD21: %v", err)
	}

	type degCase struct {
		name    string
		files   m2test.Files
		warning string // in some warning
		check   func(t *testing.T, s *scene.Scene)
	}
	noMeshes := func(t *testing.T, s *scene.Scene) {
		nodes, meshes, _ := s.Models() // the emitters' baked quads are not the model's geometry
		if meshes != 0 || len(s.Animations) != 5 || nodes == 0 {
			t.Errorf("%d meshes, %d animations, %d nodes; want a skeleton with its animations and no geometry", meshes, len(s.Animations), nodes)
		}
	}
	degCases := []degCase{
		{"missing skin", v264.Without("TestBeast00.skin"), "no skin profile found (TestBeast00.skin)", noMeshes},
		{"skin without magic", func() m2test.Files {
			f := patched(v264, "TestBeast00.skin", 0, 0x4e494b53^0xffffffff)
			return f
		}(), "not a skin file", noMeshes},
		{"skin indices past the end", patched(v264, "TestBeast00.skin", 4+8, 1<<28), "past the end", noMeshes},
		{"skin header cut", m2test.Files{name: m264, "TestBeast00.skin": skin[:20]}, "header past the end", noMeshes},
		{"views past the end", patched(v256, name, 0x4c+4, uint32(len(v256[name])-4)), "views", noMeshes},
		{"no views", patched(v256, name, 0x4c, 0), "no views", noMeshes},
		{"missing anim files", ext.Without(animWalk, m2.AnimFileName("TestBeast", 0, 1)), animWalk, func(t *testing.T, s *scene.Scene) {
			missing, _ := s.Extras["missingAnimFiles"].([]string)
			if len(missing) != 2 || missing[0] != animWalk {
				t.Errorf("missingAnimFiles %v", s.Extras["missingAnimFiles"])
			}
			// Walk and its alias Run hold the rest pose: every channel is constant.
			for _, a := range s.Animations[1:4:4] {
				if a.Extras["animFileMissing"] != true && a.Name != "Run" {
					t.Errorf("%s: extras %v", a.Name, a.Extras)
				}
				for _, ch := range a.Channels {
					w := ch.Path.Width()
					for k := w; k < len(ch.Values); k++ {
						if ch.Values[k] != ch.Values[k%w] && s.Nodes[ch.Node].Name != "Bone2_Head" {
							t.Fatalf("%s: node %d %s moves: %v", a.Name, ch.Node, ch.Path, ch.Values)
						}
					}
				}
			}
		}},
		{"anim file cut short", func() m2test.Files {
			f := m2test.Files{}
			for n, b := range ext {
				f[n] = b
			}
			f[animWalk] = ext[animWalk][:8]
			return f
		}(), "past the end of their file", nil},
		{"track keys past the end", patched(v264, name, bones264+16+4, 1<<29), "bone 0 translation", nil},
		{"texture name past the end", patched(v264, name, u32(m264, 0x50+4)+8, 1<<20), "texture 0: file name", nil},
		{"attachments past the end", patched(v264, name, 0xf0, 1<<24), "attachments", nil},
		{"particle emitters past the end", patched(v256, name, 0x13c, 1<<24), "particle emitters", nil},
		{"particle texture out of range", func() m2test.Files {
			m := m2test.Creature()
			m.Particles[0].Texture = 99
			return write(t, m, "TestBeast", 264, m2.LayoutWrath)
		}(), "particle emitter 0: texture 99", nil},
		{"spline emitter", func() m2test.Files {
			m := m2test.Creature()
			m.Particles[0].EmitterType = 3
			return write(t, m, "TestBeast", 264, m2.LayoutWrath)
		}(), "emitter type 3 (spline or bone) is not simulated", nil},
		// The particle's colour over its life (from 264: a track of its own at 260 in the record).
		{"life track past the end", patched(v264, name, u32(m264, 0x128+4)+260, 1<<24), "life track past the end", nil},
		{"bone parent out of range", patched(v264, name, bones264+8, 0x7ff0), "parent", nil},
		{"submesh out of range", patched(v264, "TestBeast00.skin", u32(skin, 4+24+4)+8, 0xfff0), "submesh 0", nil},
		{"vertex on a missing bone", patched(v264, name, u32(m264, 0x3c+4)+16, 0x09), "bones past", nil},
		// An empty array may point anywhere: its offset is never followed.
		{"empty key times far away", patched(patched(v256, name, bones256+12+12, 0), name, bones256+12+16, 0x7ffffff0),
			"bone 0 translation", nil},
		{"empty texture name far away", patched(patched(v264, name, textures264+8, 0), name, textures264+12, 0x7ffffff0),
			"texture", func(t *testing.T, s *scene.Scene) {
				files := 0
				for _, tx := range s.Textures {
					if tx.Look == nil {
						files++ // not a picture painted from one
					}
				}
				if files != 2 {
					t.Errorf("%d textures; want both", files)
				}
			}},
	}
	for _, c := range degCases {
		t.Run(c.name, func(t *testing.T) {
			s, err := decodeLimited(t, c.files.Source(name), 16<<20)
			if err != nil {
				t.Fatalf("error %v; want a degraded model", err)
			}
			if !slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.Contains(w, c.warning) }) {
				t.Errorf("no warning about %q in %q", c.warning, s.Warnings)
			}
			if c.check != nil {
				c.check(t, s)
			}
			for _, k := range translate.Kinds {
				if _, err := translate.Encode(s, k, translate.EncodeOptions{}); err != nil {
					t.Errorf("encode %s: %v", k, err)
				}
			}
		})
	}
}

// TestNoCompanions decodes a v264 model without any companion opener (as the fuzzer does).
func TestNoCompanions(t *testing.T) {
	fs := write(t, m2test.Creature(), "TestBeast", 264, m2.LayoutWrath)
	s, _, err := translate.Decode(codec.Source{Name: "TestBeast.m2", Data: fs["TestBeast.m2"]})
	if err != nil {
		t.Fatal(err)
	}
	if _, meshes, _ := s.Models(); meshes != 0 || len(s.Animations) != 5 {
		t.Errorf("%d meshes, %d animations", meshes, len(s.Animations))
	}
}

// TestTooManyChannels: a small file whose animated tracks times sequences would make hundreds
// of thousands of channels is refused with ErrTooLarge.
func TestTooManyChannels(t *testing.T) {
	m := &m2.Model{Name: "Many", GlobalSequences: []uint32{1000}}
	for len(m.Sequences) < 3000 {
		m.Sequences = append(m.Sequences, m2.Sequence{ID: 0, End: 10, Flags: m2.SeqKeysInModel, NextVariation: -1})
	}
	// One key list on a global sequence: cheap to store, yet a channel in every sequence.
	scale := m2.Track{Interp: 1, GlobalSeq: 0, Width: 3, Keys: []m2.Keys{{Times: []uint32{0}, Values: []float32{1, 2, 1}}}}
	for len(m.Bones) < 60 {
		m.Bones = append(m.Bones, m2.Bone{KeyBone: -1, Parent: -1, Scale: scale})
	}
	fs := write(t, m, "Many", 264, m2.LayoutWrath)
	if n := len(fs["Many.m2"]); n > 256<<10 {
		t.Fatalf("the file is %d bytes, not small", n)
	}
	_, err := decodeLimited(t, fs.Source("Many.m2"), 32<<20)
	if !errors.Is(err, codec.ErrTooLarge) {
		t.Fatalf("error %v; want ErrTooLarge", err)
	}
}
