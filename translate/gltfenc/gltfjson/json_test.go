package gltfjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/ext/unlit"

	"github.com/modelfs/modelfs/translate/gltfenc/gltfjson/gltfjsontest"
	"github.com/modelfs/modelfs/translate/scene"
)

// extrasOfEveryType holds every dynamic type the fast writer writes directly, nil and empty
// forms included, and some it leaves to encoding/json.
func extrasOfEveryType() map[string]any {
	deep := any("bottom")
	for i := range 40 { // deeper than maxDirectDepth
		if i%2 == 0 {
			deep = map[string]any{"d": deep}
		} else {
			deep = []any{deep, i}
		}
	}
	return map[string]any{
		"nil": nil, "s": gltfjsontest.Awkward[3], "t": true, "f": false,
		"int": -7, "int8": int8(-8), "int16": int16(-16), "int32": int32(-32), "int64": int64(-1 << 62),
		"uint": uint(7), "uint8": uint8(8), "uint16": uint16(16), "uint32": uint32(1 << 31), "uint64": uint64(1 << 63),
		"f64": 1e-7, "f32": float32(1e-7), "f32big": float32(1e21), "f32tiny": math.Float32frombits(1), "f32neg0": float32(math.Copysign(0, -1)),
		"strings": []string{"a", "<b>"}, "nilStrings": []string(nil), "emptyStrings": []string{},
		"ints": []int{1, -2}, "nilInts": []int(nil), "int32s": []int32{3, -4}, "nilInt32s": []int32(nil),
		"f64s": []float64{0.1, 1e21}, "nilF64s": []float64(nil), "f32s": []float32{0.1, 3e38}, "nilF32s": []float32(nil),
		"v2": [2]float32{0.5, 1e-9}, "v3": [3]float32{1, 2, 3}, "v4": [4]float32{0, 0, 0, 1},
		"u32s": []uint32{0, 99999999, 1e8, 1<<32 - 1}, "nilU32s": []uint32(nil), "emptyU32s": []uint32{},
		"u2": [2]uint32{3333, 1<<32 - 1}, "d3": [3]float64{0.1, math.Copysign(0, -1), 1e21}, "d4": [4]float64{1e-7, 0.5, -2, 12345.678},
		"anys": []any{1, "x", nil, []any{}, map[string]any{}}, "nilAnys": []any(nil),
		"map": map[string]any{"z": 1, "a": map[string]any{"<": ">"}}, "nilMap": map[string]any(nil),
		"extras": scene.Extras{"k": []any{scene.Extras{"x": 1}, nil}}, "nilExtras": scene.Extras(nil),
		"bools": []bool{true, false}, "i64s": []int64{-1, 1 << 62}, "u64s": []uint64{0, 1 << 63},
		"deep": deep, "manyKeys": manyKeys(),
	}
}

// manyKeys has more keys than the writer sorts on the stack.
func manyKeys() map[string]any {
	m := map[string]any{}
	for i := range 40 {
		m[fmt.Sprintf("k%02d", 39-i)] = i
	}
	return m
}

