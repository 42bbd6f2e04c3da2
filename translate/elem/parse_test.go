package elem

import (
	"bytes"
	"errors"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/modelfs/modelfs/internal/testkit/golden"

	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
)

// TestGolden translates every fixture to its metadata document and compares it with
// testdata/golden/NAME.json (go test -run Golden -update rewrites them); every output kind must
// be deterministic.
func TestGolden(t *testing.T) {
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			src := source(t, name)
			var first []byte
			for range 2 {
				out, err := translate.Translate(src, translate.JSON, translate.EncodeOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if first != nil && !bytes.Equal(first, out) {
					t.Fatal("two translations differ")
				}
				first = out
			}
			for _, kind := range translate.Kinds {
				a, err := translate.Translate(src, kind, translate.EncodeOptions{MTLName: "x.mtl"})
				if err != nil {
					t.Fatal(err)
				}
				b, _ := translate.Translate(src, kind, translate.EncodeOptions{MTLName: "x.mtl"})
				if !bytes.Equal(a, b) {
					t.Errorf("%s output is not deterministic", kind)
				}
			}
			golden.Testdata(t, filepath.Join("golden", strings.TrimSuffix(name, ".elem")+".json"), first)
		})
	}
}

// TestSemantics checks what each fixture is there to show.
func TestSemantics(t *testing.T) {
	t.Run("skinned", func(t *testing.T) {
		s := decode(t, "skinned.elem")
		if len(s.Skins) != 1 || len(s.Skins[0].Joints) != 4 {
			t.Fatalf("skins %+v: want one skin over the four nodes (both containers bind the same)", s.Skins)
		}
		torso, blade := s.Meshes[0], s.Meshes[1]
		if torso.Skin != 0 || blade.Skin != 0 || len(torso.UVs) != 2 {
			t.Fatalf("torso skin %d uvs %d, blade skin %d", torso.Skin, len(torso.UVs), blade.Skin)
		}
		// Vertex 3: Root 0.2, Spine 0.5, Arm 0.3 → sorted by weight.
		if j, w := torso.Joints[0][3], torso.Weights[0][3]; j != [4]uint16{1, 2, 0, 0} || w != [4]float32{0.5, 0.3, 0.2, 0} {
			t.Errorf("vertex 3 influences %v %v", j, w)
		}
		if j := blade.Joints[0][1]; j[0] != 3 || blade.Weights[0][1][0] != 1 {
			t.Errorf("blade not bound rigidly to Hand: %v", j)
		}
		// The blade tip (0, 1.5, 0) in Hand's space: Hand sits at (0, 3, 0), turned about Y.
		if p := blade.Positions[1]; p != [3]float32{0, 4.5, 0} {
			t.Errorf("blade tip at %v", p)
		}
		a := s.Animations[0]
		if a.Name != "Wave" || !a.Loop || a.Duration != 1 || len(a.Channels) != 4 {
			t.Errorf("animation %+v", a)
		}
	})
	t.Run("multimat", func(t *testing.T) {
		s := decode(t, "multimat.elem")
		if len(s.Meshes) != 2 || s.Meshes[0].Name != "Board.Wood" || s.Meshes[1].Name != "Board.Glass" {
			t.Fatalf("meshes %q %q", s.Meshes[0].Name, s.Meshes[len(s.Meshes)-1].Name)
		}
		if len(s.Meshes[1].Positions) != 4 || len(s.Meshes[1].Indices) != 6 || s.Meshes[1].Material != 1 {
			t.Errorf("glass part: %d vertices, %d indices, material %d", len(s.Meshes[1].Positions), len(s.Meshes[1].Indices), s.Meshes[1].Material)
		}
		glass := s.Materials[1]
		if glass.AlphaMode != "BLEND" || glass.BaseColor != [4]float32{0.6, 0.8, 1, 0.5} {
			t.Errorf("glass %+v", glass)
		}
		if s.Textures[0].Resolved != "textures/crate.png" {
			t.Errorf("texture resolved to %q", s.Textures[0].Resolved)
		}
		unknown, _ := decodeOwn(t, "multimat.elem").Extras["unknownScopes"].([]UnknownScope)
		if len(unknown) != 2 || unknown[0].Path != "EditorState" || unknown[1].Path != "MeshDatas/MeshContainer/Mesh/BlendIndices" {
			t.Errorf("unknown scopes %+v", unknown)
		}
	})
	t.Run("animated", func(t *testing.T) {
		s := decode(t, "animated.elem")
		if len(s.Animations) != 2 || s.Animations[0].Name != "Spin" || s.Animations[1].Name != "Raise" {
			t.Fatalf("animations %d", len(s.Animations))
		}
		if s.Animations[0].Duration != 2 || !s.Animations[0].Loop || s.Animations[1].Duration != 0.5 || s.Animations[1].Loop {
			t.Errorf("durations/loops %v %v %v %v", s.Animations[0].Duration, s.Animations[0].Loop, s.Animations[1].Duration, s.Animations[1].Loop)
		}
		own := decodeOwn(t, "animated.elem")
		if uv, _ := own.Animations[1].Extras["uvAnimation"].([]uvAnimExtra); len(uv) != 1 || uv[0].Material != "Paint" || uv[0].Times[1] != 0.5 {
			t.Errorf("uv animation %+v", uv)
		}
		all, _ := own.Extras["animations"].([]animExtra)
		if len(all) != 3 || all[2].Animation != nil || len(all[2].UVAnimation) != 1 {
			t.Errorf("animation metadata %+v", all)
		}
		// The antenna's posture scale 2 is uniform: a scale key (1, 1.5, 1) becomes (2, 3, 2).
		for _, ch := range s.Animations[1].Channels {
			if ch.Path == "scale" && (ch.Values[3] != 2 || ch.Values[4] != 3 || ch.Values[5] != 2) {
				t.Errorf("antenna scale keys %v", ch.Values)
			}
		}
	})
}

