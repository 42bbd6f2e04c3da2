// Package testscene builds small hand-made scenes that the encoders' tests share: a static
// mesh, a skinned mesh with five influences and two UV sets, an animated hierarchy, a scene whose
// extras carry nested structs and maps, one with awkward names, and a large generated grid.
package testscene

import (
	"math"
	"reflect"
	"testing"

	"github.com/modelfs/modelfs/translate/scene"
)

// Case is one named test scene.
type Case struct {
	Name  string
	Scene *scene.Scene
}

// Run runs f on every scene of All, each as a subtest, after checking that the scene is valid.
func Run(t *testing.T, f func(t *testing.T, c Case)) {
	for _, c := range All() {
		t.Run(c.Name, func(t *testing.T) {
			if err := c.Scene.Validate(); err != nil {
				t.Fatalf("test scene invalid: %v", err)
			}
			f(t, c)
		})
	}
}

// All returns every hand-built scene (not the grid), in a fixed order.
func All() []Case {
	return []Case{
		{"static", Static()},
		{"variants", Variants()},
		{"skinned", Skinned()},
		{"animated", Animated()},
		{"extras", WithExtras()},
		{"weird", Weird()},
		{"empty", Empty()},
		{"shapes", Shapes()},
	}
}

func cube() ([][3]float32, [][3]float32, [][2]float32, []uint32) {
	// Four faces of a unit cube around the origin are enough for index checks: 16 vertices.
	faces := [][3]float32{{0, 0, 1}, {0, 0, -1}, {1, 0, 0}, {-1, 0, 0}}
	var pos, nrm [][3]float32
	var uv [][2]float32
	var idx []uint32
	for _, n := range faces {
		// Two in-plane axes for the face.
		var u, v [3]float32
		switch {
		case n[2] != 0:
			u, v = [3]float32{n[2], 0, 0}, [3]float32{0, 1, 0}
		default:
			u, v = [3]float32{0, 0, -n[0]}, [3]float32{0, 1, 0}
		}
		base := uint32(len(pos))
		for _, c := range [][2]float32{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
			var p [3]float32
			for k := 0; k < 3; k++ {
				p[k] = 0.5*n[k] + 0.5*c[0]*u[k] + 0.5*c[1]*v[k]
			}
			pos = append(pos, p)
			nrm = append(nrm, n)
			uv = append(uv, [2]float32{(c[0] + 1) / 2, (1 - c[1]) / 2})
		}
		idx = append(idx, base, base+1, base+2, base, base+2, base+3)
	}
	return pos, nrm, uv, idx
}

// Static is one textured, lit cube and one untextured triangle without normals or UVs and
// without a material.
func Static() *scene.Scene {
	pos, nrm, uv, idx := cube()
	return &scene.Scene{
		Source: scene.Source{Path: "units/test/Box.mdx", Format: "mdx", Version: 800, Name: "Box",
			Axes: "Z-up right-handed, converted to Y-up", Unit: "game unit", Scale: 1},
		Nodes: []scene.Node{{Name: "root", Kind: scene.KindRoot, Parent: -1, Rotation: [4]float32{0, 0, 0, 1}, Scale: [3]float32{1, 1, 1}}},
		Meshes: []scene.Mesh{
			{Name: "Box", Positions: pos, Normals: nrm, UVs: [][][2]float32{uv}, Indices: idx, Material: 0, Skin: -1},
			{Name: "Tri", Positions: [][3]float32{{0, 2, 0}, {1, 2, 0}, {0, 3, 0.25}}, Indices: []uint32{0, 1, 2}, Material: -1, Skin: -1},
		},
		Materials: []scene.Material{{Name: "Crate", BaseColor: [4]float32{1, 0.5, 0.25, 1}, Texture: 0, AlphaMode: scene.AlphaOpaque}},
		Textures:  []scene.Texture{{Path: `Textures\Crate.blp`, Resolved: "units/test/Textures/Crate.png", WrapU: true, WrapV: true}},
	}
}

