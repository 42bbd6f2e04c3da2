package elem

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"

	"github.com/modelfs/modelfs/internal/testkit/gltfsample"
	"github.com/modelfs/modelfs/translate/internal/testkit/readback"
)

// This file proves the conversion numerically: a reference evaluator written the way the
// Direct3D loader computes a pose (row vectors, keys · InitPosture · parent, Offset · global,
// D3DX matrix layouts, shortest-arc slerp; nothing shared with the builder) poses every vertex
// in the file's own left-handed frame; the written .gltf/.glb, read back with qmuntal/gltf and
// sampled with the independent glTF sampler, must put each vertex at the mirrored position.

// rm is a Direct3D row-vector matrix, m[r][c].
type rm [4][4]float64

func rmIdentity() rm { return rm{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}} }

func rmFile(a [16]float32) rm {
	var m rm
	for i, v := range a {
		m[i/4][i%4] = float64(v)
	}
	return m
}

func (a rm) mul(b rm) rm {
	var r rm
	for i := 0; i < 4; i++ {
		for j := 0; j < 4; j++ {
			for k := 0; k < 4; k++ {
				r[i][j] += a[i][k] * b[k][j]
			}
		}
	}
	return r
}

// d3dQuatMatrix is D3DXMatrixRotationQuaternion.
func d3dQuatMatrix(x, y, z, w float64) rm {
	return rm{
		{1 - 2*(y*y+z*z), 2 * (x*y + z*w), 2 * (x*z - y*w), 0},
		{2 * (x*y - z*w), 1 - 2*(x*x+z*z), 2 * (y*z + x*w), 0},
		{2 * (x*z + y*w), 2 * (y*z - x*w), 1 - 2*(x*x+y*y), 0},
		{0, 0, 0, 1},
	}
}

// d3dSlerp is D3DXQuaternionSlerp (shortest arc).
func d3dSlerp(a, b [4]float64, t float64) [4]float64 {
	d := a[0]*b[0] + a[1]*b[1] + a[2]*b[2] + a[3]*b[3]
	sgn := 1.0
	if d < 0 {
		sgn, d = -1, -d
	}
	w0, w1 := 1-t, t
	if d < 1-1e-9 {
		th := math.Acos(d)
		w0, w1 = math.Sin((1-t)*th)/math.Sin(th), math.Sin(t*th)/math.Sin(th)
	}
	var r [4]float64
	for i := range r {
		r[i] = w0*a[i] + sgn*w1*b[i]
	}
	return r
}

// keyMatrix is the loader's per-node key matrix at time ms: Scale · Rotate · Trans, identity
// without a part.
func keyMatrix(a *Animation, node string, ms float64) rm {
	var part *AnimationPart
	for i := range a.Parts {
		if a.Parts[i].NodeName == node {
			part = &a.Parts[i]
			break
		}
	}
	if part == nil {
		return rmIdentity()
	}
	times := part.Times
	if len(times) == 0 {
		times = a.TimeKeys
	}
	k0, k1, s := 0, 0, 0.0
	for k := range times {
		if a.TimeMS*float64(times[k]) >= ms {
			k1 = k
			k0 = max(k-1, 0)
			break
		}
		k0, k1 = k, k
	}
	if t0, t1 := a.TimeMS*float64(times[k0]), a.TimeMS*float64(times[k1]); t1 > t0 {
		s = (ms - t0) / (t1 - t0)
	}
	lerp := func(v [][3]float32, def float64) [3]float64 {
		if len(v) == 0 {
			return [3]float64{def, def, def}
		}
		var r [3]float64
		for i := range r {
			r[i] = float64(v[k0][i]) + (float64(v[k1][i])-float64(v[k0][i]))*s
		}
		return r
	}
	tr, sc := lerp(part.Trans, 0), lerp(part.Scale, 1)
	q := [4]float64{0, 0, 0, 1}
	if len(part.Rotate) > 0 {
		a, b := part.Rotate[k0], part.Rotate[k1]
		q = d3dSlerp([4]float64{float64(a[0]), float64(a[1]), float64(a[2]), float64(a[3])},
			[4]float64{float64(b[0]), float64(b[1]), float64(b[2]), float64(b[3])}, s)
	}
	S := rm{{sc[0], 0, 0, 0}, {0, sc[1], 0, 0}, {0, 0, sc[2], 0}, {0, 0, 0, 1}}
	T := rmIdentity()
	T[3][0], T[3][1], T[3][2] = tr[0], tr[1], tr[2]
	return S.mul(d3dQuatMatrix(q[0], q[1], q[2], q[3])).mul(T)
}

// enginePose returns every hierarchy node's global matrix at time ms of animation a (nil for
// the initial posture).
func enginePose(f *File, a *Animation, ms float64) map[string]rm {
	g := make([]rm, len(f.Nodes))
	out := map[string]rm{}
	for i, n := range f.Nodes {
		key := rmIdentity()
		if a != nil {
			key = keyMatrix(a, n.Name, ms)
		}
		init := rmIdentity()
		if n.HasInit {
			init = rmFile(n.Init)
		}
		g[i] = key.mul(init)
		if n.Parent >= 0 {
			g[i] = g[i].mul(g[n.Parent])
		}
		out[n.Name] = g[i]
	}
	return out
}

