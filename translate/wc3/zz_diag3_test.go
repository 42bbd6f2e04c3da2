package wc3_test

import (
	"math"
	"os"
	"testing"

	"github.com/modelfs/modelfs/translate/anim"
	"github.com/modelfs/modelfs/translate/wc3/mdl"
)

func TestZZDiag3(t *testing.T) {
	data, _ := os.ReadFile(orcPath)
	m, _ := mdl.Read("hce_orc.mdl", data)
	var rt = m.Helpers[0].Rotation
	for _, h := range m.Helpers {
		if h.Name == "Bone_Leg2_R" {
			rt = h.Rotation
		}
	}
	tr := &anim.Track{Interp: anim.Interp(rt.Interp), Width: 4, Rotation: true, Values: rt.Values, InTans: rt.InTans, OutTans: rt.OutTans, Default: []float32{0, 0, 0, 1}}
	for _, f := range rt.Frames {
		tr.Frames = append(tr.Frames, int64(f))
	}
	for _, seg := range [][2]int64{{667, 733}, {867, 900}} {
		w := anim.Window{Start: seg[0], End: seg[1]}
		L := float64(seg[1] - seg[0])
		N := 400
		h := L / float64(N)
		get := func(x float64) []float64 {
			q, _ := anim.Sample(tr, w, x)
			n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
			for i := range q {
				q[i] /= n
			}
			return q
		}
		var maxacc float64
		for k := 1; k < N; k += 1 {
			a, b, c := get(float64(k-1)*h), get(float64(k)*h), get(float64(k+1)*h)
			acc := 0.0
			for i := range 4 {
				acc = max(acc, math.Abs(a[i]-2*b[i]+c[i])/(h*h))
			}
			maxacc = max(maxacc, acc)
			if k%20 == 0 {
				t.Logf("%v: x=%.2f acc %.3g/ms²", seg, float64(k)*h, acc)
			}
		}
		// uniform pieces needed for tol: h²·acc/8 ≤ tol
		for _, tol := range []float64{1e-5, 5e-5} {
			t.Logf("%v maxacc %.3g: uniform pieces for %g: %.1f", seg, maxacc, tol, L/math.Sqrt(8*tol/maxacc))
		}
	}
}
