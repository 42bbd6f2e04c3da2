package wc3_test

import (
	"math"
	"os"
	"testing"

	"github.com/modelfs/modelfs/translate/anim"
	"github.com/modelfs/modelfs/translate/wc3/mdl"
)

func TestZZDiag2(t *testing.T) {
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
	for i := 0; i+1 < len(tr.Frames); i++ {
		f0, f1 := tr.Frames[i], tr.Frames[i+1]
		if f0 < 667 || f1 > 1333 {
			continue
		}
		w := anim.Window{Start: f0, End: f1}
		res, _ := anim.Cut(tr, w)
		q0, _ := anim.Sample(tr, w, 0)
		q1, _ := anim.Sample(tr, w, float64(f1-f0))
		// max deviation from chord slerp, and |norm-1|
		dev, ndev := 0.0, 0.0
		for k := 0; k <= 200; k++ {
			u := float64(k) / 200
			q, _ := anim.Sample(tr, w, u*float64(f1-f0))
			n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
			ndev = max(ndev, math.Abs(n-1))
			c := slerpT(q0, q1, u)
			d1, d2 := 0.0, 0.0
			for j := range 4 {
				d1 = max(d1, math.Abs(q[j]/n-c[j]))
				d2 = max(d2, math.Abs(q[j]/n+c[j]))
			}
			dev = max(dev, min(d1, d2))
		}
		k := 4 * i
		t.Logf("%d-%d keys %d capped %v dev %.4f normdev %.2g a·b %.3f c·d %.3f a·d %.3f b·c %.3f", f0, f1, len(res.Channel.Times), res.Capped, dev, ndev,
			d4(rt.Values[k:], rt.OutTans[k:]), d4(rt.InTans[k+4:], rt.Values[k+4:]), d4(rt.Values[k:], rt.Values[k+4:]), d4(rt.OutTans[k:], rt.InTans[k+4:]))
	}
}

func d4(a, b []float32) float64 {
	s := 0.0
	for i := range 4 {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func slerpT(a, b []float64, u float64) []float64 {
	c := a[0]*b[0] + a[1]*b[1] + a[2]*b[2] + a[3]*b[3]
	bb := append([]float64(nil), b...)
	if c < 0 {
		c = -c
		for i := range bb {
			bb[i] = -bb[i]
		}
	}
	om := math.Acos(min(c, 1))
	s0, s1 := 1-u, u
	if om > 1e-9 {
		s0, s1 = math.Sin((1-u)*om)/math.Sin(om), math.Sin(u*om)/math.Sin(om)
	}
	out := make([]float64, 4)
	n := 0.0
	for i := range out {
		out[i] = s0*a[i] + s1*bb[i]
		n += out[i] * out[i]
	}
	for i := range out {
		out[i] /= math.Sqrt(n)
	}
	return out
}
