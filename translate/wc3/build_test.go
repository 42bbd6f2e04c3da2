package wc3

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/modelfs/modelfs/internal/testkit/gltfsample"
	"github.com/modelfs/modelfs/translate/anim"
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/internal/testkit/testscene"
	"github.com/modelfs/modelfs/translate/scene"
)

func node(name string, id, parent int32, flags uint32) Node {
	return Node{Name: name, ObjectID: id, ParentID: parent, Flags: flags}
}

// testModel is a small hand-made model: five objects (bones, a helper, an attachment), one
// geoset skinned through matrix groups of 1, 3 (with a duplicate) and 5 objects.
func testModel() *Model {
	return &Model{
		Version: 800, Name: "Test", BlendTime: 150,
		Sequences: []Sequence{
			{Name: "Stand", Interval: [2]uint32{0, 1000}},
			{Name: "Walk", Interval: [2]uint32{1000, 2330}, MoveSpeed: 270, Rarity: 0.5},
			{Name: "Still", Interval: [2]uint32{500, 500}, NonLooping: true},
		},
		GlobalSequences: []uint32{300},
		Textures: []Texture{
			{Path: `Textures\Foo.blp`, Flags: 3},
			{ReplaceableID: 1},
		},
		Materials: []Material{
			{Layers: []Layer{{FilterMode: FilterTransparent, Shading: ShadeTwoSided | ShadeUnshaded, TextureID: 0, TextureAnimID: -1, Alpha: 1}}},
			{Layers: []Layer{{FilterMode: FilterAdditive, TextureID: 1, TextureAnimID: -1, Alpha: 0.5}, {FilterMode: FilterNone, TextureID: 0, TextureAnimID: -1, Alpha: 1}}},
		},
		Geosets: []Geoset{{
			Vertices:     [][3]float32{{0, 0, 0}, {10, 0, 0}, {0, 10, 0}, {0, 0, 10}, {10, 10, 10}, {-5, 3, 40}},
			Normals:      [][3]float32{{0, 0, 1}, {0, 0, 2}, {0, 1, 0}, {1, 0, 0}, {0, 0, 0}, {0, -1, 0}},
			FaceTypes:    []uint32{4},
			FaceCounts:   []uint32{6},
			Faces:        []uint16{0, 1, 2, 3, 4, 5},
			VertexGroups: []uint8{0, 0, 1, 1, 2, 2},
			GroupSizes:   []uint32{1, 3, 5},
			Matrices:     []uint32{0, 1, 2, 1, 0, 1, 2, 3, 4},
			UVSets:       [][][2]float32{{{0, 0}, {1, 0}, {0, 1}, {1, 1}, {0.5, 0.5}, {0.25, 0.75}}},
		}},
		GeosetAnims: []GeosetAnim{{Alpha: 1, GeosetID: 0, Color: [3]float32{1, 1, 1},
			AlphaTrack: &Track{Interp: DontInterp, GlobalSeq: -1, Width: 1, Frames: []int32{1001, 2000}, Values: []float32{0, 0}}}},
		Bones: []Bone{
			{Node: node("Root", 0, -1, TypeBone), GeosetID: 0, GeosetAnimID: -1},
			{Node: node("Arm", 1, 0, TypeBone|NodeBillboarded), GeosetID: 0, GeosetAnimID: -1},
			{Node: node("Hand", 4, 2, TypeBone), GeosetID: 0, GeosetAnimID: -1},
		},
		Helpers:     []Node{node("Help", 2, 0, 0)},
		Attachments: []Attachment{{Node: node("Chest Ref", 3, 1, TypeAttachment), Path: "", AttachmentID: 0}},
		PivotPoints: [][3]float32{{0, 0, 0}, {5, 2, 30}, {-3, 4, 20}, {6, 2, 35}, {-3, 8, 10}},
	}
}

func build(t *testing.T, m *Model) *scene.Scene {
	t.Helper()
	s, err := Build(m, codec.Source{Name: "test.mdl"}, "mdl")
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	if err := s.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	return s
}

