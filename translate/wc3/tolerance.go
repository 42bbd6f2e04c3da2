package wc3

import (
	"math"
	"strconv"

	"github.com/modelfs/modelfs/translate/anim"
	"github.com/modelfs/modelfs/translate/scene"
)

// bakeShare is how far, in parts of the model's size (the diagonal of its vertices' bounds, or
// the farthest its nodes move when that is more),
// the LINEAR samples baked of its Hermite and Bezier tracks may move any point from where the
// game's curves put it, all tracks together: a quarter of the 0.1 % the Blender playback check
// allows. Along the deepest chain of nodes with such tracks, each node gets an equal part.
const bakeShare = 2.5e-4

// travelCap bounds how much larger than its mesh a model's size may be taken for the room its
// nodes move in.
const travelCap = 4

// maxRotationTolerance caps how far a rotation track's channels may stray (the distance between
// unit quaternions; a rotation off by d is off by at most 2d radians): about half a degree, for
// the nodes that move little or nothing.
const maxRotationTolerance = 4e-3

// setTolerances decides how far each node track's channels may stray from the game's curve,
// and notes it in the node's extras ("animationTolerance": translation and rotation): the
// tolerance of a Hermite or Bezier track's baking, and the rounding a rotation may take to be
// stored in 16 bits. A translation's error moves the points below its node by as much; a
// rotation's, by the angle (at most twice the distance between the quaternions) times the
// node's reach (how far from it those points lie, widened by how far the translation tracks
// below it carry them). Every rotation track and every baked translation track takes an equal
// part of the budget along the deepest chain of them. A baked rotation spends its part on the
// bake and the rounding when both fit, else on the bake alone; none is baked tighter than the
// anim package's defaults. Scales keep anim.BakeTolerance and their values.
func (b *builder) setTolerances() {
	s := b.s
	n := len(s.Nodes)
	cubic := func(t nodeTrack) bool { return t.tr.Interp == anim.Hermite || t.tr.Interp == anim.Bezier }
	weight := make([]int, n) // tracks that may stray, per node
	for _, t := range b.tracks {
		if t.path == scene.PathRotation || (t.path == scene.PathTranslation && cubic(t)) {
			weight[t.node]++
		}
	}
	reach := anim.Reach(s)
	moved := make([]float64, n) // how far a node's translation track takes it from its rest place
	keyed := make([]float64, n) // of that, how far its keys surely take it
	for _, t := range b.tracks {
		if t.path == scene.PathTranslation {
			moved[t.node] = t.tr.Reach(s.Nodes[t.node].Translation)
			keyed[t.node] = t.tr.KeyReach(s.Nodes[t.node].Translation)
		}
	}
	ext := make([]float64, n)     // the farthest a chain of moving nodes below a node wanders
	extKeys := make([]float64, n) // the same, by their keys
	order, _ := anim.ByDepth(s)
	travel := 0.0 // the farthest any chain of moving nodes surely wanders
	for _, i := range order {
		travel = max(travel, extKeys[i]+keyed[i])
		if p := s.Nodes[i].Parent; p >= 0 {
			ext[p] = max(ext[p], ext[i]+moved[i])
			extKeys[p] = max(extKeys[p], extKeys[i]+keyed[i])
		}
	}
	// The model's size is its mesh's, or the room its nodes surely move in when that is larger:
	// an effect's emitters sweep hundreds of units around a mesh of a few, or none. (Tangents,
	// which a hostile file makes as steep as it likes, widen the rotations' reach but never the
	// size: they must not loosen the baking. Nor may one node parked far away to hide it: with
	// a mesh, the room counts up to travelCap times its size.)
	size := modelSize(s.Meshes)
	if size > 0 {
		travel = min(travel, travelCap*size)
	}
	part := bakeShare * max(size, travel) / float64(max(chainCount(s, weight), 1))
	for ti := range b.tracks {
		t := &b.tracks[ti]
		var total float64 // how far its channels may stray, all told
		switch {
		case t.path == scene.PathTranslation && cubic(*t):
			t.tr.Tolerance = max(part, anim.BakeTolerance)
			total = t.tr.Tolerance
		case t.path == scene.PathRotation:
			allow := maxRotationTolerance
			if r := reach[t.node] + ext[t.node]; r > 0 {
				allow = min(part/(2*r), maxRotationTolerance)
			}
			switch {
			case !cubic(*t) && allow >= scene.ShortRounding:
				t.rounding = scene.ShortRounding
			case cubic(*t) && allow-scene.ShortRounding >= anim.RotationBakeTolerance:
				t.tr.Tolerance, t.rounding = allow-scene.ShortRounding, scene.ShortRounding
			case cubic(*t):
				t.tr.Tolerance = max(allow, anim.RotationBakeTolerance)
			}
			total = t.tr.Tolerance + float64(t.rounding)
		}
		if total == 0 {
			continue
		}
		nd := &s.Nodes[t.node]
		if nd.Extras == nil {
			nd.Extras = scene.Extras{}
		}
		note, _ := nd.Extras["animationTolerance"].(map[string]any)
		if note == nil {
			note = map[string]any{}
			nd.Extras["animationTolerance"] = note
		}
		note[string(t.path)] = round3(total)
	}
}

// chainCount returns the largest sum of weights along one chain from a root down to a leaf.
func chainCount(s *scene.Scene, weight []int) int {
	sum := make([]int, len(s.Nodes)) // weights from here up to a root
	order, _ := anim.ByDepth(s)
	best := 0
	for k := len(order) - 1; k >= 0; k-- { // parents before children
		i := order[k]
		if p := s.Nodes[i].Parent; p >= 0 {
			sum[i] = sum[p]
		}
		sum[i] += weight[i]
		best = max(best, sum[i])
	}
	return best
}

// round3 rounds a tolerance up to three significant digits for the metadata.
func round3(v float64) float64 {
	if !(v > 0) {
		return v
	}
	e := math.Pow(10, math.Floor(math.Log10(v))-2)
	r, _ := strconv.ParseFloat(strconv.FormatFloat(math.Ceil(v/e)*e, 'g', 3, 64), 64)
	return max(r, v) // never below what it notes, whatever the decimal rounding
}
