package meteor

import (
	"bytes"
	"encoding/binary"
	"errors"
	"github.com/modelfs/modelfs/translate/meteor/meteortest"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/modelfs/modelfs/internal/testkit/gltfvalidate"
	"github.com/modelfs/modelfs/internal/testkit/golden"
	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/metajson/metajsontest"
	"github.com/modelfs/modelfs/translate/scene"
)

// decodeTree decodes name from fsys through the whole pipeline (sniff, decode, validate).
func decodeTree(t *testing.T, fsys map[string][]byte, name string) *scene.Scene {
	t.Helper()
	tree := fstest.MapFS{}
	for k, v := range fsys {
		tree[k] = &fstest.MapFile{Data: v}
	}
	return mustDecode(t, source(t, tree, name))
}

func mustDecode(t *testing.T, src codec.Source) *scene.Scene {
	t.Helper()
	s, f, err := translate.Decode(src)
	if err != nil {
		t.Fatal(err)
	}
	if f.Name != FormatSKC {
		t.Fatalf("sniffed as %q", f.Name)
	}
	return s
}

func fixFiles() map[string][]byte {
	out := map[string][]byte{}
	for k, v := range meteortest.Tree() {
		out[k] = v.Data
	}
	return out
}

func hasWarning(s *scene.Scene, sub string) bool {
	return slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.Contains(w, sub) })
}

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		head string
		want bool
	}{
		{"# Character Skin Export for Interserv\n", true},
		{"\xef\xbb\xbf  \r\n# Character Skin Export", true},
		{"# some comment\r\nStatic Skins: 1 Dynamic Skins: 0", true},
		{"Static Skins: 1", true},
		{"# Character Bone Export for Interserv", false},
		{"BANIM", false},
		{"MDLX", false},
		{"", false},
	} {
		if got := Match([]byte(c.head)); got != c.want {
			t.Errorf("Match(%q) = %v, want %v", c.head, got, c.want)
		}
	}
}

func TestCharacter(t *testing.T) {
	for _, c := range []struct{ name, char, lod string }{
		{"meteor/pmodel/p0.skc", "p0", ""},
		{"P12_800.SKC", "P12", "800"},
		{"a/p3_300.skc", "p3", "300"},
		{"p_x.skc", "p_x", ""},
		{"p_-1.skc", "p_-1", ""},
	} {
		if char, lod := Character(c.name); char != c.char || lod != c.lod {
			t.Errorf("Character(%q) = %q, %q; want %q, %q", c.name, char, lod, c.char, c.lod)
		}
	}
}

