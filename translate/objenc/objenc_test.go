package objenc

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelfs/modelfs/internal/testkit/golden"

	"github.com/modelfs/modelfs/translate/internal/testkit/testscene"
	"github.com/modelfs/modelfs/translate/scene"
)

func TestGolden(t *testing.T) {
	testscene.Run(t, func(t *testing.T, c testscene.Case) {
		obj, err := EncodeOBJ(c.Scene, c.Name+".mtl")
		if err != nil {
			t.Fatal(err)
		}
		mtl, err := EncodeMTL(c.Scene)
		if err != nil {
			t.Fatal(err)
		}
		golden.Testdata(t, c.Name+".obj", obj)
		golden.Testdata(t, c.Name+".mtl", mtl)
		if !utf8.Valid(obj) || !utf8.Valid(mtl) {
			t.Error("output is not valid UTF-8")
		}
		// Determinism: a second run gives the same bytes.
		obj2, _ := EncodeOBJ(c.Scene, c.Name+".mtl")
		mtl2, _ := EncodeMTL(c.Scene)
		if !bytes.Equal(obj, obj2) || !bytes.Equal(mtl, mtl2) {
			t.Error("second encoding differs")
		}
		checkParse(t, c.Scene, obj, mtl)
	})
}

// parsed is the part of an OBJ file the tests read back.
type parsed struct {
	v, vn  [][3]float32
	vt     [][2]float32
	faces  [][3][3]int // per corner: v, vt, vn (0 when absent), 1-based
	objs   []string
	usemtl []string
	mtllib string
}

func parseOBJ(t *testing.T, obj []byte) parsed {
	t.Helper()
	var p parsed
	for n, line := range strings.Split(string(obj), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		num := func(s string) float32 {
			x, err := strconv.ParseFloat(s, 32)
			if err != nil {
				t.Fatalf("line %d: %v", n+1, err)
			}
			return float32(x)
		}
		switch f[0] {
		case "v", "vn":
			if len(f) != 4 {
				t.Fatalf("line %d: %q", n+1, line)
			}
			v := [3]float32{num(f[1]), num(f[2]), num(f[3])}
			if f[0] == "v" {
				p.v = append(p.v, v)
			} else {
				p.vn = append(p.vn, v)
			}
		case "vt":
			if len(f) != 3 {
				t.Fatalf("line %d: %q", n+1, line)
			}
			p.vt = append(p.vt, [2]float32{num(f[1]), num(f[2])})
		case "f":
			if len(f) != 4 {
				t.Fatalf("line %d: not a triangle: %q", n+1, line)
			}
			var face [3][3]int
			for k := 0; k < 3; k++ {
				for j, part := range strings.Split(f[k+1], "/") {
					if part == "" {
						continue
					}
					x, err := strconv.Atoi(part)
					if err != nil || x < 1 {
						t.Fatalf("line %d: bad index %q", n+1, part)
					}
					face[k][j] = x
				}
			}
			p.faces = append(p.faces, face)
		case "o":
			if len(f) != 2 {
				t.Fatalf("line %d: name is not one token: %q", n+1, line)
			}
			p.objs = append(p.objs, f[1])
		case "usemtl":
			if len(f) != 2 {
				t.Fatalf("line %d: name is not one token: %q", n+1, line)
			}
			p.usemtl = append(p.usemtl, f[1])
		case "mtllib":
			p.mtllib = strings.TrimPrefix(line, "mtllib ")
		case "g":
		default:
			t.Fatalf("line %d: unexpected statement %q", n+1, line)
		}
	}
	return p
}

