package m2_test

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/modelfs/modelfs/internal/testkit/gltfsample"
	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/internal/testkit/readback"
	"github.com/modelfs/modelfs/translate/m2"
	"github.com/modelfs/modelfs/translate/scene"
)

// The game's evaluation of a bone track, written here from the format notes independently of
// the decoder (which cuts sequences into key lists and hands them to package anim):
//
//   - 0 holds the latest key at or before the time, 1 interpolates linearly (shortest-path
//     slerp for quaternions); 2 and 3 on bone tracks have no tangents and are taken as 1.
//   - A sequence clamps its clock to [0, duration]; before its first key the first value holds,
//     after the last the last one's; no keys gives the default (rest) value.
//   - Before v264: one timeline; the keys of sequence i are those of its range Ranges[i] (which
//     may lie outside its window), or those inside the window when it has no valid range; the
//     clock reads start + t.
//   - From v264: the sequence's own keys, the clock reads t.
//   - Global-sequence tracks read the global clock, t modulo the period (0 when the period is
//     0), with the keys inside [0, period].
//   - An alias plays its target.

// gameSample returns track tr's value in sequence si at t ms, in source axes.
func gameSample(m *m2.Model, tr *m2.Track, def []float64, si int, t float64) []float64 {
	for steps := 0; m.Sequences[si].Flags&m2.SeqAlias != 0 && steps < len(m.Sequences); steps++ {
		si = int(m.Sequences[si].AliasNext)
	}
	q := m.Sequences[si]
	dur := float64(q.End - q.Start)
	if q.End < q.Start {
		dur = 0
	}
	t = math.Max(0, math.Min(t, dur))
	var times []uint32
	var vals []float32
	clock := t
	switch {
	case tr.GlobalSeq >= 0:
		p := float64(m.GlobalSequences[tr.GlobalSeq])
		clock = 0
		if p > 0 {
			clock = math.Mod(t, p)
		}
		if len(tr.Keys) > 0 {
			k := tr.Keys[0]
			n := 0
			for n < len(k.Times) && float64(k.Times[n]) <= p {
				n++
			}
			times, vals = k.Times[:n], k.Values[:n*tr.Width]
		}
	case m.Layout.Legacy:
		clock = float64(q.Start) + t
		if len(tr.Keys) > 0 {
			k := tr.Keys[0]
			lo, hi := -1, -1
			if si < len(tr.Ranges) && tr.Ranges[si][0] <= tr.Ranges[si][1] && int(tr.Ranges[si][1]) < len(k.Times) {
				lo, hi = int(tr.Ranges[si][0]), int(tr.Ranges[si][1])
			} else {
				for i, x := range k.Times {
					if x >= q.Start && x <= q.End {
						if lo < 0 {
							lo = i
						}
						hi = i
					}
				}
			}
			if lo >= 0 {
				times, vals = k.Times[lo:hi+1], k.Values[lo*tr.Width:(hi+1)*tr.Width]
			}
		}
	default:
		if si < len(tr.Keys) {
			times, vals = tr.Keys[si].Times, tr.Keys[si].Values
		}
	}
	if len(times) == 0 {
		return def
	}
	w := tr.Width
	val := func(k int) []float64 {
		out := make([]float64, w)
		for i := range out {
			out[i] = float64(vals[k*w+i])
		}
		return out
	}
	last := -1
	for k, x := range times {
		if float64(x) <= clock {
			last = k
		}
	}
	switch {
	case last < 0:
		return val(0)
	case last == len(times)-1 || tr.Interp == 0:
		return val(last)
	}
	a, b := val(last), val(last+1)
	u := (clock - float64(times[last])) / float64(times[last+1]-times[last])
	if w == 4 {
		d := a[0]*b[0] + a[1]*b[1] + a[2]*b[2] + a[3]*b[3]
		if d < 0 {
			d = -d
			for i := range b {
				b[i] = -b[i]
			}
		}
		w0, w1 := 1-u, u
		if d < 1-1e-9 {
			om := math.Acos(d)
			w0, w1 = math.Sin((1-u)*om)/math.Sin(om), math.Sin(u*om)/math.Sin(om)
		}
		out := make([]float64, 4)
		for i := range out {
			out[i] = w0*a[i] + w1*b[i]
		}
		return out
	}
	out := make([]float64, w)
	for i := range out {
		out[i] = a[i] + (b[i]-a[i])*u
	}
	return out
}

