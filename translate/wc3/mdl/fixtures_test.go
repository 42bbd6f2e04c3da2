package mdl

import (
	"math"

	"github.com/modelfs/modelfs/translate/wc3"
)

// trk builds a track; tangents are filled (in = v-1, out = v+1) when interp ≥ Hermite.
func trk(interp wc3.Interp, gseq int32, width int, frames []int32, values ...float32) *wc3.Track {
	t := &wc3.Track{Interp: interp, GlobalSeq: gseq, Width: width, Frames: frames, Values: values}
	if interp >= wc3.Hermite {
		for _, v := range values {
			t.InTans = append(t.InTans, v-1)
			t.OutTans = append(t.OutTans, v+1)
		}
	}
	return t
}

// fullModel covers every block kind, every interpolation type and both static and animated
// forms of the animatable properties.
func fullModel() *wc3.Model {
	ext := func(r float32) wc3.Extent {
		return wc3.Extent{BoundsRadius: r, Min: [3]float32{-r, -r / 2, 0}, Max: [3]float32{r, r / 2, 2 * r}}
	}
	node := func(name string, id, parent int32, flags uint32) wc3.Node {
		return wc3.Node{Name: name, ObjectID: id, ParentID: parent, Flags: flags}
	}
	m := &wc3.Model{
		Version:   800,
		Name:      "Full Model",
		AnimFile:  "anim.mda",
		Extent:    ext(100.5),
		BlendTime: 150,
		Sequences: []wc3.Sequence{
			{Name: "Stand", Interval: [2]uint32{0, 1000}, Extent: ext(50)},
			{Name: "Walk", Interval: [2]uint32{1100, 2200}, MoveSpeed: 240, Rarity: 3, Extent: ext(60)},
			{Name: "Death", Interval: [2]uint32{3000, 5000}, NonLooping: true},
		},
		GlobalSequences: []uint32{2533, 100},
		Textures: []wc3.Texture{
			{Path: `Textures\Foo.blp`},
			{ReplaceableID: 1, Flags: 3},
			{Path: "a/b.blp", Flags: 1},
		},
		Materials: []wc3.Material{
			{PriorityPlane: 2, Flags: 0x1 | 0x2 | 0x8 | 0x10 | 0x20, Layers: []wc3.Layer{
				{FilterMode: wc3.FilterNone, TextureID: 0, TextureAnimID: -1, Alpha: 1},
				{FilterMode: wc3.FilterBlend, Shading: 0xF3, TextureID: 1, TextureAnimID: 0, CoordID: 1, Alpha: 0.5},
			}},
			{Layers: []wc3.Layer{
				{FilterMode: wc3.FilterAdditive, TextureAnimID: -1, Alpha: 1,
					TextureTrack: trk(wc3.DontInterp, -1, 1, []int32{0, 500}, 0, 2),
					AlphaTrack:   trk(wc3.Linear, 0, 1, []int32{0, 1000}, 0, 1)},
				{FilterMode: wc3.FilterModulate2x, TextureID: 2, TextureAnimID: -1, Alpha: 0.25,
					AlphaTrack: trk(wc3.Bezier, -1, 1, []int32{0, 10}, 0.5, 1)},
				{FilterMode: wc3.FilterAddAlpha, TextureAnimID: -1, Alpha: 1},
				{FilterMode: wc3.FilterTransparent, TextureAnimID: -1, Alpha: 1},
				{FilterMode: wc3.FilterModulate, TextureAnimID: -1, Alpha: 1},
			}},
		},
		TextureAnims: []wc3.TextureAnim{
			{Translation: trk(wc3.Linear, -1, 3, []int32{0, 100}, 0, 0, 0, 1, 0.5, 0)},
			{Rotation: trk(wc3.Hermite, 1, 4, []int32{0}, 0, 0, 0, 1),
				Scaling: trk(wc3.DontInterp, -1, 3, []int32{0, 50}, 1, 1, 1, 2, 2, 2)},
		},
		Geosets: []wc3.Geoset{{
			Vertices:       [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0.25}},
			Normals:        [][3]float32{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0.6, 0.8}},
			UVSets:         [][][2]float32{{{0, 0}, {1, 0}, {0, 1}, {1, 1}}, {{0.5, 0.5}, {0.25, 0.125}, {1e-05, 1}, {-1.5e-05, 2}}},
			VertexGroups:   []uint8{0, 0, 1, 1},
			FaceTypes:      []uint32{4},
			FaceCounts:     []uint32{6},
			Faces:          []uint16{0, 1, 2, 2, 1, 3},
			GroupSizes:     []uint32{1, 2},
			Matrices:       []uint32{0, 0, 1},
			MaterialID:     1,
			SelectionGroup: 3,
			SelectionFlags: 4,
			Extent:         ext(2),
			SeqExtents:     []wc3.Extent{ext(1), ext(3), {}},
		}, {
			Vertices:   [][3]float32{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}},
			Normals:    [][3]float32{{1, 0, 0}, {1, 0, 0}, {1, 0, 0}},
			UVSets:     [][][2]float32{{{0, 0}, {1, 0}, {0, 1}}},
			FaceTypes:  []uint32{4, 4},
			FaceCounts: []uint32{3, 3},
			Faces:      []uint16{0, 1, 2, 2, 1, 0},
		}},
		GeosetAnims: []wc3.GeosetAnim{
			{Alpha: 1, Color: [3]float32{1, 1, 1}, GeosetID: 0,
				AlphaTrack: trk(wc3.DontInterp, -1, 1, []int32{141067}, 0)},
			{Alpha: 0.8, Flags: 0x3, Color: [3]float32{0, 1, 0.5}, GeosetID: 1},
			{Alpha: 1, Flags: 0x2, Color: [3]float32{1, 1, 1}, GeosetID: 1,
				ColorTrack: trk(wc3.Hermite, -1, 3, []int32{0, 1}, 1, 1, 1, 0.5, 0.5, 0.5)},
			{Alpha: 1, Flags: 0x2, Color: [3]float32{1, 1, 1}, GeosetID: 0},
		},
		Bones: []wc3.Bone{
			{Node: node("Root", 0, -1, wc3.TypeBone), GeosetID: -1, GeosetAnimID: -1},
			{Node: wc3.Node{Name: "Arm", ObjectID: 1, ParentID: 0, Flags: wc3.TypeBone | 0xFF,
				Translation: trk(wc3.Hermite, -1, 3, []int32{0, 333, 1000}, 0, 0, 0, 1, 2, 3, 0, 0, -17.0679),
				Rotation:    trk(wc3.Linear, -1, 4, []int32{0, 1000}, 0, 0, 0, 1, -0.7071068, 0, 0, 0.7071068),
				Scaling:     trk(wc3.Bezier, 0, 3, []int32{0}, 1, 1, 1)},
				GeosetID: 0, GeosetAnimID: 2},
		},
		Lights: []wc3.Light{
			{Node: node("Omni01", 2, -1, wc3.TypeLight), Type: 0, AttenuationStart: 80, AttenuationEnd: 200,
				Color: [3]float32{0.87451, 0.984314, 1}, Intensity: 17, AmbColor: [3]float32{1, 1, 1},
				Visibility: trk(wc3.DontInterp, -1, 1, []int32{0, 1000}, 0, 1)},
			{Node: node("Dir", 3, 0, wc3.TypeLight), Type: 1, AttenuationStart: 5,
				AttenuationStartTrack: trk(wc3.Linear, -1, 1, []int32{0}, 1),
				AttenuationEndTrack:   trk(wc3.Linear, -1, 1, []int32{0}, 2),
				ColorTrack:            trk(wc3.Linear, -1, 3, []int32{0}, 1, 0, 0),
				IntensityTrack:        trk(wc3.Linear, -1, 1, []int32{0}, 3),
				AmbIntensityTrack:     trk(wc3.Linear, -1, 1, []int32{0}, 4),
				AmbColorTrack:         trk(wc3.Linear, -1, 3, []int32{0}, 0, 1, 0)},
			{Node: node("Amb", 4, -1, wc3.TypeLight), Type: 2},
		},
		Helpers: []wc3.Node{
			node("DummyBallMaster", 5, -1, wc3.NodeBillboardedLockZ),
			{Name: "Spinner", ObjectID: 6, ParentID: 5, Flags: wc3.NodeCameraAnchored,
				Rotation: trk(wc3.Hermite, 0, 4, []int32{0, 633, 1267}, 0, 0, 0, 1, 0, 0, -0.70710677, 0.70710677, 0, 0, 1, 0)},
		},
		Attachments: []wc3.Attachment{
			{Node: node("Origin Ref", 7, -1, wc3.TypeAttachment)},
			{Node: node("Weapon Ref", 8, 1, wc3.TypeAttachment), Path: `Abilities\Weapons\X.mdl`, AttachmentID: 3,
				Visibility: trk(wc3.DontInterp, -1, 1, []int32{667, 1333}, 1, 0)},
		},
		PivotPoints: [][3]float32{{0, 0, 39.4571}, {14.1266, 15.1009, 4.38412}, {1, 2, 3}, {4, 5, 6}, {7, 8, 9},
			{0.853, -0.853, 0}, {0, 0, 92.602}, {0, 70, 70}, {70, 0, 70}, {1, 1, 1}, {2, 2, 2}, {3, 3, 3},
			{4, 4, 4}, {5, 5, 5}, {6, 6, 6}, {7, 7, 7}},
		ParticleEmitters: []wc3.ParticleEmitter{
			{Node: node("one", 9, -1, wc3.TypeParticleEmitter|0x8000|0x10000), EmissionRate: 2, Gravity: 3,
				Longitude: 4, Latitude: 5, Path: "blabla.mdl", LifeSpan: 6, InitVelocity: 7},
			{Node: node("two", 10, -1, wc3.TypeParticleEmitter),
				EmissionRateTrack: trk(wc3.DontInterp, -1, 1, []int32{0, 1}, 0, 1),
				GravityTrack:      trk(wc3.Linear, -1, 1, []int32{0}, 1),
				LongitudeTrack:    trk(wc3.Linear, -1, 1, []int32{0}, 1),
				LatitudeTrack:     trk(wc3.Linear, -1, 1, []int32{0}, 1),
				LifeSpanTrack:     trk(wc3.Hermite, -1, 1, []int32{0}, 1),
				InitVelocityTrack: trk(wc3.Bezier, -1, 1, []int32{0}, 1),
				Visibility:        trk(wc3.DontInterp, -1, 1, []int32{0}, 1)},
		},
		ParticleEmitters2: []wc3.ParticleEmitter2{
			{Node: node("SmallBlastDebris", 11, 0, wc3.TypeParticleEmitter|0x8000|0x10000|0x20000|0x40000|0x80000|0x100000),
				Speed: 440, Latitude: 55, Gravity: 3, LifeSpan: 0.71, Width: 24, Length: 25, FilterMode: 1,
				Rows: 4, Columns: 4, HeadOrTail: 2, TailLength: 0.1, Time: 0.7,
				SegmentColor:   [3][3]float32{{0, 0.682353, 1}, {0, 0.309804, 0.658824}, {0, 0, 0}},
				SegmentAlpha:   [3]uint8{255, 255, 0},
				SegmentScaling: [3]float32{5, 5, 5},
				HeadIntervals:  [2][3]uint32{{0, 0, 1}, {2, 3, 1}},
				TailIntervals:  [2][3]uint32{{4, 5, 1}, {6, 7, 1}},
				TextureID:      2, Squirt: 1, PriorityPlane: -1, ReplaceableID: 11,
				EmissionRateTrack: trk(wc3.DontInterp, -1, 1, []int32{65033, 65333, 65433, 122167}, 0, 22, 0, 0)},
			{Node: node("anim", 12, -1, wc3.TypeParticleEmitter), FilterMode: 4, HeadOrTail: 1, TextureID: -1,
				SpeedTrack:     trk(wc3.Linear, -1, 1, []int32{0}, 1),
				VariationTrack: trk(wc3.Linear, -1, 1, []int32{0}, 2),
				LatitudeTrack:  trk(wc3.Linear, -1, 1, []int32{0}, 3),
				GravityTrack:   trk(wc3.Linear, -1, 1, []int32{0}, 4),
				LengthTrack:    trk(wc3.Linear, -1, 1, []int32{0}, 5),
				WidthTrack:     trk(wc3.Linear, -1, 1, []int32{0}, 6),
				Visibility:     trk(wc3.Linear, -1, 1, []int32{0}, 7)},
		},
		RibbonEmitters: []wc3.RibbonEmitter{
			{Node: node("BlizRibbon01", 13, -1, wc3.TypeRibbonEmitter), HeightAbove: 48.312, HeightBelow: 48.372,
				Alpha: 0.35, Color: [3]float32{0, 0.635294, 1}, LifeSpan: 0.35, EmissionRate: 35, Rows: 1,
				Columns: 1, MaterialID: 1, Gravity: 2,
				Visibility: trk(wc3.DontInterp, -1, 1, []int32{0, 1000}, 0, 1)},
			{Node: node("R2", 14, -1, wc3.TypeRibbonEmitter), TextureSlot: 3,
				HeightAboveTrack: trk(wc3.Linear, -1, 1, []int32{0}, 1),
				HeightBelowTrack: trk(wc3.Linear, -1, 1, []int32{0}, 1),
				AlphaTrack:       trk(wc3.Linear, -1, 1, []int32{0}, 1),
				ColorTrack:       trk(wc3.Linear, -1, 3, []int32{0}, 1, 1, 1),
				TextureSlotTrack: trk(wc3.DontInterp, -1, 1, []int32{0, 10}, 0, 1)},
		},
		Cameras: []wc3.Camera{
			{Name: "Camera01", Position: [3]float32{403.317, -10.8177, 202.115}, FieldOfView: 0.538016,
				FarClip: 1000, NearClip: 8, TargetPosition: [3]float32{-86.5748, -22.7399, 0.860381}},
			{Name: "Cam2", Translation: trk(wc3.Linear, -1, 3, []int32{0}, 1, 2, 3),
				Rotation:          trk(wc3.Hermite, -1, 1, []int32{0, 5}, 0.5, 1),
				TargetTranslation: trk(wc3.Bezier, -1, 3, []int32{0}, 1, 2, 3)},
		},
		Events: []wc3.EventObject{
			{Node: node("SNDxDOLS", 15, -1, wc3.TypeEvent), GlobalSeq: -1, Frames: []uint32{25, 500}},
			{Node: node("FPTxFBR1", 16, 0, wc3.TypeEvent), GlobalSeq: 1, Frames: []uint32{767}},
			{Node: node("Empty", 17, -1, wc3.TypeEvent), GlobalSeq: 0},
			{Node: node("Empty2", 18, -1, wc3.TypeEvent), GlobalSeq: -1},
		},
		CollisionShapes: []wc3.CollisionShape{
			{Node: node("cube1", 19, -1, wc3.TypeCollisionShape), Type: wc3.ShapeBox,
				Vertices: [][3]float32{{57, 56, 55}, {1, 2, 3}}},
			{Node: node("sphere1", 20, 0, wc3.TypeCollisionShape), Type: wc3.ShapeSphere,
				Vertices: [][3]float32{{12, 13, 4}}, BoundsRadius: 666},
			{Node: node("plane", 21, -1, wc3.TypeCollisionShape), Type: wc3.ShapePlane,
				Vertices: [][3]float32{{0, 0, 0}, {1, 1, 0}}},
			{Node: node("cyl", 22, -1, wc3.TypeCollisionShape), Type: wc3.ShapeCylinder,
				Vertices: [][3]float32{{0, 0, 0}, {0, 0, 10}}, BoundsRadius: 5},
		},
	}
	// Awkward floats: shortest float32 forms, extremes, infinities and a negative zero.
	m.PivotPoints = append(m.PivotPoints, [3]float32{math.MaxFloat32, math.SmallestNonzeroFloat32, float32(math.Copysign(0, -1))},
		[3]float32{float32(math.Inf(1)), float32(math.Inf(-1)), 0.1}, [3]float32{1.0 / 3, 16777217, -1e-30})
	return m
}

