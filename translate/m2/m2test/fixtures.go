package m2test

import (
	"math"

	"github.com/modelfs/modelfs/translate/m2"
)

// Versions names the versions and layouts the fixtures are written as.
var Versions = []struct {
	Name    string
	Version uint32
	Layout  m2.Layout
}{
	{"v256", 256, m2.LayoutClassic},
	{"v260", 260, m2.LayoutTBC},
	{"v263-short-header", 263, m2.LayoutTBCShort},
	{"v261-classic-bones", 261, m2.LayoutTBCEarly},
	{"v264", 264, m2.LayoutWrath},
	{"v272", 272, m2.LayoutWrath},
}

// quat returns the unit quaternion (on the compressed grid) rotating by angle radians about
// axis.
func quat(axis [3]float64, angle float64) [4]float32 {
	l := math.Sqrt(axis[0]*axis[0] + axis[1]*axis[1] + axis[2]*axis[2])
	s := math.Sin(angle/2) / l
	return OnGrid([4]float32{float32(axis[0] * s), float32(axis[1] * s), float32(axis[2] * s), float32(math.Cos(angle / 2))})
}

// keys makes a key list from times and values.
func keys(times []uint32, vals ...[]float32) m2.Keys {
	k := m2.Keys{Times: times}
	for _, v := range vals {
		k.Values = append(k.Values, v...)
	}
	return k
}

func q(a [4]float32) []float32 { return a[:] }

// box appends an axis-aligned box (24 vertices, 12 triangles) around c with half-size h,
// weighted to bones, to the model's vertices and to view v as one submesh with geoset id.
func box(m *m2.Model, v *m2.View, id uint16, c, h [3]float32, bones [4]uint8, weights [4]uint8) {
	faces := []struct{ n, u, w [3]float32 }{
		{[3]float32{1, 0, 0}, [3]float32{0, 1, 0}, [3]float32{0, 0, 1}},
		{[3]float32{-1, 0, 0}, [3]float32{0, 0, 1}, [3]float32{0, 1, 0}},
		{[3]float32{0, 1, 0}, [3]float32{0, 0, 1}, [3]float32{1, 0, 0}},
		{[3]float32{0, -1, 0}, [3]float32{1, 0, 0}, [3]float32{0, 0, 1}},
		{[3]float32{0, 0, 1}, [3]float32{1, 0, 0}, [3]float32{0, 1, 0}},
		{[3]float32{0, 0, -1}, [3]float32{0, 1, 0}, [3]float32{1, 0, 0}},
	}
	vs := len(v.Vertices)
	is := len(v.Indices)
	for _, f := range faces {
		base := uint16(len(v.Vertices))
		for k, s := range [][2]float32{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
			var p [3]float32
			for a := 0; a < 3; a++ {
				p[a] = c[a] + h[a]*(f.n[a]+s[0]*f.u[a]+s[1]*f.w[a])
			}
			gi := uint16(len(m.Vertices))
			m.Vertices = append(m.Vertices, m2.Vertex{Pos: p, Normal: f.n, Bones: bones, Weights: weights,
				UV: [2][2]float32{{(s[0] + 1) / 2, (s[1] + 1) / 2}, {float32(k) / 4, 0.5}}})
			v.Vertices = append(v.Vertices, gi)
		}
		v.Indices = append(v.Indices, base, base+1, base+2, base, base+2, base+3)
	}
	v.Submeshes = append(v.Submeshes, m2.Submesh{ID: id, VertexStart: uint16(vs), VertexCount: uint16(len(v.Vertices) - vs),
		IndexStart: uint32(is), IndexCount: uint16(len(v.Indices) - is), BoneCount: 3, BoneInfluences: 2, Center: c})
}