// toGLTF converts a source value to glTF axes; translations get the node's rest offset.
func toGLTF(v []float64, p scene.Path, rest [3]float32) []float64 {
	switch p {
	case scene.PathRotation:
		return []float64{v[0], v[2], -v[1], v[3]}
	case scene.PathScale:
		return []float64{v[0], v[2], v[1]}
	}
	return []float64{float64(rest[0]) + v[0], float64(rest[1]) + v[2], float64(rest[2]) - v[1]}
}

func maxDiff(a, b []float64, rotation bool) float64 {
	if rotation {
		na, nb := 0.0, 0.0
		for i := range a {
			na += a[i] * a[i]
			nb += b[i] * b[i]
		}
		na, nb = math.Sqrt(na), math.Sqrt(nb)
		dp, dn := 0.0, 0.0
		for i := range a {
			dp = math.Max(dp, math.Abs(a[i]/na-b[i]/nb))
			dn = math.Max(dn, math.Abs(a[i]/na+b[i]/nb))
		}
		return math.Min(dp, dn)
	}
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

// readBoth reads src as the raw model and decodes it into a scene.
func readBoth(t *testing.T, src codec.Source) (*m2.Model, *scene.Scene) {
	t.Helper()
	m, err := m2.Read(src.Name, src.Data, src.Companion, m2.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := translate.Decode(src)
	if err != nil {
		t.Fatal(err)
	}
	return m, s
}

// checkFidelity writes the model as .gltf and .glb, reads every animation channel back with
// qmuntal/gltf, samples it with the independent glTF sampler and compares it with the game's
// evaluation of the source track at many times. It returns the channels compared.
func checkFidelity(t *testing.T, src codec.Source) int {
	t.Helper()
	m, s := readBoth(t, src)
	checked := 0
	for _, rb := range readback.Both(t, s) {
		kind, doc := rb.Kind, rb.Document
		byName := readback.Animations(doc)
		for si, a := range s.Animations {
			ga := byName[a.Name]
			if ga == nil {
				t.Fatalf("%s: animation %q is not in the glTF", kind, a.Name)
			}
			dur := float64(a.Duration)
			for _, ch := range ga.Channels {
				n := int(*ch.Target.Node)
				if models, _, _ := s.Models(); n >= models {
					continue // a baked effect's sample, shown at its moment
				}
				if n >= len(m.Bones) {
					t.Fatalf("channel on node %d, which is no bone", n)
				}
				path := scene.Path(ch.Target.Path)
				bone := &m.Bones[n]
				var tr *m2.Track
				def := []float64{1, 1, 1}
				switch path {
				case scene.PathTranslation:
					tr, def = &bone.Translation, []float64{0, 0, 0}
				case scene.PathRotation:
					tr, def = &bone.Rotation, []float64{0, 0, 0, 1}
				default:
					tr = &bone.Scale
				}
				smp := ga.Samplers[ch.Sampler]
				times, values := readback.Floats(t, doc, int(smp.Input)), readback.Floats(t, doc, int(smp.Output))
				for k := 0; k <= 200; k++ {
					tt := float32(dur * float64(k) / 200)
					want := toGLTF(gameSample(m, tr, def, si, float64(tt)*1000), path, s.Nodes[n].Translation)
					got, err := gltfsample.Sample(smp.Interpolation.String(), times, values, path.Width(), tt)
					if err != nil {
						t.Fatal(err)
					}
					if d := maxDiff(want, got, path == scene.PathRotation); d > 1e-4 {
						t.Fatalf("%s: %s bone %d %s at %.4f s: game %v, glTF %v (|d| %g)", kind, a.Name, n, path, tt, want, got, d)
					}
				}
				checked++
			}
		}
	}
	return checked
}

// TestWrittenAnimationsFollowTheGame closes the loop for the fixtures in every version and for
// the corpus models: every channel read back from the written file agrees with the game's
// evaluation of the source track within 1e-4.
func TestWrittenAnimationsFollowTheGame(t *testing.T) {
	for _, fx := range fixtures(t) {
		t.Run(fx.name, func(t *testing.T) {
			if n := checkFidelity(t, fx.files.Source(fx.model)); n == 0 {
				t.Fatal("no channel compared")
			}
		})
	}
	for _, p := range corpusModels(t) {
		t.Run(filepath.Base(p.name), func(t *testing.T) {
			n := checkFidelity(t, load(t, p))
			t.Logf("%d channels compared", n)
			if n == 0 {
				t.Fatal("no channel compared")
			}
		})
	}
}
