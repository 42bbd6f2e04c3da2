// Package meteortest makes the Meteor Blade fixtures of the tests and the sample tree: a small
// made-up character "p9", written by this code (no game data), in the layouts of the format
// notes: six bones and two dummies, a box-shaped skin with two materials and one five-influence
// vertex, 40 frames of animation and an action table exercising every pose status.
package meteortest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/jpeg"
	"math"
	"strings"
	"testing/fstest"
)

// Joint is one joint of the fixture skeleton.
type Joint struct {
	Name, Parent string
	Pivot        [3]float64
	Quat         [4]float64 // w, x, y, z
	Dummy        bool
}

// Skeleton: bone b hangs from dummy d_base (declared after it), parents by name, bN and dN.
var Skeleton = []Joint{
	{Name: "b", Parent: "d_base", Pivot: [3]float64{0, 0, 10}, Quat: [4]float64{-0.70711, 0, 0, 0.70711}},
	{Name: "spine", Parent: "b", Pivot: [3]float64{0, 0, 4}, Quat: [4]float64{0.92388, 0, 0, 0.38268}},
	{Name: "head", Parent: "b1", Pivot: [3]float64{0, 0, 4}, Quat: [4]float64{1, 0, 0, 0}},
	{Name: "legL", Parent: "b0", Pivot: [3]float64{2, 0, -5}, Quat: [4]float64{0, 1, 0, 0}},
	{Name: "legR", Parent: "b", Pivot: [3]float64{-2, 0, -5}, Quat: [4]float64{0, 1, 0, 0}},
	{Name: "arm", Parent: "spine", Pivot: [3]float64{3, 0, 2}, Quat: [4]float64{0.70711, 0.70711, 0, 0}},
	{Name: "d_base", Parent: "NULL", Pivot: [3]float64{0, 0, 0}, Quat: [4]float64{-1, 0, 0, 0}, Dummy: true},
	{Name: "d_top", Parent: "b2", Pivot: [3]float64{0, 0, 2}, Quat: [4]float64{1, 0, 0, 0}, Dummy: true},
}

// Bones and Dummies count the skeleton's joints of each sort.
const Bones, Dummies = 6, 2

// BNC is the skeleton file (p9.bnc).
func BNC() []byte {
	var b bytes.Buffer
	b.WriteString("# Character Bone Export for Interserv\r\n#\t\tby the modelfs tests\r\n")
	fmt.Fprintf(&b, "Bones: %d Dummey: %d\r\n", Bones, Dummies)
	children := map[string]int{"b": 3, "spine": 2, "head": 0, "legL": 0, "legR": 0, "arm": 0}
	for _, j := range Skeleton {
		if j.Dummy {
			fmt.Fprintf(&b, "Dummey %s\r\n{\r\n  parent %s\r\n", j.Name, j.Parent)
		} else {
			fmt.Fprintf(&b, "bone %s\r\n{\r\n  parent %s\r\n", j.Name, j.Parent)
		}
		fmt.Fprintf(&b, "  pivot %.3f %.3f %.3f\r\n  quaternion %.5f %.5f %.5f %.5f\r\n", j.Pivot[0], j.Pivot[1], j.Pivot[2], j.Quat[0], j.Quat[1], j.Quat[2], j.Quat[3])
		if !j.Dummy {
			fmt.Fprintf(&b, "  children %d\r\n", children[j.Name])
		}
		b.WriteString("}\r\n")
	}
	return b.Bytes()
}

