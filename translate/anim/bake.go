package anim

import "math"

// minBakeSpan is the clip time (ms) below which baking stops splitting an interval whose
// deviation from the chord no longer shrinks as a smooth curve's does (by about the square of
// the split): the curve is taken to jump there (the outer slerp of sqlerp switching arcs), as
// at a key, and Result.Capped is set.
const minBakeSpan = 1.0

// maxSplit is the most pieces one interval is split into at once.
const maxSplit = 8

// lightShare is the share of the tolerance up to which an interval may be checked at its
// middle alone (see refine).
const lightShare = 0.2

// quat is a quaternion (x, y, z, w) for the baking arithmetic: the compiler keeps a small
// struct in registers, a [4]float64 (val) in memory.
type quat struct{ x, y, z, w float64 }

func toQuat(v val) quat  { return quat{v[0], v[1], v[2], v[3]} }
func (q quat) val() val  { return val{q.x, q.y, q.z, q.w} }
func (q quat) neg() quat { return quat{-q.x, -q.y, -q.z, -q.w} }
func (q quat) dot(r quat) float64 {
	return q.x*r.x + q.y*r.y + q.z*r.z + q.w*r.w
}

// normalize is normalize for quats: q scaled to unit length (q itself when that is
// impossible).
func (q quat) normalize() quat {
	l := math.Sqrt(q.dot(q))
	if l == 0 || math.IsNaN(l) || math.IsInf(l, 0) {
		return q
	}
	return quat{q.x / l, q.y / l, q.z / l, q.w / l}
}

// comb returns s·a + t·b.
func comb(s float64, a quat, t float64, b quat) quat {
	return quat{s*a.x + t*b.x, s*a.y + t*b.y, s*a.z + t*b.z, s*a.w + t*b.w}
}

// qarc is arc with its ends as quats, for the baker.
type qarc struct {
	a, b         quat
	om, inv, cot float64
	lin          bool
}

// newQarc prepares the slerp from a to b as newArc does.
func newQarc(a, b val) qarc {
	r := newArc(a, b)
	return qarc{toQuat(r.a), toQuat(r.b), r.om, r.inv, r.cot, r.lin}
}

// at is arc.at with sincos in place of math.Sincos (u ∈ [0, 1], so uω ∈ [0, π/2]); the two
// agree to an ulp or two.
func (r *qarc) at(u float64) quat {
	s0, s1 := 1-u, u
	if !r.lin {
		sn, cs := sincos(u * r.om)
		s0, s1 = cs-r.cot*sn, sn*r.inv
	}
	return comb(s0, r.a, s1, r.b)
}

// pt is a point of a baked curve: clip time (ms) and unit quaternion.
type pt struct {
	x float64
	q quat
}

// baker bakes one squad segment into LINEAR keys.
type baker struct {
	s      *seg
	ad, bc qarc // the inner slerps of sqlerp
	kl     *keyList
	budget *int
	capped *bool
}

// bake bakes a squad segment over [a, b]: it passes the curve's value at a to start (which
// adds the key there), appends to kl the interior samples, splitting each interval until the
// slerp between its ends is within the tolerance of the curve, and returns the value at b.
func (s *seg) bake(start func(val), kl *keyList, budget *int, capped *bool) val {
	bk := baker{s: s, ad: newQarc(s.p[0], s.p[3]), bc: newQarc(s.p[1], s.p[2]), kl: kl, budget: budget, capped: capped}
	a, b := bk.point(s.a), bk.point(s.b)
	start(a.q.val())
	bk.refine(a, b, nil, math.Inf(1), math.Inf(1), 0)
	return b.q.val()
}

// point samples the normalised curve at clip time x: sqlerp as seg.value computes it (up to
// rounding), with the inner slerps prepared once. The outer slerp, from p to q by
// v = 2u(1−u) ≤ ½, takes the weights of arc.at with sin ω = √((1−c)(1+c)) in place of
// sin(acos c), and sincos for vω ≤ π/4.
func (bk *baker) point(x float64) pt {
	u := bk.s.param(x)
	p, q := bk.ad.at(u), bk.bc.at(u)
	v := 2 * u * (1 - u)
	c := p.dot(q)
	if c < 0 {
		c, q = -c, q.neg()
	}
	var s0, s1 float64
	switch d := 1 - c; {
	case d <= 1e-6:
		s0, s1 = 1-v, v
	case d < 1e-3:
		// The inner slerps' points lie close: the weights sin(aφ)/sin φ by their series in φ²
		// (φ = acos c, φ² = 2d + d²/3 + 8d³/45 + …), off by about φ⁶/1000 < 1e-11, in place of
		// an arccosine and a sine and cosine.
		f2 := d * (2 + d*(1.0/3+d*(8.0/45)))
		w := func(a float64) float64 {
			b := 1 - a*a
			return a * (1 + b*f2*(1.0/6+(7-3*a*a)*f2*(1.0/360)))
		}
		s0, s1 = w(1-v), w(v)
	default:
		inv := 1 / math.Sqrt(d*(1+c))
		sn, cs := sincos(v * math.Acos(c))
		s0, s1 = cs-c*inv*sn, sn*inv
	}
	return pt{x, comb(s0, p, s1, q).normalize()}
}