// Creature is a small animated model with one of everything: 4 bones (one on a global sequence,
// one stepping), 5 sequences (a variation, an alias, one without keys), two submeshes drawn by
// three texture units (one an additive environment-mapped overlay), a creature-skin slot and a
// texture file, a color, a texture weight and transform, two attachments, an event, a light, a
// camera, a ribbon and a particle emitter.
func Creature() *m2.Model {
	m := &m2.Model{Name: "TestBeast", GlobalSequences: []uint32{1000}}
	m.Sequences = []m2.Sequence{
		{ID: 0, End: 1000, Flags: m2.SeqKeysInModel, Frequency: 32767, NextVariation: 2, AliasNext: 0, BlendTime: 150},
		{ID: 4, End: 800, Flags: m2.SeqKeysInModel, MoveSpeed: 2.5, Frequency: 32767, NextVariation: -1, AliasNext: 1},
		{ID: 0, Variation: 1, End: 1200, Flags: m2.SeqKeysInModel, Frequency: 100, NextVariation: -1, AliasNext: 2},
		{ID: 5, End: 800, Flags: m2.SeqKeysInModel | m2.SeqAlias, MoveSpeed: 7, NextVariation: -1, AliasNext: 1},
		{ID: 1, End: 500, Flags: m2.SeqKeysInModel, NextVariation: -1, AliasNext: 4},
	}
	m.SequenceLookup = []int16{0, 4, -1, -1, 1, 3}
	ns := len(m.Sequences)
	per := func(ks ...m2.Keys) []m2.Keys {
		out := make([]m2.Keys, ns)
		copy(out, ks)
		return out
	}
	up := [3]float64{0, 0, 1}
	side := [3]float64{1, 0, 0}
	m.Bones = []m2.Bone{
		{KeyBone: 26, Parent: -1, Pivot: [3]float32{0, 0, 0}, CRC: 11,
			Translation: m2.Track{Interp: 1, GlobalSeq: -1, Width: 3, Keys: per(
				m2.Keys{},
				keys([]uint32{0, 400, 800}, []float32{0, 0, 0}, []float32{0.5, 0.25, 0.125}, []float32{1, 0, 0}),
			)}},
		{KeyBone: 5, Parent: 0, Pivot: [3]float32{0, 0, 1}, CRC: 12,
			Rotation: m2.Track{Interp: 1, GlobalSeq: -1, Width: 4, Keys: per(
				keys([]uint32{0, 500, 1000}, q(quat(up, 0)), q(quat(up, 1.2)), q(quat(up, 0))),
				keys([]uint32{0, 200, 400, 600, 800}, q(quat(side, 0)), q(quat(side, 0.5)), q(quat(side, -2.5)), q(quat(side, 3)), q(quat(side, 0))),
				// Keys not on the window's edges, one past its end: the curve is cut at 0 and 1200.
				keys([]uint32{100, 700, 1500}, q(quat(up, 0.3)), q(quat([3]float64{1, 1, 0}, 2)), q(quat(up, -1))),
			)}},
		{KeyBone: 6, Parent: 1, Pivot: [3]float32{0.5, 0, 1.5}, CRC: 13,
			Rotation: m2.Track{Interp: 0, GlobalSeq: -1, Width: 4, Keys: per(
				keys([]uint32{0, 300, 600}, q(quat(side, 0.2)), q(quat(side, -0.4)), q(quat(side, 0.2))),
				m2.Keys{},
				keys([]uint32{0, 600, 600, 1200}, q(quat(up, 0.1)), q(quat(up, 0.2)), q(quat(up, 0.3)), q(quat(up, 0.4))),
			)},
			Scale: m2.Track{Interp: 1, GlobalSeq: 0, Width: 3, Keys: []m2.Keys{
				keys([]uint32{0, 250, 1000}, []float32{1, 1, 1}, []float32{1.2, 0.8, 1}, []float32{1, 1, 1}),
			}}},
		{KeyBone: -1, Parent: 1, Pivot: [3]float32{-0.5, 0, 1}, CRC: 14,
			Translation: m2.Track{Interp: 1, GlobalSeq: -1, Width: 3, Keys: per(
				keys([]uint32{250}, []float32{0, 0.5, 0}),
				keys([]uint32{100, 300, 900}, []float32{0, 0, 0}, []float32{0, -0.25, 0.5}, []float32{0.125, 0, 0}),
			)},
			Scale: m2.Track{Interp: 1, GlobalSeq: -1, Width: 3, Keys: per(
				m2.Keys{}, m2.Keys{}, m2.Keys{},
				m2.Keys{},
				keys([]uint32{0, 500}, []float32{1, 1, 1}, []float32{0.5, 0.5, 0.5}),
			)}},
	}
	m.KeyBoneLookup = []int16{-1, -1, -1, -1, -1, 1, 2}
	v := &m2.View{BoneCountMax: 21}
	box(m, v, 0, [3]float32{0, 0, 1}, [3]float32{0.5, 0.3, 0.4}, [4]uint8{1, 0, 0, 0}, [4]uint8{255, 0, 0, 0})
	box(m, v, 0, [3]float32{0.6, 0, 1.6}, [3]float32{0.2, 0.2, 0.2}, [4]uint8{2, 1, 3, 0}, [4]uint8{150, 100, 5, 0})
	// The head's first face also drawn from behind (its first triangle again, reversed), and a
	// degenerate triangle, as real files have them.
	head := &v.Submeshes[1]
	i0 := v.Indices[head.IndexStart : head.IndexStart+3]
	v.Indices = append(v.Indices, i0[2], i0[1], i0[0], i0[0], i0[0], i0[1])
	head.IndexCount += 6
	v.Units = []m2.TexUnit{
		{Flags: 16, Submesh: 0, Geoset: 0, Color: -1, Material: 0, Layer: 0, TextureCount: 1, TextureCombo: 0, TexCoordCombo: 0, WeightCombo: 0, TransformCombo: 1},
		{Flags: 16, Submesh: 0, Geoset: 0, Color: -1, Material: 1, Layer: 1, TextureCount: 1, TextureCombo: 1, TexCoordCombo: 1, WeightCombo: 0, TransformCombo: 1},
		{Flags: 16, Submesh: 1, Geoset: 1, Color: 0, Material: 0, Layer: 0, TextureCount: 1, TextureCombo: 0, TexCoordCombo: 2, WeightCombo: 1, TransformCombo: 0},
	}
	m.View = v
	m.Textures = []m2.Texture{{Type: 11}, {Type: 0, Flags: 3, Path: "CREATURE\\TESTBEAST\\TESTBEASTREFLECT.BLP"}}
	m.Materials = []m2.Material{{Flags: 0, Blend: 1}, {Flags: 0x4 | 0x1 | 0x10, Blend: 4}}
	m.TextureLookup = []int16{0, 1}
	m.TexUnitLookup = []int16{0, -1, 1}
	m.TransparencyLookup = []int16{0, 1}
	m.TransformLookup = []int16{0, -1}
	m.TextureReplace = []int16{-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0}
	m.BoneLookup = []int16{0, 1, 2, 3}
	m.Colors = []m2.Color{{
		Color: m2.Track{Interp: 0, GlobalSeq: -1, Width: 3, Keys: per(keys([]uint32{0}, []float32{1, 0.5, 0.25}))},
		Alpha: m2.Track{Interp: 0, GlobalSeq: -1, Width: 1, Keys: per(keys([]uint32{0}, []float32{1}))},
	}}
	m.TextureWeights = []m2.Track{
		{Interp: 0, GlobalSeq: -1, Width: 1, Keys: per(keys([]uint32{0}, []float32{1}))},
		{Interp: 0, GlobalSeq: -1, Width: 1, Keys: per(keys([]uint32{0}, []float32{float32(16384) / 32767}))},
	}
	m.TextureTransforms = []m2.TextureTransform{{
		Translation: m2.Track{Interp: 1, GlobalSeq: 0, Width: 3, Keys: []m2.Keys{keys([]uint32{0, 1000}, []float32{0, 0, 0}, []float32{1, 0, 0})}},
		Rotation:    m2.Track{Interp: 0, GlobalSeq: -1, Width: 4},
		Scale:       m2.Track{Interp: 0, GlobalSeq: -1, Width: 3},
	}}
	m.Bounds = m2.Bounds{Min: [3]float32{-0.5, -0.3, 0.6}, Max: [3]float32{0.8, 0.3, 1.8}, Radius: 1.2}
	m.Collision = m2.Bounds{Min: [3]float32{-0.5, -0.3, 0}, Max: [3]float32{0.5, 0.3, 1.4}, Radius: 0.9}
	m.CollisionIndices = []uint16{0, 1, 2}
	m.CollisionPositions = [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}
	m.CollisionNormals = [][3]float32{{0, 0, 1}}
	m.Attachments = []m2.Attachment{
		{ID: 11, Bone: 2, Pos: [3]float32{0.5, 0, 1.9}, Animated: m2.Track{Interp: 0, GlobalSeq: -1, Width: 1, Keys: per(keys([]uint32{0}, []float32{1}))}},
		{ID: 1, Bone: 1, Pos: [3]float32{0.3, -0.4, 1.1}, Animated: m2.Track{Interp: 0, GlobalSeq: -1, Width: 1}},
	}
	m.AttachmentLookup = []int16{-1, 1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0}
	m.Events = []m2.Event{{Ident: "$CSD", Data: 7, Bone: 1, Pos: [3]float32{0, 0, 1},
		Enabled: m2.Track{Interp: 0, GlobalSeq: -1, Keys: per(m2.Keys{}, m2.Keys{Times: []uint32{200, 600}})}}}
	m.Lights = []m2.Light{{Type: 1, Bone: 2, Pos: [3]float32{0.5, 0, 1.6},
		AmbientColor:     m2.Track{Interp: 0, GlobalSeq: -1, Width: 3, Keys: per(keys([]uint32{0}, []float32{1, 0.9, 0.8}))},
		AmbientIntensity: m2.Track{Interp: 0, GlobalSeq: -1, Width: 1, Keys: per(keys([]uint32{0}, []float32{0.5}))},
		DiffuseColor:     m2.Track{Interp: 0, GlobalSeq: -1, Width: 3}, DiffuseIntensity: m2.Track{Interp: 0, GlobalSeq: -1, Width: 1},
		AttenuationStart: m2.Track{Interp: 0, GlobalSeq: -1, Width: 1}, AttenuationEnd: m2.Track{Interp: 0, GlobalSeq: -1, Width: 1},
		Visibility: m2.Track{Interp: 0, GlobalSeq: -1, Width: 1, Keys: per(keys([]uint32{0}, []float32{1}))},
	}}
	m.Cameras = []m2.Camera{{Type: 0, FOV: 0.7, Far: 27.7, Near: 0.22, PosBase: [3]float32{3, 0, 1.5}, TargetBase: [3]float32{0, 0, 1},
		Positions: m2.Track{Interp: 3, GlobalSeq: -1, Width: 9, Keys: per(keys([]uint32{0, 1000},
			[]float32{0, 0, 0, 0, 0, 0, 0, 0, 0}, []float32{0.5, 0, 0, 0, 0, 0, 0, 0, 0}))},
		Targets: m2.Track{Interp: 1, GlobalSeq: -1, Width: 9}, Roll: m2.Track{Interp: 1, GlobalSeq: -1, Width: 3},
		FOVTrack: m2.Track{Interp: 1, GlobalSeq: -1, Width: 3, Keys: per(keys([]uint32{0}, []float32{0.7, 0, 0}))}}}
	m.CameraLookup = []int16{0}
	m.Ribbons = []m2.Ribbon{{ID: -1, Bone: 3, Pos: [3]float32{-0.5, 0, 1}, Textures: []uint16{1}, Materials: []uint16{1},
		Color: m2.Track{Interp: 0, GlobalSeq: -1, Width: 3, Keys: per(keys([]uint32{0}, []float32{1, 1, 1}))},
		Alpha: m2.Track{Interp: 0, GlobalSeq: -1, Width: 1}, HeightAbove: m2.Track{Interp: 0, GlobalSeq: -1, Width: 1},
		HeightBelow: m2.Track{Interp: 0, GlobalSeq: -1, Width: 1}, EdgesPerSecond: 30, EdgeLifetime: 0.5, Gravity: 0,
		Rows: 1, Cols: 1, TexSlot: m2.Track{Interp: 0, GlobalSeq: -1, Width: 1}, Visibility: m2.Track{Interp: 0, GlobalSeq: -1, Width: 1}}}
	m.Particles = []m2.Particle{{ID: -1, Flags: 0x29, Pos: [3]float32{0.6, 0, 1.8}, Bone: 2, Texture: 1, Model: "", ChildEmitter: "",
		Blend: 2, EmitterType: 1, Rows: 4, Cols: 4,
		EmissionSpeed:  m2.Track{Interp: 1, GlobalSeq: -1, Width: 1, Keys: per(keys([]uint32{0}, []float32{2}))},
		SpeedVariation: m2.Track{GlobalSeq: -1, Width: 1}, VerticalRange: m2.Track{GlobalSeq: -1, Width: 1},
		HorizontalRange: m2.Track{GlobalSeq: -1, Width: 1}, Gravity: m2.Track{GlobalSeq: -1, Width: 1},
		Lifespan:        m2.Track{Interp: 1, GlobalSeq: -1, Width: 1, Keys: per(keys([]uint32{0}, []float32{1.5}))},
		EmissionRate:    m2.Track{Interp: 1, GlobalSeq: -1, Width: 1, Keys: per(keys([]uint32{0, 500}, []float32{10}, []float32{20}))},
		EmissionAreaLen: m2.Track{GlobalSeq: -1, Width: 1}, EmissionAreaWidth: m2.Track{GlobalSeq: -1, Width: 1},
		ZSource: m2.Track{GlobalSeq: -1, Width: 1},
		Enabled: m2.Track{Interp: 0, GlobalSeq: -1, Width: 1, Keys: per(keys([]uint32{0}, []float32{1}))},
		// Over the life: the same in both forms, the three keys before 264 and the tracks after.
		MidPoint:    0.4,
		ColorValues: [3][4]uint8{{255, 128, 0, 255}, {255, 255, 0, 128}, {0, 0, 255, 0}},
		ScaleValues: [3]float32{0.1, 0.3, 0.05}, LifespanUVAnim: [3]uint16{0, 4, 1}, DecayUVAnim: [3]uint16{4, 8, 1},
		ColorTrack:    m2.PartTrack{Width: 3, Times: []float32{0, 0.4, 1}, Values: []float32{255, 128, 0, 255, 255, 0, 0, 0, 255}},
		AlphaTrack:    m2.PartTrack{Width: 1, Times: []float32{0, 0.4, 1}, Values: []float32{1, 128.0 / 255, 0}},
		ScaleTrack:    m2.PartTrack{Width: 2, Times: []float32{0, 0.4, 1}, Values: []float32{0.1, 0.1, 0.3, 0.3, 0.05, 0.05}},
		HeadCellTrack: m2.PartTrack{Width: 1, Times: []float32{0, 0.4, 1}, Values: []float32{0, 4, 8}},
		TailLength:    0.5, Drag: 0.1, Spin: 0.25}}
	return m
}