// Vertices: a box 6 wide, 20 tall; vertex 0 has five influences, vertex 8 is used by no face.
var Vertices = []string{
	"v  -3.00000  -3.00000   0.00000 vt 0.000 0.000 Bones 5 0 0.20000 1 0.20000 2 0.20000 3 0.20000 4 0.20000",
	"v   3.00000  -3.00000   0.00000 vt 1.000 0.000 Bones 1 3 1.00000",
	"v   3.00000   3.00000   0.00000 vt 1.000 0.250 Bones 2 3 0.50000 4 0.50000",
	"v  -3.00000   3.00000   0.00000 vt 0.000 0.250 Bones 1 4 1.00000",
	"v  -3.00000  -3.00000  20.00000 vt 0.000 0.750 Bones 2 2 0.75000 1 0.25000",
	"v   3.00000  -3.00000  20.00000 vt 1.000 0.750 Bones 1 2 1.00000",
	"v   3.00000   3.00000  20.00000 vt 1.000 1.000 Bones 3 2 0.50000 5 0.25000 1 0.25000",
	"v  -3.00000   3.00000  20.00000 vt 0.000 1.000 Bones 1 5 1.00000",
	"v   0.00000   0.00000  30.00000 vt 0.500 0.500 Bones 1 0 1.00000",
}

// Faces: the box's 12 triangles, outward in right-handed Z-up; sides use material 0, caps 1.
var Faces = [][4]int{
	{1, 0, 3, 2}, {1, 0, 2, 1}, // bottom (material, i, j, k)
	{1, 4, 5, 6}, {1, 4, 6, 7}, // top
	{0, 0, 1, 5}, {0, 0, 5, 4},
	{0, 1, 2, 6}, {0, 1, 6, 5},
	{0, 2, 3, 7}, {0, 2, 7, 6},
	{0, 3, 0, 4}, {0, 3, 4, 7},
}

