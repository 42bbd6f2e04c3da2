package anim

import (
	"math"
	"sort"
)

// Sample evaluates tr at time t (ms since the start of clip w) the way the game does. For a
// global-sequence track t is taken modulo the period (the global clock is at 0 when the clip
// starts); otherwise t is clamped to the window.
func Sample(tr *Track, w Window, t float64) ([]float64, error) {
	if err := tr.Check(); err != nil {
		return nil, err
	}
	v := tr.sample(w, t)
	return append([]float64(nil), v[:tr.Width]...), nil
}

// SampleInto is Sample without the check, for a track that has passed Check once and is
// sampled many times: out gets the first len(out) components (at most Width).
func (tr *Track) SampleInto(w Window, t float64, out []float64) {
	v := tr.sample(w, t)
	copy(out, v[:min(len(out), tr.Width)])
}

// sample is Sample without the check.
func (tr *Track) sample(w Window, t float64) val {
	sw := tr.SourceWindow(w)
	var s float64
	if tr.Global {
		if tr.Period > 0 {
			s = math.Mod(t, float64(tr.Period))
			if s < 0 {
				s += float64(tr.Period)
			}
		}
	} else {
		s = min(max(float64(w.Start)+t, float64(w.Start)), float64(w.End))
	}
	return tr.at(sw, s)
}

// at evaluates the track at source time s with window sw.
func (tr *Track) at(sw Window, s float64) val {
	first, end := tr.KeysIn(sw.Start, sw.End)
	switch {
	case first == end:
		return tr.def()
	case s <= float64(tr.Frames[first]):
		return tr.value(first)
	case s >= float64(tr.Frames[end-1]):
		return tr.value(end - 1)
	}
	// j is the first key after s; with repeated frames the later key wins.
	j := first + sort.Search(end-first, func(k int) bool { return float64(tr.Frames[first+k]) > s })
	i := j - 1
	u := (s - float64(tr.Frames[i])) / float64(tr.Frames[j]-tr.Frames[i])
	return tr.interp(i, j, u)
}

// interp evaluates the segment from key i to key j at normalised parameter u.
func (tr *Track) interp(i, j int, u float64) val {
	a, d := tr.value(i), tr.value(j)
	switch tr.Interp {
	case DontInterp:
		return a
	case Linear:
		if tr.Rotation {
			return slerp(a, d, u)
		}
		return lerp(a, d, u)
	}
	b, c := tr.outTan(i), tr.inTan(j)
	if tr.Rotation {
		return sqlerp(a, b, c, d, u)
	}
	if tr.Interp == Bezier {
		return bezier(a, b, c, d, u)
	}
	return hermite(a, b, c, d, u)
}

func lerp(a, b val, u float64) val {
	var out val
	for i := range out {
		out[i] = a[i] + (b[i]-a[i])*u
	}
	return out
}

// hermite evaluates the cubic Hermite curve from p0 to p1 with tangents m0 (leaving p0) and m1
// (arriving at p1), all for the parameter u ∈ [0, 1].
func hermite(p0, m0, m1, p1 val, u float64) val {
	u2, u3 := u*u, u*u*u
	h00 := 2*u3 - 3*u2 + 1
	h10 := u3 - 2*u2 + u
	h01 := -2*u3 + 3*u2
	h11 := u3 - u2
	var out val
	for i := range out {
		out[i] = h00*p0[i] + h10*m0[i] + h01*p1[i] + h11*m1[i]
	}
	return out
}

// bezier evaluates the cubic Bezier curve with control points p0, c0, c1, p1.
func bezier(p0, c0, c1, p1 val, u float64) val {
	v := 1 - u
	b0, b1, b2, b3 := v*v*v, 3*u*v*v, 3*u*u*v, u*u*u
	var out val
	for i := range out {
		out[i] = b0*p0[i] + b1*c0[i] + b2*c1[i] + b3*p1[i]
	}
	return out
}

func dot(a, b val) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] + a[3]*b[3] }

func neg(a val) val { return val{-a[0], -a[1], -a[2], -a[3]} }

// arc is the shortest-path slerp from one quaternion to another, with the angle worked out
// once so that each point along it costs one Sincos.
type arc struct {
	a, b val // b is in a's hemisphere
	om   float64
	inv  float64 // 1 / sin(om)
	cot  float64 // cos(om) / sin(om)
	lin  bool    // the ends are so close that the arc falls back to lerp
}