// rawTrack makes a node track of the given interpolation with keys spread over the timeline.
func rawTrack(interp Interp, path scene.Path, gseq int32) *Track {
	frames := []int32{0, 200, 450, 1000, 1100, 1500, 1500, 1900, 2400, 2500}
	if gseq >= 0 {
		frames = []int32{20, 100, 250}
	}
	w := path.Width()
	t := &Track{Interp: interp, GlobalSeq: gseq, Width: w, Frames: frames}
	for k := range frames {
		s := float64(k) + 1
		var v, in, out []float64
		switch path {
		case scene.PathRotation:
			v = unit([]float64{math.Sin(0.4 * s), math.Cos(0.3 * s), 0.2 * s, 1})
			in = unit([]float64{v[0] + 0.1*math.Sin(s), v[1] + 0.1, v[2] - 0.05, v[3]})
			out = unit([]float64{v[0] - 0.1, v[1] + 0.05*math.Cos(s), v[2], v[3] + 0.1})
			if k%3 == 2 { // flip a key and its tangents into the other hemisphere
				for i := range v {
					v[i], in[i], out[i] = -v[i], -in[i], -out[i]
				}
			}
		case scene.PathScale:
			v = []float64{1 + 0.3*math.Sin(s), 1 + 0.2*math.Cos(s), 0.8 + 0.1*s}
			in, out = []float64{0.2, -0.1, 0.3}, []float64{-0.3, 0.1 * s, 0.2}
		default:
			v = []float64{10 * math.Sin(s), 5 * math.Cos(2*s), 3 * s}
			in, out = []float64{4, -2, 1}, []float64{-3, 6, 2 * math.Sin(s)}
		}
		for i := range w {
			t.Values = append(t.Values, float32(v[i]))
			if interp >= Hermite {
				t.InTans = append(t.InTans, float32(in[i]))
				t.OutTans = append(t.OutTans, float32(out[i]))
			}
		}
	}
	return t
}

func unit(q []float64) []float64 {
	l := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	return []float64{q[0] / l, q[1] / l, q[2] / l, q[3] / l}
}

// refValue samples the raw track in source axes and converts the result, so the test checks
// the builder's conversion as well as the cutting.
func refValue(t *testing.T, m *Model, rt *Track, path scene.Path, off [3]float32, w anim.Window, ms float64) []float64 {
	t.Helper()
	tr := &anim.Track{Interp: anim.Interp(rt.Interp), Width: path.Width(), Rotation: path == scene.PathRotation,
		Values: rt.Values, InTans: rt.InTans, OutTans: rt.OutTans}
	for _, f := range rt.Frames {
		tr.Frames = append(tr.Frames, int64(f))
	}
	switch path {
	case scene.PathRotation:
		tr.Default = []float32{0, 0, 0, 1}
	case scene.PathScale:
		tr.Default = []float32{1, 1, 1}
	default:
		tr.Default = []float32{0, 0, 0}
	}
	if rt.GlobalSeq >= 0 {
		tr.Global, tr.Period = true, int64(m.GlobalSequences[rt.GlobalSeq])
	}
	v, err := anim.Sample(tr, w, ms)
	if err != nil {
		t.Fatal(err)
	}
	switch path {
	case scene.PathRotation:
		return unit([]float64{v[0], v[2], -v[1], v[3]})
	case scene.PathScale:
		return []float64{v[0], v[2], v[1]}
	}
	return []float64{float64(off[0]) + v[0], float64(off[1]) + v[2], float64(off[2]) - v[1]}
}

