package m2

import (
	"math"
	"sort"
)

// This file holds the game's evaluation of a bone track and the cutting of one sequence's keys
// out of it, before the keys go to package anim.
//
// M2 semantics, as far as bone tracks go:
//   - Interpolation 0 holds each key until the next, 1 interpolates linearly (shortest-path
//     slerp for quaternions). 2 and 3 are spline types whose tangents live in M2SplineKey
//     values; bone tracks store plain values, so there are no tangents to use and they are
//     interpolated linearly (with a warning).
//   - Before its first key a sequence shows the first key's value, after its last key the last
//     one's; a sequence without keys shows the track's default (the rest pose).
//   - Before v264 all sequences share one timeline and each track has, per sequence, a range of
//     key indices: the sequence's curve is made of those keys, even ones outside its window
//     (real files put the value a bone holds through a sequence on keys before and after it).
//     A track without a range for a sequence uses the keys inside the window.
//   - From v264 each sequence has its own keys, times from its start.

// curveKeys is the key list a sequence shows: times (ms) and values, width floats each.
type curveKeys struct {
	times  []uint32
	vals   []float32
	width  int
	linear bool // interpolation 1 (or 2, 3 read as linear); else step
	rot    bool // quaternions: slerp
}

// eval returns the curve's value at time t (ms on the keys' clock); the keys must be sorted
// and not empty.
func (c *curveKeys) eval(t float64) [4]float64 {
	n := len(c.times)
	val := func(k int) [4]float64 {
		var v [4]float64
		for i := 0; i < c.width; i++ {
			v[i] = float64(c.vals[k*c.width+i])
		}
		return v
	}
	if t <= float64(c.times[0]) {
		// With repeated times at the start, the later key wins.
		k := 0
		for k+1 < n && c.times[k+1] == c.times[0] && t == float64(c.times[0]) {
			k++
		}
		return val(k)
	}
	if t >= float64(c.times[n-1]) {
		return val(n - 1)
	}
	j := sort.Search(n, func(k int) bool { return float64(c.times[k]) > t })
	i := j - 1
	a := val(i)
	if !c.linear {
		return a
	}
	b := val(j)
	u := (t - float64(c.times[i])) / float64(c.times[j]-c.times[i])
	if c.rot {
		return slerp(a, b, u)
	}
	var out [4]float64
	for k := range out {
		out[k] = a[k] + (b[k]-a[k])*u
	}
	return out
}

// slerp is shortest-path spherical linear interpolation, normalised.
func slerp(a, b [4]float64, u float64) [4]float64 {
	d := a[0]*b[0] + a[1]*b[1] + a[2]*b[2] + a[3]*b[3]
	if d < 0 {
		d = -d
		for i := range b {
			b[i] = -b[i]
		}
	}
	w0, w1 := 1-u, u
	if 1-d > 1e-6 {
		om := math.Acos(min(d, 1))
		so := math.Sin(om)
		w0, w1 = math.Sin((1-u)*om)/so, math.Sin(u*om)/so
	}
	var out [4]float64
	var l2 float64
	for i := range out {
		out[i] = w0*a[i] + w1*b[i]
		l2 += out[i] * out[i]
	}
	if l2 > 0 {
		inv := 1 / math.Sqrt(l2)
		for i := range out {
			out[i] *= inv
		}
	}
	return out
}

// window cuts the curve to [s, e] (ms on its clock) and rebases it to start at 0: the keys
// inside the window, plus keys at its edges holding the curve's value there when no key sits
// exactly on an edge. The result, interpolated the same way, is the same curve over the window.
func (c *curveKeys) window(s, e uint32) (frames []int64, vals []float32) {
	n := len(c.times)
	if n == 0 {
		return nil, nil
	}
	w := c.width
	frames = make([]int64, 0, n+2)
	vals = make([]float32, 0, (n+2)*w)
	add := func(t uint32, v []float32) {
		frames = append(frames, int64(t)-int64(s))
		vals = append(vals, v...)
	}
	edge := func(t uint32) {
		v := c.eval(float64(t))
		var f [4]float32
		for i := 0; i < w; i++ {
			f[i] = float32(v[i])
		}
		add(t, f[:w])
	}
	a := sort.Search(n, func(k int) bool { return c.times[k] >= s })
	if a == n || c.times[a] > s {
		edge(s)
	}
	z := a
	for ; z < n && c.times[z] <= e; z++ {
		add(c.times[z], c.vals[z*w:z*w+w])
	}
	if e > s && (z == a || c.times[z-1] < e) {
		edge(e)
	}
	return frames, vals
}

// sortKeys makes the keys' times non-decreasing (stable), reporting whether they had to move.
func sortKeys(times []uint32, vals []float32, w int) ([]uint32, []float32, bool) {
	if sortedU32(times) {
		return times, vals, false
	}
	idx := make([]int, len(times))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return times[idx[a]] < times[idx[b]] })
	t2 := make([]uint32, len(times))
	v2 := make([]float32, 0, len(vals))
	for i, k := range idx {
		t2[i] = times[k]
		v2 = append(v2, vals[k*w:k*w+w]...)
	}
	return t2, v2, true
}

// sortedU32 reports whether v is non-decreasing: slices.IsSorted, without the generic
// comparison's cost (it runs over every key of every sequence).
func sortedU32(v []uint32) bool {
	for i := 1; i < len(v); i++ {
		if v[i] < v[i-1] {
			return false
		}
	}
	return true
}