// checkParse reads obj back and compares it with the scene: counts, every face corner's
// position, UV and normal, unique object names, and material names defined in mtl.
func checkParse(t *testing.T, s *scene.Scene, obj, mtl []byte) {
	t.Helper()
	p := parseOBJ(t, obj)
	ds, _ := draws(s)
	nv, nt, nn, ntri := 0, 0, 0, 0
	for _, d := range ds {
		m := &s.Meshes[d.mesh]
		nv += len(m.Positions)
		if len(m.UVs) > 0 {
			nt += len(m.Positions)
		}
		nn += len(m.Normals)
		ntri += len(m.Indices) / 3
	}
	if len(p.v) != nv || len(p.vt) != nt || len(p.vn) != nn || len(p.faces) != ntri {
		t.Fatalf("read back %d v, %d vt, %d vn, %d f; want %d, %d, %d, %d", len(p.v), len(p.vt), len(p.vn), len(p.faces), nv, nt, nn, ntri)
	}
	if len(p.objs) != len(ds) || len(p.usemtl) != len(ds) {
		t.Fatalf("%d objects and %d usemtl for %d meshes drawn", len(p.objs), len(p.usemtl), len(ds))
	}
	seen := map[string]bool{}
	for _, o := range p.objs {
		if seen[o] {
			t.Errorf("object name %q repeated", o)
		}
		seen[o] = true
	}
	defined := map[string]bool{}
	for _, line := range strings.Split(string(mtl), "\n") {
		if name, ok := strings.CutPrefix(line, "newmtl "); ok {
			if defined[name] || strings.ContainsAny(name, " \t#") {
				t.Errorf("material name %q repeated or unsafe", name)
			}
			defined[name] = true
		}
	}
	for _, u := range p.usemtl {
		if !defined[u] {
			t.Errorf("usemtl %q is not defined in the MTL", u)
		}
	}
	f := 0
	for _, d := range ds {
		i, m := d.mesh, &s.Meshes[d.mesh]
		uvs := meshUVs(s, m)
		pos, nrm := m.Positions, m.Normals
		order := [3]int{0, 1, 2}
		if d.world != nil { // a shape drawn at a node: moved there, its winding kept
			pos, nrm = make([][3]float32, len(pos)), make([][3]float32, len(nrm))
			for k, v := range m.Positions {
				pos[k] = d.world.point(v)
			}
			for k, n := range m.Normals {
				nrm[k] = d.world.normal(n)
			}
			if d.world.det() < 0 {
				order = [3]int{0, 2, 1}
			}
		}
		for k := 0; k < len(m.Indices); k += 3 {
			for c := 0; c < 3; c++ {
				ix := m.Indices[k+order[c]]
				corner := p.faces[f][c]
				if corner[0] > len(p.v) || p.v[corner[0]-1] != pos[ix] {
					t.Fatalf("mesh %d face %d corner %d: position index %d does not give %v", i, k/3, c, corner[0], pos[ix])
				}
				if len(uvs) > 0 {
					want := [2]float32{uvs[ix][0], 1 - uvs[ix][1]}
					if corner[1] == 0 || corner[1] > len(p.vt) || p.vt[corner[1]-1] != want {
						t.Fatalf("mesh %d face %d corner %d: uv index %d does not give %v", i, k/3, c, corner[1], want)
					}
				} else if corner[1] != 0 {
					t.Fatalf("mesh %d has no UVs but a face refers to vt %d", i, corner[1])
				}
				if len(m.Normals) > 0 {
					if corner[2] == 0 || corner[2] > len(p.vn) || p.vn[corner[2]-1] != nrm[ix] {
						t.Fatalf("mesh %d face %d corner %d: normal index %d does not give %v", i, k/3, c, corner[2], nrm[ix])
					}
				} else if corner[2] != 0 {
					t.Fatalf("mesh %d has no normals but a face refers to vn %d", i, corner[2])
				}
			}
			f++
		}
	}
}

// A shape drawn at nodes is baked into place: the quarter turn about Y takes +X to −Z, the
// mirror flips the winding and the normals follow.
func TestShapeInstances(t *testing.T) {
	s := testscene.Shapes()
	ds, _ := draws(s)
	if len(ds) != 4 || ds[2].world == nil || ds[3].world == nil {
		t.Fatalf("draws %+v", ds)
	}
	near := func(a, b [3]float32) bool {
		for k := range a {
			if d := a[k] - b[k]; d > 1e-5 || d < -1e-5 {
				return false
			}
		}
		return true
	}
	if got := ds[2].world.point([3]float32{1, 0, 0}); !near(got, [3]float32{3, 0, -1}) {
		t.Errorf("turned instance takes (1,0,0) to %v, want (3,0,-1)", got)
	}
	if got := ds[3].world.point([3]float32{1, 1, 1}); !near(got, [3]float32{-5, 2, 3}) {
		t.Errorf("mirrored instance takes (1,1,1) to %v, want (-5,2,3)", got)
	}
	if got := ds[3].world.normal([3]float32{1, 0, 0}); !near(got, [3]float32{-1, 0, 0}) {
		t.Errorf("mirrored normal %v, want (-1,0,0)", got)
	}
	if ds[3].world.det() >= 0 {
		t.Error("the mirror has a positive determinant")
	}
}

func TestNoMTLName(t *testing.T) {
	obj, err := EncodeOBJ(testscene.Static(), "")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(obj, []byte("mtllib")) {
		t.Error("mtllib written without a name")
	}
}

func TestGrid(t *testing.T) {
	s := testscene.Grid(40)
	obj, err := EncodeOBJ(s, "grid.mtl")
	if err != nil {
		t.Fatal(err)
	}
	mtl, err := EncodeMTL(s)
	if err != nil {
		t.Fatal(err)
	}
	checkParse(t, s, obj, mtl)
}

