package m2_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/modelfs/modelfs/translate/m2"
	"github.com/modelfs/modelfs/translate/m2/m2test"
	"github.com/modelfs/modelfs/translate/scene"
)

func meshGeosets(s *scene.Scene) []uint16 {
	var ids []uint16
	for _, m := range s.Meshes {
		ids = append(ids, m.Extras["geoset"].(uint16))
	}
	return ids
}

// TestGeosets checks the default geoset choice for a character model (geoset 0 and the lowest
// id of each group), the option that keeps them all, that other models keep everything, and
// that the metadata lists every geoset.
func TestGeosets(t *testing.T) {
	for _, v := range []struct {
		version uint32
		l       m2.Layout
	}{{256, m2.LayoutClassic}, {264, m2.LayoutWrath}} {
		fs := write(t, m2test.Character(), "TestHuman", v.version, v.l)
		src := fs.Source("TestHuman.m2")
		s, err := m2.Decode(src)
		if err != nil {
			t.Fatal(err)
		}
		if got := meshGeosets(s); !slices.Equal(got, []uint16{0, 101, 401}) {
			t.Errorf("v%d: default geosets %v; want [0 101 401]", v.version, got)
		}
		listed := s.Extras["geosets"].([]m2.GeosetInfo)
		if len(listed) != 8 {
			t.Errorf("v%d: %d geosets listed; want 8", v.version, len(listed))
		}
		all, err := m2.DecodeWith(src, m2.Options{AllGeosets: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := meshGeosets(all); !slices.Equal(got, []uint16{0, 1, 2, 3, 101, 102, 401, 402}) {
			t.Errorf("v%d: all geosets %v", v.version, got)
		}
		// The same through the registry's Decode, as `convert --option` and the mount pass it.
		src.Options = map[string]string{"geosets": "all", "someone-elses": "x"}
		viaOpts, err := m2.Decode(src)
		if err != nil {
			t.Fatal(err)
		}
		if got := meshGeosets(viaOpts); !slices.Equal(got, []uint16{0, 1, 2, 3, 101, 102, 401, 402}) {
			t.Errorf("v%d: geosets=all through Source.Options gave %v", v.version, got)
		}
		src.Options = map[string]string{"geosets": "few"}
		if _, err := m2.Decode(src); err == nil {
			t.Errorf("v%d: a bad option value was accepted", v.version)
		}
	}
	// A creature keeps all its submeshes (both are geoset 0 here; the rule only applies to
	// character models).
	fs := write(t, m2test.Creature(), "TestBeast", 264, m2.LayoutWrath)
	s, err := m2.Decode(fs.Source("TestBeast.m2"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Meshes) != 2 {
		t.Errorf("creature: %d meshes; want 2", len(s.Meshes))
	}
	// The overlay layer (an additive environment map) stays in the metadata.
	if ov, _ := s.Meshes[0].Extras["overlayMaterials"].([]int); len(ov) != 1 {
		t.Errorf("mesh 0 overlay materials %v", s.Meshes[0].Extras["overlayMaterials"])
	} else if mat := s.Materials[ov[0]]; mat.AlphaMode != scene.AlphaBlend || !mat.DoubleSided || !mat.Unlit || !slices.Contains(mat.Flags, "EnvironmentMap") {
		t.Errorf("overlay material %+v", mat)
	} else if mat.Texture < 0 || s.Textures[mat.Texture].Look == nil || !s.Textures[mat.Texture].Look.Additive {
		// Blend mode Add: the picture's alpha is its brightness, so that blending adds it.
		t.Errorf("overlay material's texture %+v", s.Textures[max(mat.Texture, 0)])
	}
	if mat := s.Materials[s.Meshes[0].Material]; mat.AlphaMode != scene.AlphaMask || mat.Texture != 0 {
		t.Errorf("base material %+v", mat)
	}
	if mat := s.Materials[s.Meshes[1].Material]; mat.BaseColor != [4]float32{1, scene.SRGBToLinear(0.5), scene.SRGBToLinear(0.25), float32(16384) / 32767} || mat.TexCoord != 1 || len(s.Meshes[1].UVs) != 2 {
		t.Errorf("head material %+v with %d UV sets", mat, len(s.Meshes[1].UVs))
	}
}

// TestSkinProfiles checks the choice of skin profile: 0 by default, another on request, and the
// next one present when the one asked for is missing.
func TestSkinProfiles(t *testing.T) {
	m := m2test.Creature()
	full := m.View
	small := &m2.View{Vertices: full.Vertices[:24], Indices: full.Indices[:36], Submeshes: full.Submeshes[:1], Units: full.Units[:2], BoneCountMax: 8}
	views := []*m2.View{full, small}
	v256, err := m2test.Write(m, "TestBeast", 256, m2.LayoutClassic, views)
	if err != nil {
		t.Fatal(err)
	}
	v264, err := m2test.Write(m, "TestBeast", 264, m2.LayoutWrath, views)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		files  m2test.Files
		opt    m2.Options
		meshes int
		warn   string
	}{
		{"v256 default", v256, m2.Options{}, 2, ""},
		{"v256 profile 1", v256, m2.Options{Profile: 1}, 1, ""},
		{"v256 profile 5", v256, m2.Options{Profile: 5}, 2, "view 5 asked for"},
		{"v264 default", v264, m2.Options{}, 2, ""},
		{"v264 profile 1", v264, m2.Options{Profile: 1}, 1, ""},
		{"v264 profile 00 missing", v264.Without("TestBeast00.skin"), m2.Options{}, 1, "TestBeast00.skin not found; TestBeast01.skin used"},
	} {
		s, err := m2.DecodeWith(c.files.Source("TestBeast.m2"), c.opt)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(s.Meshes) != c.meshes {
			t.Errorf("%s: %d meshes; want %d", c.name, len(s.Meshes), c.meshes)
		}
		if c.warn != "" && !slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.Contains(w, c.warn) }) {
			t.Errorf("%s: no warning %q in %q", c.name, c.warn, s.Warnings)
		}
	}
}

