package gltfenc

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/modelfs/modelfs/internal/testkit/golden"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"

	"github.com/modelfs/modelfs/internal/testkit/gltfvalidate"
	"github.com/modelfs/modelfs/translate/gltfenc/gltfjson"
	"github.com/modelfs/modelfs/translate/internal/testkit/testscene"
	"github.com/modelfs/modelfs/translate/scene"
)

func TestScenesValid(t *testing.T) {
	for _, tc := range testScenes() {
		if err := tc.s.Validate(); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

func encode(t testing.TB, s *scene.Scene, binary bool) []byte {
	t.Helper()
	out, err := Encode(s, Options{Binary: binary})
	if err != nil {
		t.Fatalf("Encode(binary=%v): %v", binary, err)
	}
	return out
}

func decode(t testing.TB, data []byte) *gltf.Document {
	t.Helper()
	var doc gltf.Document
	if err := gltf.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		t.Fatalf("decode: %v", err)
	}
	return &doc
}

// acceptedWarnings lists validator warnings that are right for a scene, by scene name.
var acceptedWarnings = map[string][]string{}

// TestValidator encodes every test scene as .gltf and .glb and runs the Khronos validator over
// all of them in one process.
func TestValidator(t *testing.T) {
	dir := t.TempDir()
	var paths, names []string
	for _, tc := range testScenes() {
		// Resolved textures: the .gltf refers to an image file beside it, the .glb embeds it.
		for i := range tc.s.Textures {
			tx := &tc.s.Textures[i]
			if p := tx.ImagePath(); p != "" {
				img := tinyPNG(t)
				tx.Image, tx.MIME = img, "image/png"
				full := filepath.Join(dir, filepath.FromSlash(p))
				if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(full, img, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		for _, bin := range []bool{false, true} {
			ext := ".gltf"
			if bin {
				ext = ".glb"
			}
			p := filepath.Join(dir, tc.name+ext)
			if err := os.WriteFile(p, encode(t, tc.s, bin), 0o644); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, p)
			names = append(names, tc.name)
		}
	}
	reports := gltfvalidate.Check(t, paths...)
	for i, r := range reports {
		for _, m := range r.Messages {
			if m.Severity == gltfvalidate.SeverityWarning && !slices.Contains(acceptedWarnings[names[i]], m.Code) {
				t.Errorf("%s: unexpected warning %s", filepath.Base(r.File), m)
			}
			if m.Severity >= gltfvalidate.SeverityInfo {
				t.Logf("%s: info %s", filepath.Base(r.File), m)
			}
		}
	}
}

func TestDeterministic(t *testing.T) {
	for _, tc := range testScenes() {
		for _, bin := range []bool{false, true} {
			a, b := encode(t, tc.s, bin), encode(t, tc.s, bin)
			if !bytes.Equal(a, b) {
				t.Errorf("%s binary=%v: two encodings differ", tc.name, bin)
			}
		}
	}
}

// tinyPNG returns a 2×2 PNG.
func tinyPNG(t testing.TB) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewNRGBA(image.Rect(0, 0, 2, 2))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestGLBMatchesGLTF checks that both containers carry the same document and buffer (for scenes
// without images, which only the .glb embeds).
func TestGLBMatchesGLTF(t *testing.T) {
	for _, tc := range testScenes() {
		for i := range tc.s.Textures {
			tc.s.Textures[i].Resolved = ""
		}
		a, b := decode(t, encode(t, tc.s, false)), decode(t, encode(t, tc.s, true))
		if len(a.Buffers) != len(b.Buffers) {
			t.Fatalf("%s: %d vs %d buffers", tc.name, len(a.Buffers), len(b.Buffers))
		}
		for i := range a.Buffers {
			if !bytes.Equal(a.Buffers[i].Data, b.Buffers[i].Data[:b.Buffers[i].ByteLength]) {
				t.Errorf("%s: buffer %d differs between .gltf and .glb", tc.name, i)
			}
			a.Buffers[i].URI, a.Buffers[i].Data, b.Buffers[i].Data = "", nil, nil
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if !bytes.Equal(ja, jb) {
			t.Errorf("%s: documents differ:\n%s\n%s", tc.name, ja, jb)
		}
	}
}

func TestGLBLayout(t *testing.T) {
	out := encode(t, triangleScene(), true)
	if string(out[:4]) != "glTF" || binary.LittleEndian.Uint32(out[4:]) != 2 || int(binary.LittleEndian.Uint32(out[8:])) != len(out) {
		t.Fatalf("bad GLB header % x", out[:12])
	}
	if len(out)%4 != 0 {
		t.Errorf("GLB length %d not a multiple of 4", len(out))
	}
}

// TestGolden pins the whole .gltf of the triangle scene.
func TestGolden(t *testing.T) {
	got := encode(t, triangleScene(), false)
	golden.Testdata(t, "triangle.gltf", got)
}

func TestTriangle(t *testing.T) {
	s := triangleScene()
	for _, bin := range []bool{false, true} {
		doc := decode(t, encode(t, s, bin))
		if doc.Asset.Version != "2.0" || doc.Asset.Generator != "modelfs" {
			t.Errorf("asset %+v", doc.Asset)
		}
		ax, _ := doc.Asset.Extras.(map[string]any)
		if ax["source"] != "units/tri.mdl" || ax["format"] != "mdl" || ax["version"] != float64(800) {
			t.Errorf("asset extras %v", ax)
		}
		if doc.Extras != nil {
			t.Errorf("scene extras leaked into the document: %v", doc.Extras)
		}
		if len(doc.Nodes) != 2 || len(doc.Meshes) != 1 || len(doc.Scenes) != 1 {
			t.Fatalf("%d nodes, %d meshes, %d scenes", len(doc.Nodes), len(doc.Meshes), len(doc.Scenes))
		}
		if got := doc.Scenes[0].Nodes; !slices.Equal(got, []int{0, 1}) {
			t.Errorf("roots %v", got)
		}
		n := doc.Nodes[0]
		if n.Translation != [3]float64{1, 2, 3} || n.Scale != [3]float64{2, 2, 2} || n.Rotation != [4]float64{0, 0.70710677, 0, 0.70710677} {
			t.Errorf("node TRS %v %v %v", n.Translation, n.Rotation, n.Scale)
		}
		if x, _ := n.Extras.(map[string]any); x["kind"] != "root" || x["objectId"] != float64(7) {
			t.Errorf("node extras %v", n.Extras)
		}
		mn := doc.Nodes[1]
		if mn.Name != "Triangle" || mn.Mesh == nil || *mn.Mesh != 0 || mn.Skin != nil {
			t.Errorf("mesh node %+v", mn)
		}
		p := doc.Meshes[0].Primitives[0]
		keys := make([]string, 0, len(p.Attributes))
		for k := range p.Attributes {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if !slices.Equal(keys, []string{"COLOR_0", "NORMAL", "POSITION", "TEXCOORD_0"}) {
			t.Errorf("attributes %v", keys)
		}
		pa := doc.Accessors[p.Attributes["POSITION"]]
		if !slices.Equal(pa.Min, []float64{0, 0, 0}) || !slices.Equal(pa.Max, []float64{1, 1, 0.5}) {
			t.Errorf("position bounds %v %v", pa.Min, pa.Max)
		}
		pos, err := modeler.ReadPosition(doc, pa, nil)
		if err != nil || !slices.Equal(pos, s.Meshes[0].Positions) {
			t.Errorf("positions %v, %v", pos, err)
		}
		ia := doc.Accessors[*p.Indices]
		if ia.ComponentType != gltf.ComponentUshort || ia.Count != 3 {
			t.Errorf("indices %v ×%d", ia.ComponentType, ia.Count)
		}
		for _, bv := range doc.BufferViews {
			if bv.ByteOffset%4 != 0 {
				t.Errorf("bufferView at %d not aligned", bv.ByteOffset)
			}
		}
		m := doc.Materials[0]
		pbr := m.PBRMetallicRoughness
		if *pbr.BaseColorFactor != [4]float64{0.8, 0.1, 0.1, 1} || *pbr.MetallicFactor != 0 || *pbr.RoughnessFactor != 1 || pbr.BaseColorTexture != nil {
			t.Errorf("pbr %+v", pbr)
		}
		mx, _ := m.Extras.(map[string]any)
		tx, _ := mx["texture"].(map[string]any)
		if tx["path"] != `Textures\Red.blp` || tx["wrapU"] != true || len(doc.Images) != 0 || len(doc.Textures) != 0 {
			t.Errorf("material extras %v, %d images", mx, len(doc.Images))
		}
	}
}

func TestSkinned(t *testing.T) {
	s := skinnedScene()
	doc := decode(t, encode(t, s, true))
	if len(doc.Skins) != 2 || len(doc.Nodes) != len(s.Nodes)+2 {
		t.Fatalf("%d skins, %d nodes", len(doc.Skins), len(doc.Nodes))
	}
	if !slices.Equal(doc.Skins[0].Joints, []int{0, 1}) || doc.Skins[0].Skeleton == nil || *doc.Skins[0].Skeleton != 0 {
		t.Errorf("skin 0 %+v", doc.Skins[0])
	}
	if doc.Skins[1].Skeleton != nil || len(doc.Skins[1].Joints) != 6 {
		t.Errorf("skin 1 %+v", doc.Skins[1])
	}
	ibm, err := modeler.ReadInverseBindMatrices(doc, doc.Accessors[*doc.Skins[1].InverseBindMatrices], nil)
	if err != nil || len(ibm) != 6 || ibm[5][1][3] != -2 { // modeler reads [row][column]
		t.Errorf("inverse bind matrices %v, %v", ibm, err)
	}
	hand := doc.Nodes[len(s.Nodes)+1]
	if hand.Name != "Hand" || *hand.Mesh != 1 || *hand.Skin != 1 {
		t.Errorf("hand node %+v", hand)
	}
	p := doc.Meshes[1].Primitives[0]
	for _, a := range []string{"JOINTS_0", "JOINTS_1", "WEIGHTS_0", "WEIGHTS_1"} {
		if _, ok := p.Attributes[a]; !ok {
			t.Errorf("missing %s", a)
		}
	}
	ja := doc.Accessors[p.Attributes["JOINTS_1"]]
	if ja.ComponentType != gltf.ComponentUbyte || ja.Type != gltf.AccessorVec4 {
		t.Errorf("JOINTS_1 %v %v", ja.ComponentType, ja.Type)
	}
	j, err := modeler.ReadJoints(doc, ja, nil)
	if err != nil || j[0] != [4]uint16{4, 0, 0, 0} {
		t.Errorf("JOINTS_1 %v, %v", j, err)
	}
	w, err := modeler.ReadWeights(doc, doc.Accessors[p.Attributes["WEIGHTS_0"]], nil)
	if err != nil || w[0] != [4]float32{0.2, 0.2, 0.2, 0.2} {
		t.Errorf("WEIGHTS_0 %v, %v", w, err)
	}

	big := decode(t, encode(t, bigSkinScene(), false))
	ja = big.Accessors[big.Meshes[0].Primitives[0].Attributes["JOINTS_0"]]
	j, err = modeler.ReadJoints(big, ja, nil)
	if ja.ComponentType != gltf.ComponentUshort || err != nil || j[0][0] != 299 {
		t.Errorf("300-joint skin: JOINTS_0 %v %v, %v", ja.ComponentType, j, err)
	}
}

func TestAnimations(t *testing.T) {
	s := animatedScene()
	doc := decode(t, encode(t, s, false))
	if len(doc.Animations) != 3 {
		t.Fatalf("%d animations, want 3", len(doc.Animations))
	}
	stand, empty, walk := doc.Animations[0], doc.Animations[1], doc.Animations[2]
	// A motionless animation keeps one channel holding the first node at rest (glTF needs one).
	if x, _ := empty.Extras.(map[string]any); empty.Name != "Empty" || len(empty.Channels) != 1 || x["motionless"] != true ||
		*empty.Channels[0].Target.Node != 0 || empty.Channels[0].Target.Path != gltf.TRSTranslation ||
		empty.Samplers[0].Interpolation != gltf.InterpolationStep {
		t.Errorf("the motionless animation: %+v", empty)
	}
	if stand.Name != "Stand" || walk.Name != "Walk" || len(stand.Channels) != 4 || len(walk.Samplers) != 4 {
		t.Fatalf("animations %q %d, %q %d", stand.Name, len(stand.Channels), walk.Name, len(walk.Samplers))
	}
	if x, _ := stand.Extras.(map[string]any); x["duration"] != float64(1) || x["loop"] != true || x["rarity"] != 0.5 {
		t.Errorf("Stand extras %v", stand.Extras)
	}
	if x, _ := walk.Extras.(map[string]any); x["start"] != 3.5 || x["end"] != 5.5 {
		t.Errorf("Walk extras %v", walk.Extras)
	}
	// Identical key times share one input accessor.
	if stand.Samplers[0].Input != stand.Samplers[1].Input || stand.Samplers[2].Input != stand.Samplers[3].Input || stand.Samplers[0].Input == stand.Samplers[2].Input {
		t.Errorf("inputs %d %d %d %d", stand.Samplers[0].Input, stand.Samplers[1].Input, stand.Samplers[2].Input, stand.Samplers[3].Input)
	}
	in := doc.Accessors[stand.Samplers[0].Input]
	if in.Type != gltf.AccessorScalar || !slices.Equal(in.Min, []float64{0}) || !slices.Equal(in.Max, []float64{1}) {
		t.Errorf("input accessor %+v", in)
	}
	wantInterp := []gltf.Interpolation{gltf.InterpolationLinear, gltf.InterpolationLinear, gltf.InterpolationStep, gltf.InterpolationStep}
	for i, sm := range stand.Samplers {
		if sm.Interpolation != wantInterp[i] {
			t.Errorf("Stand sampler %d interpolation %v", i, sm.Interpolation)
		}
	}
	rot, err := modeler.ReadAccessor(doc, doc.Accessors[stand.Samplers[3].Output], nil)
	if q, _ := rot.([][4]float32); err != nil || len(q) != 2 || q[1] != [4]float32{0, 0, 0, 1} {
		t.Errorf("normalised rotation keys %v, %v", rot, err)
	}
	c := walk.Channels[1]
	sm := walk.Samplers[c.Sampler]
	out := doc.Accessors[sm.Output]
	if sm.Interpolation != gltf.InterpolationCubicSpline || *c.Target.Node != 2 || c.Target.Path != gltf.TRSRotation || out.Count != 6 || out.Type != gltf.AccessorVec4 {
		t.Errorf("cubic rotation channel %+v sampler %+v output %+v", c, sm, out)
	}
	vals, err := modeler.ReadAccessor(doc, out, nil)
	if v, _ := vals.([][4]float32); err != nil || v[2] != [4]float32{0, 0.1, 0, 0} {
		t.Errorf("cubic values %v, %v", vals, err)
	}
}

func TestMaterials(t *testing.T) {
	raw := encode(t, materialScene(), true)
	if n := bytes.Count(raw, []byte(`"alphaCutoff"`)); n != 1 {
		t.Errorf("alphaCutoff written %d times, want once (MASK only)", n)
	}
	doc := decode(t, raw)
	if !slices.Equal(doc.ExtensionsUsed, []string{"KHR_materials_unlit"}) || len(doc.ExtensionsRequired) != 0 {
		t.Errorf("extensions used %v required %v", doc.ExtensionsUsed, doc.ExtensionsRequired)
	}
	glow, leaves, unused := doc.Materials[0], doc.Materials[1], doc.Materials[2]
	if glow.AlphaMode != gltf.AlphaBlend || !glow.DoubleSided || glow.Extensions["KHR_materials_unlit"] == nil {
		t.Errorf("glow %+v", glow)
	}
	if *glow.PBRMetallicRoughness.BaseColorFactor != [4]float64{1, 1, 1, 0.5} {
		t.Errorf("glow colour %v", *glow.PBRMetallicRoughness.BaseColorFactor)
	}
	gx, _ := glow.Extras.(map[string]any)
	if tx, _ := gx["texture"].(map[string]any); tx["replaceable"] != float64(1) || gx["priorityPlane"] != float64(2) || len(gx["flags"].([]any)) != 3 {
		t.Errorf("glow extras %v", gx)
	}
	if leaves.AlphaMode != gltf.AlphaMask || leaves.AlphaCutoff == nil || *leaves.AlphaCutoff != 0.75 || leaves.DoubleSided || len(leaves.Extensions) != 0 {
		t.Errorf("leaves %+v", leaves)
	}
	lx, _ := leaves.Extras.(map[string]any)
	if tx, _ := lx["texture"].(map[string]any); tx["resolved"] != "Textures/Leaves.blp" || tx["flags"] != float64(3) {
		t.Errorf("leaves extras %v", lx)
	}
	if unused.AlphaMode != gltf.AlphaOpaque || unused.Extras != nil || len(unused.Extensions) != 0 || *unused.PBRMetallicRoughness.BaseColorFactor != [4]float64{1, 1, 1, 1} {
		t.Errorf("unused %+v", unused)
	}
}

func TestBigMesh(t *testing.T) {
	ten := float32(10) // the grid's highest point is float32(10) * 0.01
	s := gridScene(300)
	doc := decode(t, encode(t, s, true))
	p := doc.Meshes[0].Primitives[0]
	ia := doc.Accessors[*p.Indices]
	if ia.ComponentType != gltf.ComponentUint || ia.Count != len(s.Meshes[0].Indices) {
		t.Fatalf("indices %v ×%d", ia.ComponentType, ia.Count)
	}
	idx, err := modeler.ReadIndices(doc, ia, nil)
	if err != nil || !slices.Equal(idx, s.Meshes[0].Indices) {
		t.Errorf("indices differ (%v)", err)
	}
	pa := doc.Accessors[p.Attributes["POSITION"]]
	if pa.Count != 90000 || !slices.Equal(pa.Min, []float64{0, 0, 0}) || !slices.Equal(pa.Max, []float64{1, r32(ten * 0.01), 1}) {
		t.Errorf("positions ×%d %v %v", pa.Count, pa.Min, pa.Max)
	}
}

func TestNoMeshes(t *testing.T) {
	doc := decode(t, encode(t, noMeshScene(), false))
	if len(doc.Nodes) != 2 || len(doc.Meshes) != 0 || len(doc.Buffers) != 0 || len(doc.Accessors) != 0 {
		t.Errorf("%d nodes, %d meshes, %d buffers, %d accessors", len(doc.Nodes), len(doc.Meshes), len(doc.Buffers), len(doc.Accessors))
	}
	if !slices.Equal(doc.Nodes[0].Children, []int{1}) || !slices.Equal(doc.Scenes[0].Nodes, []int{0}) {
		t.Errorf("hierarchy %v roots %v", doc.Nodes[0].Children, doc.Scenes[0].Nodes)
	}
	doc = decode(t, encode(t, emptyScene(), true))
	if len(doc.Nodes) != 0 || len(doc.Scenes) != 1 {
		t.Errorf("empty scene: %d nodes, %d scenes", len(doc.Nodes), len(doc.Scenes))
	}
}

// TestInconsistent checks that scenes breaking Validate's rules give errors, not panics.
func TestInconsistent(t *testing.T) {
	cases := map[string]func(s *scene.Scene){
		"short normals":   func(s *scene.Scene) { s.Meshes[0].Normals = s.Meshes[0].Normals[:1] },
		"index range":     func(s *scene.Scene) { s.Meshes[0].Indices[0] = 99 },
		"no vertices":     func(s *scene.Scene) { s.Meshes[0].Positions = nil },
		"bad skin":        func(s *scene.Scene) { s.Meshes[0].Skin = 3 },
		"bad material":    func(s *scene.Scene) { s.Meshes[0].Material = 5 },
		"bad texture":     func(s *scene.Scene) { s.Materials[0].Texture = 9 },
		"bad parent":      func(s *scene.Scene) { s.Nodes[0].Parent = 4 },
		"nan translation": func(s *scene.Scene) { s.Nodes[0].Translation[0] = float32(nan()) },
	}
	for name, f := range cases {
		s := triangleScene()
		f(s)
		if _, err := Encode(s, Options{}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := Encode(nil, Options{}); err == nil {
		t.Error("nil scene: no error")
	}
}

func nan() float64 { z := 0.0; return z / z }

func TestRepairs(t *testing.T) {
	s := repairScene()
	doc := decode(t, encode(t, s, false))
	n := len(s.Nodes) + len(s.Meshes)
	if len(doc.Nodes) != n+1 || doc.Nodes[n].Name != rootName(s) || rootName(s) == "" {
		t.Fatalf("%d nodes, want %d with the synthetic root last", len(doc.Nodes), n+1)
	}
	if got := doc.Nodes[n].Children; !slices.Equal(got, []int{0, 1, 6}) {
		t.Errorf("synthetic root children %v", got)
	}
	if got := doc.Scenes[0].Nodes; !slices.Equal(got, []int{n, 7, 8}) {
		t.Errorf("roots %v", got)
	}
	if sk := doc.Skins[0].Skeleton; sk == nil || *sk != n {
		t.Errorf("skin 0 skeleton %v, want the synthetic root", sk)
	}
	if sk := doc.Skins[1].Skeleton; sk != nil {
		t.Errorf("skin 1 skeleton %v, want none", *sk)
	}
	p := doc.Meshes[0].Primitives[0]
	nr, err := modeler.ReadNormal(doc, doc.Accessors[p.Attributes["NORMAL"]], nil)
	if err != nil || nr[0] != [3]float32{0, 0, 1} || nr[1] != [3]float32{0, 1, 0} {
		t.Errorf("normals %v, %v", nr, err)
	}
	w, err := modeler.ReadWeights(doc, doc.Accessors[p.Attributes["WEIGHTS_0"]], nil)
	if err != nil {
		t.Fatal(err)
	}
	j, err := modeler.ReadJoints(doc, doc.Accessors[p.Attributes["JOINTS_0"]], nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum := float64(w[1][0]) + float64(w[1][1]); sum < 1-1e-7 || sum > 1+1e-7 {
		t.Errorf("vertex 1 weights %v sum to %v", w[1], sum)
	}
	if j[3] != [4]uint16{1, 0, 0, 0} || w[3] != [4]float32{1, 0, 0, 0} {
		t.Errorf("vertex 3 influences %v %v, want joint 1 merged to weight 1", j[3], w[3])
	}
}

func TestSanitizeInfluences(t *testing.T) {
	cases := []struct {
		js    []uint16
		ws    []float32
		wantJ []uint16
		wantW []float32
	}{
		{[]uint16{3, 0, 0, 0}, []float32{1, 0, 0, 0}, []uint16{3, 0, 0, 0}, []float32{1, 0, 0, 0}},
		{[]uint16{3, 5, 0, 0}, []float32{0.5, 0.5, 0, 0}, []uint16{3, 5, 0, 0}, []float32{0.5, 0.5, 0, 0}},
		{[]uint16{3, 5, 7, 0}, []float32{1, 1, 0, 0}, []uint16{3, 5, 0, 0}, []float32{0.5, 0.5, 0, 0}},
		{[]uint16{2, 2, 0, 0, 2, 0, 0, 0}, []float32{0.25, 0.5, 0, 0, 0.25, 0, 0, 0}, []uint16{2, 0, 0, 0, 0, 0, 0, 0}, []float32{1, 0, 0, 0, 0, 0, 0, 0}},
		{[]uint16{1, 2, 0, 0}, []float32{-1, 1, 0, 0}, []uint16{0, 2, 0, 0}, []float32{0, 1, 0, 0}},
		{[]uint16{1, 2, 0, 0}, []float32{0, 0, 0, 0}, []uint16{0, 0, 0, 0}, []float32{0, 0, 0, 0}},
	}
	for i, c := range cases {
		js, ws := slices.Clone(c.js), slices.Clone(c.ws)
		sanitizeInfluences(js, ws)
		if !slices.Equal(js, c.wantJ) || !slices.Equal(ws, c.wantW) {
			t.Errorf("case %d: got %v %v, want %v %v", i, js, ws, c.wantJ, c.wantW)
		}
	}
	// Thirds: renormalised weights must sum to 1 within float32 rounding.
	js, ws := []uint16{1, 2, 3, 0}, []float32{0.3333, 0.3333, 0.3333, 0}
	sanitizeInfluences(js, ws)
	if sum := float64(ws[0]) + float64(ws[1]) + float64(ws[2]); sum < 1-1e-7 || sum > 1+1e-7 {
		t.Errorf("thirds sum to %v", sum)
	}
}

// TestSplicedMatchesPlain checks that the fast .gltf path gives the bytes qmuntal/gltf's own
// data-URI embedding gives, and that an extras string mimicking the URI forces the plain path.
func TestSplicedMatchesPlain(t *testing.T) {
	for _, tc := range testScenes() {
		doc, err := Document(tc.s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var plain bytes.Buffer
		enc := gltf.NewEncoder(&plain)
		enc.AsBinary = false
		if err := enc.Encode(doc); err != nil {
			t.Fatal(err)
		}
		if got := encode(t, tc.s, false); !bytes.Equal(got, plain.Bytes()) {
			t.Errorf("%s: spliced output differs from qmuntal/gltf's", tc.name)
		}
	}
	s := triangleScene()
	s.Nodes[0].Extras = scene.Extras{"uri": gltfjson.DataURIPrefix}
	doc := decode(t, encode(t, s, false))
	if x := doc.Nodes[0].Extras.(map[string]any); x["uri"] != gltfjson.DataURIPrefix || len(doc.Buffers[0].Data) == 0 {
		t.Errorf("mimicking extras: %v, %d buffer bytes", x, len(doc.Buffers[0].Data))
	}
}

// TestAttrName checks the attribute names taken from the tables against the general form.
func TestAttrName(t *testing.T) {
	for _, k := range []struct {
		names  *[4]string
		prefix string
	}{{&texcoordNames, "TEXCOORD_"}, {&jointsNames, "JOINTS_"}, {&weightsNames, "WEIGHTS_"}} {
		for i := range 7 {
			if got, want := attrName(k.names, k.prefix, i), fmt.Sprintf("%s%d", k.prefix, i); got != want {
				t.Errorf("attrName(%s, %d) = %q, want %q", k.prefix, i, got, want)
			}
		}
	}
}

// A shape is one glTF mesh with a primitive per scene mesh: drawn by a node of its own when it
// has no instances, else by each instance node, whose transform places it.
func TestShapes(t *testing.T) {
	doc, err := Document(testscene.Shapes(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Meshes) != 2 || doc.Meshes[0].Name != "House" || len(doc.Meshes[0].Primitives) != 2 ||
		doc.Meshes[1].Name != "Barrel" || len(doc.Meshes[1].Primitives) != 1 {
		t.Fatalf("meshes %+v", doc.Meshes)
	}
	if m := doc.Meshes[0].Primitives; *m[0].Material != 0 || m[1].Material != nil {
		t.Errorf("house primitives' materials %v, %v", m[0].Material, m[1].Material)
	}
	drawn := map[string]int{}
	for _, n := range doc.Nodes {
		if n.Mesh != nil {
			drawn[n.Name] = *n.Mesh
		}
	}
	if want := map[string]int{"House": 0, "Barrel 1": 1, "Barrel 2": 1}; !maps.Equal(drawn, want) {
		t.Errorf("nodes draw %v, want %v", drawn, want)
	}
	bad := testscene.Shapes()
	bad.Shapes[1].Instances = []int{1, 1}
	if _, err := Document(bad, Options{}); err == nil {
		t.Error("a node drawing two shapes is accepted")
	}
}
