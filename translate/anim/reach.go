package anim

import (
	"math"

	"github.com/modelfs/modelfs/translate/scene"
)

// Reach returns, for every node of s, how far from the node the points that turn with it lie
// in the rest pose: the nodes below it and the vertices bound to it or to a node below it. It
// is an upper bound (the farthest corner of their bounding box from the node), and 0 for a
// node that moves nothing. A rotation error of θ radians at a node moves those points by at
// most θ times its reach, which is what lets a bake tolerance follow the node's size rather
// than the model's. s must be valid (scene.Validate).
func Reach(s *scene.Scene) []float64 {
	n := len(s.Nodes)
	world := restPositions(s)
	inf := math.Inf(1)
	lo := make([][3]float64, n)
	hi := make([][3]float64, n)
	for i := range lo {
		lo[i] = [3]float64{inf, inf, inf}
		hi[i] = [3]float64{-inf, -inf, -inf}
	}
	add := func(i int, p [3]float64) {
		for k := range 3 {
			lo[i][k], hi[i][k] = min(lo[i][k], p[k]), max(hi[i][k], p[k])
		}
	}
	for mi := range s.Meshes {
		m := &s.Meshes[mi]
		if m.Skin < 0 {
			continue
		}
		joints := s.Skins[m.Skin].Joints
		for set := range m.Joints {
			for v, js := range m.Joints[set] {
				p := [3]float64{float64(m.Positions[v][0]), float64(m.Positions[v][1]), float64(m.Positions[v][2])}
				for k, j := range js {
					if m.Weights[set][v][k] > 0 && int(j) < len(joints) {
						add(joints[j], p)
					}
				}
			}
		}
	}
	// Fold each node's box into its parent's, deepest nodes first, with the node itself.
	order, _ := ByDepth(s)
	for _, i := range order {
		if p := s.Nodes[i].Parent; p >= 0 {
			add(p, world[i])
			for k := range 3 {
				lo[p][k], hi[p][k] = min(lo[p][k], lo[i][k]), max(hi[p][k], hi[i][k])
			}
		}
	}
	reach := make([]float64, n)
	for i := range reach {
		if lo[i][0] > hi[i][0] {
			continue // moves nothing
		}
		var d2 float64
		for k := range 3 {
			d := max(math.Abs(lo[i][k]-world[i][k]), math.Abs(hi[i][k]-world[i][k]))
			d2 += d * d
		}
		reach[i] = math.Sqrt(d2)
	}
	return reach
}

// Depth returns the number of nodes on the longest chain from a root down to a leaf of s.
func Depth(s *scene.Scene) int {
	_, d := ByDepth(s)
	return d
}

// ByDepth returns the nodes of s, deepest first (a node before its parent), and the number of
// levels.
func ByDepth(s *scene.Scene) ([]int, int) {
	n := len(s.Nodes)
	depth := make([]int, n) // 1 for a root; 0 until known
	var of func(i int) int
	of = func(i int) int {
		if depth[i] == 0 {
			depth[i] = 1 // a guard; Validate has ruled out cycles
			if p := s.Nodes[i].Parent; p >= 0 {
				depth[i] = of(p) + 1
			}
		}
		return depth[i]
	}
	levels := 0
	for i := range n {
		levels = max(levels, of(i))
	}
	// Counting sort by depth, deepest first; within a level, in index order.
	count := make([]int, levels+2)
	for _, d := range depth {
		count[levels-d+1]++
	}
	for l := 1; l < len(count); l++ {
		count[l] += count[l-1]
	}
	order := make([]int, n)
	for i, d := range depth {
		order[count[levels-d]] = i
		count[levels-d]++
	}
	return order, levels
}

// restPositions returns where every node of s stands in the rest pose, in model space.
func restPositions(s *scene.Scene) [][3]float64 {
	n := len(s.Nodes)
	type affine struct{ m [3][4]float64 }
	world := make([]affine, n)
	done := make([]bool, n)
	var of func(i int) affine
	of = func(i int) affine {
		if done[i] {
			return world[i]
		}
		nd := &s.Nodes[i]
		local := trs(nd.Translation, nd.Rotation, nd.Scale)
		if p := nd.Parent; p >= 0 {
			pw := of(p)
			var m [3][4]float64
			for r := range 3 {
				for c := range 4 {
					v := pw.m[r][0]*local[0][c] + pw.m[r][1]*local[1][c] + pw.m[r][2]*local[2][c]
					if c == 3 {
						v += pw.m[r][3]
					}
					m[r][c] = v
				}
			}
			local = m
		}
		world[i], done[i] = affine{local}, true
		return world[i]
	}
	out := make([][3]float64, n)
	for i := range n {
		w := of(i).m
		out[i] = [3]float64{w[0][3], w[1][3], w[2][3]}
	}
	return out
}

// trs is the affine matrix (rows of a 3×4) of translation t, rotation q (x, y, z, w) and scale sc.
func trs(t [3]float32, q [4]float32, sc [3]float32) [3][4]float64 {
	x, y, z, w := float64(q[0]), float64(q[1]), float64(q[2]), float64(q[3])
	if l := math.Sqrt(x*x + y*y + z*z + w*w); l > 0 {
		x, y, z, w = x/l, y/l, z/l, w/l
	} else {
		w = 1
	}
	r := [3][3]float64{
		{1 - 2*(y*y+z*z), 2 * (x*y - z*w), 2 * (x*z + y*w)},
		{2 * (x*y + z*w), 1 - 2*(x*x+z*z), 2 * (y*z - x*w)},
		{2 * (x*z - y*w), 2 * (y*z + x*w), 1 - 2*(x*x+y*y)},
	}
	var m [3][4]float64
	for row := range 3 {
		for c := range 3 {
			m[row][c] = r[row][c] * float64(sc[c])
		}
		m[row][3] = float64(t[row])
	}
	return m
}
