package gltfenc

import (
	"encoding/binary"
	"math"
)

// The validator holds vertex data to tighter tolerances than scene.Validate (weights must sum to
// 1 within about 4e-7, normals must be unit length, joints must be distinct), so the encoder
// repairs the few vertices that are off while it writes them.

// weightSlack is how far a vertex's weight sum may stray from 1 before it is renormalised.
const weightSlack = 1e-7

// writeInfluences writes the joint and weight sets of a skinned mesh in one pass over the
// vertices, into regions reserved back to back: joints 0, weights 0, joints 1, weights 1, …
// Per vertex it drops joints with zero weight (joint 0, weight 0), merges repeated joints,
// and renormalises weights that do not sum to 1.
func writeInfluences(jdst, wdst [][]byte, joints [][][4]uint16, weights [][][4]float32, small bool) {
	if len(joints) == 1 && len(weights) == 1 {
		// One set, the usual case: check and write the joints in one pass.
		if writeClean1(jdst[0], wdst[0], joints[0], weights[0], small) {
			return
		}
	} else if influencesClean(joints, weights) {
		// Decoders mostly produce clean influences: bulk copies, no per-vertex work.
		for s := range joints {
			js := flat4u16(joints[s])
			if small {
				d := jdst[s][:len(js)]
				for i, j := range js {
					d[i] = byte(j)
				}
			} else {
				for i, j := range js {
					binary.LittleEndian.PutUint16(jdst[s][i*2:], j)
				}
			}
			putF32s(wdst[s], flat4(weights[s]))
		}
		return
	}
	sets := len(joints)
	k := sets * 4
	js := make([]uint16, k)
	ws := make([]float32, k)
	nv := len(joints[0])
	for v := 0; v < nv; v++ {
		for s := 0; s < sets; s++ {
			copy(js[s*4:s*4+4], joints[s][v][:])
			copy(ws[s*4:s*4+4], weights[s][v][:])
		}
		sanitizeInfluences(js, ws)
		for s := 0; s < sets; s++ {
			if small {
				d := jdst[s][v*4 : v*4+4]
				d[0], d[1], d[2], d[3] = byte(js[s*4]), byte(js[s*4+1]), byte(js[s*4+2]), byte(js[s*4+3])
			} else {
				d := jdst[s][v*8 : v*8+8]
				for c := 0; c < 4; c++ {
					binary.LittleEndian.PutUint16(d[c*2:], js[s*4+c])
				}
			}
			d := wdst[s][v*16 : v*16+16]
			for c := 0; c < 4; c++ {
				binary.LittleEndian.PutUint32(d[c*4:], math.Float32bits(ws[s*4+c]))
			}
		}
	}
}

// influencesClean reports whether every vertex already meets the validator's rules: weights
// finite and in [0, 1], joint 0 wherever the weight is 0, no joint twice, and a sum within
// weightSlack of 1.
func influencesClean(joints [][][4]uint16, weights [][][4]float32) bool {
	sets := len(joints)
	var seen [64]uint16
	for v := range joints[0] {
		var sum float64
		n := 0
		for s := 0; s < sets; s++ {
			j, w := &joints[s][v], &weights[s][v]
			for c := 0; c < 4; c++ {
				x := w[c]
				if x == 0 {
					if j[c] != 0 {
						return false
					}
					continue
				}
				if !(x > 0 && x <= 1) || n == len(seen) {
					return false
				}
				for _, prev := range seen[:n] {
					if prev == j[c] {
						return false
					}
				}
				seen[n] = j[c]
				n++
				sum += float64(x)
			}
		}
		if math.Abs(sum-1) > weightSlack {
			return false
		}
	}
	return true
}

// writeClean1 writes the joints and weights of a mesh with one influence set when every vertex
// is clean (as influencesClean defines it), checking each vertex as it writes its joints; it
// returns false, with the regions partly written, at the first vertex that is not, and the
// caller then writes them all again.
func writeClean1(jdst, wdst []byte, joints [][4]uint16, weights [][4]float32, small bool) bool {
	n := len(joints)
	if len(weights) != n {
		return false
	}
	if small {
		jdst = jdst[:n*4]
	} else {
		jdst = jdst[:n*8]
	}
	for v := range joints {
		j, w := &joints[v], &weights[v]
		if !quickClean(j, w) && !vertexClean1(j, w) {
			return false
		}
		if small {
			d := jdst[v*4 : v*4+4 : v*4+4]
			d[0], d[1], d[2], d[3] = byte(j[0]), byte(j[1]), byte(j[2]), byte(j[3])
		} else {
			d := jdst[v*8 : v*8+8 : v*8+8]
			binary.LittleEndian.PutUint64(d, uint64(j[0])|uint64(j[1])<<16|uint64(j[2])<<32|uint64(j[3])<<48)
		}
	}
	putF32s(wdst, flat4(weights))
	return true
}