// TestAnimationFidelity checks every interpolation × path, with and without a global
// sequence, against an independent glTF sampler at 400+ times per clip.
func TestAnimationFidelity(t *testing.T) {
	worst := 0.0
	for _, interp := range []Interp{DontInterp, Linear, Hermite, Bezier} {
		for _, path := range []scene.Path{scene.PathTranslation, scene.PathRotation, scene.PathScale} {
			for _, gseq := range []int32{-1, 0} {
				where := fmt.Sprintf("%d/%s/gseq %d", interp, path, gseq)
				m := testModel()
				rt := rawTrack(interp, path, gseq)
				arm := &m.Bones[1].Node
				switch path {
				case scene.PathTranslation:
					arm.Translation = rt
				case scene.PathRotation:
					arm.Rotation = rt
				default:
					arm.Scaling = rt
				}
				s := build(t, m)
				off := sub(convPos(m.PivotPoints[1]), convPos(m.PivotPoints[0]))
				for ai, a := range s.Animations {
					w := anim.Window{Start: int64(m.Sequences[ai].Interval[0]), End: int64(m.Sequences[ai].Interval[1])}
					var ch *scene.Channel
					for c := range a.Channels {
						if a.Channels[c].Node == 1 && a.Channels[c].Path == path {
							ch = &a.Channels[c]
						}
					}
					if ch == nil || len(a.Channels) != 1 {
						t.Fatalf("%s/%s: %d channels, none for the track", where, a.Name, len(a.Channels))
					}
					if got := ch.Times[len(ch.Times)-1]; got != a.Duration {
						t.Errorf("%s/%s: channel ends at %v, clip at %v", where, a.Name, got, a.Duration)
					}
					const n = 400
					for i := 0; i <= n; i++ {
						ts := a.Duration * float32(i) / n
						got, err := gltfsample.Sample(string(ch.Interp), ch.Times, ch.Values, path.Width(), ts)
						if err != nil {
							t.Fatal(err)
						}
						best := math.Inf(1)
						for _, d := range []float64{0, -1e-4, 1e-4} {
							ms := min(max(float64(ts)*1000+d, 0), float64(w.Duration()))
							best = min(best, gltfsample.Distance(got, refValue(t, m, rt, path, off, w, ms), path == scene.PathRotation))
						}
						worst = max(worst, best)
						note, _ := s.Nodes[1].Extras["animationTolerance"].(map[string]any)
						allowed, _ := note[string(path)].(float64)
						limit := max(1e-4, allowed)
						if best > limit {
							t.Errorf("%s/%s at %v s: error %g", where, a.Name, ts, best)
							break
						}
					}
				}
			}
		}
	}
	t.Logf("worst error %.3g", worst)
}

func TestSkinning(t *testing.T) {
	s := build(t, testModel())
	if len(s.Skins) != 1 || len(s.Skins[0].Joints) != 5 {
		t.Fatalf("skins: %+v", s.Skins)
	}
	m := s.Meshes[0]
	if len(m.Joints) != 2 {
		t.Fatalf("%d influence sets, want 2", len(m.Joints))
	}
	wantK := []int{1, 1, 2, 2, 5, 5}
	for v := range m.Positions {
		sum, k := float32(0), 0
		var joints []uint16
		for set := range m.Joints {
			for i := 0; i < 4; i++ {
				if w := m.Weights[set][v][i]; w > 0 {
					sum += w
					k++
					joints = append(joints, m.Joints[set][v][i])
				}
			}
		}
		if math.Abs(float64(sum)-1) > 1e-6 {
			t.Errorf("vertex %d: weights sum to %v", v, sum)
		}
		if k != wantK[v] {
			t.Errorf("vertex %d: %d influences, want %d (%v)", v, k, wantK[v], joints)
		}
	}
	// The 5-object group keeps all five, in group order.
	if got := []uint16{m.Joints[0][4][0], m.Joints[0][4][1], m.Joints[0][4][2], m.Joints[0][4][3], m.Joints[1][4][0]}; !slices.Equal(got, []uint16{0, 1, 2, 3, 4}) {
		t.Errorf("5-object group joints %v", got)
	}
}

// mat4 helpers, column-major as glTF.
type mat4 [16]float64

func mul(a, b mat4) mat4 {
	var c mat4
	for col := 0; col < 4; col++ {
		for row := 0; row < 4; row++ {
			for k := 0; k < 4; k++ {
				c[col*4+row] += a[k*4+row] * b[col*4+k]
			}
		}
	}
	return c
}