// gridModel builds a w×h-vertex grid per geoset, in as many geosets as needed for n vertices
// (indices are 16-bit, so one geoset holds at most 65536 vertices).
func gridModel(n int) *wc3.Model {
	m := &wc3.Model{Version: 800, Name: "Grid", BlendTime: 150,
		Sequences: []wc3.Sequence{{Name: "Stand", Interval: [2]uint32{0, 1000}}},
		Textures:  []wc3.Texture{{Path: `Textures\Grid.blp`}},
		Materials: []wc3.Material{{Layers: []wc3.Layer{{TextureAnimID: -1, Alpha: 1}}}},
		Bones: []wc3.Bone{{Node: wc3.Node{Name: "Root", ObjectID: 0, ParentID: -1, Flags: wc3.TypeBone,
			Rotation: trk(wc3.Linear, -1, 4, []int32{0, 500, 1000}, 0, 0, 0, 1, 0, 0, 0.70710677, 0.70710677, 0, 0, 1, 0)},
			GeosetID: -1, GeosetAnimID: -1}},
		PivotPoints: [][3]float32{{0, 0, 0}},
	}
	const side = 250 // 62,500 vertices per geoset
	for made := 0; made < n; made += side * side {
		g := wc3.Geoset{
			Vertices:     make([][3]float32, 0, side*side),
			Normals:      make([][3]float32, 0, side*side),
			UVSets:       [][][2]float32{make([][2]float32, 0, side*side)},
			VertexGroups: make([]uint8, side*side),
			GroupSizes:   []uint32{1},
			Matrices:     []uint32{0},
			FaceTypes:    []uint32{4},
		}
		off := float32(len(m.Geosets)) * side * 1.37
		for y := 0; y < side; y++ {
			for x := 0; x < side; x++ {
				fx, fy := float32(x)*1.37+off, float32(y)*1.37
				z := float32(math.Sin(float64(fx)*0.05) * math.Cos(float64(fy)*0.07) * 12.5)
				g.Vertices = append(g.Vertices, [3]float32{fx, fy, z})
				nx, ny := float32(math.Cos(float64(fx)*0.05))*0.3, float32(math.Sin(float64(fy)*0.07))*0.3
				nz := float32(math.Sqrt(float64(1 - nx*nx - ny*ny)))
				g.Normals = append(g.Normals, [3]float32{nx, ny, nz})
				g.UVSets[0] = append(g.UVSets[0], [2]float32{float32(x) / (side - 1), float32(y) / (side - 1)})
			}
		}
		for y := 0; y+1 < side; y++ {
			for x := 0; x+1 < side; x++ {
				a := uint16(y*side + x)
				b, c, d := a+1, a+side, a+side+1
				g.Faces = append(g.Faces, a, b, c, c, b, d)
			}
		}
		g.FaceCounts = []uint32{uint32(len(g.Faces))}
		g.Extent = wc3.Extent{BoundsRadius: side * 1.37, Max: [3]float32{side * 1.37, side * 1.37, 12.5}}
		m.Geosets = append(m.Geosets, g)
	}
	return m
}