func TestParseOptions(t *testing.T) {
	o, err := m2.ParseOptions(map[string]string{"geosets": "all", "profile": "2"})
	if err != nil || !o.AllGeosets || o.Profile != 2 {
		t.Errorf("%+v, %v", o, err)
	}
	for _, bad := range []map[string]string{{"geosets": "some"}, {"profile": "-1"}, {"lod": "1"}} {
		if _, err := m2.ParseOptions(bad); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

// TestSkinGuess: a creature-skin slot gets the texture beside the model as a marked guess; a
// second slot gets another file or none.
func TestSkinGuess(t *testing.T) {
	fs := write(t, m2test.Creature(), "TestBeast", 264, m2.LayoutWrath)
	fs["TestBeastSkin.blp"] = []byte("BLP2")
	s, err := m2.Decode(fs.Source("TestBeast.m2"))
	if err != nil {
		t.Fatal(err)
	}
	tx := s.Textures[0]
	if tx.Replaceable != 11 || tx.Path != "TestBeastSkin.blp" || !tx.Guess || tx.Resolved != "" {
		t.Errorf("texture 0: %+v", tx)
	}
	if tx := s.Textures[1]; tx.Guess || tx.Path != "CREATURE\\TESTBEAST\\TESTBEASTREFLECT.BLP" {
		t.Errorf("texture 1: %+v", tx)
	}
	if s.Variants != nil {
		t.Errorf("one candidate made variants %v", s.Variants)
	}
	// Without a directory listing there is nothing to guess from.
	src := fs.Source("TestBeast.m2")
	src.FS = tree{FS: src.FS, noList: true}
	if s, err := m2.Decode(src); err != nil || s.Textures[0].Path != "" || s.Textures[0].Guess {
		t.Errorf("no listing: %+v, %v", s.Textures[0], err)
	}

	// Two slots (a body and an accessory): one file each, best first, no variants.
	two := m2test.Creature()
	two.Textures = append(two.Textures, m2.Texture{Type: 12})
	two.TextureLookup = append(two.TextureLookup, 2)
	fs = write(t, two, "TestBeast", 264, m2.LayoutWrath)
	fs["TestBeastSkin.blp"], fs["TestBeastHat.blp"], fs["Zebra.blp"] = []byte("BLP2"), []byte("BLP2"), []byte("BLP2")
	if s, err = m2.Decode(fs.Source("TestBeast.m2")); err != nil {
		t.Fatal(err)
	}
	if s.Textures[0].Path != "TestBeastSkin.blp" || s.Textures[2].Path != "TestBeastHat.blp" || s.Variants != nil {
		t.Errorf("two slots: %q, %q, variants %v", s.Textures[0].Path, s.Textures[2].Path, s.Variants)
	}
}

// TestSkinVariants: one skin slot and several files beside the model make one variant per file,
// ranked by the game's naming habits, the best the default; the meshes using the slot list a
// material per variant, each showing its own copy of the texture.
func TestSkinVariants(t *testing.T) {
	fs := write(t, m2test.Creature(), "TestBeast", 264, m2.LayoutWrath)
	for _, n := range []string{"Zebra.blp", "testbeastskinwhite.BLP", "TestBeastSkin.blp", "TestBeastBlue.blp", "DarkSkin.blp", "TestBeastSkinBlack.blp", "TestBeast.txt"} {
		fs[n] = []byte("BLP2")
	}
	s, err := m2.Decode(fs.Source("TestBeast.m2"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"TestBeastSkin", "TestBeastSkinBlack", "testbeastskinwhite", "TestBeastBlue", "DarkSkin", "Zebra"}
	if !slices.Equal(s.Variants, want) {
		t.Fatalf("variants %q; want %q", s.Variants, want)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	changed := 0
	for mi, m := range s.Meshes {
		if m.VariantMaterials == nil {
			if tx := s.Materials[m.Material].Texture; tx >= 0 && s.Textures[tx].Replaceable == 11 {
				t.Errorf("mesh %d shows the skin but has no variants", mi)
			}
			continue
		}
		changed++
		if m.VariantMaterials[0] != m.Material {
			t.Errorf("mesh %d: variant 0 is material %d, not its own %d", mi, m.VariantMaterials[0], m.Material)
		}
		for v, mat := range m.VariantMaterials {
			tx := s.Textures[s.Materials[mat].Texture]
			if base := tx.Path[:len(tx.Path)-len(".blp")]; base != want[v] || !tx.Guess {
				t.Errorf("mesh %d variant %d: texture %+v", mi, v, tx)
			}
		}
	}
	if changed == 0 {
		t.Error("no mesh changes with the variants")
	}

	// More candidates than the cap: the first ones, and a warning.
	fs = write(t, m2test.Creature(), "TestBeast", 264, m2.LayoutWrath)
	for i := range 20 {
		fs[fmt.Sprintf("TestBeastSkin%02d.blp", i)] = []byte("BLP2")
	}
	if s, err = m2.Decode(fs.Source("TestBeast.m2")); err != nil {
		t.Fatal(err)
	}
	if len(s.Variants) != 16 || s.Variants[15] != "TestBeastSkin15" || !slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.Contains(w, "20 candidate") }) {
		t.Errorf("capped: %d variants, last %q, warnings %q", len(s.Variants), s.Variants[len(s.Variants)-1], s.Warnings)
	}
}

// TestRepeatedTriangles: a face drawn from both sides keeps both triangles, the repeat on copies
// of its vertices (so importers that weld faces by vertices keep it); a degenerate triangle is
// dropped.
func TestRepeatedTriangles(t *testing.T) {
	fs := write(t, m2test.Creature(), "TestBeast", 264, m2.LayoutWrath)
	s, err := m2.Decode(fs.Source("TestBeast.m2"))
	if err != nil {
		t.Fatal(err)
	}
	head := s.Meshes[1]
	if len(head.Positions) != 27 || len(head.Indices) != 39 || head.Extras["repeatedTriangles"] != 1 || head.Extras["degenerateTrianglesDropped"] != 1 {
		t.Errorf("head: %d vertices, %d triangles, extras %v", len(head.Positions), len(head.Indices)/3, head.Extras)
	}
	last := head.Indices[36:39]
	first := head.Indices[0:3]
	if last[0] != 24 || head.Positions[last[0]] != head.Positions[first[2]] || head.Positions[last[2]] != head.Positions[first[0]] {
		t.Errorf("repeated triangle %v over the first %v", last, first)
	}
}

// TestCompanionNames: the skin and .anim files are found whatever their case, through the
// companion opener (which is what makes the mount re-translate when they change).
func TestCompanionNames(t *testing.T) {
	fs := write(t, m2test.External(m2test.Creature(), 1), "TestBeast", 264, m2.LayoutWrath)
	lower := m2test.Files{}
	for n, b := range fs {
		if n == "TestBeast.m2" {
			lower[n] = b
		} else {
			lower[strings.ToLower(n)] = b
		}
	}
	src := lower.Source("TestBeast.m2")
	var opened []string
	src.FS = tree{FS: src.FS, opened: &opened}
	s, err := m2.Decode(src)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(opened)
	if want := []string{"testbeast00.skin", "testbeast0004-00.anim"}; !slices.Equal(opened, want) {
		t.Errorf("opened %q; want %q", opened, want)
	}
	if len(s.Meshes) != 2 || slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.Contains(w, "not found") }) {
		t.Errorf("%d meshes, warnings %q", len(s.Meshes), s.Warnings)
	}
}