func trs(n scene.Node) mat4 {
	x, y, z, w := float64(n.Rotation[0]), float64(n.Rotation[1]), float64(n.Rotation[2]), float64(n.Rotation[3])
	sx, sy, sz := float64(n.Scale[0]), float64(n.Scale[1]), float64(n.Scale[2])
	return mat4{
		(1 - 2*(y*y+z*z)) * sx, 2 * (x*y + z*w) * sx, 2 * (x*z - y*w) * sx, 0,
		2 * (x*y - z*w) * sy, (1 - 2*(x*x+z*z)) * sy, 2 * (y*z + x*w) * sy, 0,
		2 * (x*z + y*w) * sz, 2 * (y*z - x*w) * sz, (1 - 2*(x*x+y*y)) * sz, 0,
		float64(n.Translation[0]), float64(n.Translation[1]), float64(n.Translation[2]), 1,
	}
}

// TestRestPose skins the rest pose with the inverse binds and expects the source positions.
func TestRestPose(t *testing.T) {
	src := testModel()
	s := build(t, src)
	world := make([]mat4, len(s.Nodes))
	var walk func(i int) mat4
	walk = func(i int) mat4 {
		m := trs(s.Nodes[i])
		if p := s.Nodes[i].Parent; p >= 0 {
			m = mul(walk(p), m)
		}
		return m
	}
	for i := range s.Nodes {
		world[i] = walk(i)
	}
	sk := s.Skins[0]
	mesh := s.Meshes[0]
	for v, p := range mesh.Positions {
		var out [3]float64
		for set := range mesh.Joints {
			for k := 0; k < 4; k++ {
				w := float64(mesh.Weights[set][v][k])
				if w == 0 {
					continue
				}
				j := int(mesh.Joints[set][v][k])
				var ib mat4
				for i := range ib {
					ib[i] = float64(sk.InverseBind[j][i])
				}
				jm := mul(world[sk.Joints[j]], ib)
				for r := 0; r < 3; r++ {
					out[r] += w * (jm[r]*float64(p[0]) + jm[4+r]*float64(p[1]) + jm[8+r]*float64(p[2]) + jm[12+r])
				}
			}
		}
		want := convPos(src.Geosets[0].Vertices[v])
		for r := 0; r < 3; r++ {
			if math.Abs(out[r]-float64(want[r])) > 1e-4 {
				t.Errorf("vertex %d: skinned %v, source %v", v, out, want)
				break
			}
		}
	}
}