// featureDoc builds a document using every feature the fast writer supports, each with values
// that exercise the escaping and formatting rules.
func featureDoc(withData bool) *gltf.Document {
	ext := gltf.Extensions{unlit.ExtensionName: unlit.Unlit{}, "X_other": map[string]any{"a<b": []int{1, 2}}}
	extras := map[string]any{}
	for i, s := range gltfjsontest.Awkward {
		extras[s] = gltfjsontest.AwkwardFloats[i]
	}
	fl := func(i int) float64 { return gltfjsontest.AwkwardFloats[i%len(gltfjsontest.AwkwardFloats)] }
	extras["every type"] = extrasOfEveryType()
	doc := &gltf.Document{
		Extensions:         ext,
		Extras:             extras,
		ExtensionsUsed:     []string{unlit.ExtensionName, "X_<other>"},
		ExtensionsRequired: []string{"X_<other>"},
		Asset:              gltf.Asset{Extensions: ext, Extras: "asset&", Copyright: gltfjsontest.Awkward[2], Generator: gltfjsontest.Awkward[3], MinVersion: "2.0"},
		Scene:              gltf.Index(1),
	}
	buf := &gltf.Buffer{Name: gltfjsontest.Awkward[4], Extras: []string{"x"}, Extensions: ext}
	if withData {
		buf.Data = []byte("abcdefghijklm")
		buf.ByteLength = 11 // a .glb holds ByteLength bytes, a .gltf all of Data
	}
	doc.Buffers = []*gltf.Buffer{buf}
	for ct := gltf.ComponentFloat; ct <= gltf.ComponentUint; ct++ {
		for at := gltf.AccessorScalar; at <= gltf.AccessorMat4; at++ {
			a := &gltf.Accessor{ComponentType: ct, Type: at, Count: int(ct)*7 + int(at)}
			if at%2 == 0 {
				a.BufferView = gltf.Index(int(at))
				a.ByteOffset = int(ct) * 4
				a.Name = gltfjsontest.Awkward[int(at)%len(gltfjsontest.Awkward)]
			}
			if ct == gltf.ComponentUbyte {
				a.Normalized = true
			}
			if at == gltf.AccessorVec3 {
				a.Min, a.Max = []float64{fl(int(ct)), fl(int(ct) + 1), fl(int(ct) + 2)}, []float64{fl(int(ct) + 3), fl(int(ct) + 4), fl(int(ct) + 5)}
			}
			if at == gltf.AccessorScalar {
				a.Min, a.Max = []float64{}, []float64{fl(int(ct) + 9)} // empty is left out
				a.Extras = gltfjsontest.Awkward[int(ct)]
			}
			doc.Accessors = append(doc.Accessors, a)
		}
	}
	for i := range 3 {
		an := &gltf.Animation{Name: gltfjsontest.Awkward[i], Extras: map[string]any{"duration": float32(fl(i)), "loop": i%2 == 0}}
		for ip := gltf.InterpolationLinear; ip <= gltf.InterpolationCubicSpline; ip++ {
			an.Samplers = append(an.Samplers, &gltf.AnimationSampler{Input: i, Output: int(ip) + 1, Interpolation: ip})
			c := &gltf.AnimationChannel{Sampler: int(ip), Target: gltf.AnimationChannelTarget{Path: gltf.TRSRotation}}
			if ip != gltf.InterpolationStep {
				c.Target.Node = gltf.Index(int(ip))
			} else {
				c.Extras, c.Target.Extras, c.Target.Path = "ch", "tg", gltf.TRSProperty(gltfjsontest.Awkward[1])
			}
			an.Channels = append(an.Channels, c)
		}
		if i == 2 {
			an.Channels, an.Samplers = nil, nil // written as null
		}
		doc.Animations = append(doc.Animations, an)
	}
	for i := range 4 {
		doc.BufferViews = append(doc.BufferViews, &gltf.BufferView{
			Buffer: i % 2, ByteOffset: i * 4, ByteLength: i * 3, ByteStride: i * 4 % 8, Target: []gltf.Target{gltf.TargetNone, gltf.TargetArrayBuffer, gltf.TargetElementArrayBuffer, 7}[i],
			Name: gltfjsontest.Awkward[i], Extras: i,
		})
	}
	doc.Images = []*gltf.Image{
		{Name: "a.png", URI: "../Textures/%20A%3C.png"},
		{Name: gltfjsontest.Awkward[3], MimeType: "image/png", BufferView: gltf.Index(3), Extras: map[string]any{"k": "v"}},
		{},
	}
	for i, s := range []gltf.Sampler{
		{}, {MagFilter: gltf.MagLinear, MinFilter: gltf.MinLinear}, {MagFilter: gltf.MagNearest, MinFilter: gltf.MinNearest, WrapS: gltf.WrapClampToEdge, WrapT: gltf.WrapMirroredRepeat},
		{MinFilter: gltf.MinNearestMipMapLinear}, {MinFilter: gltf.MinNearestMipMapNearest}, {MinFilter: gltf.MinLinearMipMapNearest}, {MinFilter: gltf.MinLinearMipMapLinear, Name: "s"},
	} {
		s.Extras = []any{i, "x"}
		doc.Samplers = append(doc.Samplers, &s)
	}
	doc.Textures = []*gltf.Texture{{}, {Name: "t", Sampler: gltf.Index(1), Source: gltf.Index(0), Extras: map[string]any{"wrapU": true}}}
	doc.Materials = []*gltf.Material{
		{},
		{Name: "pbr defaults", PBRMetallicRoughness: &gltf.PBRMetallicRoughness{BaseColorFactor: &[4]float64{1, 1, 1, 1}, MetallicFactor: gltf.Float(1), RoughnessFactor: gltf.Float(1)}},
		{Name: "pbr", PBRMetallicRoughness: &gltf.PBRMetallicRoughness{
			BaseColorFactor: &[4]float64{0.8, r32(0.1), 1e-7, 1}, MetallicFactor: gltf.Float(0), RoughnessFactor: gltf.Float(0.25),
			BaseColorTexture: &gltf.TextureInfo{Index: 1, TexCoord: 1, Extras: "bc"}, MetallicRoughnessTexture: &gltf.TextureInfo{Index: 0},
			Extras: map[string]any{"p": 1}, Extensions: ext,
		}, EmissiveFactor: [3]float64{1, 0.5, 0}, EmissiveTexture: &gltf.TextureInfo{Index: 0, TexCoord: 2}},
		{Name: "mask", AlphaMode: gltf.AlphaMask, AlphaCutoff: gltf.Float(0.75), DoubleSided: true, PBRMetallicRoughness: &gltf.PBRMetallicRoughness{}},
		{Name: "mask default cutoff", AlphaMode: gltf.AlphaMask, AlphaCutoff: gltf.Float(0.5)},
		{Name: "blend", AlphaMode: gltf.AlphaBlend, Extensions: gltf.Extensions{unlit.ExtensionName: unlit.Unlit{}}, Extras: map[string]any{"flags": []string{"Unshaded", "<two>"}}},
		{Name: "opaque default cutoff", AlphaCutoff: gltf.Float(0.5)},
		{Name: "hd", NormalTexture: &gltf.NormalTexture{Index: gltf.Index(1), TexCoord: 1},
			OcclusionTexture: &gltf.OcclusionTexture{Index: gltf.Index(0), Strength: gltf.Float(1)}},
		{Name: "hd scaled", NormalTexture: &gltf.NormalTexture{Index: gltf.Index(0), Scale: gltf.Float(0.5), Extras: "n"},
			OcclusionTexture: &gltf.OcclusionTexture{Index: gltf.Index(1), TexCoord: 2, Strength: gltf.Float(0.25)}},
	}
	attrs := gltf.PrimitiveAttributes{}
	for i := range 20 { // more than the writer's on-stack key array
		attrs[fmt.Sprintf("TEXCOORD_%d", 19-i)] = i
	}
	attrs["_<CUSTOM>"] = 99
	doc.Meshes = []*gltf.Mesh{
		{Name: "m", Extras: scene.Extras{"geoset": 0, "x": [3]float32{1, 2.5, 1e-7}}, Primitives: []*gltf.Primitive{
			{Attributes: gltf.PrimitiveAttributes{gltf.POSITION: 0, gltf.NORMAL: 1}, Indices: gltf.Index(2), Material: gltf.Index(0)},
			{Attributes: attrs, Extras: "p", Extensions: ext},
			{},
		}, Weights: []float64{0.5, 1e-9}},
		{Name: "no primitives"},
	}
	doc.Nodes = []*gltf.Node{
		{},
		{Name: "trs", Translation: [3]float64{1, -0.5, 1e21}, Rotation: [4]float64{0, 0.70710677, 0, 0.70710677}, Scale: [3]float64{2, 2, 2}},
		{Name: "defaults", Rotation: gltf.DefaultRotation, Scale: gltf.DefaultScale, Matrix: gltf.DefaultMatrix},
		{Name: "matrix", Matrix: [16]float64{2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 1, 2, 3, 1}},
		{Name: "zero scale", Scale: [3]float64{}, Children: []int{0, 1}, Skin: gltf.Index(0), Mesh: gltf.Index(1), Camera: gltf.Index(0), Weights: []float64{0.25}},
		{Name: "empty children", Children: []int{}, Extras: map[string]any{"kind": "mesh"}, Extensions: ext},
		{Translation: [3]float64{math.Copysign(0, -1), 5e-324, -1e-7}},
	}
	doc.Scenes = []*gltf.Scene{{}, {Name: "s", Nodes: []int{0, 1, 2}, Extras: map[string]any{}}, {Nodes: []int{}}}
	doc.Skins = []*gltf.Skin{
		{Name: "sk", InverseBindMatrices: gltf.Index(3), Skeleton: gltf.Index(0), Joints: []int{0, 1}},
		{},                // joints null
		{Joints: []int{}}, // joints []
	}
	return doc
}

