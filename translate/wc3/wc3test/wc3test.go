// Package wc3test builds raw Warcraft III models (wc3.Model) for tests and benchmarks in any
// package, GridModel for big meshes and Sample for a small model that uses every object kind
// and every track interpolation, and writes them as files: MDX and MDL.
//
// The models follow the conventions of wc3.Model (nil slices for absent data, Track.Width set,
// tangents only on Hermite and Bezier tracks), so they survive an MDX round trip unchanged.
package wc3test

import (
	"fmt"
	"math"

	"github.com/modelfs/modelfs/translate/wc3"
)

// MaxGeosetVertices is the most vertices one geoset can index: MDX faces are uint16.
const MaxGeosetVertices = 65536

// GridModel returns a flat, textured, one-bone model whose vertices form a square grid of
// side s = ⌈√n⌉ (s ≥ 2), so it has s² vertices: GridModel(250000) has exactly 250,000. Because
// face indices are 16-bit, the grid is cut into bands of whole rows, one geoset of at most
// MaxGeosetVertices vertices each (the bands are not stitched together). Every vertex is
// skinned to the single bone, which has a two-key linear rotation in the one sequence "Stand"
// [0, 1000]. The grid spans 0..s-1 units in x and y at z = 0, normals point up (+z) and there
// is one UV set. n is capped at 2^30.
func GridModel(n int) *wc3.Model {
	n = min(max(n, 4), 1<<30)
	s := int(math.Ceil(math.Sqrt(float64(n))))
	for s*s < n { // guard against rounding
		s++
	}
	rowsPer := max(MaxGeosetVertices/s, 2)
	size := float32(s - 1)
	ext := wc3.Extent{
		BoundsRadius: size * float32(math.Sqrt2) / 2,
		Min:          [3]float32{0, 0, 0},
		Max:          [3]float32{size, size, 0},
	}
	m := &wc3.Model{
		Version:   800,
		Name:      "Grid",
		Extent:    ext,
		BlendTime: 150,
		Sequences: []wc3.Sequence{{Name: "Stand", Interval: [2]uint32{0, 1000}, Rarity: 0, Extent: ext}},
		Textures:  []wc3.Texture{{Path: `Textures\Grid.blp`}},
		Materials: []wc3.Material{{Layers: []wc3.Layer{{
			FilterMode: wc3.FilterNone, TextureID: 0, TextureAnimID: -1, Alpha: 1}}}},
		Bones: []wc3.Bone{{
			Node: wc3.Node{Name: "Root", ObjectID: 0, ParentID: -1, Flags: wc3.TypeBone,
				Rotation: &wc3.Track{Interp: wc3.Linear, GlobalSeq: -1, Width: 4,
					Frames: []int32{0, 1000},
					Values: []float32{0, 0, 0, 1, 0, 0, 0.38268343, 0.9238795}}},
			GeosetID: -1, GeosetAnimID: -1}},
		PivotPoints: [][3]float32{{0, 0, 0}},
	}
	for row0 := 0; row0 < s; row0 += rowsPer {
		rows := min(rowsPer, s-row0)
		m.Geosets = append(m.Geosets, gridBand(s, row0, rows, ext))
	}
	return m
}

// gridBand builds the geoset for rows [row0, row0+rows) of an s×s grid.
func gridBand(s, row0, rows int, modelExt wc3.Extent) wc3.Geoset {
	nv := s * rows
	verts := make([][3]float32, nv)
	norms := make([][3]float32, nv)
	uvs := make([][2]float32, nv)
	inv := 1 / float32(s-1)
	for j := 0; j < rows; j++ {
		y := row0 + j
		for i := 0; i < s; i++ {
			v := j*s + i
			verts[v] = [3]float32{float32(i), float32(y), 0}
			norms[v] = [3]float32{0, 0, 1}
			uvs[v] = [2]float32{float32(i) * inv, float32(y) * inv}
		}
	}
	var faces []uint16
	if rows >= 2 {
		faces = make([]uint16, 0, 6*(s-1)*(rows-1))
		for j := 0; j+1 < rows; j++ {
			for i := 0; i+1 < s; i++ {
				a := uint16(j*s + i)
				b, c, d := a+1, a+uint16(s), a+uint16(s)+1
				faces = append(faces, a, b, c, b, d, c)
			}
		}
	}
	ext := wc3.Extent{
		BoundsRadius: modelExt.BoundsRadius,
		Min:          [3]float32{0, float32(row0), 0},
		Max:          [3]float32{float32(s - 1), float32(row0 + rows - 1), 0},
	}
	g := wc3.Geoset{
		Vertices:     verts,
		Normals:      norms,
		VertexGroups: make([]uint8, nv),
		GroupSizes:   []uint32{1},
		Matrices:     []uint32{0},
		Extent:       ext,
		SeqExtents:   []wc3.Extent{ext},
		UVSets:       [][][2]float32{uvs},
	}
	if len(faces) > 0 {
		g.FaceTypes = []uint32{4}
		g.FaceCounts = []uint32{uint32(len(faces))}
		g.Faces = faces
	}
	return g
}