// External marks the sequences listed as keeping their keys in .anim files (for v ≥ 264).
func External(m *m2.Model, seqs ...int) *m2.Model {
	for _, i := range seqs {
		m.Sequences[i].Flags &^= m2.SeqKeysInModel
	}
	return m
}

// Character is a character-like model: its textures are a character skin and hair, and its
// view overlays alternative geosets — body 0, hairstyles 1 to 3, facial hair 101 and 102,
// gloves 401 and 402 — as boxes on the Creature skeleton.
func Character() *m2.Model {
	m := Creature()
	m.Name = "TestHuman"
	v := &m2.View{BoneCountMax: 21}
	m.Vertices = nil
	for k, id := range []uint16{0, 1, 2, 3, 101, 102, 401, 402} {
		box(m, v, id, [3]float32{0, 0, float32(k) * 0.3}, [3]float32{0.1, 0.1, 0.1}, [4]uint8{1, 0, 0, 0}, [4]uint8{255, 0, 0, 0})
		v.Units = append(v.Units, m2.TexUnit{Flags: 16, Submesh: uint16(k), Geoset: uint16(k), Color: -1, Material: 0, TextureCount: 1,
			TextureCombo: uint16(k % 2), TexCoordCombo: 0})
	}
	m.View = v
	m.Textures = []m2.Texture{{Type: 1}, {Type: 6}}
	return m
}