func TestFastJSONFeatures(t *testing.T) {
	gltfjsontest.Match(t, "features with data", featureDoc(true), Write)
	gltfjsontest.Match(t, "features without data", featureDoc(false), Write)
	doc := featureDoc(true)
	doc.Buffers = nil
	doc.Asset = gltf.Asset{} // version defaults to 2.0
	gltfjsontest.Match(t, "no buffer", doc, Write)
	gltfjsontest.Match(t, "empty", &gltf.Document{}, Write)
	// A typed nil in an extras interface is written as null, as encoding/json does.
	gltfjsontest.Match(t, "typed nil extras", &gltf.Document{Extras: map[string]any(nil), Asset: gltf.Asset{Extras: []float32(nil)}}, Write)
}

// randomDoc builds a document from random choices among the supported features.
func randomDoc(r *rand.Rand) *gltf.Document {
	pick := func(n int) int { return r.IntN(n) }
	str := func() string {
		if pick(3) == 0 {
			return ""
		}
		b := []byte(gltfjsontest.Awkward[pick(len(gltfjsontest.Awkward))])
		for range pick(4) {
			b = append(b, byte(r.Uint32()))
		}
		return string(b)
	}
	num32 := func() float32 {
		return math.Float32frombits(r.Uint32()&^(0xff<<23) | uint32(r.IntN(255))<<23) // finite
	}
	num := func() float64 {
		switch pick(4) {
		case 0:
			return gltfjsontest.AwkwardFloats[pick(len(gltfjsontest.AwkwardFloats))]
		case 1:
			return r32(num32())
		case 2:
			return float64(pick(2000) - 1000)
		}
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return 1.25
		}
		return f
	}
	extras := func() any {
		switch pick(4) {
		case 0:
			return nil
		case 1:
			return str()
		case 2:
			return map[string]any{str(): num(), str(): str(), "b": pick(2) == 0}
		}
		return scene.Extras{str(): []float32{num32(), 1}}
	}
	idx := func() *int {
		if pick(2) == 0 {
			return nil
		}
		return gltf.Index(pick(100))
	}
	floats := func(n int) []float64 {
		if pick(3) == 0 {
			return nil
		}
		v := make([]float64, n)
		for i := range v {
			v[i] = num()
		}
		return v
	}
	doc := &gltf.Document{Extras: extras(), Asset: gltf.Asset{Version: str(), Generator: str(), Extras: extras()}, Scene: idx()}
	if pick(2) == 0 {
		n := pick(50)
		doc.Buffers = []*gltf.Buffer{{ByteLength: n, Data: make([]byte, n+pick(2)), Name: str(), Extras: extras()}}
		for i := range doc.Buffers[0].Data {
			doc.Buffers[0].Data[i] = byte(r.Uint32())
		}
	}
	for range pick(20) {
		doc.Accessors = append(doc.Accessors, &gltf.Accessor{
			Name: str(), Extras: extras(), BufferView: idx(), ByteOffset: pick(3) * 4, ComponentType: gltf.ComponentType(pick(6)),
			Normalized: pick(2) == 0, Count: pick(1000), Type: gltf.AccessorType(pick(7)), Max: floats(pick(4) + 1), Min: floats(pick(4) + 1),
		})
	}
	for range pick(5) {
		a := &gltf.Animation{Name: str(), Extras: extras()}
		for range pick(4) {
			a.Samplers = append(a.Samplers, &gltf.AnimationSampler{Input: pick(9), Output: pick(9), Interpolation: gltf.Interpolation(pick(3)), Extras: extras()})
			a.Channels = append(a.Channels, &gltf.AnimationChannel{Sampler: pick(9), Target: gltf.AnimationChannelTarget{Node: idx(), Path: gltf.TRSProperty(str())}})
		}
		doc.Animations = append(doc.Animations, a)
	}
	for range pick(10) {
		doc.BufferViews = append(doc.BufferViews, &gltf.BufferView{ByteOffset: pick(2) * 8, ByteLength: pick(100), ByteStride: pick(2) * 12, Target: gltf.Target(pick(2) * 34962), Name: str()})
	}
	for range pick(4) {
		m := &gltf.Material{Name: str(), Extras: extras(), AlphaMode: gltf.AlphaMode(pick(3)), DoubleSided: pick(2) == 0, EmissiveFactor: [3]float64{0, num() * float64(pick(2)), 0}}
		if m.AlphaMode != gltf.AlphaOpaque && pick(2) == 0 {
			m.AlphaCutoff = gltf.Float(num())
		}
		if pick(3) > 0 {
			m.PBRMetallicRoughness = &gltf.PBRMetallicRoughness{MetallicFactor: gltf.Float(float64(pick(2))), RoughnessFactor: gltf.Float(num())}
			if pick(2) == 0 {
				m.PBRMetallicRoughness.BaseColorFactor = &[4]float64{num(), num(), 1, 1}
				m.PBRMetallicRoughness.BaseColorTexture = &gltf.TextureInfo{Index: pick(3), TexCoord: pick(2)}
			}
		}
		if pick(3) == 0 {
			m.Extensions = gltf.Extensions{unlit.ExtensionName: unlit.Unlit{}}
		}
		doc.Materials = append(doc.Materials, m)
	}
	for range pick(4) {
		p := &gltf.Primitive{Attributes: gltf.PrimitiveAttributes{}, Indices: idx(), Material: idx()}
		for range pick(8) {
			p.Attributes[str()] = pick(50)
		}
		doc.Meshes = append(doc.Meshes, &gltf.Mesh{Name: str(), Extras: extras(), Primitives: []*gltf.Primitive{p}, Weights: floats(2)})
	}
	for range pick(15) {
		n := &gltf.Node{Name: str(), Extras: extras(), Mesh: idx(), Skin: idx(), Camera: idx()}
		if pick(4) == 0 {
			n.Matrix = [16]float64{num(), 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, num(), 0, 0, 1}
		} else {
			if pick(2) == 0 {
				n.Translation = [3]float64{num(), num(), num()}
			}
			if pick(2) == 0 {
				n.Rotation = [4]float64{num(), 0, 0, num()}
			}
			if pick(2) == 0 {
				n.Scale = [3]float64{num(), 1, num()}
			}
		}
		for range pick(4) {
			n.Children = append(n.Children, pick(20))
		}
		doc.Nodes = append(doc.Nodes, n)
	}
	for range pick(3) {
		doc.Samplers = append(doc.Samplers, &gltf.Sampler{MagFilter: gltf.MagFilter(pick(3)), MinFilter: gltf.MinFilter(pick(7)), WrapS: gltf.WrappingMode(pick(3)), WrapT: gltf.WrappingMode(pick(3))})
		doc.Textures = append(doc.Textures, &gltf.Texture{Name: str(), Sampler: idx(), Source: idx(), Extras: extras()})
		doc.Images = append(doc.Images, &gltf.Image{Name: str(), URI: str(), MimeType: str(), BufferView: idx()})
	}
	for range pick(3) {
		doc.Scenes = append(doc.Scenes, &gltf.Scene{Name: str(), Nodes: []int{pick(5), pick(5)}, Extras: extras()})
		s := &gltf.Skin{Name: str(), InverseBindMatrices: idx(), Skeleton: idx()}
		for range pick(5) {
			s.Joints = append(s.Joints, pick(30))
		}
		doc.Skins = append(doc.Skins, s)
	}
	return doc
}

func TestFastJSONRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 300 {
		gltfjsontest.Match(t, fmt.Sprintf("random %d", i), randomDoc(r), Write)
	}
}

// TestWriterRefuses checks that documents holding what the writer does not write (parts the
// encoder never makes, values JSON cannot hold) give an error, not a document that differs
// from qmuntal's.
func TestWriterRefuses(t *testing.T) {
	nan := math.NaN()
	cases := map[string]func(d *gltf.Document){
		"camera": func(d *gltf.Document) {
			d.Cameras = []*gltf.Camera{{Perspective: &gltf.Perspective{Yfov: 1, Znear: 0.1}}}
		},
		"sparse":         func(d *gltf.Document) { d.Accessors[0].Sparse = &gltf.Sparse{Count: 1} },
		"normal texture": func(d *gltf.Document) { d.Materials[1].NormalTexture = &gltf.NormalTexture{Index: gltf.Index(0)} },
		"occlusion":      func(d *gltf.Document) { d.Materials[1].OcclusionTexture = &gltf.OcclusionTexture{Index: gltf.Index(0)} },
		"targets": func(d *gltf.Document) {
			d.Meshes[0].Primitives[0].Targets = []gltf.PrimitiveAttributes{{"POSITION": 1}}
		},
		"mode":            func(d *gltf.Document) { d.Meshes[0].Primitives[0].Mode = gltf.PrimitiveLines },
		"two buffers":     func(d *gltf.Document) { d.Buffers = append(d.Buffers, &gltf.Buffer{ByteLength: 2, Data: []byte{1, 2}}) },
		"buffer uri":      func(d *gltf.Document) { d.Buffers[0].URI = "data:application/octet-stream;base64,AAAA" },
		"nil node":        func(d *gltf.Document) { d.Nodes[0] = nil },
		"bad component":   func(d *gltf.Document) { d.Accessors[0].ComponentType = 9 },
		"bad type":        func(d *gltf.Document) { d.Accessors[0].Type = 9 },
		"bad interp":      func(d *gltf.Document) { d.Animations[0].Samplers[0].Interpolation = 7 },
		"bad alpha":       func(d *gltf.Document) { d.Materials[0].AlphaMode = 5 },
		"opaque cutoff":   func(d *gltf.Document) { d.Materials[0].AlphaCutoff = gltf.Float(0.3) },
		"matrix and trs":  func(d *gltf.Document) { d.Nodes[3].Scale = [3]float64{2, 2, 2} },
		"bad wrap":        func(d *gltf.Document) { d.Samplers[0].WrapS = 4 },
		"bad min filter":  func(d *gltf.Document) { d.Samplers[0].MinFilter = 40 },
		"nan min":         func(d *gltf.Document) { d.Accessors[2].Min = []float64{nan, 0, 0} },
		"inf translation": func(d *gltf.Document) { d.Nodes[1].Translation[0] = math.Inf(1) },
		"nan extras":      func(d *gltf.Document) { d.Nodes[1].Extras = map[string]any{"x": nan} },
		"nan cutoff":      func(d *gltf.Document) { d.Materials[3].AlphaCutoff = gltf.Float(nan) },
		"func extras":     func(d *gltf.Document) { d.Extras = func() {} },
		"nested func":     func(d *gltf.Document) { d.Nodes[0].Extras = map[string]any{"a": []any{1, func() {}}} },
		"nan float32":     func(d *gltf.Document) { d.Nodes[0].Extras = scene.Extras{"a": []float32{float32(nan)}} },
		"cycle": func(d *gltf.Document) {
			m := map[string]any{}
			m["self"] = m
			d.Nodes[0].Extras = m
		},
		"short glb buffer": func(d *gltf.Document) { d.Buffers[0].ByteLength = 100 },
	}
	for name, f := range cases {
		for _, binary := range []bool{false, true} {
			doc := featureDoc(true)
			f(doc)
			want, wantErr := gltfjsontest.Reference(doc, binary)
			got, err := Write(doc, binary)
			if err == nil && (wantErr != nil || !bytes.Equal(got, want)) {
				t.Errorf("%s binary=%v: written (%d bytes) where qmuntal gives %d bytes, %v", name, binary, len(got), len(want), wantErr)
			}
		}
	}
}