func TestBuildScene(t *testing.T) {
	m := testModel()
	m.Warnings = []string{"reader warning"}
	s := build(t, m)
	if s.Source.Axes != Axes || s.Source.Version != 800 || s.Source.Name != "Test" || s.Source.Scale != 1 {
		t.Errorf("source %+v", s.Source)
	}
	// Nodes in ObjectID order, rest translation pivot − parentPivot (converted).
	wantNames := []string{"Root", "Arm", "Help", "Chest Ref", "Hand"}
	for i, n := range s.Nodes {
		if n.Name != wantNames[i] {
			t.Errorf("node %d is %q, want %q", i, n.Name, wantNames[i])
		}
	}
	if got := s.Nodes[4]; got.Parent != 2 || got.Translation != [3]float32{0, -10, -4} || got.Kind != scene.KindBone {
		t.Errorf("Hand: %+v", got)
	}
	if f := s.Nodes[1].Extras["flags"].([]string); !slices.Equal(f, []string{"Billboarded"}) {
		t.Errorf("Arm flags %v", f)
	}
	if s.Nodes[3].Kind != scene.KindAttachment || s.Nodes[2].Kind != scene.KindHelper {
		t.Errorf("kinds %v %v", s.Nodes[3].Kind, s.Nodes[2].Kind)
	}
	// Normals converted and normalised, the zero normal replaced with a warning.
	mesh := s.Meshes[0]
	if mesh.Normals[1] != [3]float32{0, 1, 0} || mesh.Normals[2] != [3]float32{0, 0, -1} || mesh.Normals[4] != [3]float32{0, 1, 0} {
		t.Errorf("normals %v", mesh.Normals)
	}
	if mesh.Positions[5] != [3]float32{-5, 40, -3} {
		t.Errorf("position %v", mesh.Positions[5])
	}
	// Materials.
	m0, m1 := s.Materials[0], s.Materials[1]
	if m0.AlphaMode != scene.AlphaMask || m0.AlphaCutoff != 0.75 || !m0.DoubleSided || !m0.Unlit || m0.Texture != 0 {
		t.Errorf("material 0 %+v", m0)
	}
	if !slices.Contains(m0.Flags, "FilterMode:Transparent") || !slices.Contains(m0.Flags, "TwoSided") {
		t.Errorf("material 0 flags %v", m0.Flags)
	}
	// Material 1's layer is the team colour, additive: player 1's red, no picture.
	if m1.AlphaMode != scene.AlphaBlend || m1.BaseColor != [4]float32{1, linear(3.0 / 255), linear(3.0 / 255), 0.5} || m1.Texture != -1 || m1.DoubleSided {
		t.Errorf("material 1 %+v", m1)
	}
	if tx := s.Textures[0]; tx.Path != `Textures\Foo.blp` || !tx.WrapU || !tx.WrapV {
		t.Errorf("texture 0 %+v", tx)
	}
	if tx := s.Textures[1]; tx.Replaceable != 1 || tx.Extras["replaceable"] != "TeamColor" {
		t.Errorf("texture 1 %+v", tx)
	}
	// Animations.
	if len(s.Animations) != 3 {
		t.Fatalf("%d animations", len(s.Animations))
	}
	walk := s.Animations[1]
	if walk.Start != 1 || walk.End != 2.33 || walk.Duration != float32(1.33) || !walk.Loop || walk.Extras["moveSpeed"] != float32(270) {
		t.Errorf("walk %+v", walk)
	}
	if h := walk.Extras["hiddenGeosets"].([]int64); !slices.Equal(h, []int64{0}) {
		t.Errorf("walk hides %v, want [0]", h)
	}
	if h := s.Animations[0].Extras["hiddenGeosets"].([]int64); len(h) != 0 {
		t.Errorf("stand hides %v", h)
	}
	if s.Animations[2].Loop {
		t.Error("Still loops")
	}
	for _, key := range []string{"model", "sequences", "globalSequences", "geosetAnimations", "attachments"} {
		if _, ok := s.Extras[key]; !ok {
			t.Errorf("scene extras lack %q", key)
		}
	}
	// Every Extras must serialise as JSON.
	all := []any{s.Extras}
	for _, n := range s.Nodes {
		all = append(all, n.Extras)
	}
	for _, x := range s.Materials {
		all = append(all, x.Extras)
	}
	for _, a := range s.Animations {
		all = append(all, a.Extras)
	}
	for _, x := range all {
		if _, err := json.Marshal(x); err != nil {
			t.Errorf("extras do not serialise: %v", err)
		}
	}
	if s.Warnings[0] != "reader warning" || len(s.Warnings) < 2 {
		t.Errorf("warnings %q", s.Warnings)
	}
}

func TestZeroLengthSequence(t *testing.T) {
	m := testModel()
	m.Bones[1].Translation = rawTrack(Hermite, scene.PathTranslation, -1)
	m.Bones[1].Rotation = rawTrack(Bezier, scene.PathRotation, 0)
	s := build(t, m)
	still := s.Animations[2]
	if still.Duration != 0 || len(still.Channels) != 2 {
		t.Fatalf("still %+v", still)
	}
	for _, ch := range still.Channels {
		if len(ch.Times) != 1 {
			t.Errorf("%s: %d keys", ch.Path, len(ch.Times))
		}
	}
}