const head = "Elfreina Extension Model File\nFile Version 1.00\n"

// spellings holds one small model written with each spelling variant; all must decode to the
// same metadata.
var spellings = map[string]string{
	"canonical": head + `Setting {
	ElfreinaSoftVersion=1.10
}
MeshDatas {
	MeshContainer {
		Name="M"
		BoneNames {
			"B"
		}
		OffsetMatrices {
			1:0:0:0:0:1:0:0:0:0:1:0:0:-1:0:1
		}
		Mesh {
			Name="T"
			Positions {
				0:0:0
				1:0:0
				0:1:0
			}
			Normals {
				0:0:-1
				0:0:-1
				0:0:-1
			}
			TextureUV {
				0:0
				1:0
				0:1
			}
			BlendList {
				BlendPart {
					BoneName="B"
					TransformIndex=0
					VertexBlend {
						0,1.0
						1,1.0
						2,1.0
					}
				}
			}
			VertexIndices {
				3,0:1:2
			}
		}
	}
}
HierarchyList {
	Node {
		NodeName="B"
		InitPostureMatrix=1:0:0:0:0:1:0:0:0:0:1:0:0:1:0:1
	}
}
RenderingMeshList {
	RenderingMesh {
		RenderingMeshName="M"
		HierarchyNames {
			"B"
		}
	}
}
AnimationList {
	AnimationData {
		AnimationName="A"
		AnimationTime=1000
		FrameParSecond=30
		BoneAnimation {
			AnimationPart {
				NodeName="B"
				TimeKeys {
					0
					1
				}
				TransKeys {
					0:0:0
					0:1:0
				}
			}
		}
	}
}
`,
}

func init() {
	c := spellings["canonical"]
	r := func(s string, pairs ...string) string { return strings.NewReplacer(pairs...).Replace(s) }
	spellings["alternates"] = r(c, "MeshDatas {", "MeshDataList {", "Positions {", "Position {", "Normals {", "Normal {",
		"OffsetMatrices {", "OffsetMatrix {", "TextureUV {", "Texture1UV {", "RenderingMeshList {", "RenderMeshList {",
		"RenderingMesh {", "RenderMesh {", "RenderingMeshName=", "RenderMeshName=", "FrameParSecond", "FramePerSecond",
		"ElfreinaSoftVersion", "SoftVersion")
	spellings["quoted data"] = r(c, "0,1.0", `"0,1.0"`, "1,1.0", `"1,1.0"`, "\t\t\t\t\t1\n", "\t\t\t\t\t\"1\"\n", "3,0:1:2", `"3,0:1:2"`)
	spellings["CRLF and BOM"] = "\uFEFF" + strings.ReplaceAll(c, "\n", "\r\n")
	spellings["spaces"] = r(c, "\t", "    ", "=", " = ", "{\n", " {\n")
	spellings["reordered keys"] = r(c, "\t\tName=\"M\"\n\t\tBoneNames {\n\t\t\t\"B\"\n\t\t}\n", "\t\tBoneNames {\n\t\t\t\"B\"\n\t\t}\n\t\tName=\"M\"\n")
}

