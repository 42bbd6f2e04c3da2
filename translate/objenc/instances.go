package objenc

import (
	"math"

	"github.com/modelfs/modelfs/translate/scene"
)

// draw is one mesh as the OBJ writes it: where it is (world nil) or, for a shape drawn at a
// node, moved by that node's rest transform, since OBJ has no instances.
type draw struct {
	mesh  int
	world *affine
	name  string // the object's name before it is made unique
}

// draws lists what the OBJ writes: the meshes in scene order, except those of shapes drawn at
// nodes, then each such shape at each of its nodes that has a size, as long as the copies'
// vertices stay within scene.MaxFlattenedVertices; left counts the copies past it.
func draws(s *scene.Scene) (ds []draw, left int) {
	placed := make([]bool, len(s.Meshes))
	for _, sh := range s.Shapes {
		if len(sh.Instances) > 0 {
			for _, m := range sh.Meshes {
				if m >= 0 && m < len(placed) {
					placed[m] = true
				}
			}
		}
	}
	ds = make([]draw, 0, len(s.Meshes))
	for i := range s.Meshes {
		if !placed[i] {
			ds = append(ds, draw{mesh: i, name: s.Meshes[i].Name})
		}
	}
	var worlds map[int]*affine
	flattened := 0
	for _, sh := range s.Shapes {
		n := 0 // the vertices of one copy
		for _, m := range sh.Meshes {
			if m >= 0 && m < len(s.Meshes) {
				n += len(s.Meshes[m].Positions)
			}
		}
		for _, nd := range sh.Instances {
			if nd < 0 || nd >= len(s.Nodes) {
				continue
			}
			if worlds == nil {
				worlds = map[int]*affine{}
			}
			w := worldOf(s, nd, worlds)
			if w.det() == 0 {
				continue // scaled to nothing: a node the model does not show (a WMO's other doodad sets)
			}
			if flattened+n > scene.MaxFlattenedVertices {
				left++
				continue
			}
			flattened += n
			for _, m := range sh.Meshes {
				if m >= 0 && m < len(s.Meshes) {
					ds = append(ds, draw{mesh: m, world: w, name: s.Nodes[nd].Name + "_" + s.Meshes[m].Name})
				}
			}
		}
	}
	return ds, left
}

// drawNames makes the draws' object names unique and safe.
func drawNames(s *scene.Scene, ds []draw) []string {
	raw := make([]string, len(ds))
	for i, d := range ds {
		raw[i] = d.name
	}
	return uniqueNames(raw, "mesh")
}

// affine is a 3×4 transform: columns x, y, z and the translation.
type affine [4][3]float64

// worldOf returns node n's rest transform in the scene (its parents' applied), memoised in
// done. A parent chain that does not end (Validate refuses those) stops after len(s.Nodes).
func worldOf(s *scene.Scene, n int, done map[int]*affine) *affine {
	if w, ok := done[n]; ok {
		return w
	}
	nd := &s.Nodes[n]
	w := local(nd)
	if p := nd.Parent; p >= 0 && p < len(s.Nodes) && len(done) <= len(s.Nodes) {
		done[n] = &w // a cycle finds this one, not itself
		pw := worldOf(s, p, done)
		w = pw.then(&w)
	}
	done[n] = &w
	return &w
}

// local is a node's own rest transform: translate · rotate · scale.
func local(nd *scene.Node) affine {
	x, y, z, w := float64(nd.Rotation[0]), float64(nd.Rotation[1]), float64(nd.Rotation[2]), float64(nd.Rotation[3])
	if l := math.Sqrt(x*x + y*y + z*z + w*w); l > 0 {
		x, y, z, w = x/l, y/l, z/l, w/l
	} else {
		w = 1
	}
	sx, sy, sz := float64(nd.Scale[0]), float64(nd.Scale[1]), float64(nd.Scale[2])
	return affine{
		{(1 - 2*(y*y+z*z)) * sx, 2 * (x*y + z*w) * sx, 2 * (x*z - y*w) * sx},
		{2 * (x*y - z*w) * sy, (1 - 2*(x*x+z*z)) * sy, 2 * (y*z + x*w) * sy},
		{2 * (x*z + y*w) * sz, 2 * (y*z - x*w) * sz, (1 - 2*(x*x+y*y)) * sz},
		{float64(nd.Translation[0]), float64(nd.Translation[1]), float64(nd.Translation[2])},
	}
}

// then returns a applied after b: a·b.
func (a *affine) then(b *affine) affine {
	var r affine
	for c := range 4 {
		for row := range 3 {
			v := a[0][row]*b[c][0] + a[1][row]*b[c][1] + a[2][row]*b[c][2]
			if c == 3 {
				v += a[3][row]
			}
			r[c][row] = v
		}
	}
	return r
}

func (a *affine) point(p [3]float32) [3]float32 {
	var r [3]float32
	for row := range 3 {
		r[row] = float32(a[0][row]*float64(p[0]) + a[1][row]*float64(p[1]) + a[2][row]*float64(p[2]) + a[3][row])
	}
	return r
}

// normal moves a normal by the inverse transpose of the linear part, renormalised. With the
// linear part's columns m0, m1, m2, that is n ↦ (n₀ m1×m2 + n₁ m2×m0 + n₂ m0×m1) / det; the
// determinant's size goes with the renormalisation, its sign is kept.
func (a *affine) normal(n [3]float32) [3]float32 {
	var r [3]float64
	for i, c := range [3][3]float64{cross(a[1], a[2]), cross(a[2], a[0]), cross(a[0], a[1])} {
		for row := range 3 {
			r[row] += c[row] * float64(n[i])
		}
	}
	if a.det() < 0 {
		r = [3]float64{-r[0], -r[1], -r[2]}
	}
	l := math.Sqrt(r[0]*r[0] + r[1]*r[1] + r[2]*r[2])
	if l == 0 {
		return n
	}
	return [3]float32{float32(r[0] / l), float32(r[1] / l), float32(r[2] / l)}
}

func cross(u, v [3]float64) [3]float64 {
	return [3]float64{u[1]*v[2] - u[2]*v[1], u[2]*v[0] - u[0]*v[2], u[0]*v[1] - u[1]*v[0]}
}

// det is the determinant of the linear part: m0 · (m1 × m2).
func (a *affine) det() float64 {
	c := cross(a[1], a[2])
	return a[0][0]*c[0] + a[0][1]*c[1] + a[0][2]*c[2]
}
