package gltfenc

import (
	"math"

	"github.com/modelfs/modelfs/translate/internal/testkit/testscene"
	"github.com/modelfs/modelfs/translate/scene"
)

// Hand-built test scenes. Every one passes scene.Validate (checked in TestScenesValid).

var identity = [16]float32{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}

func translateMat(x, y, z float32) [16]float32 {
	m := identity
	m[12], m[13], m[14] = x, y, z
	return m
}

func restNode(name string, kind scene.NodeKind, parent int, t [3]float32) scene.Node {
	return scene.Node{Name: name, Kind: kind, Parent: parent, Translation: t, Rotation: [4]float32{0, 0, 0, 1}, Scale: [3]float32{1, 1, 1}}
}

func opaque(name string) scene.Material {
	return scene.Material{Name: name, BaseColor: [4]float32{1, 1, 1, 1}, Texture: -1, AlphaMode: scene.AlphaOpaque}
}

// triangleScene is a static, unskinned triangle with normals, UVs and vertex colours under one
// rotated, scaled node.
func triangleScene() *scene.Scene {
	h := float32(math.Sqrt2 / 2)
	root := restNode("Root", scene.KindRoot, -1, [3]float32{1, 2, 3})
	root.Rotation = [4]float32{0, h, 0, h}
	root.Scale = [3]float32{2, 2, 2}
	root.Extras = scene.Extras{"objectId": 7}
	return &scene.Scene{
		Source: scene.Source{Path: "units/tri.mdl", Format: "mdl", Version: 800, Name: "Tri"},
		Nodes:  []scene.Node{root},
		Meshes: []scene.Mesh{{
			Name:      "Triangle",
			Positions: [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0.5}},
			Normals:   [][3]float32{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}},
			UVs:       [][][2]float32{{{0, 1}, {1, 1}, {0, 0}}},
			Colors:    [][4]float32{{1, 0, 0, 1}, {0, 1, 0, 1}, {0, 0, 1, 1}},
			Indices:   []uint32{0, 1, 2},
			Material:  0,
			Skin:      -1,
			Extras:    scene.Extras{"geoset": 0},
		}},
		Materials: []scene.Material{{Name: "Red", BaseColor: [4]float32{0.8, 0.1, 0.1, 1}, Texture: 0, AlphaMode: scene.AlphaOpaque, Flags: []string{"FilterMode:None"}}},
		Textures:  []scene.Texture{{Path: `Textures\Red.blp`, WrapU: true, WrapV: true}},
		Extras:    scene.Extras{"big": "metadata that must not reach the glTF"},
	}
}

// skinnedScene has two skinned meshes: one bound to a 2-joint skin with one influence set, one
// bound to a 6-joint skin where vertex 0 has 5 influences (two sets).
func skinnedScene() *scene.Scene {
	nodes := []scene.Node{
		restNode("Bone_Root", scene.KindBone, -1, [3]float32{}),
		restNode("Bone_Arm", scene.KindBone, 0, [3]float32{0, 1, 0}),
	}
	for i := 0; i < 4; i++ {
		nodes = append(nodes, restNode("Bone_Finger", scene.KindBone, len(nodes)-1, [3]float32{0, 0.25, 0}))
	}
	quad := [][3]float32{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}}
	two := scene.Mesh{
		Name: "Body", Positions: quad, Indices: []uint32{0, 1, 2, 0, 2, 3}, Material: 0, Skin: 0,
		Joints:  [][][4]uint16{{{0, 0, 0, 0}, {0, 1, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}}},
		Weights: [][][4]float32{{{1, 0, 0, 0}, {0.5, 0.5, 0, 0}, {1, 0, 0, 0}, {0.25, 0.75, 0, 0}}},
	}
	five := scene.Mesh{
		Name: "Hand", Positions: quad, Indices: []uint32{0, 1, 2, 0, 2, 3}, Material: 0, Skin: 1,
		Joints: [][][4]uint16{
			{{0, 1, 2, 3}, {5, 0, 0, 0}, {5, 0, 0, 0}, {4, 0, 0, 0}},
			{{4, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}},
		},
		Weights: [][][4]float32{
			{{0.2, 0.2, 0.2, 0.2}, {1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}},
			{{0.2, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}},
		},
	}
	ibm2 := [][16]float32{identity, translateMat(0, -1, 0)}
	var ibm6 [][16]float32
	var joints6 []int
	y := float32(0)
	for i := range nodes {
		y += nodes[i].Translation[1]
		ibm6 = append(ibm6, translateMat(0, -y, 0))
		joints6 = append(joints6, i)
	}
	return &scene.Scene{
		Source:    scene.Source{Path: "units/skinned.mdx", Format: "mdx", Version: 800},
		Nodes:     nodes,
		Meshes:    []scene.Mesh{two, five},
		Materials: []scene.Material{opaque("Skin")},
		Skins: []scene.Skin{
			{Name: "Small", Joints: []int{0, 1}, InverseBind: ibm2, Skeleton: 0},
			{Name: "Hand", Joints: joints6, InverseBind: ibm6, Skeleton: -1},
		},
	}
}