// Track returns a track of n keys, frames 0, 100, 200, …, whose values (and tangents, for
// Hermite and Bezier) are distinct numbers derived from base. It follows the wc3.Track
// conventions: nil slices when n is 0, tangents only for Hermite and Bezier.
func Track(interp wc3.Interp, globalSeq int32, width, n int, base float32) *wc3.Track {
	t := &wc3.Track{Interp: interp, GlobalSeq: globalSeq, Width: width}
	if n == 0 {
		return t
	}
	t.Frames = make([]int32, n)
	t.Values = make([]float32, n*width)
	for i := range t.Frames {
		t.Frames[i] = int32(100 * i)
	}
	for i := range t.Values {
		t.Values[i] = base + 0.25*float32(i)
	}
	if interp >= wc3.Hermite {
		t.InTans = make([]float32, n*width)
		t.OutTans = make([]float32, n*width)
		for i := range t.InTans {
			t.InTans[i] = base - 0.5*float32(i)
			t.OutTans[i] = base + 0.125*float32(i) + 7
		}
	}
	return t
}

// IntTrack is Track for integer-valued properties (texture ids, texture slots): values are the
// whole numbers first, first+1, …; tangents, when present, are 0.
func IntTrack(interp wc3.Interp, globalSeq int32, n int, first int) *wc3.Track {
	t := Track(interp, globalSeq, 1, n, 0)
	for i := range t.Values {
		t.Values[i] = float32(first + i)
	}
	for i := range t.InTans {
		t.InTans[i], t.OutTans[i] = 0, 0
	}
	return t
}

func node(name string, id, parent int32, flags uint32) wc3.Node {
	return wc3.Node{Name: name, ObjectID: id, ParentID: parent, Flags: flags}
}