// SKC is the skin file (p9.skc).
func SKC() []byte {
	var b bytes.Buffer
	b.WriteString("# Character Skin Export for Interserv\n#\t\t\t\tmodelfs tests\nStatic Skins: 1 Dynamic Skins: 0\nStatic Skin S_01\n{\n  Materials: 2\n")
	for i, tex := range []string{"tex01.TGA", "face01.jpg"} {
		opt, two := "NONE", "FALSE"
		if i == 0 {
			opt, two = "ALPHA", "TRUE"
		}
		fmt.Fprintf(&b, "  Material\n    Texture   %s\n    ColorKey  0 0 0 0\n    Ambient   1.000 1.000 1.000\n    Diffuse   1.000 0.500 1.000\n"+
			"    Specular  1.000 1.000 1.000\n    Emissive  0.000 0.000 0.000\n    Opacity   1.000\n    Option    %s\n    TwoSide   %s\n", tex, opt, two)
	}
	fmt.Fprintf(&b, "  Vertices: %d\n", len(Vertices))
	for _, v := range Vertices {
		b.WriteString("    " + v + "\n")
	}
	fmt.Fprintf(&b, "  Triangles: %d\n", len(Faces))
	for _, f := range Faces {
		fmt.Fprintf(&b, "    f 3 %2d %3d %3d %3d\n", f[0], f[1], f[2], f[3])
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// Frames is the number of frames of AMB.
const Frames = 40

// FrameQuat is bone bone's rotation (w, x, y, z) in frame f: the bind rotation at frame 0,
// then turned about the bone's local X by f degrees.
func FrameQuat(bone, f int) [4]float32 {
	q := Skeleton[bone].Quat
	a := float64(f) * math.Pi / 180 / 2
	r := [4]float64{math.Cos(a), math.Sin(a), 0, 0}
	// q·r (w-first Hamilton product)
	w := q[0]*r[0] - q[1]*r[1] - q[2]*r[2] - q[3]*r[3]
	x := q[0]*r[1] + q[1]*r[0] + q[2]*r[3] - q[3]*r[2]
	y := q[0]*r[2] - q[1]*r[3] + q[2]*r[0] + q[3]*r[1]
	z := q[0]*r[3] + q[1]*r[2] - q[2]*r[1] + q[3]*r[0]
	return [4]float32{float32(w), float32(x), float32(y), float32(z)}
}

// Root is bone 0's translation in frame f: the pivot, walking along +Y.
func Root(f int) [3]float32 {
	p := Skeleton[0].Pivot
	return [3]float32{float32(p[0]), float32(p[1]) + 0.1*float32(f), float32(p[2])}
}

// AMBWith writes an .amb with the given counts; frame numbers are first, first+1, ….
func AMBWith(bones, dummies, frames, first int) []byte {
	var b bytes.Buffer
	b.WriteString("BANIM")
	le := binary.LittleEndian
	for _, v := range []int32{int32(bones), int32(dummies), int32(frames), 30} {
		binary.Write(&b, le, v)
	}
	tags := []string{"NULL", "b2"}
	for f := range frames {
		binary.Write(&b, le, int32(-1))
		binary.Write(&b, le, int32(first+f))
		binary.Write(&b, le, Root(first+f))
		for k := range bones {
			binary.Write(&b, le, FrameQuat(k%Bones, first+f))
		}
		for d := range dummies {
			j := Skeleton[Bones+d%Dummies]
			var tag [5]byte
			copy(tag[:], tags[d%Dummies])
			b.Write(tag[:])
			binary.Write(&b, le, [3]float32{float32(j.Pivot[0]), float32(j.Pivot[1]), float32(j.Pivot[2])})
			binary.Write(&b, le, [4]float32{float32(j.Quat[0]), float32(j.Quat[1]), float32(j.Quat[2]), float32(j.Quat[3])})
		}
	}
	return b.Bytes()
}

// AMB is the frames file (p9.amb).
func AMB() []byte { return AMBWith(Bones, Dummies, Frames, 0) }

// POS exercises: a looping pose, a source-0 pose (needs character.amb), an empty pose, a
// GBK-commented pose with an Action speed window and an Attack list spanning lines, a pose past
// the end of the frames, a one-frame pose and two keys on one line.
func POS() []byte {
	big5 := "\xb4\xfa\xb8\xd5" // 測試 in Big5
	gbk := "\xd5\x7b\xcf\xa2"  // 調息 in GBK
	s := "Pose 0\n{\n  source     1\n  Start      1   \n  End        10\n  LoopStart  1\n  LoopEnd    10\n}\n" +
		"Pose 1      #" + big5 + "\n{\n  source     0\n  Start      100\n  End        120\n  EffectType 0\n  EffectID   0\n}\n" +
		"Pose 2\n{}\n" +
		"Pose 3      #" + gbk + "\n{\n  source     1\n  Start      11\n  End        20\n  EffectType 0\n  EffectID   Pos003\n  link       004\n" +
		"  Action\n  {\n    start 13\n    end   16\n    speed 2\n  }\n" +
		"  Attack\n  {\n    bone = \"b one\", \"spine\",\n           \"head\"\n    Start       12\n    End         14\n    AttackType  1\n  }\n}\n" +
		"Pose 4\n{\n  source 1\n  Start 30\n  End 50\n}\n" +
		"Pose 5\n{\n  source 1\n  Start 21\n  End 21\n}\n" +
		"Pose 6 # plain\n{\n  Source 1\n  Start 22 End 39\n  Drag\n  {\n    Color 255,255,198\n    Time 0.05\n  }\n}\n"
	return []byte(strings.ReplaceAll(s, "\n", "\r\n"))
}

// Tree is the fixture character laid out as in the game: skins, skeleton (upper case, as
// P0.bnc is), frames and table in pmodel/, textures in texture/.
func Tree() fstest.MapFS {
	return fstest.MapFS{
		"pmodel/p9.skc":      {Data: SKC()},
		"pmodel/P9.BNC":      {Data: BNC()},
		"pmodel/p9.amb":      {Data: AMB()},
		"pmodel/P9.pos":      {Data: POS()},
		"texture/TEX01.tga":  {Data: []byte("a TGA codec is not part of these tests")},
		"texture/face01.JPG": {Data: JPEG()},
	}
}

// JPEG is a 2×2 JPEG image.
func JPEG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	for i := range img.Pix {
		img.Pix[i] = byte(i * 16)
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		panic(err)
	}
	return b.Bytes()
}