func TestSpellings(t *testing.T) {
	want := ""
	for _, name := range []string{"canonical", "alternates", "quoted data", "CRLF and BOM", "spaces", "reordered keys"} {
		text := spellings[name]
		s, _, err := translate.Decode(codec.Source{Name: "x.elem", Data: []byte(text)})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(s.Warnings) != 0 {
			t.Errorf("%s: warnings %q", name, s.Warnings)
		}
		s.Extras["settings"] = nil // SoftVersion is spelt differently on purpose, and holds the same
		out, err := translate.Encode(s, translate.JSON, translate.EncodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if name == "canonical" {
			want = string(out)
			if len(s.Meshes) != 1 || len(s.Skins) != 1 || len(s.Animations) != 1 || s.Meshes[0].UVs == nil {
				t.Fatalf("canonical model: %d meshes %d skins %d animations", len(s.Meshes), len(s.Skins), len(s.Animations))
			}
			continue
		}
		if string(out) != want {
			t.Errorf("%s decodes differently from the canonical spelling:\n%s", name, out)
		}
	}
}

// TestBadInput: malformed files give a *codec.FormatError naming the line.
func TestBadInput(t *testing.T) {
	c := spellings["canonical"]
	r := func(pairs ...string) string { return strings.NewReplacer(pairs...).Replace(c) }
	lineOf := func(text, needle string) int { return 1 + strings.Count(text[:strings.Index(text, needle)], "\n") }
	cases := []struct {
		name, text, at, msg string
	}{
		{"empty", "", "", "empty file"},
		{"not elem", "Version 800\n", "", "not an Elfreina model"},
		{"unclosed scope", strings.TrimSuffix(c, "}\n"), "AnimationList {", "not closed"},
		{"extra brace", c + "}\n", "", "closes no scope"},
		{"two values for a position", r("1:0:0\n\t\t\t\t0:1:0", "1:0\n\t\t\t\t0:1:0"), "1:0\n", "want 3"},
		{"four values for a position", r("1:0:0\n\t\t\t\t0:1:0", "1:0:0:7\n\t\t\t\t0:1:0"), "1:0:0:7", "got more"},
		{"not a number", r("0:0:-1\n\t\t\t\t0:0:-1\n\t\t\t\t0:0:-1", "0:0:-1\n\t\t\t\tx:0:-1\n\t\t\t\t0:0:-1"), "x:0:-1", "not a number"},
		{"bad matrix", r("InitPostureMatrix=1:0:0:0:0:1:0:0:0:0:1:0:0:1:0:1", "InitPostureMatrix=1:0:0:0:0:1:0:0:0:0:1:0:0:1:0"), "InitPostureMatrix", "want 16"},
		{"offset matrix values", r("0:-1:0:1\n", "0:-1:0\n"), "OffsetMatrices {", "16-value"},
		{"index past the end", r("3,0:1:2", "3,0:1:3"), "3,0:1:3", "past the end"},
		{"face with 4 vertices", r("3,0:1:2", "4,0:1:2:0"), "4,0:1:2:0", "4 vertices"},
		{"face count mismatch", r("3,0:1:2", "3,0:1"), "3,0:1\n", "want 3"},
		{"blend vertex past the end", r("2,1.0", "9,1.0"), "BlendPart {", "past the end"},
		{"transform index past the end", r("TransformIndex=0", "TransformIndex=5"), "BlendPart {", "past the end"},
		{"normals short", r("\t\t\t\t0:0:-1\n\t\t\t}", "\t\t\t}"), "Normals {", "normals for 3 vertices"},
		{"vertex count", r("Name=\"T\"", "Name=\"T\"\n\t\t\tVertexCount=4"), "Positions {", "VertexCount=4"},
		{"key count", r("0:1:0\n\t\t\t\t}", "0:1:0\n\t\t\t\t\t0:2:0\n\t\t\t\t}"), "AnimationPart {", "3 TransKeys for 2 TimeKeys"},
		{"unterminated string", r(`Name="T"`, `Name="T`), `Name="T`, "unterminated"},
		{"bad bool", strings.Replace(c, "FrameParSecond=30", "Loop=Maybe", 1), "Loop=Maybe", "True nor False"},
		{"non-UTF-8", r(`Name="T"`, "Name=\"T\xff\xfe\""), "Name=\"T\xff", "invalid UTF-8"},
		{"deep nesting", head + "HierarchyList {\n" + strings.Repeat("Node {\n", 300) + strings.Repeat("}\n", 301), "", "nested deeper"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read("bad.elem", []byte(tc.text))
			if err == nil {
				_, err = Build(mustRead(t, tc.text), codec.Source{Name: "bad.elem", Data: []byte(tc.text)})
			}
			var fe *codec.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v (%T), want a *codec.FormatError", err, err)
			}
			if fe.Format != FormatName || fe.File != "bad.elem" || !strings.Contains(fe.Msg, tc.msg) {
				t.Errorf("error %q, want it to say %q", err, tc.msg)
			}
			want := 0
			switch {
			case tc.at != "":
				want = lineOf(tc.text, tc.at)
			case tc.name == "empty":
				want = 1
			case tc.name == "not elem":
				want = 1
			case tc.name == "extra brace":
				want = strings.Count(tc.text, "\n")
			case tc.name == "deep nesting":
				want = 3 + maxDepth
			}
			if fe.Line != want {
				t.Errorf("error at line %d, want %d: %v", fe.Line, want, err)
			}
		})
	}
}