// Sample returns a small model that holds every kind of object the MDX format knows (two
// sequences, two global sequences, textures, materials with animated layers, a texture
// animation, a geoset with two UV sets and two matrix groups, a geoset animation, bones, a
// light, a helper, an attachment, both particle emitter kinds, a ribbon emitter, a camera,
// event objects with and without keys, and all four collision shapes) and every track
// interpolation, with distinct values everywhere. Object ids run 0..14 and there is one pivot
// point per object.
func Sample() *wc3.Model {
	ext := func(f float32) wc3.Extent {
		return wc3.Extent{BoundsRadius: 10 * f, Min: [3]float32{-f, -2 * f, -3 * f}, Max: [3]float32{f, 2 * f, 3 * f}}
	}
	m := &wc3.Model{
		Version:   800,
		Name:      "Sample",
		AnimFile:  "",
		Extent:    ext(5),
		BlendTime: 150,
		Sequences: []wc3.Sequence{
			{Name: "Stand", Interval: [2]uint32{0, 1000}, MoveSpeed: 0, Rarity: 0, Extent: ext(4)},
			{Name: "Death", Interval: [2]uint32{1000, 2000}, MoveSpeed: 270, NonLooping: true,
				Rarity: 0.5, SyncPoint: 3, Extent: ext(3)},
		},
		GlobalSequences: []uint32{1000, 2533},
		Textures: []wc3.Texture{
			{ReplaceableID: 1},
			{Path: `Textures\Sample.blp`, Flags: 3},
		},
		Materials: []wc3.Material{
			{PriorityPlane: -1, Flags: 0x1 | 0x20, Layers: []wc3.Layer{
				{FilterMode: wc3.FilterNone, Shading: wc3.ShadeTwoSided, TextureID: 0, TextureAnimID: -1,
					Alpha: 1, TextureTrack: IntTrack(wc3.DontInterp, -1, 3, 0)},
				{FilterMode: wc3.FilterAdditive, Shading: wc3.ShadeUnshaded | wc3.ShadeUnfogged,
					TextureID: 1, TextureAnimID: 0, CoordID: 1, Alpha: 0.75,
					AlphaTrack: Track(wc3.Linear, 0, 1, 2, 0.5)},
			}},
			{PriorityPlane: 2, Layers: []wc3.Layer{
				{FilterMode: wc3.FilterBlend, TextureID: 1, TextureAnimID: -1, Alpha: 1}}},
		},
		TextureAnims: []wc3.TextureAnim{{
			Translation: Track(wc3.Hermite, -1, 3, 2, 1),
			Rotation:    Track(wc3.Bezier, -1, 4, 3, 2),
			Scaling:     Track(wc3.Linear, 1, 3, 1, 3),
		}},
		Geosets: []wc3.Geoset{{
			Vertices:       [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0.5}},
			Normals:        [][3]float32{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0.6, 0.8}},
			FaceTypes:      []uint32{4},
			FaceCounts:     []uint32{6},
			Faces:          []uint16{0, 1, 2, 1, 3, 2},
			VertexGroups:   []uint8{0, 0, 1, 1},
			GroupSizes:     []uint32{1, 2},
			Matrices:       []uint32{0, 0, 1},
			MaterialID:     1,
			SelectionGroup: 2,
			SelectionFlags: 4,
			Extent:         ext(1),
			SeqExtents:     []wc3.Extent{ext(1), ext(0.5)},
			UVSets: [][][2]float32{
				{{0, 0}, {1, 0}, {0, 1}, {1, 1}},
				{{0.5, 0.5}, {1, 0.5}, {0.5, 1}, {1, 1}},
			},
		}},
		GeosetAnims: []wc3.GeosetAnim{{
			Alpha: 1, Flags: 0x1 | 0x2, Color: [3]float32{0.2, 0.4, 0.6}, GeosetID: 0,
			AlphaTrack: Track(wc3.DontInterp, -1, 1, 3, 0),
			ColorTrack: Track(wc3.Hermite, -1, 3, 2, 0.1),
		}},
		Bones: []wc3.Bone{
			{Node: node("Root", 0, -1, wc3.TypeBone), GeosetID: 0, GeosetAnimID: 0},
			{Node: node("Arm", 1, 0, wc3.TypeBone|wc3.NodeDontInheritScaling), GeosetID: -1, GeosetAnimID: -1},
		},
		Lights: []wc3.Light{{
			Node: node("Omni", 2, 0, wc3.TypeLight), Type: 0, AttenuationStart: 80,
			AttenuationEnd: 200, Color: [3]float32{1, 0.9, 0.8}, Intensity: 2,
			AmbColor: [3]float32{0.1, 0.2, 0.3}, AmbIntensity: 0.5,
			AttenuationStartTrack: Track(wc3.Linear, -1, 1, 2, 80),
			AttenuationEndTrack:   Track(wc3.Linear, -1, 1, 2, 200),
			ColorTrack:            Track(wc3.Bezier, -1, 3, 2, 0.3),
			IntensityTrack:        Track(wc3.Hermite, 0, 1, 2, 2),
			AmbIntensityTrack:     Track(wc3.DontInterp, -1, 1, 1, 0.5),
			AmbColorTrack:         Track(wc3.Linear, -1, 3, 2, 0.1),
			Visibility:            Track(wc3.DontInterp, -1, 1, 2, 1),
		}},
		Helpers: []wc3.Node{node("Dummy", 3, -1, wc3.NodeBillboardedLockZ)},
		Attachments: []wc3.Attachment{{
			Node: node("Origin Ref", 4, 0, wc3.TypeAttachment), Path: `Abilities\Weapons\Fx.mdl`,
			AttachmentID: 0, Visibility: Track(wc3.DontInterp, -1, 1, 2, 0),
		}},
		ParticleEmitters: []wc3.ParticleEmitter{{
			Node:         node("Emitter1", 5, 3, wc3.TypeParticleEmitter|0x8000),
			EmissionRate: 10, Gravity: 1, Longitude: 0.5, Latitude: 0.25,
			Path: `Abilities\Spells\Blob.mdl`, LifeSpan: 2, InitVelocity: 30,
			EmissionRateTrack: Track(wc3.Linear, -1, 1, 2, 10),
			GravityTrack:      Track(wc3.DontInterp, -1, 1, 1, 1),
			LongitudeTrack:    Track(wc3.Hermite, -1, 1, 2, 0.5),
			LatitudeTrack:     Track(wc3.Bezier, -1, 1, 2, 0.25),
			LifeSpanTrack:     Track(wc3.Linear, 1, 1, 2, 2),
			InitVelocityTrack: Track(wc3.Linear, -1, 1, 3, 30),
			Visibility:        Track(wc3.DontInterp, -1, 1, 2, 1),
		}},
		ParticleEmitters2: []wc3.ParticleEmitter2{{
			Node:  node("Emitter2", 6, 0, wc3.TypeParticleEmitter|0x8000|0x100000),
			Speed: 100, Variation: 0.1, Latitude: 0.2, Gravity: 9.8, LifeSpan: 1.5,
			EmissionRate: 50, Width: 20, Length: 30, FilterMode: 1, Rows: 2, Columns: 4,
			HeadOrTail: 2, TailLength: 1.25, Time: 0.5,
			SegmentColor:   [3][3]float32{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
			SegmentAlpha:   [3]uint8{255, 128, 0},
			SegmentScaling: [3]float32{1, 2, 3},
			HeadIntervals:  [2][3]uint32{{0, 3, 1}, {4, 7, 1}},
			TailIntervals:  [2][3]uint32{{0, 1, 2}, {3, 4, 5}},
			TextureID:      1, Squirt: 1, PriorityPlane: 3, ReplaceableID: 0,
			SpeedTrack:        Track(wc3.Linear, -1, 1, 2, 100),
			VariationTrack:    Track(wc3.Hermite, -1, 1, 2, 0.1),
			LatitudeTrack:     Track(wc3.Bezier, -1, 1, 2, 0.2),
			GravityTrack:      Track(wc3.DontInterp, -1, 1, 1, 9.8),
			EmissionRateTrack: Track(wc3.Linear, 0, 1, 4, 50),
			LengthTrack:       Track(wc3.Linear, -1, 1, 2, 30),
			WidthTrack:        Track(wc3.Linear, -1, 1, 2, 20),
			Visibility:        Track(wc3.DontInterp, -1, 1, 3, 0),
		}},
		RibbonEmitters: []wc3.RibbonEmitter{{
			Node:        node("Ribbon", 7, 1, wc3.TypeRibbonEmitter),
			HeightAbove: 10, HeightBelow: 5, Alpha: 0.9, Color: [3]float32{0.3, 0.6, 0.9},
			LifeSpan: 0.75, TextureSlot: 0, EmissionRate: 30, Rows: 1, Columns: 1,
			MaterialID: 1, Gravity: -2,
			HeightAboveTrack: Track(wc3.Linear, -1, 1, 2, 10),
			HeightBelowTrack: Track(wc3.Hermite, -1, 1, 2, 5),
			AlphaTrack:       Track(wc3.Bezier, -1, 1, 2, 0.9),
			ColorTrack:       Track(wc3.Linear, -1, 3, 2, 0.3),
			TextureSlotTrack: IntTrack(wc3.DontInterp, -1, 2, 0),
			Visibility:       Track(wc3.DontInterp, -1, 1, 2, 1),
		}},
		Cameras: []wc3.Camera{{
			Name: "Portrait", Position: [3]float32{100, 0, 80}, FieldOfView: 0.7853982,
			FarClip: 1000, NearClip: 8, TargetPosition: [3]float32{0, 0, 60},
			Translation:       Track(wc3.Linear, -1, 3, 2, 100),
			Rotation:          Track(wc3.Hermite, -1, 1, 2, 0.1),
			TargetTranslation: Track(wc3.Bezier, 1, 3, 2, 0),
		}},
		Events: []wc3.EventObject{
			{Node: node("SNDxFOOT", 8, 0, wc3.TypeEvent), GlobalSeq: -1, Frames: []uint32{100, 600}},
			{Node: node("SPLxBLOD", 9, -1, wc3.TypeEvent), GlobalSeq: -1},
			{Node: node("FTPxEMPTY", 10, -1, wc3.TypeEvent), GlobalSeq: 1, Frames: []uint32{}},
		},
		CollisionShapes: []wc3.CollisionShape{
			{Node: node("Box", 11, 0, wc3.TypeCollisionShape), Type: wc3.ShapeBox,
				Vertices: [][3]float32{{-1, -1, 0}, {1, 1, 2}}},
			{Node: node("Plane", 12, 0, wc3.TypeCollisionShape), Type: wc3.ShapePlane,
				Vertices: [][3]float32{{-5, -5, 0}, {5, 5, 0}}},
			{Node: node("Sphere", 13, 0, wc3.TypeCollisionShape), Type: wc3.ShapeSphere,
				Vertices: [][3]float32{{0, 0, 40}}, BoundsRadius: 30},
			{Node: node("Cylinder", 14, 0, wc3.TypeCollisionShape), Type: wc3.ShapeCylinder,
				Vertices: [][3]float32{{0, 0, 0}, {0, 0, 90}}, BoundsRadius: 25},
		},
	}
	// Node tracks: every interpolation, local and global.
	m.Bones[0].Translation = Track(wc3.Linear, -1, 3, 3, 0)
	m.Bones[0].Rotation = Track(wc3.Hermite, -1, 4, 2, 0)
	m.Bones[0].Scaling = Track(wc3.Bezier, -1, 3, 2, 1)
	m.Bones[1].Rotation = Track(wc3.DontInterp, 0, 4, 2, 0.5)
	m.Helpers[0].Translation = Track(wc3.Linear, 1, 3, 0, 0) // a track with no keys
	m.Attachments[0].Rotation = Track(wc3.Linear, -1, 4, 1, 0)
	m.Events[0].Scaling = Track(wc3.Hermite, -1, 3, 2, 1)
	m.CollisionShapes[2].Translation = Track(wc3.Linear, -1, 3, 2, 0)
	for i := 0; i < 15; i++ {
		m.PivotPoints = append(m.PivotPoints, [3]float32{float32(i), float32(-i), float32(i) * 0.5})
	}
	return m
}