// TestHeaderFlag8: with flag 0x8 the v264+ header is 8 bytes longer (texture combiner combos);
// the rest reads the same.
func TestHeaderFlag8(t *testing.T) {
	plain := write(t, m2test.Creature(), "TestBeast", 264, m2.LayoutWrath)
	m := m2test.Creature()
	m.Flags |= 0x8
	m.TextureCombos = []uint16{0, 1, 1}
	for _, v := range []uint32{264, 272} {
		fs := write(t, m, "TestBeast", v, m2.LayoutWrath)
		if got := u32(fs["TestBeast.m2"], 0x130); got != len(m.TextureCombos) {
			t.Errorf("v%d: %d combos at 0x130, past the usual end of the header", v, got)
		}
		s, err := m2.Decode(fs.Source("TestBeast.m2"))
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Extras["textureCombinerCombos"]; !slices.Equal(got.([]uint16), m.TextureCombos) {
			t.Errorf("v%d: combos %v", v, got)
		}
		ref, _ := m2.Decode(plain.Source("TestBeast.m2"))
		if len(s.Meshes) != len(ref.Meshes) || len(s.Animations) != len(ref.Animations) || len(s.Nodes) != len(ref.Nodes) {
			t.Errorf("v%d: %d meshes, %d animations, %d nodes", v, len(s.Meshes), len(s.Animations), len(s.Nodes))
		}
	}
}