// Shapes is a building and a prop placed twice: the building a shape of two meshes (the
// textured box and the bare triangle) drawn where it is, the prop a shape of one mesh drawn at
// two nodes, one turned a quarter around Y and moved, one mirrored and scaled under a parent.
func Shapes() *scene.Scene {
	s := Static()
	pos, nrm, uv, idx := cube()
	s.Meshes = append(s.Meshes, scene.Mesh{Name: "Barrel", Positions: pos, Normals: nrm, UVs: [][][2]float32{uv}, Indices: idx, Material: 0, Skin: -1})
	q := float32(math.Sqrt2 / 2)
	s.Nodes = append(s.Nodes,
		scene.Node{Name: "Barrel 1", Kind: scene.KindHelper, Parent: 0, Translation: [3]float32{3, 0, 0}, Rotation: [4]float32{0, q, 0, q}, Scale: [3]float32{1, 1, 1}},
		scene.Node{Name: "Barrel 2", Kind: scene.KindHelper, Parent: 0, Translation: [3]float32{-3, 0, 1}, Rotation: [4]float32{0, 0, 0, 1}, Scale: [3]float32{-2, 2, 2}},
	)
	s.Shapes = []scene.Shape{
		{Name: "House", Meshes: []int{0, 1}, Extras: scene.Extras{"group": "house"}},
		{Name: "Barrel", Meshes: []int{2}, Instances: []int{1, 2}},
	}
	return s
}

// Variants is Static with two looks: the box shows another texture in the second; the triangle,
// without a material, never changes.
func Variants() *scene.Scene {
	s := Static()
	s.Variants = []string{"Crate", "Mossy Crate"}
	s.Textures = append(s.Textures, scene.Texture{Path: `Textures\MossyCrate.blp`, Guess: true, WrapU: true, WrapV: true})
	mossy := s.Materials[0]
	mossy.Name, mossy.Texture = "Mossy Crate", 1
	s.Materials = append(s.Materials, mossy)
	s.Meshes[0].VariantMaterials = []int{0, 1}
	return s
}

// Skinned is a cube skinned to five bones with five influences on some vertices (two influence
// sets) and two UV sets, plus a MASK material whose texture is unresolved and a BLEND one.
func Skinned() *scene.Scene {
	pos, nrm, uv, idx := cube()
	uv2 := make([][2]float32, len(uv))
	for i, t := range uv {
		uv2[i] = [2]float32{t[0] * 2, t[1] * 0.5}
	}
	nv := len(pos)
	j0 := make([][4]uint16, nv)
	w0 := make([][4]float32, nv)
	j1 := make([][4]uint16, nv)
	w1 := make([][4]float32, nv)
	for v := 0; v < nv; v++ {
		if v%2 == 0 {
			j0[v], w0[v] = [4]uint16{0, 1, 2, 3}, [4]float32{0.2, 0.2, 0.2, 0.2}
			j1[v], w1[v] = [4]uint16{4, 0, 0, 0}, [4]float32{0.2, 0, 0, 0}
		} else {
			j0[v], w0[v] = [4]uint16{uint16(v % 5), 0, 0, 0}, [4]float32{1, 0, 0, 0}
		}
	}
	nodes := []scene.Node{{Name: "root", Kind: scene.KindRoot, Parent: -1, Rotation: [4]float32{0, 0, 0, 1}, Scale: [3]float32{1, 1, 1}}}
	for b := 0; b < 5; b++ {
		nodes = append(nodes, scene.Node{Name: "Bone_" + string(rune('A'+b)), Kind: scene.KindBone, Parent: b,
			Translation: [3]float32{0, 0.25, 0}, Rotation: [4]float32{0, 0, 0, 1}, Scale: [3]float32{1, 1, 1}})
	}
	inv := make([][16]float32, 5)
	for b := range inv {
		inv[b] = [16]float32{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -0.25 * float32(b+1), 0, 1}
	}
	return &scene.Scene{
		Source: scene.Source{Path: "units/test/Skinned.mdl", Format: "mdl", Version: 800, Name: "Skinned", Scale: 1},
		Nodes:  nodes,
		Meshes: []scene.Mesh{{Name: "Body", Positions: pos, Normals: nrm, UVs: [][][2]float32{uv, uv2},
			Joints: [][][4]uint16{j0, j1}, Weights: [][][4]float32{w0, w1}, Indices: idx, Material: 1, Skin: 0},
			{Name: "Cape", Positions: pos[:4], UVs: [][][2]float32{uv[:4]}, Indices: idx[:6], Material: 0, Skin: -1}},
		Materials: []scene.Material{
			{Name: "Skin", BaseColor: [4]float32{1, 1, 1, 1}, Texture: 0, AlphaMode: scene.AlphaMask, AlphaCutoff: 0.75,
				DoubleSided: true, Flags: []string{"TwoSided", "FilterMode:Transparent"}},
			{Name: "Glow", BaseColor: [4]float32{1, 1, 1, 0.5}, Texture: 1, TexCoord: 1, AlphaMode: scene.AlphaBlend, Unlit: true,
				Flags: []string{"Unshaded", "FilterMode:Blend"}},
		},
		Textures: []scene.Texture{
			{Path: "", Replaceable: 1},
			{Path: `Textures\Glow.blp`, Resolved: "Textures/Glow.png"},
		},
		Skins: []scene.Skin{{Name: "skin", Joints: []int{1, 2, 3, 4, 5}, InverseBind: inv, Skeleton: 1}},
	}
}