// TestTrackDefectsCostTheTrack: defects confined to one object or track cost that part, with a
// warning, and the model still translates: a node track out of frame order is put in order, one
// that cannot be played is dropped, a parent that is no object makes a root, ObjectId -1 (the
// format's "none") an object of its own at the origin.
func TestTrackDefectsCostTheTrack(t *testing.T) {
	tests := []struct {
		name, warning string
		edit          func(*Model)
	}{
		{"bad parent", "which is no object: taken as a root", func(m *Model) { m.Bones[1].ParentID = 17 }},
		{"self parent", "is its own ancestor: taken as a root", func(m *Model) { m.Bones[1].ParentID = 1 }},
		{"cycle", "is its own ancestor: taken as a root", func(m *Model) { m.Bones[0].ParentID = 4 }},
		{"sequence reversed", "before it starts (2000); left out", func(m *Model) { m.Sequences[1].Interval = [2]uint32{2000, 1000} }},
		{"one geoset of two broken", "the geoset is left out", func(m *Model) {
			g := m.Geosets[0]
			g.Faces = slices.Clone(g.Faces)
			g.Faces[4] = 6000
			m.Geosets = append(m.Geosets, g)
		}},
		{"object id none", "has ObjectId -1 (none)", func(m *Model) { m.Helpers = append(m.Helpers, Node{Name: "Loose", ObjectID: -1, ParentID: -1}) }},
		{"global sequence", "track dropped: global sequence 3", func(m *Model) { m.Bones[0].Translation = rawTrack(Linear, scene.PathTranslation, 3) }},
		{"unsorted", "keys out of frame order", func(m *Model) {
			tr := rawTrack(Linear, scene.PathScale, -1)
			tr.Frames[1], tr.Frames[2] = tr.Frames[2], tr.Frames[1]
			m.Bones[0].Scaling = tr
		}},
		{"short values", "track dropped", func(m *Model) {
			tr := rawTrack(Hermite, scene.PathRotation, -1)
			tr.OutTans = tr.OutTans[:3]
			m.Bones[0].Rotation = tr
		}},
		{"interpolation", "track dropped", func(m *Model) {
			tr := rawTrack(Linear, scene.PathRotation, -1)
			tr.Interp = 7
			m.Bones[0].Rotation = tr
		}},
		// Models the game loads, which modelfs once refused.
		{"duplicate object ids", "ObjectId 1 used twice", func(m *Model) { m.Helpers[0].ObjectID = 1 }},
		{"group names no object", "name no object; left out of their groups", func(m *Model) { m.Geosets[0].Matrices[3] = 5 }},
		{"empty group", "in matrix groups that name no object", func(m *Model) { m.Geosets[0].GroupSizes = []uint32{1, 0, 8} }},
		{"no bones, group names object 0", "left unskinned, as stored", func(m *Model) {
			m.Bones, m.Helpers, m.Attachments = nil, nil, nil
			m.Sequences = nil
		}},
	}
	for _, tc := range tests {
		m := testModel()
		tc.edit(m)
		s, err := Build(m, codec.Source{Name: "bad.mdx"}, "mdx")
		if err != nil {
			t.Errorf("%s: %v, want the model with a warning", tc.name, err)
			continue
		}
		if !slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.Contains(w, tc.warning) }) {
			t.Errorf("%s: warnings %q, want one saying %q", tc.name, s.Warnings, tc.warning)
		}
	}
}

// TestBadModels expects a FormatError, never a panic, for inconsistent raw models.
func TestBadModels(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Model)
	}{
		{"negative object id", func(m *Model) { m.Helpers[0].ObjectID = -2 }},
		{"index past vertex count", func(m *Model) { m.Geosets[0].Faces[4] = 6 }},
		{"face count past faces", func(m *Model) { m.Geosets[0].FaceCounts[0] = 9 }},
		{"group past matrices", func(m *Model) { m.Geosets[0].GroupSizes[2] = 6 }},
		{"vertex group past groups", func(m *Model) { m.Geosets[0].VertexGroups[2] = 3 }},
		{"vertex groups short", func(m *Model) { m.Geosets[0].VertexGroups = m.Geosets[0].VertexGroups[:4] }},
		{"face groups mismatch", func(m *Model) { m.Geosets[0].FaceTypes = []uint32{4, 4} }},
	}
	for _, tc := range tests {
		m := testModel()
		tc.edit(m)
		s, err := Build(m, codec.Source{Name: "bad.mdx"}, "mdx")
		var fe *codec.FormatError
		if !errors.As(err, &fe) || s != nil {
			t.Errorf("%s: got %v, want a FormatError", tc.name, err)
			continue
		}
		if fe.Format != "mdx" || fe.File != "bad.mdx" || fe.Offset != -1 {
			t.Errorf("%s: error fields %+v", tc.name, fe)
		}
	}
	if _, err := Build(nil, codec.Source{Name: "nil"}, "mdx"); err == nil {
		t.Error("nil model: no error")
	}
}