// TestFixture checks the fixture character end to end: skeleton, skin with five influences,
// materials and textures, and one animation per usable pose.
func TestFixture(t *testing.T) {
	s := mustDecode(t, source(t, meteortest.Tree(), "pmodel/p9.skc"))
	if len(s.Nodes) != meteortest.Bones+meteortest.Dummies || len(s.Skins) != 1 || len(s.Skins[0].Joints) != meteortest.Bones+meteortest.Dummies {
		t.Fatalf("%d nodes, %d skins", len(s.Nodes), len(s.Skins))
	}
	// Parents by name, bN, dN-less NULL; d_base (declared after b) is the root.
	wantParents := []int{6, 0, 1, 0, 0, 1, -1, 2}
	for i, nd := range s.Nodes {
		if nd.Parent != wantParents[i] {
			t.Errorf("node %d %s: parent %d, want %d", i, nd.Name, nd.Parent, wantParents[i])
		}
	}
	if s.Nodes[7].Kind != scene.KindAttachment || s.Nodes[0].Kind != scene.KindBone {
		t.Errorf("kinds %s %s", s.Nodes[0].Kind, s.Nodes[7].Kind)
	}
	if s.Skins[0].Skeleton != 6 {
		t.Errorf("skeleton root %d, want 6 (d_base)", s.Skins[0].Skeleton)
	}
	// w-first: spine's (0.92388, 0, 0, 0.38268) is 45° about source Z, i.e. glTF −Y... the axis
	// (0,0,1) becomes (0,1,0): rotation (0, 0.38268, 0, 0.92388) after normalising.
	if r := s.Nodes[1].Rotation; math.Abs(float64(r[1])-0.38268) > 1e-4 || math.Abs(float64(r[3])-0.92388) > 1e-4 {
		t.Errorf("spine rotation %v", r)
	}
	// Pivot (2, 0, -5) → (2, -5, -0).
	if tr := s.Nodes[3].Translation; tr != [3]float32{2, -5, 0} {
		t.Errorf("legL translation %v", tr)
	}
	// Two materials → two meshes; the unused vertex is dropped with a warning.
	if len(s.Meshes) != 2 || !hasWarning(s, "1 vertices used by no triangle") {
		t.Fatalf("%d meshes, warnings %q", len(s.Meshes), s.Warnings)
	}
	m := s.Meshes[0] // material 0: the four sides, all eight box vertices
	if len(m.Positions) != 8 || len(m.Indices) != 24 || m.Material != 0 {
		t.Fatalf("mesh 0: %d vertices %d indices material %d", len(m.Positions), len(m.Indices), m.Material)
	}
	// Vertex 0 of the source is the first one used by the sides: five influences in two sets.
	if len(m.Joints) != 2 || len(m.Weights) != 2 {
		t.Fatalf("%d influence sets, want 2", len(m.Joints))
	}
	n, sum := 0, float32(0)
	for set := range 2 {
		for k := range 4 {
			if w := m.Weights[set][0][k]; w > 0 {
				n++
				sum += w
			}
		}
	}
	if n != 5 || math.Abs(float64(sum)-1) > 1e-6 {
		t.Errorf("vertex 0: %d influences summing to %v, want 5 summing to 1", n, sum)
	}
	if m.Joints[1][0][0] != 4 || m.Weights[1][0][0] != 0.2 {
		t.Errorf("fifth influence: joint %d weight %v", m.Joints[1][0][0], m.Weights[1][0][0])
	}
	// Axes: (-3, -3, 0) → (-3, 0, 3); UV v flipped.
	if p := m.Positions[0]; p != [3]float32{-3, 0, 3} {
		t.Errorf("position %v", p)
	}
	if uv := m.UVs[0][0]; uv != [2]float32{0, 1} {
		t.Errorf("uv %v", uv)
	}
	mat := s.Materials[0]
	if mat.AlphaMode != scene.AlphaMask || !mat.DoubleSided || mat.BaseColor != [4]float32{1, scene.SRGBToLinear(0.5), 1, 1} || s.Materials[1].AlphaMode != scene.AlphaOpaque {
		t.Errorf("materials %+v", s.Materials)
	}
	if len(s.Textures) != 2 || s.Textures[0].Resolved != "texture/TEX01.tga" || s.Textures[1].Resolved != "texture/face01.JPG" {
		t.Errorf("textures %+v", s.Textures)
	}

	var names []string
	for _, a := range s.Animations {
		names = append(names, a.Name)
	}
	want := []string{"Pose0", "Pose3 調息", "Pose5", "Pose6 plain"}
	if !slices.Equal(names, want) {
		t.Fatalf("animations %q, want %q", names, want)
	}
	a0 := s.Animations[0]
	if !a0.Loop || len(a0.Channels) != 1+meteortest.Bones+2*meteortest.Dummies || math.Abs(float64(a0.Duration)-9.0/30) > 1e-6 {
		t.Errorf("Pose0: loop %v, %d channels, duration %v", a0.Loop, len(a0.Channels), a0.Duration)
	}
	// Pose 3 runs frames 11…20; the steps from frames 13…16 (the Action window, inclusive) take
	// half as long: 5 steps of 1/30 and 4 of 1/60.
	a3 := s.Animations[1]
	if d := float64(a3.Duration); math.Abs(d-(5.0/30+4.0/60)) > 1e-6 {
		t.Errorf("Pose3 duration %v", d)
	}
	if a3.Loop {
		t.Error("Pose3 loops")
	}
	// Frame 15 of the root translation: y' = −y = −1.5 (walking along source +Y).
	for _, ch := range a3.Channels {
		if ch.Node == 0 && ch.Path == scene.PathTranslation {
			if got := ch.Values[3*4+2]; math.Abs(float64(got)+1.5) > 1e-6 {
				t.Errorf("root z' at frame 15 = %v, want -1.5", got)
			}
		}
	}
	if d := s.Animations[2].Duration; d != 0 || len(s.Animations[2].Channels[0].Times) != 1 {
		t.Errorf("one-frame pose: duration %v", d)
	}
	if !hasWarning(s, "pose 4 names frames 30–50") || !hasWarning(s, "1 poses use the shared character.amb") {
		t.Errorf("warnings %q", s.Warnings)
	}
	own, err := Decode(source(t, meteortest.Tree(), "pmodel/p9.skc")) // the extras as this package made them
	if err != nil {
		t.Fatal(err)
	}
	poses := own.Extras["poses"].([]PoseInfo)
	if len(poses) != 7 || poses[1].Status != PoseNeedsShared || poses[2].Status != PoseEmpty ||
		poses[4].Status != PosePastEnd || poses[1].Comment != "測試" || poses[3].CommentEncoding != "gbk" ||
		poses[3].Animation == nil || *poses[3].Animation != 1 || poses[1].Animation != nil {
		t.Errorf("poses %+v", poses)
	}
}