// Animated is a two-bone hierarchy with two clips using every interpolation mode.
func Animated() *scene.Scene {
	s := Static()
	s.Source.Path = "units/test/Anim.mdx"
	s.Nodes = append(s.Nodes,
		scene.Node{Name: "Spin", Kind: scene.KindBone, Parent: 0, Rotation: [4]float32{0, 0, 0, 1}, Scale: [3]float32{1, 1, 1}},
		scene.Node{Name: "Arm", Kind: scene.KindHelper, Parent: 1, Translation: [3]float32{0, 1, 0}, Rotation: [4]float32{0, 0.7071068, 0, 0.7071068}, Scale: [3]float32{2, 2, 2}},
	)
	s.Animations = []scene.Animation{
		{Name: "Stand", Duration: 1, Loop: true, Start: 0, End: 1, Channels: []scene.Channel{
			{Node: 1, Path: scene.PathRotation, Interp: scene.Linear, Times: []float32{0, 0.5, 1},
				Values: []float32{0, 0, 0, 1, 0, 0.7071068, 0, 0.7071068, 0, 0, 0, 1}},
			{Node: 2, Path: scene.PathTranslation, Interp: scene.Step, Times: []float32{0, 1}, Values: []float32{0, 1, 0, 0, 2, 0}},
		}},
		{Name: "Attack - 2", Duration: 0.8, Start: 1.2, End: 2, Channels: []scene.Channel{
			{Node: 2, Path: scene.PathScale, Interp: scene.CubicSpline, Times: []float32{0, 0.8},
				Values: []float32{0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 2, 2, 2, 0, 0, 0}},
		}, Extras: scene.Extras{"rarity": float32(0.5), "moveSpeed": float32(270)}},
	}
	return s
}

// Track mimics a raw animated property with json tags.
type Track struct {
	Interp    uint32    `json:"interpolation"`
	GlobalSeq int32     `json:"globalSequence"`
	Width     int       `json:"-"`
	Frames    []int32   `json:"frames"`
	Values    []float32 `json:"values"`
	InTans    []float32 `json:"inTans,omitempty"`
}

// RawNode mimics the part every raw object shares.
type RawNode struct {
	Name        string `json:"name"`
	ObjectID    int32  `json:"objectId"`
	Flags       uint32 `json:"flags"`
	Translation *Track `json:"translation,omitempty"`
}

// Emitter mimics a raw particle emitter that embeds RawNode.
type Emitter struct {
	RawNode
	Speed        float32       `json:"speed"`
	SegmentColor [3][3]float32 `json:"segmentColor"`
	SegmentAlpha [3]uint8      `json:"segmentAlpha"`
	Visibility   *Track        `json:"visibility,omitempty"`
	hidden       int
	NoTag        bool
}

// WithExtras is Static with extras holding nested structs, pointers, maps with string and
// integer keys, a long key array, NaN and infinities.
func WithExtras() *scene.Scene {
	s := Static()
	s.Source.Path = "units/test/Extras.mdx"
	frames := make([]int32, 40)
	vals := make([]float32, 40)
	for i := range frames {
		frames[i] = int32(i * 33)
		vals[i] = float32(i) / 8
	}
	s.Extras = scene.Extras{
		"particleEmitters2": []Emitter{{
			RawNode:      RawNode{Name: "Dust", ObjectID: 7, Flags: 0x1000, Translation: &Track{Interp: 1, GlobalSeq: -1, Width: 3, Frames: []int32{0, 100}, Values: []float32{0, 0, 0, 0, 10, 0}}},
			Speed:        float32(math.Inf(1)),
			SegmentColor: [3][3]float32{{1, 0, 0}, {0, 1, 0}, {0, 0, float32(math.NaN())}},
			SegmentAlpha: [3]uint8{255, 128, 0},
			Visibility:   &Track{Interp: 0, GlobalSeq: 2, Frames: frames, Values: vals},
			hidden:       3,
			NoTag:        true,
		}},
		"globalSequences": []uint32{1000, 2333},
		"byId":            map[int]string{10: "ten", 2: "two", -1: "minus one"},
		"nested":          map[string]any{"z": []any{1, "two", nil, 3.5}, "a": map[string]float64{"nan": math.NaN(), "negInf": math.Inf(-1), "x": 1e-7}},
		"empty":           []string(nil),
		"flag":            true,
	}
	s.Meshes[0].Extras = scene.Extras{"selectionGroup": 0, "extent": map[string][3]float32{"min": {-0.5, -0.5, -0.5}, "max": {0.5, 0.5, 0.5}}}
	s.Nodes[0].Extras = scene.Extras{"pivot": [3]float32{0, 0, 0}}
	s.Materials[0].Extras = scene.Extras{"priorityPlane": 2}
	s.Textures[0].Extras = scene.Extras{"flags": 3}
	s.Warnings = []string{"offset 0x40: unknown chunk \"XXXX\" skipped", "line 12: count says 3, found 2"}
	return s
}

