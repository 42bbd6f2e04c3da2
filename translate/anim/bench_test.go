package anim

import (
	"math"
	"reflect"
	"testing"

	"github.com/modelfs/modelfs/internal/testkit/gltfsample"
)

// synthRotations builds a realistic set of Hermite rotation tracks: bones × keys keys every
// 33–133 ms, consecutive keys a few to ~40 degrees apart, tangent quaternions near their keys
// (as exporters write them), an occasional key or tangent stored in the opposite hemisphere,
// and clips that cut the timeline into windows.
func synthRotations(bones, keys, clips int) ([]*Track, []Window) {
	tracks := make([]*Track, bones)
	var end int64
	for bi := range tracks {
		tr := &Track{Interp: Hermite, Width: 4, Rotation: true, Default: []float32{0, 0, 0, 1}}
		f := int64(0)
		axis := [3]float64{math.Sin(float64(bi)), math.Cos(float64(bi) * 1.7), 0.5}
		ang := 0.0
		for k := range keys {
			tr.Frames = append(tr.Frames, f)
			f += 33 + int64((k*7+bi*3)%4)*33
			ang += 0.7 * math.Sin(float64(k)*0.9+float64(bi)) // up to ~40° per key
			q := axisAngle(axis, ang, float64(k+bi))
			in := axisAngle(axis, ang-0.12*math.Cos(float64(k)), float64(k+bi)+0.05)
			out := axisAngle(axis, ang+0.1*math.Sin(float64(k+bi)), float64(k+bi)-0.05)
			if (k+bi)%17 == 0 {
				q = negQ(q)
			}
			if (k+bi)%23 == 0 {
				in = negQ(in)
			}
			tr.Values = append(tr.Values, q[:]...)
			tr.InTans = append(tr.InTans, in[:]...)
			tr.OutTans = append(tr.OutTans, out[:]...)
		}
		end = max(end, f)
		tracks[bi] = tr
	}
	wins := make([]Window, clips)
	for c := range wins {
		wins[c] = Window{end * int64(c) / int64(clips), end * int64(c+1) / int64(clips)}
	}
	return tracks, wins
}

// axisAngle is a rotation by ang about an axis that wobbles with seed s.
func axisAngle(axis [3]float64, ang, s float64) [4]float32 {
	x, y, z := axis[0]+0.2*math.Sin(s*0.3), axis[1]+0.2*math.Cos(s*0.4), axis[2]
	l := math.Sqrt(x*x + y*y + z*z)
	sn := math.Sin(ang/2) / l
	return [4]float32{float32(x * sn), float32(y * sn), float32(z * sn), float32(math.Cos(ang / 2))}
}

func negQ(q [4]float32) [4]float32 { return [4]float32{-q[0], -q[1], -q[2], -q[3]} }

// BenchmarkCutHermiteRotation cuts 200 Hermite rotation tracks of 80 keys into 12 clips.
func BenchmarkCutHermiteRotation(b *testing.B) {
	tracks, wins := synthRotations(200, 80, 12)
	keys, capped := 0, 0
	b.ReportAllocs()
	for b.Loop() {
		keys, capped = 0, 0
		for _, w := range wins {
			for _, tr := range tracks {
				res, err := Cut(tr, w)
				if err != nil {
					b.Fatal(err)
				}
				keys += len(res.Channel.Times)
				if res.Capped {
					capped++
				}
			}
		}
	}
	b.ReportMetric(float64(keys), "keys")
	b.ReportMetric(float64(capped), "capped")
}

// TestBakeSynthetic checks the benchmark's track set (keys and tangents in both hemispheres)
// against the source evaluator with the independent glTF sampler, and that cutting twice gives
// identical channels.
func TestBakeSynthetic(t *testing.T) {
	tracks, wins := synthRotations(12, 40, 4)
	worst := 0.0
	for _, w := range wins {
		for ti, tr := range tracks {
			res, err := Cut(tr, w)
			if err != nil {
				t.Fatal(err)
			}
			again, _ := Cut(tr, w)
			if !reflect.DeepEqual(res, again) {
				t.Fatalf("track %d window %v: two cuts differ", ti, w)
			}
			if res.Capped {
				t.Errorf("track %d window %v: capped", ti, w)
			}
			ch := res.Channel
			checkChannel(t, "synthetic", ch, tr, w)
			for ms := 0.0; ms <= float64(w.Duration()); ms += 0.37 {
				ts := float32(ms / 1000)
				got, err := gltfsample.Sample(string(ch.Interp), ch.Times, ch.Values, 4, ts)
				if err != nil {
					t.Fatal(err)
				}
				ref, _ := Sample(tr, w, float64(ts)*1000)
				e := gltfsample.Distance(got, unit(ref), true)
				worst = max(worst, e)
				if e > 1e-4 {
					t.Fatalf("track %d window %v at %v s: error %.3g", ti, w, ts, e)
				}
			}
		}
	}
	t.Logf("worst error %.3g", worst)
}
