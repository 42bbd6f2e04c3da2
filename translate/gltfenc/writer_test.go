package gltfenc

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/modelfs/modelfs/translate/gltfenc/gltfjson"
	"github.com/modelfs/modelfs/translate/gltfenc/gltfjson/gltfjsontest"
	"github.com/modelfs/modelfs/translate/scene"
)

// TestWriterMatchesQmuntal holds the JSON writer to qmuntal's bytes on every test scene, with
// and without embedded images, in both containers.
func TestWriterMatchesQmuntal(t *testing.T) {
	for _, tc := range testScenes() {
		for _, opt := range []Options{{}, {Binary: true}, {EmbedImages: true}} {
			doc, err := Document(tc.s, opt)
			if err != nil {
				t.Fatal(err)
			}
			gltfjsontest.Match(t, fmt.Sprintf("%s %+v", tc.name, opt), doc, gltfjson.Write)
		}
		s := withImages(t, tc.s)
		for _, opt := range []Options{{Binary: true}, {EmbedImages: true}, {}} {
			doc, err := Document(s, opt)
			if err != nil {
				t.Fatal(err)
			}
			gltfjsontest.Match(t, fmt.Sprintf("%s with images %+v", tc.name, opt), doc, gltfjson.Write)
		}
	}
}

// TestWriterRandomScenes takes random scenes through Document and holds the JSON writer to
// qmuntal's bytes on every one that encodes.
func TestWriterRandomScenes(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	written := 0
	for i := range 400 {
		s := randomScene(r)
		for _, opt := range []Options{{}, {Binary: true}} {
			doc, err := Document(s, opt)
			if err != nil {
				continue // an inconsistent draw; Encode reports it the same on both paths
			}
			if _, err := gltfjsontest.Reference(doc, opt.Binary); err != nil {
				continue // NaN from a degenerate draw: the writer's own tests cover errors
			}
			gltfjsontest.Match(t, fmt.Sprintf("random scene %d %+v", i, opt), doc, gltfjson.Write)
			written++
		}
	}
	if written < 400 {
		t.Errorf("only %d of 800 random scenes encoded", written)
	}
}

// withImages returns variants of s whose resolved textures carry image bytes, so that .glb and
// EmbedImages put them into the buffer.
func withImages(t *testing.T, s *scene.Scene) *scene.Scene {
	for i := range s.Textures {
		tx := &s.Textures[i]
		if tx.Resolved == "" {
			tx.Resolved = fmt.Sprintf("Textures/T%d.blp", i)
		}
		img := tinyPNG(t)
		tx.Image, tx.MIME = append(img, make([]byte, i+1)...), "image/png" // odd lengths need padding
	}
	return s
}