// Weird has names with spaces, quotes, control characters, '#', invalid UTF-8 bytes, empty
// names and duplicates.
func Weird() *scene.Scene {
	s := Static()
	s.Source = scene.Source{Path: "units/we ird/Bad\"Name\xff.mdx", Format: "mdx", Name: "Bad \"name\"\n\x00\xfe", Scale: 1}
	pos, _, _, idx := cube()
	s.Meshes = append(s.Meshes,
		scene.Mesh{Name: "Box", Positions: pos, Indices: idx, Material: 1, Skin: -1},
		scene.Mesh{Name: "", Positions: pos[:3], Indices: idx[:3], Material: 2, Skin: -1},
		scene.Mesh{Name: "my mesh\t#1\xff", Positions: pos[:3], Indices: idx[:3], Material: -1, Skin: -1},
	)
	s.Meshes[1].Name = "Box"
	s.Materials = append(s.Materials,
		scene.Material{Name: "Crate", BaseColor: [4]float32{0, 0, 0, 1}, Texture: -1},
		scene.Material{Name: "", BaseColor: [4]float32{1, 1, 1, 1}, Texture: -1},
		scene.Material{Name: "default", BaseColor: [4]float32{1, 1, 1, 1}, Texture: 1, AlphaMode: scene.AlphaBlend},
	)
	s.Textures = append(s.Textures, scene.Texture{Path: "Tex\\we\"ird\n.blp\xff"})
	s.Nodes[0].Name = "\u2028line\u2029 sep \u00e9\u0007"
	s.Warnings = []string{"bad \xc3\x28 byte", "tab\there"}
	s.Extras = scene.Extras{"k\xffey": "v\xfealue\\", "\"q\"": []float64{math.NaN(), 1, -0}}
	return s
}

// Empty is a scene with nothing in it.
func Empty() *scene.Scene {
	return &scene.Scene{Source: scene.Source{Path: "empty.mdl", Format: "mdl"}}
}

// Grid is an n×n vertex grid (n ≥ 2) in the XZ plane with normals and UVs, one mesh and one
// material: 2(n−1)² triangles.
func Grid(n int) *scene.Scene {
	pos := make([][3]float32, 0, n*n)
	nrm := make([][3]float32, 0, n*n)
	uv := make([][2]float32, 0, n*n)
	for z := 0; z < n; z++ {
		for x := 0; x < n; x++ {
			fx, fz := float32(x)/float32(n-1), float32(z)/float32(n-1)
			y := float32(math.Sin(float64(fx*7)) * math.Cos(float64(fz*5)))
			pos = append(pos, [3]float32{fx*100 - 50, y, fz*100 - 50})
			nrm = append(nrm, [3]float32{0, 1, 0})
			uv = append(uv, [2]float32{fx, fz})
		}
	}
	idx := make([]uint32, 0, 6*(n-1)*(n-1))
	for z := 0; z < n-1; z++ {
		for x := 0; x < n-1; x++ {
			a := uint32(z*n + x)
			b, c, d := a+1, a+uint32(n), a+uint32(n)+1
			idx = append(idx, a, c, b, b, c, d)
		}
	}
	return &scene.Scene{
		Source:    scene.Source{Path: "grid.mdx", Format: "mdx", Version: 800, Scale: 1},
		Meshes:    []scene.Mesh{{Name: "Grid", Positions: pos, Normals: nrm, UVs: [][][2]float32{uv}, Indices: idx, Material: 0, Skin: -1}},
		Materials: []scene.Material{{Name: "Ground", BaseColor: [4]float32{1, 1, 1, 1}, Texture: -1, AlphaMode: scene.AlphaOpaque}},
	}
}

// Same reports whether two scenes hold the same data, leaving out what their Release would do
// (reflect.DeepEqual finds no two functions equal).
func Same(a, b *scene.Scene) bool {
	x, y := *a, *b
	x.OnRelease(nil)
	y.OnRelease(nil)
	return reflect.DeepEqual(x, y)
}