func TestTolerated(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Model)
		want string // substring of a warning
	}{
		{"missing pivot", func(m *Model) { m.PivotPoints = m.PivotPoints[:3] }, "no pivot"},
		{"non-triangle faces", func(m *Model) {
			g := &m.Geosets[0]
			g.FaceTypes, g.FaceCounts, g.Faces = []uint32{5, 4}, []uint32{2, 3}, []uint16{0, 1, 0, 1, 2}
		}, "not triangles"},
		{"material past table", func(m *Model) { m.Geosets[0].MaterialID = 9 }, "no material"},
		{"sparse ids", func(m *Model) {
			m.Bones[2].ObjectID = 40
			m.Geosets[0].Matrices[8] = 40
			m.PivotPoints = append(m.PivotPoints, make([][3]float32, 36)...)
		}, "ObjectId"},
		{"uv set for coord id", func(m *Model) { m.Materials[0].Layers[0].CoordID = 1 }, "padded"},
	}
	for _, tc := range tests {
		m := testModel()
		tc.edit(m)
		s := build(t, m)
		found := false
		for _, w := range s.Warnings {
			found = found || contains(w, tc.want)
		}
		if !found {
			t.Errorf("%s: no warning with %q in %q", tc.name, tc.want, s.Warnings)
		}
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func TestDeterministic(t *testing.T) {
	m := testModel()
	m.Bones[1].Rotation = rawTrack(Bezier, scene.PathRotation, 0)
	m.Bones[0].Translation = rawTrack(Hermite, scene.PathTranslation, -1)
	a, b := build(t, m), build(t, m)
	if !testscene.Same(a, b) {
		t.Error("two builds of one model differ")
	}
	fresh := testModel()
	fresh.Bones[1].Rotation = rawTrack(Bezier, scene.PathRotation, 0)
	fresh.Bones[0].Translation = rawTrack(Hermite, scene.PathTranslation, -1)
	if !reflect.DeepEqual(m, fresh) {
		t.Error("Build modified its input")
	}
}

// TestAnimationLimits: a small file must not make a huge scene. Every node track makes a
// channel in every sequence, and baking can add thousands of keys to each: too many channels
// for the source's size, or too many keys in all, fail with ErrTooLarge, within a bounded
// amount of memory.
func TestAnimationLimits(t *testing.T) {
	wild := func(m *Model, bones, seqs int) {
		m.Sequences = nil
		for i := range seqs {
			m.Sequences = append(m.Sequences, Sequence{Name: fmt.Sprint("s", i), Interval: [2]uint32{0, 60000}})
		}
		for i := range bones {
			n := node(fmt.Sprint("b", i), int32(10+i), -1, 0)
			// Tangents so steep that the curve needs the whole key cap in every clip.
			n.Translation = &Track{Interp: Hermite, GlobalSeq: -1, Width: 3, Frames: []int32{0, 60000},
				Values: []float32{0, 0, 0, 1, 1, 1}, InTans: []float32{0, 0, 0, 3e9, -3e9, 3e9}, OutTans: []float32{3e9, 3e9, -3e9, 0, 0, 0}}
			m.Bones = append(m.Bones, Bone{Node: n, GeosetID: -1, GeosetAnimID: -1})
			m.PivotPoints = append(m.PivotPoints, [3]float32{})
		}
	}
	tests := []struct {
		name        string
		bones, seqs int
		src         []byte
		want        string
	}{
		{"channels", 200, 100, nil, "channels"},
		{"channels for the source's size", 300, 100, make([]byte, 100000), "channels"},
		{"keys", 64, 64, nil, "keys"},
	}
	for _, tc := range tests {
		m := testModel()
		wild(m, tc.bones, tc.seqs)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		s, err := Build(m, codec.Source{Name: "big.mdx", Data: tc.src}, "mdx")
		runtime.ReadMemStats(&after)
		if s != nil || !errors.Is(err, codec.ErrTooLarge) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want ErrTooLarge about %s", tc.name, err, tc.want)
		}
		if mb := float64(after.TotalAlloc-before.TotalAlloc) / (1 << 20); mb > 256 {
			t.Errorf("%s: %.0f MB allocated before failing", tc.name, mb)
		}
	}
	// Within the limits, the same wild curve is baked up to the per-channel cap and reported.
	m := testModel()
	wild(m, 1, 1)
	s := build(t, m)
	if !slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.Contains(w, "baking cap") }) {
		t.Errorf("capped baking not reported: %q", s.Warnings)
	}
}