// Large is a model for benchmarks: a grid of 65,535 vertices (the most a view can address)
// split into submeshes, 64 bones in a chain, 24 sequences with a key every 33 ms on every bone
// track.
func Large() *m2.Model {
	const side = 255 // 255 × 257 = 65,535 vertices
	m := &m2.Model{Name: "TestLarge"}
	nb := 64
	ns := 24
	for i := 0; i < ns; i++ {
		m.Sequences = append(m.Sequences, m2.Sequence{ID: uint16(i % 6), Variation: uint16(i / 6), End: 2000,
			Flags: m2.SeqKeysInModel, NextVariation: -1, AliasNext: uint16(i)})
	}
	for b := 0; b < nb; b++ {
		bone := m2.Bone{KeyBone: -1, Parent: int16(b - 1), Pivot: [3]float32{0, 0, float32(b) * 4 / float32(nb)}}
		var tk, rk []m2.Keys
		for s := 0; s < ns; s++ {
			var t, r m2.Keys
			for k := uint32(0); k <= 2000; k += 33 {
				a := float64(k)/2000*2*math.Pi + float64(b+s)
				t.Times = append(t.Times, k)
				t.Values = append(t.Values, float32(0.01*math.Sin(a)), float32(0.01*math.Cos(a)), 0)
				r.Times = append(r.Times, k)
				rq := quat([3]float64{math.Sin(a), math.Cos(a), 1}, 0.2*math.Sin(a))
				r.Values = append(r.Values, rq[:]...)
			}
			tk, rk = append(tk, t), append(rk, r)
		}
		bone.Translation = m2.Track{Interp: 1, GlobalSeq: -1, Width: 3, Keys: tk}
		bone.Rotation = m2.Track{Interp: 1, GlobalSeq: -1, Width: 4, Keys: rk}
		m.Bones = append(m.Bones, bone)
	}
	v := &m2.View{BoneCountMax: 64}
	cols := side + 2
	for r := 0; r < side; r++ {
		for c := 0; c < cols; c++ {
			z := float32(r) * 4 / side
			b := min(int(z*float32(nb)/4), nb-1)
			m.Vertices = append(m.Vertices, m2.Vertex{
				Pos: [3]float32{float32(c) / float32(cols), 0, z}, Normal: [3]float32{0, -1, 0},
				Bones: [4]uint8{uint8(b), uint8(max(b-1, 0)), 0, 0}, Weights: [4]uint8{200, 55, 0, 0},
				UV: [2][2]float32{{float32(c) / float32(cols), float32(r) / side}, {}},
			})
			v.Vertices = append(v.Vertices, uint16(r*cols+c))
		}
	}
	// Submeshes of 16 rows each.
	for r0 := 0; r0+1 < side; r0 += 16 {
		r1 := min(r0+16, side-1)
		vs, is := r0*cols, len(v.Indices)
		for r := r0; r < r1; r++ {
			for c := 0; c+1 < cols; c++ {
				a := uint16(r*cols + c)
				v.Indices = append(v.Indices, a, a+1, a+uint16(cols), a+1, a+uint16(cols)+1, a+uint16(cols))
			}
		}
		v.Submeshes = append(v.Submeshes, m2.Submesh{ID: 0, VertexStart: uint16(vs), VertexCount: uint16((r1 - r0 + 1) * cols),
			IndexStart: uint32(is), IndexCount: uint16(len(v.Indices) - is)})
		v.Units = append(v.Units, m2.TexUnit{Submesh: uint16(len(v.Submeshes) - 1), Color: -1, TextureCount: 1})
	}
	m.View = v
	m.Textures = []m2.Texture{{Type: 0, Path: "WORLD\\TEST\\GRID.BLP"}}
	m.Materials = []m2.Material{{}}
	m.TextureLookup = []int16{0}
	m.TexUnitLookup = []int16{0}
	m.TransparencyLookup = []int16{-1}
	m.TransformLookup = []int16{-1}
	return m
}