// chord is the slerp from a unit quaternion a to b (shortest path) written as a rotation in
// the plane they span: with m = (a+b)/|a+b| its midpoint, t = (b−a)/|b−a| the unit tangent
// there (a+b ⊥ b−a for unit a, b) and α half the angle between a and b,
// slerp(a, b, s) = m cos((2s−1)α) + t sin((2s−1)α). |a+b| = 2 cos α and |b−a| = 2 sin α give
// α by one atan2, and |(2s−1)α| ≤ α ≤ π/4 suits sincos.
type chord struct {
	m, t quat
	half float64
}

// newChord prepares the slerp from unit quaternion a to b (b is flipped into a's hemisphere).
func newChord(a, b quat) chord {
	if a.dot(b) < 0 {
		b = b.neg()
	}
	sum := quat{a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w}
	dif := quat{b.x - a.x, b.y - a.y, b.z - a.z, b.w - a.w}
	ls, ld := math.Sqrt(sum.dot(sum)), math.Sqrt(dif.dot(dif))
	ch := chord{m: quat{sum.x / ls, sum.y / ls, sum.z / ls, sum.w / ls}, half: math.Atan2(ld, ls)}
	if ld > 0 {
		ch.t = quat{dif.x / ld, dif.y / ld, dif.z / ld, dif.w / ld}
	}
	return ch
}

// at returns the chord's point at fraction s.
func (ch *chord) at(s float64) quat {
	sn, cs := sincos((2*s - 1) * ch.half)
	return comb(cs, ch.m, sn, ch.t)
}

// refine emits the samples strictly inside (p0.x, p1.x) that the curve needs there.
//
// Over an interval, the deviation of the chord (the slerp from p0 to p1) from a smooth curve at
// fraction s is about D(s) = A·s(1−s)/2 + B·s(1−s)(2s−1)/12 + C·(1/16 − (s−½)⁴)/12, where the
// curve's second derivative there is −(A + B(s−½) + C(s−½)²) (in units of the span); D is the
// solution of D″ = that, D(0) = D(1) = 0. The A term peaks at the middle; the B and C terms can
// put the largest |D| elsewhere, by at most |B|/(72√3) (the extreme of the cubic) plus |C|/192
// (that of the quartic against an opposite A). A full check therefore samples the curve at a
// quarter, half and three quarters of the way, and reads B and C off the samples:
// D(¾) − D(¼) = B/64 and D(¼) + D(¾) − 1.5·D(½) = C/512. A piece of relative length r ≤ ½ of
// this interval sees B′ ≤ (|B| + |C|)·r³ and C′ = |C|·r⁴, so its largest |D| exceeds its middle's
// by at most r³·(0.52·|D(¾) − D(¼)| + 5.5·|D(¼) + D(¾) − 1.5·D(½)|). rough is that bound per
// ms³, passed down to the pieces. An interval whose bound is below lightShare·tolerance is
// checked at its middle alone, and passes when the middle's deviation plus the bound is within
// the tolerance; a middle within the tolerance but not by the bound calls for the full check,
// as does a bound above the share (at first rough is +Inf). So every interval is either
// checked as before at three points or shown within the tolerance by one and the bound, and
// the middle, computed before, often comes free (the quarter points of a halved interval).
// Deviations are lengths of differences of quaternions: D, A, B and C are 4-vectors, and the
// bounds hold for their lengths.
//
// mid, when not nil, is the curve sampled near the middle, already known; parentErr is the
// deviation measured on the interval this one was split from.
func (bk *baker) refine(p0, p1 pt, mid *pt, parentErr, rough float64, depth int) {
	span := p1.x - p0.x
	ch := newChord(p0.q, p1.q)
	var c [3]pt
	if mid != nil {
		c[1] = *mid
	} else {
		c[1] = bk.point(snap(p0.x + span/2))
	}
	d1, e := deviation(ch.at((c[1].x-p0.x)/span), c[1].q)
	hidden := rough * span * span * span
	full := !(hidden <= lightShare*bk.s.tolerance())
	if !full && e+hidden <= bk.s.tolerance() {
		return
	}
	// A light check that cannot decide (the middle within the tolerance, but not by the bound)
	// becomes a full one.
	full = full || e <= bk.s.tolerance()
	if full {
		c[0] = bk.point(snap(p0.x + span/4))
		c[2] = bk.point(snap(p0.x + span*3/4))
		d0, e0 := deviation(ch.at((c[0].x-p0.x)/span), c[0].q)
		d2, e2 := deviation(ch.at((c[2].x-p0.x)/span), c[2].q)
		e = max(e, e0, e2)
		if e <= bk.s.tolerance() {
			return
		}
		a, y := comb(1, d2, -1, d0), comb(1, comb(1, d0, 1, d2), -1.5, d1)
		asym, sym := math.Sqrt(a.dot(a)), math.Sqrt(y.dot(y))
		rough = (0.52*asym + 5.5*sym) / (span * span * span)
	}
	// Smooth curves deviate from the chord by about span²: n pieces bring e down by n².
	n := maxSplit
	if r := e / (0.9 * bk.s.tolerance()); r < maxSplit*maxSplit {
		n = max(2, int(math.Ceil(math.Sqrt(r))))
	}
	jump := span < minBakeSpan && e > parentErr/2
	if jump || depth >= maxBakeDepth || *bk.budget < n-1 {
		*bk.capped = true
		return
	}
	var pts [maxSplit + 1]pt
	pts[0], pts[n] = p0, p1
	for k := 1; k < n; k++ {
		switch {
		case 2*k == n:
			pts[k] = c[1]
		case full && 4*k == n:
			pts[k] = c[0]
		case full && 4*k == 3*n:
			pts[k] = c[2]
		default:
			pts[k] = bk.point(snap(p0.x + span*float64(k)/float64(n)))
		}
	}
	for k := 1; k <= n; k++ {
		if secs(pts[k].x) <= secs(pts[k-1].x) {
			*bk.capped = true // float32 time resolution
			return
		}
	}
	*bk.budget -= n - 1
	for k := 0; k < n; k++ {
		var m *pt
		if n == 2 && full {
			m = &c[2*k] // the quarter points are the halves' middles
		}
		bk.refine(pts[k], pts[k+1], m, e, rough, depth+1)
		if k+1 < n {
			bk.kl.add(key{t: secs(pts[k+1].x), v: pts[k+1].q.val()})
		}
	}
}

