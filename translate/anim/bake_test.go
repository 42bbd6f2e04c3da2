package anim

import (
	"math"
	"testing"
)

// TestSincos compares sincos with math.Sincos over [−π/2, π/2] and a little beyond.
func TestSincos(t *testing.T) {
	worst := 0.0
	for i := -100000; i <= 100000; i++ {
		x := float64(i) / 100000 * (math.Pi/2 + 1e-9)
		s, c := sincos(x)
		ws, wc := math.Sincos(x)
		worst = max(worst, math.Abs(s-ws), math.Abs(c-wc))
	}
	if worst > 1e-15 {
		t.Errorf("sincos differs from math.Sincos by %g", worst)
	}
}

// TestBakerArithmetic checks the baker's curve points against normalize(sqlerp) and its
// chords against slerp, on the benchmark's tracks (keys and tangents in both hemispheres).
func TestBakerArithmetic(t *testing.T) {
	tracks, wins := synthRotations(6, 30, 1)
	worstPt, worstChord := 0.0, 0.0
	for _, tr := range tracks {
		segs, _, err := tr.segments(wins[0], nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range segs {
			s := &segs[i]
			if s.kind != segSquad {
				continue
			}
			bk := baker{s: s, ad: newQarc(s.p[0], s.p[3]), bc: newQarc(s.p[1], s.p[2])}
			const n = 64
			for k := 0; k <= n; k++ {
				x := s.a + (s.b-s.a)*float64(k)/n
				got := bk.point(x).q.val()
				worstPt = max(worstPt, quatDist(got, normalize(s.value(x))))
				for _, y := range []float64{s.a, s.b, s.a + (s.b-s.a)*float64(n-k)/(2*n)} {
					a, b := got, bk.point(y).q.val()
					ch := newChord(toQuat(a), toQuat(b))
					for _, f := range []float64{0, 0.25, 0.4999, 0.5, 0.75, 1} {
						worstChord = max(worstChord, quatDist(ch.at(f).val(), exactSlerp(a, b, f)))
					}
				}
			}
		}
	}
	if worstPt > 1e-13 || worstChord > 1e-13 {
		t.Errorf("curve points off by %g, chords by %g", worstPt, worstChord)
	}
	t.Logf("curve points off by %.3g, chords by %.3g", worstPt, worstChord)
}

// exactSlerp is slerp without the lerp fallback for close ends, for unit a and b: the angle
// from atan2(|b−a|, |b+a|), which stays accurate for small angles.
func exactSlerp(a, b val, u float64) val {
	if dot(a, b) < 0 {
		b = neg(b)
	}
	var sum, dif val
	for i := range sum {
		sum[i], dif[i] = a[i]+b[i], b[i]-a[i]
	}
	om := 2 * math.Atan2(math.Sqrt(dot(dif, dif)), math.Sqrt(dot(sum, sum)))
	if om == 0 {
		return a
	}
	s0, s1 := math.Sin((1-u)*om)/math.Sin(om), math.Sin(u*om)/math.Sin(om)
	var out val
	for i := range out {
		out[i] = s0*a[i] + s1*b[i]
	}
	return out
}
