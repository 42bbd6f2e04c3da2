package gltfenc

import (
	"math"

	"github.com/modelfs/modelfs/translate/scene"
)

// A hidden mesh is drawn as nothing by its morph target "hidden", which moves every vertex to
// one point. Morph targets act before skinning, so a mesh skinned to several bones spreads out
// again wherever those bones move apart. collapsePoints puts the vertices where skinning at the
// first frame of the first animation (the default pose, which viewers show on import) takes
// every one of them to the same point: the mesh is then exactly nothing in the default scene,
// and spreads only as far as a pose departs from that one.

// mat4 is a column-major 4×4 matrix, as glTF's.
type mat4 [16]float64

func mul(a, b *mat4) mat4 {
	var m mat4
	for c := range 4 {
		for r := range 4 {
			var s float64
			for k := range 4 {
				s += a[k*4+r] * b[c*4+k]
			}
			m[c*4+r] = s
		}
	}
	return m
}

// trs makes the matrix of translation t, rotation q (x, y, z, w) and scale s.
func trs(t [3]float32, q [4]float32, s [3]float32) mat4 {
	x, y, z, w := float64(q[0]), float64(q[1]), float64(q[2]), float64(q[3])
	if n := math.Sqrt(x*x + y*y + z*z + w*w); n > 0 {
		x, y, z, w = x/n, y/n, z/n, w/n
	}
	sx, sy, sz := float64(s[0]), float64(s[1]), float64(s[2])
	return mat4{
		(1 - 2*(y*y+z*z)) * sx, 2 * (x*y + z*w) * sx, 2 * (x*z - y*w) * sx, 0,
		2 * (x*y - z*w) * sy, (1 - 2*(x*x+z*z)) * sy, 2 * (y*z + x*w) * sy, 0,
		2 * (x*z + y*w) * sz, 2 * (y*z - x*w) * sz, (1 - 2*(x*x+y*y)) * sz, 0,
		float64(t[0]), float64(t[1]), float64(t[2]), 1,
	}
}

// defaultPose returns every node's world matrix at the start of the first animation (the rest
// pose where it has no channel).
func defaultPose(s *scene.Scene) []mat4 {
	n := len(s.Nodes)
	t := make([][3]float32, n)
	r := make([][4]float32, n)
	sc := make([][3]float32, n)
	for i, nd := range s.Nodes {
		t[i], r[i], sc[i] = nd.Translation, nd.Rotation, nd.Scale
	}
	if len(s.Animations) > 0 {
		for _, ch := range s.Animations[0].Channels {
			if ch.Node < 0 || ch.Node >= n || len(ch.Times) == 0 {
				continue
			}
			w := ch.Path.Width()
			first := ch.Values
			if ch.Interp == scene.CubicSpline {
				if len(first) < 2*w {
					continue
				}
				first = first[w:] // in-tangent, value, out-tangent
			}
			if w == 0 || len(first) < w {
				continue
			}
			switch ch.Path {
			case scene.PathTranslation:
				t[ch.Node] = [3]float32(first[:3])
			case scene.PathRotation:
				r[ch.Node] = [4]float32(first[:4])
			case scene.PathScale:
				sc[ch.Node] = [3]float32(first[:3])
			}
		}
	}
	world := make([]mat4, n)
	done := make([]int8, n) // 0 not yet, 1 in progress, 2 done
	var visit func(i int) mat4
	visit = func(i int) mat4 {
		if done[i] == 2 {
			return world[i]
		}
		local := trs(t[i], r[i], sc[i])
		if p := s.Nodes[i].Parent; p >= 0 && p < n && done[p] != 1 {
			done[i] = 1
			pw := visit(p)
			local = mul(&pw, &local)
		}
		world[i], done[i] = local, 2
		return local
	}
	for i := range n {
		visit(i)
	}
	return world
}

// invertAffine inverts an affine matrix; ok is false when it is singular.
func invertAffine(m *mat4) (inv mat4, ok bool) {
	a, b, c := m[0], m[4], m[8]
	d, e, f := m[1], m[5], m[9]
	g, h, k := m[2], m[6], m[10]
	det := a*(e*k-f*h) - b*(d*k-f*g) + c*(d*h-e*g)
	if math.Abs(det) < 1e-12 || math.IsNaN(det) || math.IsInf(det, 0) {
		return inv, false
	}
	id := 1 / det
	r := [9]float64{
		(e*k - f*h) * id, (c*h - b*k) * id, (b*f - c*e) * id,
		(f*g - d*k) * id, (a*k - c*g) * id, (c*d - a*f) * id,
		(d*h - e*g) * id, (b*g - a*h) * id, (a*e - b*d) * id,
	}
	tx, ty, tz := m[12], m[13], m[14]
	inv = mat4{
		r[0], r[3], r[6], 0,
		r[1], r[4], r[7], 0,
		r[2], r[5], r[8], 0,
		-(r[0]*tx + r[1]*ty + r[2]*tz), -(r[3]*tx + r[4]*ty + r[5]*tz), -(r[6]*tx + r[7]*ty + r[8]*tz), 1,
	}
	return inv, true
}

func apply(m *mat4, p [3]float64) [3]float64 {
	return [3]float64{
		m[0]*p[0] + m[4]*p[1] + m[8]*p[2] + m[12],
		m[1]*p[0] + m[5]*p[1] + m[9]*p[2] + m[13],
		m[2]*p[0] + m[6]*p[1] + m[10]*p[2] + m[14],
	}
}

// collapsePoints returns, for skinned mesh m, where each vertex goes when the mesh is hidden
// (see above), or nil when the mesh is not skinned or a vertex's skinning cannot be undone.
func (e *encoder) collapsePoints(m *scene.Mesh) [][3]float64 {
	s := e.s
	if m.Skin < 0 || m.Skin >= len(s.Skins) || len(m.Joints) == 0 {
		return nil
	}
	if e.pose == nil {
		e.pose = defaultPose(s)
	}
	sk := &s.Skins[m.Skin]
	joint := make([]mat4, len(sk.Joints))
	for j, ni := range sk.Joints {
		if ni < 0 || ni >= len(e.pose) || j >= len(sk.InverseBind) {
			return nil
		}
		var ib mat4
		for k, v := range sk.InverseBind[j] {
			ib[k] = float64(v)
		}
		joint[j] = mul(&e.pose[ni], &ib)
	}
	nv := len(m.Positions)
	skin := make([]mat4, nv)
	var centre [3]float64
	for v := range nv {
		var mv mat4
		for set := range m.Joints {
			for k := range 4 {
				w := float64(m.Weights[set][v][k])
				j := int(m.Joints[set][v][k])
				if w == 0 || j >= len(joint) {
					continue
				}
				for x := range mv {
					mv[x] += w * joint[j][x]
				}
			}
		}
		skin[v] = mv
		p := m.Positions[v]
		q := apply(&mv, [3]float64{float64(p[0]), float64(p[1]), float64(p[2])})
		for k := range 3 {
			centre[k] += q[k] / float64(nv)
		}
	}
	out := make([][3]float64, nv)
	for v := range nv {
		inv, ok := invertAffine(&skin[v])
		if !ok {
			return nil
		}
		out[v] = apply(&inv, centre)
	}
	return out
}
