// Package gltfsample evaluates a glTF 2.0 animation sampler at a point in time.
//
// It is written from the glTF 2.0 specification alone (section "Animations" and Appendix C,
// "Animation Sampler Interpolation Modes") and shares no code with the decoders, so tests can
// use it as an independent reference: feed it a channel from a scene, or the input and output
// accessors read back from a written .gltf file.
//
// Semantics implemented:
//   - Before the first key the first value holds, after the last key the last value holds.
//   - STEP: the value of the latest key at or before t.
//   - LINEAR: component-wise linear interpolation; for 4-wide values (rotations) spherical
//     linear interpolation along the shortest arc, as in Appendix C.
//   - CUBICSPLINE: each key stores (in-tangent, value, out-tangent); with tₖ ≤ t < tₖ₊₁ and
//     Δ = tₖ₊₁ − tₖ, s = (t − tₖ)/Δ, the value is the Hermite combination of vₖ, Δ·bₖ (out-tangent
//     of k), vₖ₊₁ and Δ·aₖ₊₁ (in-tangent of k+1); 4-wide results are normalised.
package gltfsample

import (
	"fmt"
	"math"
)

// Interpolation names as glTF writes them.
const (
	Step        = "STEP"
	Linear      = "LINEAR"
	CubicSpline = "CUBICSPLINE"
)

// Sample evaluates the sampler (interp, times, values) at time t, where every value has width
// floats; a width of 4 is taken to be a rotation quaternion (x, y, z, w).
func Sample(interp string, times, values []float32, width int, t float32) ([]float64, error) {
	n := len(times)
	if n == 0 || width <= 0 {
		return nil, fmt.Errorf("gltfsample: %d keys of width %d", n, width)
	}
	stride := width
	if interp == CubicSpline {
		stride = 3 * width
	} else if interp != Step && interp != Linear {
		return nil, fmt.Errorf("gltfsample: unknown interpolation %q", interp)
	}
	if len(values) != n*stride {
		return nil, fmt.Errorf("gltfsample: %d values for %d keys (%d per key)", len(values), n, stride)
	}
	for k := 1; k < n; k++ {
		if !(times[k] > times[k-1]) {
			return nil, fmt.Errorf("gltfsample: times not strictly increasing at key %d", k)
		}
	}
	// v returns part p (0 in-tangent, 1 value, 2 out-tangent for CUBICSPLINE) of key k.
	v := func(k, p int) []float64 {
		off := k * stride
		if interp == CubicSpline {
			off += p * width
		}
		out := make([]float64, width)
		for i := range out {
			out[i] = float64(values[off+i])
		}
		return out
	}
	if t <= times[0] {
		return v(0, 1), nil
	}
	if t >= times[n-1] {
		return v(n-1, 1), nil
	}
	k := 0
	for k+1 < n && times[k+1] <= t {
		k++
	}
	if interp == Step {
		return v(k, 1), nil
	}
	tk, tk1 := float64(times[k]), float64(times[k+1])
	td := tk1 - tk
	s := (float64(t) - tk) / td
	if interp == Linear {
		a, b := v(k, 1), v(k+1, 1)
		if width == 4 {
			return slerp(a, b, s), nil
		}
		out := make([]float64, width)
		for i := range out {
			out[i] = (1-s)*a[i] + s*b[i]
		}
		return out, nil
	}
	p0, m0 := v(k, 1), v(k, 2)
	p1, m1 := v(k+1, 1), v(k+1, 0)
	s2, s3 := s*s, s*s*s
	out := make([]float64, width)
	for i := range out {
		out[i] = (2*s3-3*s2+1)*p0[i] + (s3-2*s2+s)*td*m0[i] + (-2*s3+3*s2)*p1[i] + (s3-s2)*td*m1[i]
	}
	if width == 4 {
		l := math.Sqrt(out[0]*out[0] + out[1]*out[1] + out[2]*out[2] + out[3]*out[3])
		if l > 0 {
			for i := range out {
				out[i] /= l
			}
		}
	}
	return out, nil
}

// slerp follows Appendix C: a = arccos|d|, sign s of d, the weights sin(a(1−t))/sin a and
// s·sin(at)/sin a; nearly equal quaternions fall back to linear interpolation.
func slerp(a, b []float64, t float64) []float64 {
	d := a[0]*b[0] + a[1]*b[1] + a[2]*b[2] + a[3]*b[3]
	sign := 1.0
	if d < 0 {
		sign = -1
	}
	ang := math.Acos(math.Min(math.Abs(d), 1))
	w0, w1 := 1-t, sign*t
	if sa := math.Sin(ang); sa > 1e-9 {
		w0, w1 = math.Sin(ang*(1-t))/sa, sign*math.Sin(ang*t)/sa
	}
	out := make([]float64, 4)
	for i := range out {
		out[i] = w0*a[i] + w1*b[i]
	}
	return out
}

// Distance is the largest difference between the components of a and b; for rotations
// (quaternions) it is the smaller of that and the distance to -b, which is the same rotation.
func Distance(a, b []float64, rotation bool) float64 {
	dp, dn := 0.0, 0.0
	for i := range a {
		dp = max(dp, math.Abs(a[i]-b[i]))
		dn = max(dn, math.Abs(a[i]+b[i]))
	}
	if rotation {
		return min(dp, dn)
	}
	return dp
}
