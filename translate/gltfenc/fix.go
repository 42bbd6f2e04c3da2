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
	if influencesClean(joints, weights) {
		// The common case (decoders produce clean influences): bulk copies, no per-vertex work.
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