// TestJSONFloat compares float formatting with encoding/json's over special values and random
// bit patterns, at both precisions.
func TestJSONFloat(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	check := func(f float64) {
		t.Helper()
		want, err := json.Marshal(f)
		got, ok := appendJSONFloat([]byte("x"), f, 64)
		if ok != (err == nil) || ok && string(got) != "x"+string(want) {
			t.Fatalf("float64 %v (%#x): got %q %v, want %q %v", f, math.Float64bits(f), got, ok, want, err)
		}
		f32 := float32(f)
		want, err = json.Marshal(f32)
		got, ok = appendJSONFloat([]byte("x"), float64(f32), 32)
		if ok != (err == nil) || ok && string(got) != "x"+string(want) {
			t.Fatalf("float32 %v (%#x): got %q %v, want %q %v", f32, math.Float32bits(f32), got, ok, want, err)
		}
	}
	for _, f := range gltfjsontest.AwkwardFloats {
		check(f)
		check(-f)
		check(math.Nextafter(f, math.Inf(1)))
		check(math.Nextafter(f, math.Inf(-1)))
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 1e-6, 1e21, 1 << 24, 1<<24 + 2, -(1 << 24), 1e15 + 2, float64(math.MaxFloat32), math.SmallestNonzeroFloat32} {
		check(f)
		check(math.Nextafter(f, 0))
	}
	for range 40000 {
		check(math.Float64frombits(r.Uint64()))
		check(float64(math.Float32frombits(r.Uint32())))
		// Values near the cutoffs and whole numbers, where the formats switch.
		check(math.Ldexp(r.Float64(), r.IntN(160)-90))
		check(float64(r.Int64N(1<<60) - 1<<59))
		check(float64(r.Int32N(1<<26) - 1<<25))
		check(r32(float32(r.NormFloat64())))
	}
}