// engineVertices poses every vertex of every mesh (in file order) the loader's way and mirrors
// the result into glTF's frame.
func engineVertices(f *File, pose map[string]rm) [][][3]float64 {
	var out [][][3]float64
	for _, c := range f.Containers {
		rigid := ""
		for _, r := range f.Rendering {
			if r.Name == c.Name && len(r.HierarchyNames) == 1 {
				rigid = r.HierarchyNames[0]
			}
		}
		for _, m := range c.Meshes {
			palette := make([]rm, max(len(c.BoneNames), len(c.Offsets)))
			for i := range palette {
				palette[i] = rmFile(c.Offsets[i]).mul(pose[c.BoneNames[i]])
			}
			blend := make([]rm, len(m.Positions))
			for _, bp := range m.Blend {
				for k, v := range bp.Vertices {
					for r := 0; r < 4; r++ {
						for cc := 0; cc < 4; cc++ {
							blend[v][r][cc] += float64(bp.Weights[k]) * palette[bp.TransformIndex][r][cc]
						}
					}
				}
			}
			verts := make([][3]float64, len(m.Positions))
			for i, p := range m.Positions {
				M := blend[i]
				if len(m.Blend) == 0 {
					M = rmIdentity()
					if rigid != "" {
						M = pose[rigid]
					}
				}
				x, y, z := float64(p[0]), float64(p[1]), float64(p[2])
				for cc := 0; cc < 3; cc++ {
					verts[i][cc] = x*M[0][cc] + y*M[1][cc] + z*M[2][cc] + M[3][cc]
				}
				if !f.Setting.IsRightHand {
					verts[i][2] = -verts[i][2]
				}
			}
			out = append(out, verts)
		}
	}
	return out
}

// ---- the glTF side ----

type cm [16]float64 // column-major

func (a cm) mul(b cm) cm {
	var r cm
	for c := 0; c < 4; c++ {
		for row := 0; row < 4; row++ {
			for k := 0; k < 4; k++ {
				r[4*c+row] += a[4*k+row] * b[4*c+k]
			}
		}
	}
	return r
}

func trs(t, q, s []float64) cm {
	x, y, z, w := q[0], q[1], q[2], q[3]
	r := [9]float64{1 - 2*(y*y+z*z), 2 * (x*y - z*w), 2 * (x*z + y*w), 2 * (x*y + z*w), 1 - 2*(x*x+z*z), 2 * (y*z - x*w), 2 * (x*z - y*w), 2 * (y*z + x*w), 1 - 2*(x*x+y*y)}
	var m cm
	for c := 0; c < 3; c++ {
		for row := 0; row < 3; row++ {
			m[4*c+row] = r[3*row+c] * s[c]
		}
	}
	m[12], m[13], m[14], m[15] = t[0], t[1], t[2], 1
	return m
}