// TestFrame0IsBindPose: the fixture's frame 0 carries the .bnc rotations; the decoded animation
// of all frames starts at the nodes' rest rotations.
func TestFrame0IsBindPose(t *testing.T) {
	files := fixFiles()
	delete(files, "pmodel/P9.pos")
	s := decodeTree(t, files, "pmodel/p9.skc")
	if len(s.Animations) != 1 || s.Animations[0].Name != wholeAnimationKey || !hasWarning(s, "not found; the whole of") {
		t.Fatalf("animations %v, warnings %q", len(s.Animations), s.Warnings)
	}
	for _, ch := range s.Animations[0].Channels {
		if ch.Path != scene.PathRotation {
			continue
		}
		r := s.Nodes[ch.Node].Rotation
		dot := 0.0
		for k := range 4 {
			dot += float64(r[k]) * float64(ch.Values[k])
		}
		if math.Abs(math.Abs(dot)-1) > 1e-6 {
			t.Errorf("node %d: frame 0 rotation %v, rest %v", ch.Node, ch.Values[:4], r)
		}
	}
}

// TestDegraded: missing or broken companions give a model and a warning, never an error.
func TestDegraded(t *testing.T) {
	bad := func(mod func(f map[string][]byte)) map[string][]byte {
		f := fixFiles()
		mod(f)
		return f
	}
	truncated := meteortest.AMB()
	truncated = truncated[:len(truncated)-7]
	badMarker := meteortest.AMB()
	badMarker[ambHeader+2*(20+16*meteortest.Bones+33*meteortest.Dummies)] = 0
	for _, c := range []struct {
		name       string
		files      map[string][]byte
		warning    string
		animations int
		skinned    bool
	}{
		{"no bnc", bad(func(f map[string][]byte) { delete(f, "pmodel/P9.BNC") }), "skeleton p9.bnc not found", 0, false},
		{"broken bnc", bad(func(f map[string][]byte) { f["pmodel/P9.BNC"] = []byte("bone b {") }), "skeleton unusable", 0, false},
		{"no amb", bad(func(f map[string][]byte) { delete(f, "pmodel/p9.amb") }), "animation file p9.amb not found", 0, true},
		{"truncated amb", bad(func(f map[string][]byte) { f["pmodel/p9.amb"] = truncated }), "truncated", 0, true},
		{"frame marker", bad(func(f map[string][]byte) { f["pmodel/p9.amb"] = badMarker }), "frame 2: marker", 0, true},
		{"bone count", bad(func(f map[string][]byte) { f["pmodel/p9.amb"] = meteortest.AMBWith(5, 2, 40, 0) }), "has 5 bones, the skeleton", 0, true},
		{"dummy count", bad(func(f map[string][]byte) { f["pmodel/p9.amb"] = meteortest.AMBWith(6, 1, 40, 0) }), "dummies are not animated", 4, true},
		{"short amb", bad(func(f map[string][]byte) { f["pmodel/p9.amb"] = meteortest.AMBWith(6, 2, 15, 0) }), "pose 3 names frames 11–20", 1, true},
		{"malformed pos", bad(func(f map[string][]byte) { f["pmodel/P9.pos"] = []byte("Pose 0\n{\n  Start x1\n}\n") }), "action table unusable", 1, true},
		{"no pos", bad(func(f map[string][]byte) { delete(f, "pmodel/P9.pos") }), "the whole of pmodel/p9.amb is one animation", 1, true},
		{"no textures", bad(func(f map[string][]byte) { delete(f, "texture/TEX01.tga") }), `texture "tex01.TGA": texture not found`, 4, true},
		{"shared amb", bad(func(f map[string][]byte) { f["pmodel/Character.AMB"] = meteortest.AMBWith(6, 2, 121, 0) }), "", 5, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := decodeTree(t, c.files, "pmodel/p9.skc")
			if c.warning != "" && !hasWarning(s, c.warning) {
				t.Errorf("no warning %q in %q", c.warning, s.Warnings)
			}
			if len(s.Animations) != c.animations {
				t.Errorf("%d animations, want %d", len(s.Animations), c.animations)
			}
			if got := len(s.Skins) == 1 && s.Meshes[0].Skin == 0; got != c.skinned {
				t.Errorf("skinned %v, want %v", got, c.skinned)
			}
			if len(s.Meshes) != 2 {
				t.Errorf("%d meshes", len(s.Meshes))
			}
		})
	}
}