// quickClean reports whether one vertex is clean by a test that takes few branches, which the
// usual vertex (weights between +0 and 1 summing to 1, joint 0 in the unused slots) passes. A
// vertex it rejects may still be clean (a -0 weight, say): vertexClean1 decides those.
func quickClean(j *[4]uint16, w *[4]float32) bool {
	u0, u1, u2, u3 := math.Float32bits(w[0]), math.Float32bits(w[1]), math.Float32bits(w[2]), math.Float32bits(w[3])
	// The bits of +0 … 1 are 0 … 0x3f800000; negatives (-0 too) and NaN have larger ones.
	if max(u0, u1, u2, u3) > 0x3f800000 {
		return false
	}
	// unused(u) is 1 for a zero weight, 0 for a positive one (u|-u has the top bit set unless
	// u is 0).
	unused := func(u uint32) uint32 { return 1 - (u|-u)>>31 }
	z0, z1, z2, z3 := unused(u0), unused(u1), unused(u2), unused(u3)
	if uint32(j[0])*z0|uint32(j[1])*z1|uint32(j[2])*z2|uint32(j[3])*z3 != 0 {
		return false // an unused slot names a joint other than 0
	}
	// Keys: the joint for a weighted slot, a value no joint has (one per slot) for an unused
	// one, so that only a repeated weighted joint makes two keys equal.
	k0, k1, k2, k3 := uint32(j[0])|z0<<16, uint32(j[1])|z1<<17, uint32(j[2])|z2<<18, uint32(j[3])|z3<<19
	if k0 == k1 || k0 == k2 || k0 == k3 || k1 == k2 || k1 == k3 || k2 == k3 {
		return false
	}
	// As influencesClean sums the non-zero weights in slot order; the zeros are +0 here and add
	// nothing.
	sum := float64(w[0]) + float64(w[1]) + float64(w[2]) + float64(w[3])
	return math.Abs(sum-1) <= weightSlack
}

// vertexClean1 is influencesClean for one vertex of a mesh with one influence set.
func vertexClean1(j *[4]uint16, w *[4]float32) bool {
	for c := 0; c < 4; c++ {
		// In [0, 1] (NaN fails), and joint 0 where the weight is 0.
		if !(w[c] >= 0 && w[c] <= 1) || w[c] == 0 && j[c] != 0 {
			return false
		}
	}
	// No joint twice among the weighted slots.
	if w[0] != 0 && (w[1] != 0 && j[0] == j[1] || w[2] != 0 && j[0] == j[2] || w[3] != 0 && j[0] == j[3]) ||
		w[1] != 0 && (w[2] != 0 && j[1] == j[2] || w[3] != 0 && j[1] == j[3]) ||
		w[2] != 0 && w[3] != 0 && j[2] == j[3] {
		return false
	}
	// Adding the zero weights (±0) to the sum changes nothing, so all four are added, in slot
	// order as influencesClean adds the non-zero ones.
	sum := float64(w[0]) + float64(w[1]) + float64(w[2]) + float64(w[3])
	return math.Abs(sum-1) <= weightSlack
}

// sanitizeInfluences repairs one vertex's influences in place.
func sanitizeInfluences(js []uint16, ws []float32) {
	for i, w := range ws {
		if !(w > 0) || math.IsInf(float64(w), 0) { // zero, negative, NaN or infinite
			js[i], ws[i] = 0, 0
			continue
		}
		for j := 0; j < i; j++ {
			if ws[j] > 0 && js[j] == js[i] {
				ws[j] += w
				js[i], ws[i] = 0, 0
				break
			}
		}
	}
	var sum float64
	for _, w := range ws {
		sum += float64(w)
	}
	if math.Abs(sum-1) <= weightSlack || sum == 0 {
		return
	}
	big := 0
	var sum2 float64
	for i, w := range ws {
		ws[i] = float32(float64(w) / sum)
		sum2 += float64(ws[i])
		if ws[i] > ws[big] {
			big = i
		}
	}
	ws[big] = float32(float64(ws[big]) + (1 - sum2))
}

// normalSlack is how far a normal's squared length may stray from 1 before it is renormalised.
const normalSlack = 1e-5

// fixNormals rescales, in the written buffer dst, the normals of n that are not unit length; a
// zero or non-finite normal becomes +Y.
func fixNormals(dst []byte, n [][3]float32) {
	for v, p := range n {
		l2 := float64(p[0])*float64(p[0]) + float64(p[1])*float64(p[1]) + float64(p[2])*float64(p[2])
		if math.Abs(l2-1) <= normalSlack {
			continue
		}
		q := [3]float32{0, 1, 0}
		if l2 > 0 && !math.IsInf(l2, 0) && !math.IsNaN(l2) {
			inv := 1 / math.Sqrt(l2)
			q = [3]float32{float32(float64(p[0]) * inv), float32(float64(p[1]) * inv), float32(float64(p[2]) * inv)}
		}
		putF32s(dst[v*12:], q[:])
	}
}

// fixTangents makes, in the written buffer dst, every tangent of t what glTF asks: a unit XYZ
// (a zero or non-finite one becomes +X) and a W of exactly 1 or −1 (−1 for a negative W).
func fixTangents(dst []byte, t [][4]float32) {
	for v, p := range t {
		l2 := float64(p[0])*float64(p[0]) + float64(p[1])*float64(p[1]) + float64(p[2])*float64(p[2])
		w := float32(1)
		if p[3] < 0 {
			w = -1
		}
		if math.Abs(l2-1) <= normalSlack && p[3] == w {
			continue
		}
		q := [4]float32{1, 0, 0, w}
		if l2 > 0 && !math.IsInf(l2, 0) && !math.IsNaN(l2) {
			inv := 1 / math.Sqrt(l2)
			q = [4]float32{float32(float64(p[0]) * inv), float32(float64(p[1]) * inv), float32(float64(p[2]) * inv), w}
		}
		putF32s(dst[v*16:], q[:])
	}
}