func mustRead(t *testing.T, text string) *File {
	t.Helper()
	f, err := Read("bad.elem", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestHugeLine: a 100 MB line is refused after the first MiB, at its line.
func TestHugeLine(t *testing.T) {
	data := make([]byte, 0, 100<<20+64)
	data = append(data, head+"MeshDatas {\n\tMeshContainer {\n\t\tName=\""...)
	data = append(data, bytes.Repeat([]byte{'a'}, 100<<20)...)
	data = append(data, "\"\n\t}\n}\n"...)
	_, err := Read("huge.elem", data)
	var fe *codec.FormatError
	if !errors.As(err, &fe) || fe.Line != 5 || !strings.Contains(fe.Msg, "longer than") {
		t.Fatalf("got %v", err)
	}
}

// TestWarnings: tolerated oddities are reported, not fatal.
func TestWarnings(t *testing.T) {
	c := spellings["canonical"]
	text := strings.NewReplacer("File Version 1.00", "File Version 1.01", `NodeName="B"`+"\n", `NodeName="B"`+"\n\t\tColour=\"red\"\n",
		"MeshDatas {", "MeshDatas {\n\tMeshContainerCount=2").Replace(c) + "Extra {\n\tX=1\n}\n"
	s, _, err := translate.Decode(codec.Source{Name: "w.elem", Data: []byte(text)})
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(s.Warnings, "\n")
	for _, want := range []string{`file version "1.01"`, `unknown key "Colour"`, "MeshContainerCount=2 but 1", "unknown scope Extra"} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings lack %q:\n%s", want, all)
		}
	}
}

// TestNumbers: the one-pass list parser agrees with parseFloat32 and with strconv, bit for bit.
func TestNumbers(t *testing.T) {
	for _, s := range []string{"0", "-0", "1", "-1.5", "0.000001", "123456.789", "3.4028235e38", "1e-45", "1.17549435e-38",
		"0.1", "0.30000001", "16777217", "33554431.0", "1.0000000596046448", "-0.00000000000000000000000001", "+2.5", "7.", ".5",
		"123456789012345678", "0.12345678901234567"} {
		want, err := strconv.ParseFloat(s, 32)
		v1, ok1 := parseFloat32([]byte(s))
		v2, end, ok2 := number([]byte(s+":"), 0)
		if err != nil || !ok1 || !ok2 || end != len(s) {
			t.Errorf("%q: strconv %v, parseFloat32 ok %v, number ok %v end %d", s, err, ok1, ok2, end)
			continue
		}
		if math.Float32bits(v1) != math.Float32bits(float32(want)) || math.Float32bits(v2) != math.Float32bits(float32(want)) {
			t.Errorf("%q: strconv %v, parseFloat32 %v, number %v", s, float32(want), v1, v2)
		}
	}
	for _, s := range []string{"", "-", ".", "1x", "0x10", "1_0", "inf", "NaN", "1e39", "--1"} {
		if _, ok := parseFloat32([]byte(s)); ok {
			t.Errorf("parseFloat32 accepted %q", s)
		}
		if _, _, ok := number([]byte(s), 0); ok && s != "" {
			t.Errorf("number accepted %q", s)
		}
	}
}

// TestNumberLong: the list reader keeps taking plain decimals longer than parseFloat32 accepts
// when their length is only leading zeros (as it always has), and refuses the other long ones.
func TestNumberLong(t *testing.T) {
	zeros := strings.Repeat("0", 70)
	for s, want := range map[string]float32{zeros + "1.5": 1.5, "-" + zeros + "0.25": -0.25, zeros: 0} {
		if _, ok := parseFloat32([]byte(s)); ok {
			t.Errorf("parseFloat32 accepted %d bytes", len(s))
		}
		if v, end, ok := number([]byte(s+":"), 0); !ok || end != len(s) || v != want {
			t.Errorf("number(%q) = %v, %d, %v; want %v", s, v, end, ok, want)
		}
	}
	for _, s := range []string{zeros + "1234567890123456", zeros + "1e5", "0." + zeros + "1", "0." + zeros} {
		if _, _, ok := number([]byte(s+":"), 0); ok {
			t.Errorf("number accepted %q", s)
		}
	}
}