// TestBadSkin: a broken .skc is a FormatError naming the file, the format and the line.
func TestBadSkin(t *testing.T) {
	good := string(meteortest.SKC())
	for _, c := range []struct{ name, data, want string }{
		{"empty", "", "no static skin"},
		{"truncated", good[:len(good)/2], "unexpected end of file"},
		{"vertex index", strings.Replace(good, "f 3  0   0   1   5", "f 3  0   0   1  95", 1), "names vertex 95 of 9"},
		{"quad", strings.Replace(good, "f 3  0   0   1   5", "f 4  0   0   1   5", 1), "only triangles"},
		{"number", strings.Replace(good, "3.00000  -3.00000   0.00000", "3.00000  -3.0x000   0.00000", 1), "not a finite number"},
		{"influences", strings.Replace(good, "Bones 1 3", "Bones 9 3", 1), "influence count 9 out of range"},
		{"count", strings.Replace(good, "Vertices: 9", "Vertices: 99999999", 1), "vertex count 99999999 out of range"},
		{"keyword", strings.Replace(good, "Ambient", "Ambiant", 1), "expected Material, found \"Ambiant\""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode(codec.Source{Name: "x/p1.skc", Data: []byte(c.data)})
			var fe *codec.FormatError
			if !errors.As(err, &fe) || fe.Format != FormatSKC || fe.File != "x/p1.skc" || !strings.Contains(fe.Msg, c.want) {
				t.Fatalf("error %v, want a FormatError with %q", err, c.want)
			}
			if c.name != "empty" && fe.Line <= 0 {
				t.Errorf("no line in %v", err)
			}
		})
	}
}