// An effect's baking is as fine as its motion needs: a model of no mesh whose emitter sweeps
// 300 units on a Hermite curve takes its size from that sweep, and gets about as many keys as
// the same sweep under a mesh of 300 units does, not thousands a second (which Blender's
// playback could not follow).
func TestToleranceFollowsTravel(t *testing.T) {
	sweep := func(withMesh bool) int {
		m := testModel()
		if !withMesh {
			m.Geosets, m.GeosetAnims = nil, nil
		} else {
			m.Geosets[0].Vertices[5] = [3]float32{0, 0, 300}
		}
		m.Bones[0].Translation = &Track{Interp: Hermite, GlobalSeq: -1, Width: 3, Frames: []int32{0, 1000},
			Values: []float32{0, 0, 0, 300, 0, 0}, InTans: []float32{0, 0, 0, 900, 300, 0}, OutTans: []float32{900, -300, 0, 0, 0, 0}}
		s := build(t, m)
		keys := 0
		for _, a := range s.Animations {
			if a.Name != "Stand" {
				continue
			}
			for _, ch := range a.Channels {
				if ch.Node == 0 && ch.Path == scene.PathTranslation {
					keys = len(ch.Times)
				}
			}
		}
		return keys
	}
	bare, meshed := sweep(false), sweep(true)
	t.Logf("a 300-unit sweep baked to %d keys without a mesh, %d under a mesh of 300 units", bare, meshed)
	if bare == 0 || bare > 2*meshed+2 {
		t.Errorf("without a mesh the sweep baked to %d keys; under a mesh of its size %d", bare, meshed)
	}
}

// A node parked far away (to hide what hangs on it) does not loosen the baking of the others:
// with a mesh, the room the nodes move in counts up to travelCap times its size.
func TestToleranceIgnoresParkedNodes(t *testing.T) {
	keysOf := func(park bool) int {
		m := testModel()
		m.Bones[0].Translation = &Track{Interp: Hermite, GlobalSeq: -1, Width: 3, Frames: []int32{0, 1000},
			Values: []float32{0, 0, 0, 30, 0, 0}, InTans: []float32{0, 0, 0, 90, 30, 0}, OutTans: []float32{90, -30, 0, 0, 0, 0}}
		if park {
			m.Bones[1].Translation = &Track{Interp: Linear, GlobalSeq: -1, Width: 3, Frames: []int32{0, 500},
				Values: []float32{0, 0, 0, 0, 0, -100000}}
		}
		for _, a := range build(t, m).Animations {
			if a.Name == "Stand" {
				for _, ch := range a.Channels {
					if ch.Node == 0 && ch.Path == scene.PathTranslation {
						return len(ch.Times)
					}
				}
			}
		}
		return 0
	}
	plain, parked := keysOf(false), keysOf(true)
	t.Logf("a 30-unit sweep: %d keys, %d beside a node parked 100,000 units away", plain, parked)
	if parked*3 < plain {
		t.Errorf("a parked node cut the sweep's keys from %d to %d", plain, parked)
	}
}