// Reforged returns Sample() as a model of version v (900, 1000, 1100 or 1200) with every field
// those versions add: geoset LOD, names, tangents and skin weights, material shader names (900
// and 1000), layer emissive and fresnel fields with their tracks, 1100's texture lists by slot,
// 1200's light shadow intensity, bind poses, a face effect and a popcorn emitter.
func Reforged(v uint32) *wc3.Model {
	m := Sample()
	m.Version = v
	for i := range m.Geosets {
		g := &m.Geosets[i]
		g.LOD, g.Name = int32(i)-1, fmt.Sprintf("geoset %d", i)
		g.Tangents = make([][4]float32, len(g.Vertices))
		g.Skin = make([]uint8, 8*len(g.Vertices))
		for k := range g.Vertices {
			g.Tangents[k] = [4]float32{1, 0, 0, float32(1 - 2*(k%2))}
			copy(g.Skin[8*k:], []uint8{0, 1, 0, 0, 200, 55, 0, 0})
		}
	}
	for i := range m.Materials {
		mt := &m.Materials[i]
		if v < 1100 {
			mt.Shader = "Shader_HD_DefaultUnit"
		}
		for j := range mt.Layers {
			l := &mt.Layers[j]
			l.Reforged = &wc3.LayerHD{EmissiveGain: 0.5, FresnelColor: [3]float32{1, 0.5, 0.25}, FresnelOpacity: 0.1, FresnelTeamColor: 0.2}
			if j == 0 {
				l.Reforged.EmissiveTrack = &wc3.Track{Interp: wc3.Linear, GlobalSeq: -1, Width: 1, Frames: []int32{0, 100}, Values: []float32{0, 1}}
				l.Reforged.FresnelColorTrack = &wc3.Track{Interp: wc3.DontInterp, GlobalSeq: -1, Width: 3, Frames: []int32{0}, Values: []float32{1, 1, 1}}
			}
			if v >= 1100 {
				l.Reforged.ShaderType = 1
				l.Reforged.Textures = []wc3.LayerTexture{{TextureID: l.TextureID, Slot: wc3.SlotDiffuse, TextureTrack: l.TextureTrack},
					{TextureID: l.TextureID, Slot: wc3.SlotNormal}}
				l.TextureTrack = nil
			}
		}
	}
	for i := range m.Lights {
		if v >= 1200 {
			si := float32(0.75)
			m.Lights[i].ShadowIntensity = &si
		}
	}
	m.BindPoses = [][12]float32{{1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}, {1, 0, 0, 0, 1, 0, 0, 0, 1, 5, 6, 7}}
	m.FaceEffects = []wc3.FaceEffect{{Target: "Head", Path: `Units\Orc\Peon\peon.facefx`}}
	m.Popcorns = []wc3.PopcornRecord{{Name: "Sparkle", ObjectID: int32(len(m.PivotPoints)), Path: `Abilities\Spells\Sparkle.pkfx`}}
	m.PivotPoints = append(m.PivotPoints, [3]float32{0, 0, 1})
	return m
}
