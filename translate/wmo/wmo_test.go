package wmo

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/modelfs/modelfs/internal/testkit/gltfvalidate"
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/gltfenc"
	"github.com/modelfs/modelfs/translate/m2"
	"github.com/modelfs/modelfs/translate/m2/m2test"
	"github.com/modelfs/modelfs/translate/objenc"
	"github.com/modelfs/modelfs/translate/scene"
	"github.com/modelfs/modelfs/translate/wmo/wmotest"
)

// fixture is a WMO with every class the reader handles: two groups of batches (one with
// vertex colours, two UV sets, a collision-only triangle and a liquid with an empty tile, one
// without batches), a third group whose file is missing, two doodad sets and a light.
func fixture() *wmotest.Root {
	q := float32(math.Sqrt2 / 2)
	return &wmotest.Root{
		Materials: []wmotest.Material{
			{Blend: 0, Texture: `World\Tex\Wall.blp`, Texture2: `World\Tex\WallGlow.blp`},
			{Blend: 1, Flags: 0x4, Texture: `World\Tex\Fence.blp`},
			{Blend: 3, Flags: 0x10 | 0x1, Texture: `World\Tex\Window.blp`, Emissive: [4]uint8{0, 128, 255, 255}},
		},
		Groups: []wmotest.Group{
			{
				Name:      "Hall",
				Vertices:  [][3]float32{{0, 0, 0}, {4, 0, 0}, {4, 0, 3}, {0, 0, 3}, {1, 2, 3}, {9, 9, 9}},
				Normals:   [][3]float32{{0, -1, 0}, {0, -1, 0}, {0, -1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, 1}},
				UVs:       [][][2]float32{{{0, 1}, {1, 1}, {1, 0}, {0, 0}, {0, 0}, {0, 0}}, {{0, 0}, {2, 0}, {2, 2}, {0, 2}, {0, 0}, {0, 0}}},
				Colors:    [][4]uint8{{0, 0, 255, 255}, {0, 255, 0, 255}, {255, 0, 0, 255}, {255, 255, 255, 128}, {0, 0, 0, 0}, {0, 0, 0, 0}},
				Triangles: [][3]uint16{{0, 1, 2}, {0, 2, 3}, {1, 4, 2}, {3, 4, 5}},
				Materials: []uint8{0, 0, 1, 0xFF},
				Batches:   []wmotest.Batch{{Start: 0, Count: 6, Material: 0}, {Start: 6, Count: 6, Material: 1}},
				Liquid:    &wmotest.Liquid{XTiles: 2, YTiles: 2, Corner: [3]float32{0, 0, 0.5}, Height: 0.5, Empty: map[[2]int]bool{{1, 1}: true}},
			},
			{
				Name:      "Tower",
				Vertices:  [][3]float32{{0, 0, 10}, {1, 0, 10}, {0, 1, 10}},
				Normals:   [][3]float32{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}},
				UVs:       [][][2]float32{{{0, 0}, {1, 0}, {0, 1}}},
				Triangles: [][3]uint16{{0, 1, 2}},
				Materials: []uint8{2},
			},
			{Name: "Cellar"}, // its file is left out by Files' caller
		},
		Sets: []wmotest.Set{{Name: "Set_$DefaultGlobal", First: 0, Count: 2}, {Name: "Set_Party", First: 2, Count: 2}},
		Doodads: []wmotest.Doodad{
			{Model: `World\Generic\Barrel.mdx`, Position: [3]float32{1, 2, 3}, Rotation: [4]float32{0, 0, q, q}, Scale: 1, Color: [4]uint8{255, 255, 255, 255}},
			{Model: `World\Generic\Barrel.mdx`, Position: [3]float32{-1, -2, 0}, Rotation: [4]float32{0, 0, 0, 1}, Scale: 2},
			{Model: `World\Generic\Banner.mdx`, Position: [3]float32{0, 5, 2}, Rotation: [4]float32{0, 0, 0, 1}, Scale: 1},
			{Model: `World\GENERIC\barrel.MDX`, Position: [3]float32{3, 3, 0}, Rotation: [4]float32{0, 0, 0, 1}, Scale: 0.5},
		},
		Lights: []wmotest.Light{{Type: 0, Color: [4]uint8{0, 128, 255, 255}, Position: [3]float32{0, 0, 2}, Intensity: 1.5},
			{Type: 2, Color: [4]uint8{255, 255, 255, 255}, Position: [3]float32{0, 0, 9}, Intensity: 0.5},
			{Type: 3, Color: [4]uint8{40, 40, 40, 255}, Intensity: 1}},
		Skybox:  `Environments\Stars\Sky.mdx`,
		Portals: 1,
	}
}

