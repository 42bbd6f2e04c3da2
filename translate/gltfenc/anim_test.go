package gltfenc

import (
	"math"
	"testing"

	"github.com/modelfs/modelfs/internal/testkit/gltfsample"
	"github.com/modelfs/modelfs/translate/scene"
)

// turn is a quaternion turning by deg degrees about a tilted axis.
func turn(deg float64) []float32 {
	x, y, z := 0.3, 0.9, 0.3
	l := math.Sqrt(x*x + y*y + z*z)
	s, c := math.Sincos(deg * math.Pi / 360)
	return []float32{float32(x / l * s), float32(y / l * s), float32(z / l * s), float32(c)}
}

// nlerp interpolates the components linearly and normalises, as Blender plays quaternion
// F-curves (its importer first flips every key that is antipodal to the one before).
func nlerp(times, values []float32, t float32) []float64 {
	values = append([]float32(nil), values...)
	for k := 4; k+4 <= len(values); k += 4 {
		if dot4([4]float32(values[k-4:]), [4]float32(values[k:])) < 0 {
			for i := k; i < k+4; i++ {
				values[i] = -values[i]
			}
		}
	}
	k := 0
	for k+2 < len(times) && times[k+1] <= t {
		k++
	}
	u := float64(t-times[k]) / float64(times[k+1]-times[k])
	u = min(max(u, 0), 1)
	q := make([]float64, 4)
	l := 0.0
	for i := range q {
		q[i] = (1-u)*float64(values[4*k+i]) + u*float64(values[4*k+4+i])
		l += q[i] * q[i]
	}
	for i := range q {
		q[i] /= math.Sqrt(l)
	}
	return q
}

func quatGap(a, b []float64) float64 {
	dp, dn := 0.0, 0.0
	for i := range a {
		dp = max(dp, math.Abs(a[i]-b[i]))
		dn = max(dn, math.Abs(a[i]+b[i]))
	}
	return min(dp, dn)
}

// TestSplitArcs: long LINEAR rotation arcs get slerp samples between their keys; the curve the
// glTF sampler follows stays the same, and component-wise interpolation of the keys (Blender's)
// follows it within the sampling tolerance. Keys already close, a jump (two keys one float32
// step apart) and a key repeated in the other hemisphere are left alone.
func TestSplitArcs(t *testing.T) {
	var vals []float32
	for _, d := range []float64{0, 90, 270, 275, 95} { // 90°, 180° (either way), 5°, 180°
		vals = append(vals, turn(d)...)
	}
	neg := turn(95)
	for i := range neg {
		neg[i] = -neg[i]
	}
	vals = append(vals, neg...) // the same rotation as the key before
	vals = append(vals, turn(0)...)
	jump := math.Nextafter32(2.75, 3)
	c := &scene.Channel{Path: scene.PathRotation, Interp: scene.Linear,
		Times: []float32{0, 0.5, 1, 1.5, 2.5, 2.75, jump}, Values: vals}
	out := splitArcs(c)
	// 90° → 6 pieces, 180° → 12, 5° → 1, 180° → 12, same → 1, jump → 1.
	if want := len(c.Times) + 5 + 11 + 11; len(out.Times) != want || len(out.Values) != 4*want {
		t.Fatalf("%d keys (%d values), want %d", len(out.Times), len(out.Values), want)
	}
	if n := arcSamples(c); n < len(out.Times)-len(c.Times) {
		t.Errorf("arcSamples %d, but splitArcs added %d", n, len(out.Times)-len(c.Times))
	}
	cosMax := math.Cos(maxArc + 1e-6)
	for k := 1; k < len(out.Times); k++ {
		if out.Times[k] <= out.Times[k-1] {
			t.Fatalf("times not increasing at %d: %v", k, out.Times)
		}
		a, b := [4]float32(out.Values[4*k-4:]), [4]float32(out.Values[4*k:])
		if d := math.Abs(dot4(unitQuat(a), unitQuat(b))); d < cosMax && out.Times[k] != jump {
			t.Errorf("keys %d and %d are %.2f° apart", k-1, k, 2*math.Acos(d)*180/math.Pi)
		}
	}
	worstSpec, worstBlender := 0.0, 0.0
	for i := 0; i <= 3000; i++ {
		ts := float32(2.8 * float64(i) / 3000)
		want, err := gltfsample.Sample(gltfsample.Linear, c.Times, c.Values, 4, ts)
		if err != nil {
			t.Fatal(err)
		}
		got, err := gltfsample.Sample(gltfsample.Linear, out.Times, out.Values, 4, ts)
		if err != nil {
			t.Fatal(err)
		}
		worstSpec = max(worstSpec, quatGap(got, want))
		worstBlender = max(worstBlender, quatGap(nlerp(out.Times, out.Values, ts), want))
	}
	t.Logf("largest change of the curve %.3g, largest gap of component interpolation %.3g", worstSpec, worstBlender)
	if worstSpec > 1e-6 {
		t.Errorf("the split channel's curve differs from the original by %.3g", worstSpec)
	}
	if worstBlender > 5e-5 {
		t.Errorf("component-wise interpolation strays %.3g from slerp", worstBlender)
	}
	spec, _ := gltfsample.Sample(gltfsample.Linear, c.Times, c.Values, 4, 0.125)
	if quatGap(nlerp(c.Times, c.Values, 0.125), spec) < 1e-3 {
		t.Errorf("the unsplit keys already interpolate well componentwise; the test shows nothing")
	}
	short := &scene.Channel{Path: scene.PathRotation, Interp: scene.Linear, Times: []float32{0, 1}, Values: append(turn(0), turn(15)...)}
	if splitArcs(short) != short {
		t.Error("a 15° turn was split")
	}
}