// TestGolden compares the fixture's metadata with testdata/p9.skc.json (-update rewrites it) and
// runs the glTF validator on its glTF.
func TestGolden(t *testing.T) {
	s := mustDecode(t, source(t, meteortest.Tree(), "pmodel/p9.skc"))
	doc, err := translate.Encode(s, translate.JSON, translate.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := metajsontest.Validate(doc); err != nil {
		t.Fatalf("metadata does not match the schema: %v", err)
	}
	golden.Testdata(t, "p9.skc.json", doc)
	again, _ := translate.Encode(mustDecode(t, source(t, meteortest.Tree(), "pmodel/p9.skc")), translate.JSON, translate.EncodeOptions{})
	if !bytes.Equal(doc, again) {
		t.Error("two decodes gave different metadata")
	}
	// The validator reads the .gltf beside the fixture tree, as the mount serves it, so that
	// the image URI (../texture/face01.JPG) resolves.
	dir := t.TempDir()
	for name, f := range meteortest.Tree() {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src := source(t, meteortest.Tree(), "pmodel/p9.skc")
	var paths []string
	for _, k := range []translate.Kind{translate.GLTF, translate.GLB, translate.OBJ, translate.MTL} {
		s := mustDecode(t, src)
		out, err := translate.Output(src, s, k, translate.EncodeOptions{MTLName: "p9.skc.mtl"})
		if err != nil {
			t.Fatal(err)
		}
		if k == translate.GLTF && !bytes.Contains(out, []byte(`"../texture/face01.JPG"`)) {
			t.Error("the glTF does not refer to the face texture")
		}
		p := filepath.Join(dir, "pmodel", "p9.skc."+string(k))
		if err := os.WriteFile(p, out, 0o644); err != nil {
			t.Fatal(err)
		}
		if k == translate.GLTF || k == translate.GLB {
			paths = append(paths, p)
		}
	}
	gltfvalidate.Check(t, paths...)
}

// TestRepeatedTriangles: an exact repeat is dropped, a reversed twin keeps its own vertices, so
// that importers that keep one face per vertex set (Blender) see every triangle.
func TestRepeatedTriangles(t *testing.T) {
	files := fixFiles()
	skc := strings.Replace(string(files["pmodel/p9.skc"]), "Triangles: 12", "Triangles: 14", 1)
	skc = strings.Replace(skc, "}\n", "    f 3  0   1   5   0\n    f 3  0   5   1   0\n}\n", 1)
	files["pmodel/p9.skc"] = []byte(skc)
	s := decodeTree(t, files, "pmodel/p9.skc")
	m := s.Meshes[0]
	if len(m.Indices) != 27 || len(m.Positions) != 11 {
		t.Errorf("%d indices, %d vertices; want 27 and 11", len(m.Indices), len(m.Positions))
	}
	if !hasWarning(s, "1 triangles repeating an earlier one dropped") || !hasWarning(s, "1 triangles reversing an earlier one") {
		t.Errorf("warnings %q", s.Warnings)
	}
}

// TestBindPoseFromFrame0: frame 0 of the .amb refines the .bnc's printed bind pose when the two
// agree to the .bnc's precision, and is ignored when they do not.
func TestBindPoseFromFrame0(t *testing.T) {
	for _, c := range []struct {
		name    string
		shift   float32 // added to frame 0's root x
		refined bool
	}{{"same", 0, true}, {"rounding", 0.0004, true}, {"elsewhere", 0.01, false}} {
		t.Run(c.name, func(t *testing.T) {
			files := fixFiles()
			amb := files["pmodel/p9.amb"]
			off := ambHeader + 8 // frame 0's root x
			x := math.Float32frombits(binary.LittleEndian.Uint32(amb[off:])) + c.shift
			binary.LittleEndian.PutUint32(amb[off:], math.Float32bits(x))
			s := decodeTree(t, files, "pmodel/p9.skc")
			_, refined := s.Extras["skeleton"].(scene.Extras)["bindPose"]
			want := float32(meteortest.Skeleton[0].Pivot[0])
			if c.refined {
				want = x
			}
			if refined != c.refined || s.Nodes[0].Translation[0] != want {
				t.Errorf("refined %v, root x %v; want %v, %v", refined, s.Nodes[0].Translation[0], c.refined, want)
			}
		})
	}
}