// randomScene builds a scene from random choices: nodes with gltfjsontest.Awkward names, extras and
// transforms of every magnitude, meshes with random attributes, skins, materials with and
// without textures in every alpha mode, animations with every path and interpolation.
func randomScene(r *rand.Rand) *scene.Scene {
	pick := func(n int) int { return r.IntN(n) }
	f32 := func() float32 {
		switch pick(5) {
		case 0:
			if f := float32(gltfjsontest.AwkwardFloats[pick(len(gltfjsontest.AwkwardFloats))]); !math.IsInf(float64(f), 0) {
				return f
			}
			return -1e-7
		case 1:
			return math.Float32frombits(r.Uint32()&^(0xff<<23) | uint32(pick(255))<<23) // any finite
		case 2:
			return float32(pick(21) - 10)
		}
		return float32(r.NormFloat64())
	}
	str := func() string { return gltfjsontest.Awkward[pick(len(gltfjsontest.Awkward))] }
	extras := func() scene.Extras {
		if pick(2) == 0 {
			return nil
		}
		return scene.Extras{str(): f32(), "n": pick(100), "list": []float32{f32(), f32()}, "s": str()}
	}
	s := &scene.Scene{Source: scene.Source{Path: "dir/" + str() + ".mdx", Format: str(), Version: pick(3) * 400, Name: str()}}
	for i := range pick(8) + 1 {
		parent := -1
		if i > 0 && pick(3) > 0 {
			parent = pick(i)
		}
		n := scene.Node{Name: str(), Kind: scene.NodeKind([]string{"", "bone", "helper"}[pick(3)]), Parent: parent, Extras: extras(),
			Translation: [3]float32{f32(), f32(), f32()}, Rotation: [4]float32{f32(), f32(), f32(), f32()}, Scale: [3]float32{f32(), f32(), f32()}}
		if pick(2) == 0 {
			n.Rotation, n.Scale = [4]float32{0, 0, 0, 1}, [3]float32{1, 1, 1}
		}
		s.Nodes = append(s.Nodes, n)
	}
	for i := range pick(3) {
		s.Textures = append(s.Textures, scene.Texture{Path: str(), Resolved: []string{"", "T/a.blp", "T/b.png"}[pick(3)], Replaceable: pick(3), WrapU: pick(2) == 0, WrapV: pick(2) == 0, Extras: extras()})
		if pick(2) == 0 {
			s.Textures[i].Image, s.Textures[i].MIME = make([]byte, pick(9)+1), "image/png"
		}
	}
	for range pick(4) {
		m := scene.Material{Name: str(), BaseColor: [4]float32{f32(), 1, 1, f32()}, Texture: pick(len(s.Textures)+1) - 1, AlphaMode: scene.AlphaMode([]string{"OPAQUE", "MASK", "BLEND"}[pick(3)]),
			AlphaCutoff: f32(), DoubleSided: pick(2) == 0, Unlit: pick(3) == 0, Flags: []string{str()}, Extras: extras()}
		if pick(2) == 0 {
			m.BaseColor = [4]float32{1, 1, 1, 1}
		}
		s.Materials = append(s.Materials, m)
	}
	if pick(2) == 0 {
		joints := []int{0}
		if len(s.Nodes) > 1 {
			joints = append(joints, 1)
		}
		ibm := make([][16]float32, len(joints))
		for i := range ibm {
			ibm[i] = translateMat(f32(), 0, f32())
		}
		s.Skins = append(s.Skins, scene.Skin{Name: str(), Joints: joints, InverseBind: ibm, Skeleton: pick(2) - 1})
	}
	for range pick(3) {
		nv := pick(6) + 3
		m := scene.Mesh{Name: str(), Material: pick(len(s.Materials)+1) - 1, Skin: -1, Extras: extras()}
		for range nv {
			m.Positions = append(m.Positions, [3]float32{f32(), f32(), f32()})
		}
		for range pick(4) * 3 {
			m.Indices = append(m.Indices, uint32(pick(nv)))
		}
		if len(m.Indices) == 0 {
			m.Indices = []uint32{0, 1, 2}
		}
		if pick(2) == 0 {
			m.Normals = make([][3]float32, nv)
			for v := range m.Normals {
				m.Normals[v] = [3]float32{f32(), f32(), f32()}
			}
		}
		for range pick(3) {
			uv := make([][2]float32, nv)
			for v := range uv {
				uv[v] = [2]float32{f32(), f32()}
			}
			m.UVs = append(m.UVs, uv)
		}
		if pick(2) == 0 {
			m.Colors = make([][4]float32, nv)
			for v := range m.Colors {
				m.Colors[v] = [4]float32{f32(), f32(), f32(), 1}
			}
		}
		if len(s.Skins) > 0 && pick(2) == 0 {
			m.Skin = 0
			js, ws := make([][4]uint16, nv), make([][4]float32, nv)
			for v := range js {
				js[v], ws[v] = [4]uint16{uint16(pick(len(s.Skins[0].Joints))), 0, 0, 0}, [4]float32{1, 0, 0, 0}
				if pick(3) == 0 {
					ws[v] = [4]float32{f32(), 0.5, 0, 0}
				}
			}
			m.Joints, m.Weights = [][][4]uint16{js}, [][][4]float32{ws}
		}
		s.Meshes = append(s.Meshes, m)
	}
	for range pick(3) {
		a := scene.Animation{Name: str(), Duration: f32(), Loop: pick(2) == 0, Extras: extras()}
		if pick(2) == 0 {
			a.Start, a.End = float64(f32()), float64(f32())
		}
		for range pick(5) {
			c := scene.Channel{Node: pick(len(s.Nodes)), Path: scene.Path([]string{"translation", "rotation", "scale"}[pick(3)]),
				Interp: []scene.Interp{scene.Step, scene.Linear, scene.CubicSpline}[pick(3)]}
			for k := range pick(4) + 1 {
				c.Times = append(c.Times, float32(k)*f32())
			}
			per := c.Path.Width()
			if c.Interp == scene.CubicSpline {
				per *= 3
			}
			for range per * len(c.Times) {
				c.Values = append(c.Values, f32())
			}
			a.Channels = append(a.Channels, c)
		}
		s.Animations = append(s.Animations, a)
	}
	return s
}

// TestKindValue checks that every node kind reaches the extras as its plain string.
func TestKindValue(t *testing.T) {
	for _, k := range []scene.NodeKind{scene.KindRoot, scene.KindBone, scene.KindHelper, scene.KindAttachment,
		scene.KindEvent, scene.KindLight, scene.KindCamera, scene.KindEmitter, scene.KindRibbon,
		scene.KindCollision, "other", ""} {
		if got, ok := kindValue(k).(string); !ok || got != string(k) {
			t.Errorf("kindValue(%q) = %#v", k, kindValue(k))
		}
	}
}