// FuzzJSONFloat extends TestJSONFloat with the fuzzer's choice of bits.
func FuzzJSONFloat(f *testing.F) {
	for _, v := range gltfjsontest.AwkwardFloats {
		f.Add(math.Float64bits(v))
	}
	f.Fuzz(func(t *testing.T, bits uint64) {
		for _, v := range []float64{math.Float64frombits(bits), float64(math.Float32frombits(uint32(bits)))} {
			want, err := json.Marshal(v)
			got, ok := appendJSONFloat(nil, v, 64)
			if ok != (err == nil) || ok && string(got) != string(want) {
				t.Fatalf("float64 %v: got %q, want %q", v, got, want)
			}
			want, err = json.Marshal(float32(v))
			got, ok = appendJSONFloat(nil, float64(float32(v)), 32)
			if ok != (err == nil) || ok && string(got) != string(want) {
				t.Fatalf("float32 %v: got %q, want %q", float32(v), got, want)
			}
		}
	})
}

// TestJSONString compares string escaping with encoding/json's.
func TestJSONString(t *testing.T) {
	check := func(s string) {
		t.Helper()
		want, _ := json.Marshal(s)
		if got := appendJSONString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	}
	for _, s := range gltfjsontest.Awkward {
		check(s)
	}
	for c := range 256 {
		check(string([]byte{byte(c)}))
		check("a" + string([]byte{byte(c)}) + "b")
	}
	for _, r := range []rune{0x7f, 0x80, 0x7ff, 0x800, 0x2027, 0x2028, 0x2029, 0x202a, 0xfffd, 0xffff, 0x10000, utf8.MaxRune} {
		check(string(r) + "x" + string(r))
	}
	r := rand.New(rand.NewPCG(7, 8))
	pieces := []string{"a", "<", ">", "&", "\"", "\\", "\n", "\x00", "\x1f", "é", "\u2028", "\u2029", "\xe2\x80", "\xff", "日", "🎉", " "}
	for range 20000 {
		var b strings.Builder
		for range r.IntN(12) {
			if r.IntN(4) == 0 {
				b.WriteByte(byte(r.Uint32()))
			} else {
				b.WriteString(pieces[r.IntN(len(pieces))])
			}
		}
		check(b.String())
	}
}