// newArc prepares slerp from a to b: shortest path, falling back to lerp when they are nearly
// equal (as gl-matrix, which the reference viewer uses, does).
func newArc(a, b val) arc {
	c := dot(a, b)
	if c < 0 {
		c, b = -c, neg(b)
	}
	r := arc{a: a, b: b, lin: !(1-c > 1e-6)}
	if !r.lin {
		r.om = math.Acos(min(c, 1))
		so := math.Sin(r.om)
		r.inv, r.cot = 1/so, c/so
	}
	return r
}

// at returns the point at parameter u: sin((1−u)ω)/sin ω · a + sin(uω)/sin ω · b, with
// sin((1−u)ω) expanded as sin ω cos uω − cos ω sin uω.
func (r *arc) at(u float64) val {
	s0, s1 := 1-u, u
	if !r.lin {
		sn, cs := math.Sincos(u * r.om)
		s0, s1 = cs-r.cot*sn, sn*r.inv
	}
	var out val
	for i := range out {
		out[i] = s0*r.a[i] + s1*r.b[i]
	}
	return out
}

// Coefficients of the minimax polynomials for sin and cos on [−π/4, π/4] (Cephes, as math.Sincos
// uses them): sin z = z + z³·S(z²), cos z = 1 − z²/2 + z⁴·C(z²).
const (
	sin0 = 1.58962301576546568060e-10
	sin1 = -2.50507477628578072866e-8
	sin2 = 2.75573136213857245213e-6
	sin3 = -1.98412698295895385996e-4
	sin4 = 8.33333333332211858878e-3
	sin5 = -1.66666666666666307295e-1
	cos0 = -1.13585365213876817300e-11
	cos1 = 2.08757008419747316778e-9
	cos2 = -2.75573141792967388112e-7
	cos3 = 2.48015872888517045348e-5
	cos4 = -1.38888888888730564116e-3
	cos5 = 4.16666666666665929218e-2
)

// sincos returns sin x and cos x for |x| ≤ π/2 (to within an ulp or two, like math.Sincos)
// without math.Sincos's general range reduction: on [−π/4, π/4] it evaluates the Cephes
// polynomials directly, and beyond it uses sin x = cos(π/2 − x), cos x = sin(π/2 − x), where
// π/2 − |x| is exact (Sterbenz) up to the rounding of π/2, which piO2Lo adds back.
func sincos(x float64) (sin, cos float64) {
	const piO2Lo = 6.123233995736766e-17 // π/2 − float64(π/2)
	if xx := x * x; xx < 1.0/64 {
		// |x| < 1/8, as most angles baking meets are: the Taylor series to x⁹ and x⁸, whose
		// remainders (x¹¹/11!, x¹⁰/10! < 3e-17) are below the rounding.
		sin = x + x*xx*(-1.0/6+xx*(1.0/120+xx*(-1.0/5040+xx*(1.0/362880))))
		cos = 1 + xx*(-0.5+xx*(1.0/24+xx*(-1.0/720+xx*(1.0/40320))))
		return sin, cos
	}
	z := math.Abs(x)
	swap := z > math.Pi/4
	if swap {
		z = (math.Pi/2 - z) + piO2Lo
	}
	zz := z * z
	cos = 1.0 - 0.5*zz + zz*zz*((((((cos0*zz)+cos1)*zz+cos2)*zz+cos3)*zz+cos4)*zz+cos5)
	sin = z + z*zz*((((((sin0*zz)+sin1)*zz+sin2)*zz+sin3)*zz+sin4)*zz+sin5)
	if swap {
		sin, cos = cos, sin
	}
	if x < 0 {
		sin = -sin
	}
	return sin, cos
}

// slerp is shortest-path spherical linear interpolation of quaternions (see newArc).
func slerp(a, b val, u float64) val {
	r := newArc(a, b)
	return r.at(u)
}

// sqlerp is the game's quaternion Hermite/Bezier interpolation: slerp(slerp(a, d, u),
// slerp(b, c, u), 2u(1−u)) where b is the out-tangent of a and c the in-tangent of d.
func sqlerp(a, b, c, d val, u float64) val {
	return slerp(slerp(a, d, u), slerp(b, c, u), 2*u*(1-u))
}

// normalize returns q scaled to unit length (q itself when that is impossible).
func normalize(q val) val {
	l := math.Sqrt(dot(q, q))
	if l == 0 || math.IsNaN(l) || math.IsInf(l, 0) {
		return q
	}
	for i := range q {
		q[i] /= l
	}
	return q
}