// bigSkinScene has a 300-joint skin, so joints are written as UNSIGNED_SHORT.
func bigSkinScene() *scene.Scene {
	const n = 300
	nodes := []scene.Node{restNode("Root", scene.KindHelper, -1, [3]float32{})}
	joints := make([]int, n)
	ibm := make([][16]float32, n)
	for i := 0; i < n; i++ {
		nodes = append(nodes, restNode("Bone", scene.KindBone, 0, [3]float32{float32(i), 0, 0}))
		joints[i] = i + 1
		ibm[i] = translateMat(-float32(i), 0, 0)
	}
	return &scene.Scene{
		Nodes: nodes,
		Meshes: []scene.Mesh{{
			Name:      "Many",
			Positions: [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
			Indices:   []uint32{0, 1, 2},
			Material:  -1,
			Skin:      0,
			Joints:    [][][4]uint16{{{299, 0, 0, 0}, {150, 0, 0, 0}, {0, 0, 0, 0}}},
			Weights:   [][][4]float32{{{1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}}},
		}},
		Skins: []scene.Skin{{Name: "Wide", Joints: joints, InverseBind: ibm, Skeleton: 0}},
	}
}

// animatedScene animates three bones with every interpolation on every path, plus an animation
// without channels (left out of the glTF).
func animatedScene() *scene.Scene {
	s := skinnedScene()
	h := float32(math.Sqrt2 / 2)
	s5, c5 := float32(math.Sin(5*math.Pi/180)), float32(math.Cos(5*math.Pi/180))
	times := []float32{0, 0.5, 1}
	s.Animations = []scene.Animation{
		{
			Name: "Stand", Duration: 1, Loop: true, Start: 0, End: 1,
			Extras: scene.Extras{"rarity": 0.5},
			Channels: []scene.Channel{
				{Node: 0, Path: scene.PathTranslation, Interp: scene.Linear, Times: times, Values: []float32{0, 0, 0, 0, 1, 0, 0, 0, 0}},
				// A 10° turn and back: keys close enough that splitArcs leaves them alone.
				{Node: 0, Path: scene.PathRotation, Interp: scene.Linear, Times: times, Values: []float32{0, 0, 0, 1, 0, s5, 0, c5, 0, 0, 0, 1}},
				{Node: 1, Path: scene.PathScale, Interp: scene.Step, Times: []float32{0, 0.25}, Values: []float32{1, 1, 1, 2, 2, 2}},
				{Node: 1, Path: scene.PathRotation, Interp: scene.Step, Times: []float32{0, 0.25}, Values: []float32{0, 0, 0, 1, 0, 0, 0, 2}}, // not unit: normalised
			},
		},
		{Name: "Empty", Duration: 0},
		{
			Name: "Walk", Duration: 2, Start: 3.5, End: 5.5,
			Channels: []scene.Channel{
				{Node: 2, Path: scene.PathTranslation, Interp: scene.CubicSpline, Times: []float32{0, 2}, Values: []float32{
					0, 0, 0, 0, 0, 0, 1, 0, 0,
					-1, 0, 0, 2, 0, 0, 0, 0, 0,
				}},
				{Node: 2, Path: scene.PathRotation, Interp: scene.CubicSpline, Times: []float32{0, 2}, Values: []float32{
					0, 0, 0, 0, 0, 0, 0, 1, 0, 0.1, 0, 0,
					0, -0.1, 0, 0, 0, h, 0, h, 0, 0, 0, 0,
				}},
				{Node: 3, Path: scene.PathScale, Interp: scene.CubicSpline, Times: []float32{0, 1, 2}, Values: []float32{
					0, 0, 0, 1, 1, 1, 0, 0, 0,
					0, 0, 0, 1.5, 1.5, 1.5, 0, 0, 0,
					0, 0, 0, 1, 1, 1, 0, 0, 0,
				}},
				{Node: 4, Path: scene.PathTranslation, Interp: scene.Step, Times: times, Values: []float32{0, 0, 0, 0, 0, 1, 0, 0, 2}},
			},
		},
	}
	return s
}

// materialScene has an unlit double-sided BLEND material with a replaceable texture, a MASK one
// with a resolved (but not yet embedded) texture, and an unused opaque one.
func materialScene() *scene.Scene {
	tri := func(name string, mat int, z float32) scene.Mesh {
		return scene.Mesh{
			Name: name, Positions: [][3]float32{{0, 0, z}, {1, 0, z}, {0, 1, z}},
			UVs: [][][2]float32{{{0, 1}, {1, 1}, {0, 0}}}, Indices: []uint32{0, 1, 2}, Material: mat, Skin: -1,
		}
	}
	return &scene.Scene{
		Meshes: []scene.Mesh{tri("Glow", 0, 0), tri("Leaves", 1, 1)},
		Materials: []scene.Material{
			{Name: "Glow", BaseColor: [4]float32{1, 1, 1, 0.5}, Texture: 0, AlphaMode: scene.AlphaBlend, DoubleSided: true, Unlit: true,
				Flags: []string{"Unshaded", "TwoSided", "FilterMode:Additive"}, Extras: scene.Extras{"priorityPlane": 2}},
			{Name: "Leaves", BaseColor: [4]float32{1, 1, 1, 1}, Texture: 1, AlphaMode: scene.AlphaMask, AlphaCutoff: 0.75},
			opaque("Unused"),
		},
		Textures: []scene.Texture{
			{Replaceable: 1, WrapU: true, WrapV: true},
			{Path: `Textures\Leaves.blp`, Resolved: "Textures/Leaves.blp", Extras: scene.Extras{"flags": 3}},
		},
	}
}

// variantScene is materialScene with three looks: the first mesh shows a texture per variant
// (two variants share the second material), the second mesh never changes.
func variantScene() *scene.Scene {
	s := materialScene()
	s.Variants = []string{"Green", "Brown", "Pale"}
	s.Textures = append(s.Textures, scene.Texture{Path: `Textures\Brown.blp`, Resolved: "Textures/Brown.blp"})
	s.Materials = append(s.Materials, scene.Material{Name: "Glow Brown", BaseColor: [4]float32{1, 1, 1, 1}, Texture: 2, AlphaMode: scene.AlphaOpaque})
	s.Meshes[0].VariantMaterials = []int{0, 3, 3}
	return s
}

// gridScene is an n×n vertex grid in the XZ plane with normals and one UV set.
func gridScene(n int) *scene.Scene {
	nv := n * n
	m := scene.Mesh{
		Name:      "Grid",
		Positions: make([][3]float32, nv),
		Normals:   make([][3]float32, nv),
		UVs:       [][][2]float32{make([][2]float32, nv)},
		Indices:   make([]uint32, 0, (n-1)*(n-1)*6),
		Material:  0,
		Skin:      -1,
	}
	step := 1 / float32(n-1)
	for z := 0; z < n; z++ {
		for x := 0; x < n; x++ {
			v := z*n + x
			m.Positions[v] = [3]float32{float32(x) * step, float32((x*7+z*3)%11) * 0.01, float32(z) * step}
			m.Normals[v] = [3]float32{0, 1, 0}
			m.UVs[0][v] = [2]float32{float32(x) * step, float32(z) * step}
		}
	}
	for z := 0; z+1 < n; z++ {
		for x := 0; x+1 < n; x++ {
			a := uint32(z*n + x)
			b, c, d := a+1, a+uint32(n), a+uint32(n)+1
			m.Indices = append(m.Indices, a, c, b, b, c, d)
		}
	}
	return &scene.Scene{
		Source:    scene.Source{Path: "doodads/grid.mdx", Format: "mdx", Version: 1000},
		Meshes:    []scene.Mesh{m},
		Materials: []scene.Material{opaque("Ground")},
	}
}

// noMeshScene has a node hierarchy (with a zero-scale node) but no meshes.
func noMeshScene() *scene.Scene {
	a := restNode("Helper", scene.KindHelper, -1, [3]float32{0, 0, 1})
	b := restNode("Attach", scene.KindAttachment, 0, [3]float32{})
	b.Extras = scene.Extras{"path": "Abilities\\Spell.mdl"}
	return &scene.Scene{Nodes: []scene.Node{a, b}, Source: scene.Source{Format: "mdl"}}
}

// emptyScene has nothing at all.
func emptyScene() *scene.Scene { return &scene.Scene{} }

// testScenes names every hand-built scene.
func testScenes() []struct {
	name string
	s    *scene.Scene
} {
	return []struct {
		name string
		s    *scene.Scene
	}{
		{"triangle", triangleScene()},
		{"skinned", skinnedScene()},
		{"bigskin", bigSkinScene()},
		{"animated", animatedScene()},
		{"materials", materialScene()},
		{"variants", variantScene()},
		{"big", gridScene(300)},
		{"nomesh", noMeshScene()},
		{"repair", repairScene()},
		{"empty", emptyScene()},
		{"shapes", shapesScene()},
	}
}

// shapesScene is testscene.Shapes with its source at the root, where the tests write the .gltf.
func shapesScene() *scene.Scene {
	s := testscene.Shapes()
	s.Source.Path, s.Textures[0].Resolved = "Box.mdx", "Textures/Crate.png"
	return s
}

// repairScene needs the encoder's repairs: its skin's joints sit in two trees (so a synthetic
// root is added and the named skeleton replaced), weights sum to 1.0015, a joint repeats, a
// zero-weight slot names joint 1, and two normals are not unit length.
func repairScene() *scene.Scene {
	s := skinnedScene()
	s.Nodes[1].Parent = -1
	s.Nodes = append(s.Nodes, restNode("Unrelated", scene.KindHelper, -1, [3]float32{5, 0, 0}))
	m := &s.Meshes[0]
	m.Normals = [][3]float32{{0, 0, 2}, {0, 0, 0}, {0, 0, 1}, {0, 0, 1}}
	m.Weights[0][1] = [4]float32{0.5, 0.5015, 0, 0}
	m.Joints[0][3] = [4]uint16{1, 1, 0, 1}
	m.Weights[0][3] = [4]float32{0.25, 0.75, 0, 0}
	return s
}