// fixtureFS is the fixture's files under World/Hall.wmo, without group 2, and the barrel's
// model (named in other cases than MODN's) without the banner's.
func fixtureFS() fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, b := range fixture().Files("World/Hall.wmo") {
		if !strings.HasSuffix(name, "_002.wmo") {
			fsys[name] = &fstest.MapFile{Data: b}
		}
	}
	files, err := m2test.Write(barrel(), "barrel", 264, m2.LayoutWrath, nil)
	if err != nil {
		panic(err)
	}
	for name, b := range files {
		fsys["World/generic/"+name] = &fstest.MapFile{Data: b}
	}
	return fsys
}

// barrel is the fixture's doodad model: the test creature, whose meshes are skinned.
func barrel() *m2.Model { return m2test.Creature() }

func decodeFixture(t *testing.T) *scene.Scene {
	t.Helper()
	fsys := fixtureFS()
	s, err := Decode(codec.Source{Name: "World/Hall.wmo", Data: fsys["World/Hall.wmo"].Data, FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestFixture(t *testing.T) {
	s := decodeFixture(t)
	if !slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.Contains(w, "group 2: Hall_002.wmo") }) {
		t.Errorf("no warning for the missing group: %q", s.Warnings)
	}
	if len(s.Shapes) != 3 || s.Shapes[0].Name != "Hall" || s.Shapes[1].Name != "Tower" {
		t.Fatalf("shapes %+v", s.Shapes)
	}
	hall := s.Shapes[0]
	if len(hall.Meshes) != 3 {
		t.Fatalf("Hall has %d meshes; want 2 batches and the liquid", len(hall.Meshes))
	}
	b0, b1, liq := &s.Meshes[hall.Meshes[0]], &s.Meshes[hall.Meshes[1]], &s.Meshes[hall.Meshes[2]]
	// Batch 1 covers triangles 2 and 3; 3 is collision only.
	if len(b0.Indices) != 6 || len(b1.Indices) != 3 || b1.Material != 1 {
		t.Errorf("batches: %d and %d indices, material %d", len(b0.Indices), len(b1.Indices), b1.Material)
	}
	if got := s.Extras["collisionOnlyTriangles"]; got != 1 {
		t.Errorf("collision-only triangles %v, want 1", got)
	}
	// Z-up to Y-up: (4, 0, 3) → (4, 3, −0).
	if !slices.Contains(b0.Positions, [3]float32{4, 3, 0}) || !slices.Contains(b1.Positions, [3]float32{1, 3, -2}) {
		t.Errorf("positions %v / %v", b0.Positions, b1.Positions)
	}
	if len(b0.UVs) != 2 || len(b0.Colors) != len(b0.Positions) {
		t.Fatalf("batch 0: %d UV sets, %d colours", len(b0.UVs), len(b0.Colors))
	}
	// BGRA (0, 0, 255) is red; the alpha is not the surface's.
	if c := b0.Colors[0]; c != [4]float32{1, 0, 0, 1} {
		t.Errorf("first vertex colour %v, want red", c)
	}
	// The liquid: 3 of 4 tiles, at height 0.5.
	if len(liq.Indices) != 18 || liq.Positions[0][1] != 0.5 || s.Materials[liq.Material].AlphaMode != scene.AlphaBlend {
		t.Errorf("liquid: %d indices, first at %v", len(liq.Indices), liq.Positions[0])
	}
	// The tower has no batches: one mesh for its material.
	if tw := &s.Meshes[s.Shapes[1].Meshes[0]]; len(s.Shapes[1].Meshes) != 1 || tw.Material != 2 || len(tw.Indices) != 3 {
		t.Errorf("tower %+v", tw)
	}
	m0, m1, m2 := s.Materials[0], s.Materials[1], s.Materials[2]
	if m0.AlphaMode != scene.AlphaOpaque || s.Textures[m0.Texture].Path != `World\Tex\Wall.blp` || m0.Extras["texture2"] != `World\Tex\WallGlow.blp` {
		t.Errorf("material 0 %+v", m0)
	}
	if m1.AlphaMode != scene.AlphaMask || !m1.DoubleSided {
		t.Errorf("material 1 %+v", m1)
	}
	if m2.AlphaMode != scene.AlphaBlend || !m2.Unlit || m2.Emission == nil || m2.Emission.Factor[0] != 1 {
		t.Errorf("material 2 %+v (emission %+v)", m2, m2.Emission)
	}
	// The omni light is a point light, the directional one shines down, the ambient one is in
	// the extras alone.
	if len(s.Lights) != 2 {
		t.Fatalf("lights %+v", s.Lights)
	}
	omni, sun := s.Lights[0], s.Lights[1]
	if omni.Type != scene.LightPoint || omni.Intensity != 1.5 || omni.Color[0] != 1 || omni.Color[2] != 0 ||
		s.Nodes[omni.Node].Translation != [3]float32{0, 2, 0} {
		t.Errorf("omni light %+v at %v", omni, s.Nodes[omni.Node].Translation)
	}
	if down := rotate(s.Nodes[sun.Node].Rotation, [3]float32{0, 0, -1}); sun.Type != scene.LightDirectional || !near(down, [3]float32{0, -1, 0}) {
		t.Errorf("directional light %+v shines along %v", sun, down)
	}
	for _, name := range []string{"lights", "doodadModels", "skybox", "portals"} {
		if _, ok := s.Extras[name]; !ok {
			t.Errorf("extras lack %s", name)
		}
	}
}

// Every doodad of every set is a node at its MODD place, after the axis conversion, under a
// node named after its set.
func TestDoodadPlaces(t *testing.T) {
	s := decodeFixture(t)
	fx := fixture()
	var sets []int
	for i, n := range s.Nodes {
		if _, ok := n.Extras["doodadSet"]; ok {
			sets = append(sets, i)
		}
	}
	if len(sets) != 2 || s.Nodes[sets[0]].Name != "Set_$DefaultGlobal" || s.Nodes[sets[1]].Name != "Set_Party" {
		t.Fatalf("set nodes %v", sets)
	}
	// Only the default set is shown.
	for _, i := range sets {
		set := &s.Nodes[i]
		if shown := set.Extras["shown"] == true; shown != (set.Scale == [3]float32{1, 1, 1}) || shown != (set.Name == "Set_$DefaultGlobal") {
			t.Errorf("set %s: scale %v, shown %v", set.Name, set.Scale, set.Extras["shown"])
		}
		set.Scale = [3]float32{1, 1, 1} // shown, to measure where its doodads draw
	}
	placed := 0
	for _, n := range s.Nodes {
		di, ok := n.Extras["doodad"].(int)
		if !ok {
			continue
		}
		placed++
		d := fx.Doodads[di]
		world := worldPoint(s, n, [3]float32{})
		want := [3]float32{d.Position[0], d.Position[2], -d.Position[1]}
		if !near(world, want) {
			t.Errorf("doodad %d at %v, want %v", di, world, want)
		}
		if base := d.Model[strings.LastIndex(d.Model, `\`)+1:]; n.Name != base[:len(base)-len(".mdx")] {
			t.Errorf("doodad %d named %q", di, n.Name)
		}
	}
	if placed != 4 {
		t.Errorf("%d doodads placed, want 4", placed)
	}
	// The first doodad turns a quarter about Z (WoW's up): its +X points along WoW's +Y,
	// the scene's −Z.
	for _, n := range s.Nodes {
		if n.Extras["doodad"] == 0 {
			if got := sub(worldPoint(s, n, [3]float32{1, 0, 0}), worldPoint(s, n, [3]float32{})); !near(got, [3]float32{0, 0, -1}) {
				t.Errorf("doodad 0 turns +X to %v, want (0, 0, −1)", got)
			}
		}
	}
}

// Each doodad model is read once and drawn at its doodads' nodes, still, as it rests; a missing
// one leaves empty nodes that say why, with a warning.
func TestDoodadModels(t *testing.T) {
	s := decodeFixture(t)
	fsys := fixtureFS()
	ref, err := m2.Decode(codec.Source{Name: "World/generic/barrel.m2", Data: fsys["World/generic/barrel.m2"].Data, FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	var sh *scene.Shape
	for i := range s.Shapes {
		if s.Shapes[i].Name == "barrel" {
			sh = &s.Shapes[i]
		}
	}
	if sh == nil || len(s.Shapes) != 3 {
		t.Fatalf("shapes %+v", s.Shapes)
	}
	var want [][3]float32
	for _, m := range ref.Meshes {
		if !m.Hidden {
			want = append(want, m.Positions...)
		}
	}
	var got [][3]float32
	for _, mi := range sh.Meshes {
		m := &s.Meshes[mi]
		if m.Skin >= 0 || m.Joints != nil || m.Material < 0 {
			t.Errorf("mesh %s: skin %d, material %d", m.Name, m.Skin, m.Material)
		}
		got = append(got, m.Positions...)
	}
	if !slices.Equal(got, want) {
		t.Errorf("the barrel's meshes have %d positions, its model %d shown", len(got), len(want))
	}
	if len(sh.Instances) != 3 {
		t.Fatalf("barrel drawn at %v", sh.Instances)
	}
	for _, n := range sh.Instances {
		if x := s.Nodes[n].Extras; x["file"] != "World/generic/barrel.m2" || !strings.EqualFold(x["model"].(string), `World\Generic\Barrel.mdx`) {
			t.Errorf("instance %d extras %v", n, x)
		}
	}
	// The barrel's textures and materials came along, resolved by the scene's owner.
	if tex := s.Materials[s.Meshes[sh.Meshes[0]].Material].Texture; tex < 0 {
		t.Errorf("the barrel's first mesh is untextured")
	}
	for _, n := range s.Nodes {
		if n.Extras["model"] == `World\Generic\Banner.mdx` {
			if why, _ := n.Extras["missing"].(string); !strings.Contains(why, "Banner.m2") {
				t.Errorf("banner node extras %v", n.Extras)
			}
		}
	}
	if !slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.Contains(w, `doodad model "World\\Generic\\Banner.mdx"`) }) {
		t.Errorf("no warning for the missing banner: %q", s.Warnings)
	}
	// The OBJ bakes the barrels of the default set alone: the party's is not shown.
	s.MakePlain()
	obj, err := objenc.EncodeOBJ(s, "Hall.wmo.mtl")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(strings.ToLower(string(obj)), "\no barrel_"); n != 2*len(sh.Meshes) {
		t.Errorf("the OBJ draws %d barrel meshes, want %d", n, 2*len(sh.Meshes))
	}
}

// A doodad model that leaves the tree, names a file that is no M2, or is broken costs its
// doodads, with a warning naming it; the rest of the WMO is drawn.
func TestDoodadModelDamage(t *testing.T) {
	for name, tc := range map[string]struct {
		model string
		files fstest.MapFS
		want  string
	}{
		"outside the tree": {model: `..\..\etc\passwd.mdx`, want: "not a name inside the tree"},
		"the WMO itself":   {model: `World\Hall.wmo`, want: "m2"},
		"broken M2":        {model: `World\Bad.mdx`, files: fstest.MapFS{"World/Bad.m2": {Data: []byte("MD20\x08\x01\x00\x00")}}, want: "World/Bad.m2"},
		"M2 of a folder":   {model: `World\Dir.mdx`, files: fstest.MapFS{"World/Dir.m2/x": {Data: []byte("x")}}, want: "Dir.m2"},
	} {
		t.Run(name, func(t *testing.T) {
			fx := fixture()
			fx.Doodads[0].Model = tc.model
			fsys := fstest.MapFS{}
			for n, b := range fx.Files("World/Hall.wmo") {
				fsys[n] = &fstest.MapFile{Data: b}
			}
			for n, f := range tc.files {
				fsys[n] = f
			}
			s, err := Decode(codec.Source{Name: "World/Hall.wmo", Data: fsys["World/Hall.wmo"].Data, FS: fsys})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Validate(); err != nil {
				t.Fatal(err)
			}
			quoted := strconv.Quote(tc.model)
			if !slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.Contains(w, quoted) && strings.Contains(w, tc.want) }) {
				t.Errorf("no warning naming %s and %q: %q", quoted, tc.want, s.Warnings)
			}
			if len(s.Shapes) < 2 {
				t.Errorf("the groups were not drawn: %d shapes", len(s.Shapes))
			}
		})
	}
}

// worldPoint moves p by n's rest transform and its parents'.
func worldPoint(s *scene.Scene, n scene.Node, p [3]float32) [3]float32 {
	for {
		p = rotate(n.Rotation, [3]float32{p[0] * n.Scale[0], p[1] * n.Scale[1], p[2] * n.Scale[2]})
		p = [3]float32{p[0] + n.Translation[0], p[1] + n.Translation[1], p[2] + n.Translation[2]}
		if n.Parent < 0 {
			return p
		}
		n = s.Nodes[n.Parent]
	}
}

func rotate(q [4]float32, v [3]float32) [3]float32 {
	// v + 2w(u×v) + 2u×(u×v), u the vector part.
	u := [3]float32{q[0], q[1], q[2]}
	c := cross(u, v)
	cc := cross(u, c)
	return [3]float32{v[0] + 2*q[3]*c[0] + 2*cc[0], v[1] + 2*q[3]*c[1] + 2*cc[1], v[2] + 2*q[3]*c[2] + 2*cc[2]}
}

func cross(a, b [3]float32) [3]float32 {
	return [3]float32{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

func sub(a, b [3]float32) [3]float32 { return [3]float32{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }

func near(a, b [3]float32) bool {
	for k := range a {
		if math.Abs(float64(a[k]-b[k])) > 1e-5 {
			return false
		}
	}
	return true
}

// The fixture's glTF passes the validator.
func TestFixtureValidates(t *testing.T) {
	s := decodeFixture(t)
	s.MakePlain()
	dir := t.TempDir()
	var paths []string
	for _, bin := range []bool{false, true} {
		b, err := gltfenc.Encode(s, gltfenc.Options{Binary: bin})
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "hall.gltf")
		if bin {
			p = filepath.Join(dir, "hall.glb")
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	gltfvalidate.Check(t, paths...)
	b, _ := os.ReadFile(paths[0])
	if !strings.Contains(string(b), `"KHR_lights_punctual":{"lights":[`) {
		t.Errorf("the .gltf has no lights")
	}
}

// A group file is a part of its root: no virtual files of its own, and refused when opened.
func TestGroupFiles(t *testing.T) {
	for name, want := range map[string]bool{"Hall_000.wmo": true, "World/Hall_123.WMO": true, "Hall.wmo": false,
		"Hall_12.wmo": false, "Hall_abc.wmo": false, "_000.wmo": false} {
		if got := IsGroupName(name); got != want {
			t.Errorf("IsGroupName(%q) = %v", name, got)
		}
		if codec.IsModelName(name) == want && strings.HasSuffix(strings.ToLower(name), ".wmo") {
			t.Errorf("IsModelName(%q) = %v", name, !want)
		}
	}
	fsys := fixtureFS()
	_, err := Decode(codec.Source{Name: "World/Hall_000.wmo", Data: fsys["World/Hall_000.wmo"].Data, FS: fsys})
	var fe *codec.FormatError
	if !errors.As(err, &fe) || !strings.Contains(fe.Msg, "group file") {
		t.Errorf("decoding a group file: %v", err)
	}
}

// Damaged files cost what is damaged: counts and offsets past the data are cut or refused,
// never trusted; nothing panics.
func TestDamage(t *testing.T) {
	files := fixture().Files("W/H.wmo")
	root, g0 := files["W/H.wmo"], files["W/H_000.wmo"]
	cases := map[string]struct {
		root, g0 []byte
		fails    bool
	}{
		"empty root":           {root: nil, g0: g0, fails: true},
		"root cut in MOHD":     {root: root[:30], g0: g0, fails: true},
		"root cut anywhere":    {root: root[:len(root)*2/3], g0: g0},
		"group cut":            {root: root, g0: g0[:len(g0)/2]},
		"group is garbage":     {root: root, g0: []byte("REVM\x04\x00\x00\x00\x11\x00\x00\x00PGOM\xff\xff\xff\x7f")},
		"version 18":           {root: patch(root, 8, 18), g0: g0, fails: true},
		"group version 16":     {root: root, g0: patch(g0, 8, 16)},
		"huge group count":     {root: patchChunk(root, "MOHD", 4, 1<<30), g0: g0, fails: true},
		"batch past indices":   {root: root, g0: patchChunk(g0, "MOBA", 12, 1<<20)},
		"MODS past doodads":    {root: patchChunk(root, "MODS", 24, 1000), g0: g0},
		"doodad name past end": {root: patchChunk(root, "MODD", 0, 0xFFFFFF), g0: g0},
		"texture past MOTX":    {root: patchChunk(root, "MOMT", 12, 1<<20), g0: g0},
		"liquid grid too big":  {root: root, g0: patchChunk(g0, "MLIQ", 0, 4000)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			fsys := fstest.MapFS{"W/H.wmo": {Data: tc.root}, "W/H_000.wmo": {Data: tc.g0}}
			s, err := Decode(codec.Source{Name: "W/H.wmo", Data: tc.root, FS: fsys})
			if tc.fails {
				var fe *codec.FormatError
				if !errors.As(err, &fe) || !strings.Contains(err.Error(), "W/H.wmo") {
					t.Fatalf("err %v; want a FormatError naming the file", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Validate(); err != nil {
				t.Fatal(err)
			}
			if len(s.Warnings) == 0 && name != "root cut anywhere" {
				t.Errorf("no warning")
			}
		})
	}
}

// patch returns b with the uint32 at off set to v.
func patch(b []byte, off int, v uint32) []byte {
	c := slices.Clone(b)
	c[off], c[off+1], c[off+2], c[off+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	return c
}

// patchChunk sets the uint32 at off in the data of the first chunk tagged tag (as read).
func patchChunk(b []byte, tag string, off int, v uint32) []byte {
	rev := string([]byte{tag[3], tag[2], tag[1], tag[0]})
	i := strings.Index(string(b), rev)
	if i < 0 {
		panic("no chunk " + tag)
	}
	return patch(b, i+8+off, v)
}

func TestCorpus(t *testing.T) {
	root := filepath.Join("..", "..", "..", "shared", "corpus", "wow-wmo")
	if _, err := os.Stat(root); err != nil {
		t.Skip("no corpus")
	}
	fsys := os.DirFS(root)
	n := 0
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.EqualFold(filepath.Ext(p), ".wmo") || IsGroupName(p) {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		s, err := Decode(codec.Source{Name: p, Data: data, FS: fsys})
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		n++
		m, _ := Read(p, data, codec.Source{Name: p, FS: fsys}.Companion)
		// Drawn triangles lie between the batches' and all of the groups'.
		drawn, all := 0, 0
		for _, me := range s.Meshes {
			if _, liquid := me.Extras["liquidType"]; !liquid {
				drawn += len(me.Indices) / 3
			}
		}
		for _, g := range m.Groups {
			if g == nil {
				t.Errorf("%s: a group is missing: %q", p, m.Warnings)
				continue
			}
			all += len(g.Indices) / 3
		}
		if drawn == 0 || drawn > all {
			t.Errorf("%s: %d triangles drawn of %d", p, drawn, all)
		}
		for _, w := range s.Warnings {
			t.Logf("%s: %s", p, w)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Errorf("%d WMOs read, want 3", n)
	}
}

// Spellings of one model are read once, and the limits stop the reading, not only the adding.
func TestDoodadLimits(t *testing.T) {
	fx := fixture()
	fx.Doodads = nil
	for i, name := range []string{`World\Generic\Barrel.mdx`, `world/./GENERIC/barrel.M2`, `World\x\..\Generic\Barrel.mdl`, `World\Generic\Other.mdx`} {
		fx.Doodads = append(fx.Doodads, wmotest.Doodad{Model: name, Position: [3]float32{float32(i), 0, 0}, Rotation: [4]float32{0, 0, 0, 1}, Scale: 1})
	}
	fx.Sets = []wmotest.Set{{Name: "Set_$DefaultGlobal", First: 0, Count: uint32(len(fx.Doodads))}}
	fsys := fixtureFS()
	ref, err := m2.Decode(codec.Source{Name: "World/generic/barrel.m2", Data: fsys["World/generic/barrel.m2"].Data, FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	var loads []string
	s := buildRoot(t, fx, func(model string) (*scene.Scene, string, error) {
		loads = append(loads, model)
		return ref, "World/generic/barrel.m2", nil // every model is the barrel's file
	})
	if len(loads) != 2 {
		t.Errorf("loaded %q; want the barrel once and Other once", loads)
	}
	if len(s.Shapes) != 1 || len(s.Shapes[0].Instances) != 4 {
		t.Errorf("shapes %+v; want the barrel drawn at all four", s.Shapes)
	}
	// Past the placed-vertex limit, further copies are refused.
	big := &scene.Scene{Meshes: []scene.Mesh{{Positions: make([][3]float32, 4096), Indices: []uint32{0, 1, 2}, Material: -1, Skin: -1}}}
	n := len(big.Meshes[0].Positions)
	fx.Doodads = fx.Doodads[:1]
	for len(fx.Doodads)*n <= maxPlacedVertices {
		fx.Doodads = append(fx.Doodads, fx.Doodads[0])
	}
	fx.Sets[0].Count = uint32(len(fx.Doodads))
	s = buildRoot(t, fx, func(string) (*scene.Scene, string, error) { return big, "World/big.m2", nil })
	if len(s.Shapes) != 0 || !slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.Contains(w, "placed doodads may have") }) {
		t.Errorf("%d shapes, warnings %q", len(s.Shapes), s.Warnings)
	}
}

// A light with no finite place or intensity, or of a type the game does not know, is left out
// of the scene with a warning; an ambient light is in the extras alone.
func TestLightDamage(t *testing.T) {
	nan := float32(math.NaN())
	fx := fixture()
	fx.Lights = []wmotest.Light{
		{Type: 0, Position: [3]float32{nan, 0, 0}, Intensity: 1},
		{Type: 0, Intensity: float32(math.Inf(1))},
		{Type: 0, Intensity: -1},
		{Type: 9, Intensity: 1},
		{Type: 3, Intensity: 1},
		{Type: 1, Position: [3]float32{1, 2, 3}, Intensity: 1},
	}
	s := buildRoot(t, fx, nil)
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(s.Lights) != 1 || s.Lights[0].Type != scene.LightPoint || s.Nodes[s.Lights[0].Node].Name != "Light5" {
		t.Errorf("lights %+v; want the spot alone, as a point light", s.Lights)
	}
	for _, want := range []string{"light 0:", "light 1:", "light 2:", "light 3: type 9"} {
		if !slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.HasPrefix(w, want) }) {
			t.Errorf("no warning %q in %q", want, s.Warnings)
		}
	}
	if l, _ := s.Extras["lights"].([]scene.Extras); len(l) != 6 {
		t.Errorf("the extras list %d lights, want all 6", len(l))
	}
}

// Past the limits on doodad nodes, models read and their vertices, the rest are empty nodes
// with a warning; past the count of models, none more is read.
func TestDoodadCounts(t *testing.T) {
	build := func(t *testing.T, doodads []wmotest.Doodad, load DoodadFunc) *scene.Scene {
		t.Helper()
		fx := fixture()
		fx.Doodads = doodads
		fx.Sets = []wmotest.Set{{Name: "Set_$DefaultGlobal", First: 0, Count: uint32(len(doodads))}}
		return buildRoot(t, fx, load)
	}
	warned := func(s *scene.Scene, part string) bool {
		return slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.Contains(w, part) })
	}
	at := func(i int, model string) wmotest.Doodad {
		return wmotest.Doodad{Model: model, Position: [3]float32{float32(i), 0, 0}, Rotation: [4]float32{0, 0, 0, 1}, Scale: 1}
	}
	tri := &scene.Scene{Meshes: []scene.Mesh{{Positions: make([][3]float32, 3), Indices: []uint32{0, 1, 2}, Material: -1, Skin: -1}}}
	t.Run("nodes", func(t *testing.T) {
		ds := make([]wmotest.Doodad, maxDoodadNodes+5)
		for i := range ds {
			ds[i] = at(i, `World\A.mdx`)
		}
		s := build(t, ds, func(string) (*scene.Scene, string, error) { return tri, "World/A.m2", nil })
		if len(s.Shapes) != 1 || len(s.Shapes[0].Instances) != maxDoodadNodes || !warned(s, "doodad nodes a WMO may have") {
			t.Errorf("%d shapes; warnings %q", len(s.Shapes), s.Warnings)
		}
	})
	t.Run("models", func(t *testing.T) {
		ds := make([]wmotest.Doodad, maxDoodadModels+3)
		for i := range ds {
			ds[i] = at(i, fmt.Sprintf(`World\M%d.mdx`, i))
		}
		reads := 0
		s := build(t, ds, func(model string) (*scene.Scene, string, error) { reads++; return tri, M2Name(model), nil })
		if reads != maxDoodadModels || len(s.Shapes) != maxDoodadModels || !warned(s, "distinct doodad models") {
			t.Errorf("%d reads, %d shapes", reads, len(s.Shapes))
		}
	})
	t.Run("vertices", func(t *testing.T) {
		big := &scene.Scene{Meshes: []scene.Mesh{{Positions: make([][3]float32, maxDoodadVertices/2+1), Indices: []uint32{0, 1, 2}, Material: -1, Skin: -1}}}
		reads := 0
		s := build(t, []wmotest.Doodad{at(0, `World\A.mdx`), at(1, `World\B.mdx`), at(2, `World\C.mdx`)},
			func(model string) (*scene.Scene, string, error) { reads++; return big, M2Name(model), nil })
		// A is added; B and C, each read, would pass the limit (a model's cost is known once it
		// is read) and are refused.
		if reads != 3 || len(s.Shapes) != 1 || !warned(s, `"World\\C.mdx"`) || !warned(s, "all doodad models may add") {
			t.Errorf("%d reads, %d shapes, warnings %q", reads, len(s.Shapes), s.Warnings)
		}
	})
}

// buildRoot reads fx's root alone (its groups are not read) and builds it with load.
func buildRoot(t *testing.T, fx *wmotest.Root, load DoodadFunc) *scene.Scene {
	t.Helper()
	m, err := Read("W/H.wmo", fx.Files("W/H.wmo")["W/H.wmo"], nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Build("W/H.wmo", m, load)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Finding 5 of the third trust pass: a WMO placing 65,536 doodads of one small model (within
// the limits) made the mount's stat wait for minutes: the OBJ named each copy by trying every
// suffix from _2 (quadratic), and would have written 1.5 GB. Now every kind is made at once:
// glTF draws every copy by instancing, the OBJ the copies up to scene.MaxFlattenedVertices,
// and both the .json's warnings and the OBJ say so.
func TestManyDoodads(t *testing.T) {
	fx := fixture()
	fx.Doodads = make([]wmotest.Doodad, maxDoodadNodes)
	for i := range fx.Doodads {
		fx.Doodads[i] = wmotest.Doodad{Model: `World\Rabbit.mdx`, Position: [3]float32{float32(i % 256), float32(i / 256), 0}, Rotation: [4]float32{0, 0, 0, 1}, Scale: 1}
	}
	fx.Sets = []wmotest.Set{{Name: "Set_$DefaultGlobal", First: 0, Count: uint32(len(fx.Doodads))}}
	rabbit := &scene.Scene{Meshes: []scene.Mesh{{Name: "Body", Positions: make([][3]float32, 157), Indices: []uint32{0, 1, 2}, Material: -1, Skin: -1}}}
	s := buildRoot(t, fx, func(string) (*scene.Scene, string, error) { return rabbit, "World/Rabbit.m2", nil })
	if len(s.Shapes) != 1 || len(s.Shapes[0].Instances) != maxDoodadNodes {
		t.Fatalf("%d shapes; want the model drawn at every doodad", len(s.Shapes))
	}
	if !slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.Contains(w, "leaves out the rest") }) {
		t.Errorf("no warning says the .obj draws fewer copies: %q", s.Warnings)
	}
	obj, err := objenc.EncodeOBJ(s, "H.wmo.mtl")
	if err != nil {
		t.Fatal(err)
	}
	copies := strings.Count(string(obj), "\no ") - len(s.Meshes) + 1
	t.Logf("OBJ of %d bytes, %d copies of the model drawn", len(obj), copies)
	if want := scene.MaxFlattenedVertices / 157; copies != want {
		t.Errorf("the OBJ draws %d copies; want %d, those within %d vertices", copies, want, scene.MaxFlattenedVertices)
	}
	if !strings.Contains(string(obj), "placed copies past") {
		t.Error("the OBJ does not say it left copies out")
	}
	glb, err := gltfenc.Encode(s, gltfenc.Options{Binary: true})
	if err != nil || len(glb) > 16<<20 {
		t.Errorf(".glb: %d bytes, %v", len(glb), err)
	}
}