func accessor(t *testing.T, doc *gltf.Document, i int) any {
	t.Helper()
	data, err := modeler.ReadAccessor(doc, doc.Accessors[i], nil)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func flatFloats(t *testing.T, v any) []float32 {
	switch v := v.(type) {
	case []float32:
		return v
	case [][3]float32:
		out := make([]float32, 0, 3*len(v))
		for _, x := range v {
			out = append(out, x[:]...)
		}
		return out
	case [][4]float32:
		out := make([]float32, 0, 4*len(v))
		for _, x := range v {
			out = append(out, x[:]...)
		}
		return out
	}
	t.Fatalf("unexpected accessor type %T", v)
	return nil
}

// gltfVertices poses every mesh of doc at time sec of animation anim (-1 for the rest pose).
func gltfVertices(t *testing.T, doc *gltf.Document, anim int, sec float32) [][][3]float64 {
	t.Helper()
	n := len(doc.Nodes)
	local := make([]cm, n)
	for i, nd := range doc.Nodes {
		tt, q, s := nd.TranslationOrDefault(), nd.RotationOrDefault(), nd.ScaleOrDefault()
		T, Q, S := tt[:], q[:], s[:]
		if anim >= 0 {
			for _, ch := range doc.Animations[anim].Channels {
				if ch.Target.Node == nil || *ch.Target.Node != i {
					continue
				}
				smp := doc.Animations[anim].Samplers[ch.Sampler]
				times := flatFloats(t, accessor(t, doc, smp.Input))
				vals := flatFloats(t, accessor(t, doc, smp.Output))
				width := 3
				if ch.Target.Path == gltf.TRSRotation {
					width = 4
				}
				v, err := gltfsample.Sample(smp.Interpolation.String(), times, vals, width, sec)
				if err != nil {
					t.Fatal(err)
				}
				switch ch.Target.Path {
				case gltf.TRSTranslation:
					T = v
				case gltf.TRSRotation:
					Q = v
				case gltf.TRSScale:
					S = v
				}
			}
		}
		local[i] = trs(T, Q, S)
	}
	parent := make([]int, n)
	for i := range parent {
		parent[i] = -1
	}
	for i, nd := range doc.Nodes {
		for _, c := range nd.Children {
			parent[c] = i
		}
	}
	global := make([]cm, n)
	var walk func(i int) cm
	done := make([]bool, n)
	walk = func(i int) cm {
		if !done[i] {
			global[i] = local[i]
			if parent[i] >= 0 {
				global[i] = walk(parent[i]).mul(local[i])
			}
			done[i] = true
		}
		return global[i]
	}
	var out [][][3]float64
	for ni, nd := range doc.Nodes {
		if nd.Mesh == nil {
			continue
		}
		prim := doc.Meshes[*nd.Mesh].Primitives[0]
		pos := accessor(t, doc, prim.Attributes[gltf.POSITION]).([][3]float32)
		var joints [][][4]uint16
		var weights [][][4]float32
		for set := 0; ; set++ {
			ja, ok := prim.Attributes[fmt.Sprintf("JOINTS_%d", set)]
			if !ok {
				break
			}
			var js [][4]uint16
			switch v := accessor(t, doc, ja).(type) {
			case [][4]uint8:
				for _, j := range v {
					js = append(js, [4]uint16{uint16(j[0]), uint16(j[1]), uint16(j[2]), uint16(j[3])})
				}
			case [][4]uint16:
				js = v
			}
			joints = append(joints, js)
			weights = append(weights, accessor(t, doc, prim.Attributes[fmt.Sprintf("WEIGHTS_%d", set)]).([][4]float32))
		}
		var jm []cm
		if nd.Skin != nil {
			sk := doc.Skins[*nd.Skin]
			ibm := accessor(t, doc, *sk.InverseBindMatrices).([][4][4]float32)
			for k, j := range sk.Joints {
				var inv cm
				for c := 0; c < 4; c++ {
					for r := 0; r < 4; r++ {
						inv[4*c+r] = float64(ibm[k][r][c]) // qmuntal reads a MAT4 as [row][column]
					}
				}
				jm = append(jm, walk(j).mul(inv))
			}
		}
		self := walk(ni)
		verts := make([][3]float64, len(pos))
		for v, p := range pos {
			var M cm
			if nd.Skin == nil {
				M = self
			} else {
				for set := range joints {
					for k := 0; k < 4; k++ {
						w := float64(weights[set][v][k])
						for e := range M {
							M[e] += w * jm[joints[set][v][k]][e]
						}
					}
				}
			}
			x, y, z := float64(p[0]), float64(p[1]), float64(p[2])
			for r := 0; r < 3; r++ {
				verts[v][r] = M[r]*x + M[4+r]*y + M[8+r]*z + M[12+r]
			}
		}
		out = append(out, verts)
	}
	return out
}

func TestPosesMatchTheEngine(t *testing.T) {
	for _, name := range []string{"skinned.elem", "animated.elem", "cube.elem", "multimat.elem"} {
		t.Run(name, func(t *testing.T) {
			src := source(t, name)
			f, err := Read(src.Name, src.Data)
			if err != nil {
				t.Fatal(err)
			}
			s := decode(t, name)
			for _, rb := range readback.Both(t, s) {
				kind, doc := rb.Kind, rb.Document
				type sample struct {
					anim  *Animation
					index int
				}
				samples := []sample{{nil, -1}}
				for i := range f.Animations {
					a := &f.Animations[i]
					for k, sa := range s.Animations {
						if sa.Name == a.Name {
							samples = append(samples, sample{a, k})
						}
					}
				}
				compared := 0
				for _, smp := range samples {
					steps := 1
					if smp.anim != nil {
						steps = 40
					}
					for k := 0; k <= steps; k++ {
						ms := 0.0
						if smp.anim != nil {
							ms = smp.anim.TimeMS * float64(k) / float64(steps)
						}
						want := engineVertices(f, enginePose(f, smp.anim, ms))
						got := gltfVertices(t, doc, smp.index, float32(ms/1000))
						if name == "multimat.elem" {
							// Split by material: each glTF vertex must be one of the file's.
							for mi := range got {
								for _, g := range got[mi] {
									if !slices.ContainsFunc(want[0], func(w [3]float64) bool {
										return math.Abs(g[0]-w[0]) <= 1e-4 && math.Abs(g[1]-w[1]) <= 1e-4 && math.Abs(g[2]-w[2]) <= 1e-4
									}) {
										t.Fatalf("%s: glTF mesh %d vertex %v is none of the file's", kind, mi, g)
									}
									compared++
								}
							}
							continue
						}
						if len(got) != len(want) {
							t.Fatalf("%d meshes in glTF, %d in the file", len(got), len(want))
						}
						for mi := range want {
							for v := range want[mi] {
								for c := 0; c < 3; c++ {
									if d := math.Abs(got[mi][v][c] - want[mi][v][c]); d > 1e-4 {
										t.Fatalf("%s anim %d at %.1f ms: mesh %d vertex %d: glTF %v, engine %v", kind, smp.index, ms, mi, v, got[mi][v], want[mi][v])
									}
								}
								compared++
							}
						}
					}
				}
				t.Logf("%s: %d vertex positions agree", kind, compared)
			}
		})
	}
}