// deviation returns q − g, with q taken in g's hemisphere, and its length.
func deviation(g, q quat) (quat, float64) {
	if g.dot(q) < 0 {
		q = q.neg()
	}
	d := quat{q.x - g.x, q.y - g.y, q.z - g.z, q.w - g.w}
	return d, math.Sqrt(d.dot(d))
}

// bakeCubic appends to kl the samples strictly inside (s.a, s.b) that keep the straight line
// between consecutive samples within the tolerance of the cubic segment s (each component).
//
// Over an interval of length h, linear interpolation strays from a curve by at most h²·M/8,
// where M is the largest |f″| there; a cubic's f″ is linear, so over [u, u+h] M is the larger of
// |f″(u)| and |f″(u+h)| (per component). Each step takes the longest h that f″ at u allows, then
// shortens it to what the larger of f″ at u and at u+h allows: that M bounds the shorter step
// too. The samples are as far apart as the bound permits, and the bound holds on every interval.
func (s *seg) bakeCubic(kl *keyList, budget *int, capped *bool) {
	// f″(u) = a + b·u per component: with f = p0·h00 + m0·h10 + p1·h01 + m1·h11,
	// a = 6(p1 − p0) − 4m0 − 2m1 and b = 12(p0 − p1) + 6(m0 + m1).
	var a, b val
	p0, m0, m1, p1 := &s.p[0], &s.p[1], &s.p[2], &s.p[3]
	for i := range a {
		a[i] = 6*(p1[i]-p0[i]) - 4*m0[i] - 2*m1[i]
		b[i] = 12*(p0[i]-p1[i]) + 6*(m0[i]+m1[i])
	}
	curvature := func(u float64) float64 {
		return max(math.Abs(a[0]+b[0]*u), math.Abs(a[1]+b[1]*u), math.Abs(a[2]+b[2]*u), math.Abs(a[3]+b[3]*u))
	}
	step := func(m float64) float64 {
		if !(m > 0) {
			return math.Inf(1) // straight here (a NaN value fails validation later)
		}
		return math.Sqrt(8 * s.tolerance() / m)
	}
	u, end := s.param(s.a), s.param(s.b)
	last := s.a
	mu := curvature(u)
	for {
		h := step(mu)
		if u+h >= end {
			// The last interval: f″ at the segment's end bounds it too.
			if h = step(max(mu, curvature(end))); u+h >= end {
				return
			}
		} else {
			h = min(h, step(max(mu, curvature(u+h))))
		}
		x := snap(s.t0 + (u+h)*(s.t1-s.t0))
		if x >= s.b {
			return // the rest is within the bound up to the rounding of times
		}
		if *budget <= 0 || secs(x) <= secs(last) {
			*capped = true // the key cap, or float32 time resolution
			return
		}
		*budget--
		kl.add(key{t: secs(x), v: s.value(x)})
		last, u = x, s.param(x)
		mu = curvature(u)
	}
}