func TestErrors(t *testing.T) {
	if _, err := EncodeOBJ(nil, ""); err == nil {
		t.Error("nil scene: no error")
	}
	if _, err := EncodeMTL(nil); err == nil {
		t.Error("nil scene: no error")
	}
	for name, edit := range map[string]func(m *scene.Mesh){
		"index":   func(m *scene.Mesh) { m.Indices[4] = 99 },
		"normals": func(m *scene.Mesh) { m.Normals = m.Normals[:3] },
		"uvs":     func(m *scene.Mesh) { m.UVs[0] = m.UVs[0][:3] },
		"partial": func(m *scene.Mesh) { m.Indices = m.Indices[:4] },
	} {
		s := testscene.Static()
		edit(&s.Meshes[0])
		if _, err := EncodeOBJ(s, ""); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// Out-of-range material and texture indices do not panic.
	s := testscene.Static()
	s.Meshes[0].Material = 7
	s.Materials[0].Texture = 9
	if _, err := EncodeOBJ(s, "x.mtl"); err != nil {
		t.Error(err)
	}
	if _, err := EncodeMTL(s); err != nil {
		t.Error(err)
	}
}

func TestUniqueNames(t *testing.T) {
	for _, tc := range []struct {
		in, want []string
	}{
		{nil, []string{}},
		{[]string{"a", "b"}, []string{"a", "b"}},
		{[]string{"a", "a", "a"}, []string{"a", "a_2", "a_3"}},
		{[]string{"a", "a_2", "a"}, []string{"a", "a_2", "a_3"}},
		{[]string{"", ""}, []string{"x0", "x1"}},
		{[]string{"x1", ""}, []string{"x1", "x1_2"}},
		{[]string{"my name", "my\tname", "my#name"}, []string{"my_name", "my_name_2", "my_name_3"}},
		{[]string{"bad\xffbyte", "ctl\x00\n", "zw\u200bj", "é ü"}, []string{"bad_byte", "ctl__", "zw_j", "é_ü"}},
	} {
		got := uniqueNames(tc.in, "x")
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("uniqueNames(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestRelPath(t *testing.T) {
	for _, tc := range []struct{ dir, target, want string }{
		{".", "a/b.png", "a/b.png"},
		{"", "a/b.png", "a/b.png"},
		{"units/human", "units/human/t.png", "t.png"},
		{"units/human", "units/orc/t.png", "../orc/t.png"},
		{"units/human/Footman", "textures/t.png", "../../../textures/t.png"},
		{"a", "a", "../a"},
		{"a/b", "a/b/c/d.png", "c/d.png"},
		{"/root/m", "/root/t/x.png", "../t/x.png"},
		{"/", "/t.png", "t.png"},
		{"m", "/abs/t.png", "/abs/t.png"},
		{"../up", "t.png", "t.png"},
		{"units", "./units//t.png", "t.png"},
	} {
		if got := relPath(tc.dir, tc.target); got != tc.want {
			t.Errorf("relPath(%q, %q) = %q, want %q", tc.dir, tc.target, got, tc.want)
		}
	}
}

func TestAppendFloat(t *testing.T) {
	for _, tc := range []struct {
		v    float32
		want string
	}{
		{0, "0"}, {float32(negZero()), "0"}, {1, "1"}, {-0.5, "-0.5"}, {0.1, "0.1"},
		{1e-7, "1e-07"}, {123456.79, "123456.79"}, {3.4028235e38, "3.4028235e+38"},
	} {
		if got := string(appendFloat(nil, tc.v)); got != tc.want {
			t.Errorf("appendFloat(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func negZero() float64 {
	z := 0.0
	return -z
}

// BenchmarkEncodeOBJ encodes a 500×500 grid: 250,000 vertices with normals and UVs and
// 498,002 triangles. The MB/s column is output bytes per second.
func BenchmarkEncodeOBJ(b *testing.B) {
	s := testscene.Grid(500)
	out, err := EncodeOBJ(s, "grid.mtl")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := EncodeOBJ(s, "grid.mtl"); err != nil {
			b.Fatal(err)
		}
	}
}

// Names taken many times get their suffixes in one pass: 65,536 copies of one name (a WMO's
// doodads) cost linear work, and the same names as counting from _2 each time gives.
func TestUniqueNamesMany(t *testing.T) {
	raw := make([]string, 1<<16)
	for i := range raw {
		raw[i] = "Rabbit_Body"
	}
	raw[3] = "Rabbit_Body_5" // a name that is already some copy's suffix
	var got []string
	allocs := testing.AllocsPerRun(1, func() { got = uniqueNames(raw, "mesh") })
	if got[0] != "Rabbit_Body" || got[1] != "Rabbit_Body_2" || got[3] != "Rabbit_Body_5" || got[4] != "Rabbit_Body_4" || got[5] != "Rabbit_Body_6" || got[len(got)-1] != "Rabbit_Body_65536" {
		t.Errorf("names %q … %q", got[:8], got[len(got)-1])
	}
	if allocs > 4*float64(len(raw)) {
		t.Errorf("%.0f allocations for %d names", allocs, len(raw))
	}
}
