package elem

import (
	"math"
	"testing"

	"github.com/modelfs/modelfs/translate/internal/testkit/readback"
	"github.com/qmuntal/gltf"
)

func sub3(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }

// outward reports whether triangle (a, b, c), counter-clockwise by the right-hand rule, faces
// away from the origin (the cube's centre).
func outward(a, b, c [3]float64) bool {
	n := cross(sub3(b, a), sub3(c, a))
	centre := [3]float64{(a[0] + b[0] + c[0]) / 3, (a[1] + b[1] + c[1]) / 3, (a[2] + b[2] + c[2]) / 3}
	return dot(n, centre) > 0
}

func f64(p [3]float32) [3]float64 { return [3]float64{float64(p[0]), float64(p[1]), float64(p[2])} }

// TestHandedness: cube.elem is a left-handed (Direct3D) cube whose corner +X+Y+Z — right, up
// and away from a viewer looking down +Z — is red. In glTF (right-handed, the viewer looking
// down −Z) that corner is right, up and away: (1, 1, −1). Every triangle must face outward by
// glTF's rule (counter-clockwise front faces), as every one faces outward in the file by
// Direct3D's (clockwise front faces in a left-handed frame, which the same cross product
// computed on the raw numbers reports as outward).
func TestHandedness(t *testing.T) {
	src := source(t, "cube.elem")
	raw, err := Read(src.Name, src.Data)
	if err != nil {
		t.Fatal(err)
	}
	m := raw.Containers[0].Meshes[0]
	for i, f := range m.Faces {
		if !outward(f64(m.Positions[f[0]]), f64(m.Positions[f[1]]), f64(m.Positions[f[2]])) {
			t.Fatalf("fixture face %d is not a Direct3D front face seen from outside", i)
		}
	}
	s := decode(t, "cube.elem")
	for _, rb := range readback.Both(t, s) {
		kind, doc := rb.Kind, rb.Document
		prim := doc.Meshes[0].Primitives[0]
		pos := accessor(t, doc, prim.Attributes[gltf.POSITION]).([][3]float32)
		nrm := accessor(t, doc, prim.Attributes[gltf.NORMAL]).([][3]float32)
		var col [][4]float32
		switch v := accessor(t, doc, prim.Attributes[gltf.COLOR_0]).(type) {
		case [][4]float32:
			col = v
		case [][4]uint16: // normalised
			for _, c := range v {
				col = append(col, [4]float32{float32(c[0]) / 65535, float32(c[1]) / 65535, float32(c[2]) / 65535, float32(c[3]) / 65535})
			}
		}
		var idx []uint32
		switch v := accessor(t, doc, *prim.Indices).(type) {
		case []uint16:
			for _, x := range v {
				idx = append(idx, uint32(x))
			}
		case []uint32:
			idx = v
		}
		red := 0
		for v, c := range col {
			if c == [4]float32{1, 0, 0, 1} {
				red++
				if pos[v] != [3]float32{1, 1, -1} {
					t.Errorf("%s: the marked corner is at %v, want [1 1 -1]", kind, pos[v])
				}
				want := [3]float32{0.57735, 0.57735, -0.57735}
				for k := range want {
					if math.Abs(float64(nrm[v][k]-want[k])) > 1e-4 {
						t.Errorf("%s: the marked corner's normal is %v, want %v", kind, nrm[v], want)
						break
					}
				}
			}
		}
		if red != 1 {
			t.Fatalf("%s: %d red vertices, want 1", kind, red)
		}
		if len(idx) != 36 {
			t.Fatalf("%s: %d indices", kind, len(idx))
		}
		for f := 0; f < len(idx); f += 3 {
			if !outward(f64(pos[idx[f]]), f64(pos[idx[f+1]]), f64(pos[idx[f+2]])) {
				t.Errorf("%s: triangle %d faces inward", kind, f/3)
			}
		}
	}
}

// TestRightHanded: with IsRightHand=True nothing is mirrored and the winding stays.
func TestRightHanded(t *testing.T) {
	s := decode(t, "multimat.elem")
	if s.Source.Axes != AxesRight {
		t.Errorf("axes %q", s.Source.Axes)
	}
	// Material 0's part keeps all eight vertices in file order.
	m := s.Meshes[0]
	if len(m.Positions) != 8 || m.Positions[7] != [3]float32{3, 1, 0} || m.Normals[0] != [3]float32{0, 0, 1} {
		t.Fatalf("positions %v normals %v", m.Positions, m.Normals[:1])
	}
	if got := m.Indices[:3]; got[0] != 0 || got[1] != 2 || got[2] != 3 {
		t.Errorf("first triangle %v, want the file's 0 2 3", got)
	}
}