// FuzzJSONString extends TestJSONString with the fuzzer's strings.
func FuzzJSONString(f *testing.F) {
	for _, s := range gltfjsontest.Awkward {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); string(got) != string(want) {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	})
}

// TestAppendInt checks the integer writer against strconv for the small non-negative values it
// writes itself and the others it hands on.
func TestAppendInt(t *testing.T) {
	check := func(v int) {
		t.Helper()
		if got, want := string(appendInt([]byte("x"), v)), "x"+strconv.Itoa(v); got != want {
			t.Fatalf("appendInt(%d) = %q, want %q", v, got, want)
		}
	}
	for v := -1000; v <= 200000; v++ {
		check(v)
	}
	for _, v := range []int{999999, 1000000, 9999999, 10000000, 99999999, 100000000, 1 << 31, math.MaxInt, math.MinInt} {
		check(v)
		check(v - 1)
	}
}

// An Object's members are written in their order, not sorted; values that are not plain are
// refused.
func TestObjectsAndNotPlain(t *testing.T) {
	var w jsonWriter
	got := w.anyValue(nil, scene.Object{{Key: "z", Value: int64(1)}, {Key: "a", Value: scene.Object{{Key: "<", Value: "x"}}}, {Key: "m", Value: []any{nil, true}}}, 0)
	if want := `{"z":1,"a":{"\u003c":"x"},"m":[null,true]}`; string(got) != want || w.err != nil {
		t.Errorf("Object: %s, %v; want %s", got, w.err, want)
	}
	for _, v := range []any{struct{ A int }{3}, gltf.Index(4), json.RawMessage("{}"), []scene.Extras{}} {
		var w jsonWriter
		w.anyValue(nil, v, 0)
		if !errors.Is(w.err, errNotPlain) {
			t.Errorf("%T: %v; want errNotPlain", v, w.err)
		}
	}
}

// r32 widens f to the float64 of its shortest float32 decimal, as the encoder stores float32
// values.
func r32(f float32) float64 {
	v, err := strconv.ParseFloat(strconv.FormatFloat(float64(f), 'e', -1, 32), 64)
	if err != nil || f == 0 {
		return 0
	}
	return v
}

// A node scaled to nothing is written with scale [0,0,0], which qmuntal reads back; a node
// whose scale is the zero value has the default, as with qmuntal.
func TestZeroScale(t *testing.T) {
	doc := &gltf.Document{Asset: gltf.Asset{Version: "2.0"}, Nodes: []*gltf.Node{{Name: "hidden", Scale: ZeroScale}, {Name: "plain"}}}
	out, err := Write(doc, false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `{"scale":[0,0,0],"name":"hidden"}`) || !strings.Contains(string(out), `{"name":"plain"}`) {
		t.Fatalf("nodes written as %s", out)
	}
	var back gltf.Document
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	if back.Nodes[0].Scale != [3]float64{} || back.Nodes[1].Scale != gltf.DefaultScale {
		t.Errorf("read back as %v and %v", back.Nodes[0].Scale, back.Nodes[1].Scale)
	}
}
