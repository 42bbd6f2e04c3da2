package wc3_test

import (
	"math"
	"os"
	"testing"

	"github.com/modelfs/modelfs/internal/testkit/gltfsample"
	"github.com/modelfs/modelfs/translate/anim"
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/scene"
	"github.com/modelfs/modelfs/translate/wc3"
	"github.com/modelfs/modelfs/translate/wc3/mdl"
)

// orcPath is a real unit model from the shared corpus, used when present.
const orcPath = "/work/shared/corpus/wc3/Units/hce_orc.mdl"

// BenchmarkBuildOrc measures Build (node tracks cut and baked per sequence included) on a real
// model with many Hermite rotation tracks; it skips when the corpus file is absent.
func BenchmarkBuildOrc(b *testing.B) {
	data, err := os.ReadFile(orcPath)
	if err != nil {
		b.Skipf("corpus model not available: %v", err)
	}
	m, err := mdl.Read("hce_orc.mdl", data)
	if err != nil {
		b.Fatal(err)
	}
	src := codec.Source{Name: "hce_orc.mdl", Data: data}
	var s *scene.Scene
	b.ReportAllocs()
	for b.Loop() {
		if s, err = wc3.Build(m, src, "mdl"); err != nil {
			b.Fatal(err)
		}
	}
	rot := 0
	for _, a := range s.Animations {
		for _, ch := range a.Channels {
			if ch.Path == scene.PathRotation {
				rot += len(ch.Times)
			}
		}
	}
	b.ReportMetric(float64(rot), "rotkeys")
}

// TestBakeOrcFidelity cuts every node rotation track of the corpus model to every sequence and
// compares the channels, sampled by the independent glTF sampler, with the source evaluator.
func TestBakeOrcFidelity(t *testing.T) {
	data, err := os.ReadFile(orcPath)
	if err != nil {
		t.Skipf("corpus model not available: %v", err)
	}
	m, err := mdl.Read("hce_orc.mdl", data)
	if err != nil {
		t.Fatal(err)
	}
	var tracks []*anim.Track
	add := func(n wc3.Node) {
		rt := n.Rotation
		if rt == nil || rt.GlobalSeq >= 0 {
			return
		}
		tr := &anim.Track{Interp: anim.Interp(rt.Interp), Width: 4, Rotation: true, Values: rt.Values,
			InTans: rt.InTans, OutTans: rt.OutTans, Default: []float32{0, 0, 0, 1}}
		for _, f := range rt.Frames {
			tr.Frames = append(tr.Frames, int64(f))
		}
		tracks = append(tracks, tr)
	}
	for _, b := range m.Bones {
		add(b.Node)
	}
	for _, h := range m.Helpers {
		add(h)
	}
	worst, keys, capped := 0.0, 0, 0
	for _, sq := range m.Sequences {
		w := anim.Window{Start: int64(sq.Interval[0]), End: int64(sq.Interval[1])}
		for _, tr := range tracks {
			res, err := anim.Cut(tr, w)
			if err != nil {
				t.Fatal(err)
			}
			ch := res.Channel
			keys += len(ch.Times)
			if res.Capped {
				capped++
			}
			// Every 1/3 ms, mostly off the key grid.
			for ms := 0.0; ms <= float64(w.Duration()); ms += 1.0 / 3 {
				ts := float32(ms / 1000)
				got, err := gltfsample.Sample(string(ch.Interp), ch.Times, ch.Values, 4, ts)
				if err != nil {
					t.Fatal(err)
				}
				ref, err := anim.Sample(tr, w, float64(ts)*1000)
				if err != nil {
					t.Fatal(err)
				}
				l := math.Sqrt(ref[0]*ref[0] + ref[1]*ref[1] + ref[2]*ref[2] + ref[3]*ref[3])
				dp, dn := 0.0, 0.0
				for i := range 4 {
					dp += (got[i] - ref[i]/l) * (got[i] - ref[i]/l)
					dn += (got[i] + ref[i]/l) * (got[i] + ref[i]/l)
				}
				e := math.Sqrt(min(dp, dn))
				worst = max(worst, e)
				// The bake bounds the distance between quaternions; the glTF sampler's
				// normalised slerp, float32 times and the
				// bake's model of the curve between its checks add a little.
				if e > 1.1*anim.RotationBakeTolerance {
					t.Fatalf("%s: at %v s error %.3g", sq.Name, ts, e)
				}
			}
		}
	}
	t.Logf("%d rotation tracks × %d sequences: %d keys, %d capped, worst error %.3g", len(tracks), len(m.Sequences), keys, capped, worst)
}
