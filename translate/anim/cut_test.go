package anim

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/modelfs/modelfs/internal/testkit/gltfsample"
	"github.com/modelfs/modelfs/translate/scene"
)

// unitQuat returns a deterministic unit quaternion from a seed.
func unitQuat(seed float64) []float32 {
	q := normalize(val{math.Sin(seed*1.3 + 0.2), math.Cos(seed*0.7 - 0.4), math.Sin(seed*2.1 + 1), math.Cos(seed*0.3) + 0.5})
	return []float32{float32(q[0]), float32(q[1]), float32(q[2]), float32(q[3])}
}

// nearQuat returns q nudged by a seeded offset and renormalised.
func nearQuat(q []float32, seed float64) []float32 {
	var p val
	for i := range p {
		p[i] = float64(q[i]) + 0.15*math.Sin(seed*float64(i+2))
	}
	p = normalize(p)
	return []float32{float32(p[0]), float32(p[1]), float32(p[2]), float32(p[3])}
}

// makeTrack builds a track of the given kind ("vec3", "quat", "scalar") with keys at frames.
func makeTrack(interp Interp, kind string, frames []int64) *Track {
	tr := &Track{Interp: interp, Frames: frames, Width: 3}
	switch kind {
	case "quat":
		tr.Width, tr.Rotation = 4, true
		tr.Default = []float32{0, 0, 0, 1}
	case "scalar":
		tr.Width = 1
		tr.Default = []float32{0.5}
	default:
		tr.Default = []float32{1, 2, 3}
	}
	for k := range frames {
		s := float64(k) + 1
		if tr.Rotation {
			q := unitQuat(0.4 * s)
			if k%2 == 1 { // exercise the hemisphere handling
				for i := range q {
					q[i] = -q[i]
				}
			}
			tr.Values = append(tr.Values, q...)
			if tr.cubic() {
				// Tangent quaternions near the key's own value, as exporters write them.
				tr.InTans = append(tr.InTans, nearQuat(q, s+0.3)...)
				tr.OutTans = append(tr.OutTans, nearQuat(q, s-0.3)...)
			}
			continue
		}
		for i := 0; i < tr.Width; i++ {
			x := float64(i) + 1
			tr.Values = append(tr.Values, float32(10*math.Sin(s*x)))
			if tr.cubic() {
				tr.InTans = append(tr.InTans, float32(5*math.Cos(s+x)))
				tr.OutTans = append(tr.OutTans, float32(-7*math.Sin(s-x)))
			}
		}
	}
	return tr
}

type cutCase struct {
	name   string
	frames []int64
	win    Window
	global bool
	period int64
}

var cutCases = []cutCase{
	{"window cuts keys", []int64{0, 150, 400, 400, 700, 1000}, Window{100, 900}, false, 0},
	{"window on keys", []int64{0, 150, 400, 700, 1000}, Window{150, 700}, false, 0},
	{"one key in window", []int64{0, 150, 400}, Window{100, 300}, false, 0},
	{"no key in window", []int64{0, 150}, Window{200, 900}, false, 0},
	{"no keys", nil, Window{0, 500}, false, 0},
	{"zero-length on key", []int64{0, 150, 400}, Window{150, 150}, false, 0},
	{"zero-length between keys", []int64{0, 150, 400}, Window{200, 200}, false, 0},
	{"global cut inside segment", []int64{0, 100, 250}, Window{3000, 4130}, true, 300},
	{"global ends on a period", []int64{20, 100, 250}, Window{3000, 3900}, true, 300},
	{"global key at period end", []int64{0, 120, 300}, Window{0, 1000}, true, 300},
	{"global longer than clip", []int64{0, 400, 1000}, Window{50, 650}, true, 1000},
	{"global period zero", []int64{0, 100}, Window{0, 500}, true, 0},
	{"global keys past period", []int64{0, 100, 500}, Window{0, 700}, true, 200},
}

// refAt evaluates the source at clip time ms, accepting either side at a discontinuity.
func refAt(tr *Track, w Window, ms float64) ([][]float64, error) {
	var out [][]float64
	for _, d := range []float64{0, -1e-4, 1e-4} {
		v, err := Sample(tr, w, min(max(ms+d, 0), float64(w.Duration())))
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// unit returns q scaled to unit length.
func unit(q []float64) []float64 {
	l := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	return []float64{q[0] / l, q[1] / l, q[2] / l, q[3] / l}
}

// checkChannel checks the shape rules every cut channel must satisfy.
func checkChannel(t *testing.T, where string, ch scene.Channel, tr *Track, w Window) {
	t.Helper()
	n := len(ch.Times)
	if n == 0 || ch.Times[0] != 0 {
		t.Fatalf("%s: channel does not start at 0: %v", where, ch.Times)
	}
	if want := float32(float64(w.Duration()) / 1000); ch.Times[n-1] != want {
		t.Errorf("%s: channel ends at %v, want %v", where, ch.Times[n-1], want)
	}
	if w.Duration() == 0 && n != 1 {
		t.Errorf("%s: zero-length window gave %d keys", where, n)
	}
	for k := 1; k < n; k++ {
		if ch.Times[k] <= ch.Times[k-1] {
			t.Fatalf("%s: times not strictly increasing at %d: %v", where, k, ch.Times)
		}
	}
	per := tr.Width
	if ch.Interp == scene.CubicSpline {
		per *= 3
	}
	if len(ch.Values) != per*n {
		t.Fatalf("%s: %d values for %d keys", where, len(ch.Values), n)
	}
	if tr.Rotation {
		for k := 1; k < n; k++ {
			d := 0.0
			for i := 0; i < 4; i++ {
				d += float64(ch.Values[4*k+i]) * float64(ch.Values[4*(k-1)+i])
			}
			if d < 0 {
				t.Errorf("%s: keys %d and %d in opposite hemispheres", where, k-1, k)
			}
		}
	}
}

// TestCutFidelity samples every interpolation × value kind × windowing case with the source
// evaluator and, independently, the cut channel with gltfsample, and requires agreement.
func TestCutFidelity(t *testing.T) {
	const samples = 400
	worst, baked := 0.0, 0
	for _, interp := range []Interp{DontInterp, Linear, Hermite, Bezier} {
		for _, kind := range []string{"vec3", "quat", "scalar"} {
			for _, cc := range cutCases {
				where := fmt.Sprintf("%v/%s/%s", interp, kind, cc.name)
				tr := makeTrack(interp, kind, cc.frames)
				tr.Global, tr.Period = cc.global, cc.period
				res, err := Cut(tr, cc.win)
				if err != nil {
					t.Fatalf("%s: %v", where, err)
				}
				ch := res.Channel
				checkChannel(t, where, ch, tr, cc.win)
				if want := tr.OutputInterp(); ch.Interp != want {
					t.Errorf("%s: interpolation %s, want %s", where, ch.Interp, want)
				}
				if res.Capped {
					t.Errorf("%s: baking capped", where)
				}
				if res.Baked {
					baked += len(ch.Times)
				}
				dur := float64(cc.win.Duration())
				for i := 0; i <= samples; i++ {
					ts := float32(dur * float64(i) / samples / 1000)
					got, err := gltfsample.Sample(string(ch.Interp), ch.Times, ch.Values, tr.Width, ts)
					if err != nil {
						t.Fatalf("%s: %v", where, err)
					}
					refs, err := refAt(tr, cc.win, float64(ts)*1000)
					if err != nil {
						t.Fatalf("%s: %v", where, err)
					}
					best := math.Inf(1)
					for _, r := range refs {
						if tr.Rotation {
							r = unit(r)
						}
						best = min(best, gltfsample.Distance(got, r, tr.Rotation))
					}
					worst = max(worst, best)
					if best > 1e-4 {
						t.Errorf("%s: at %v s glTF %v, source %v (error %g)", where, ts, got, refs[0], best)
						break
					}
				}
			}
		}
	}
	t.Logf("worst error %.3g; %d baked keys in total", worst, baked)
}

func TestCutRepeatsAndHolds(t *testing.T) {
	tr := makeTrack(Linear, "vec3", []int64{0, 100, 250})
	tr.Global, tr.Period = true, 300
	res, err := Cut(tr, Window{0, 1000})
	if err != nil {
		t.Fatal(err)
	}
	if res.Repeats != 4 {
		t.Errorf("repeats %d, want 4", res.Repeats)
	}
	// A window without keys holds the default as a two-key channel 0 → duration.
	tr = makeTrack(Hermite, "vec3", []int64{0})
	res, err = Cut(tr, Window{500, 1500})
	if err != nil {
		t.Fatal(err)
	}
	ch := res.Channel
	if len(ch.Times) != 2 || ch.Times[1] != 1 || !slices.Equal(ch.Values, []float32{1, 2, 3, 1, 2, 3}) {
		t.Errorf("default hold: %v %v", ch.Times, ch.Values)
	}
}

func TestCutErrors(t *testing.T) {
	good := func() *Track { return makeTrack(Hermite, "vec3", []int64{0, 10}) }
	tests := []struct {
		name string
		edit func(*Track)
		win  Window
		want error
	}{
		{"unsorted frames", func(tr *Track) { tr.Frames = []int64{10, 0} }, Window{0, 10}, ErrBadTrack},
		{"short values", func(tr *Track) { tr.Values = tr.Values[:5] }, Window{0, 10}, ErrBadTrack},
		{"missing tangents", func(tr *Track) { tr.InTans = nil }, Window{0, 10}, ErrBadTrack},
		{"bad default", func(tr *Track) { tr.Default = nil }, Window{0, 10}, ErrBadTrack},
		{"bad interp", func(tr *Track) { tr.Interp = 9 }, Window{0, 10}, ErrBadTrack},
		{"rotation width", func(tr *Track) { tr.Rotation = true }, Window{0, 10}, ErrBadTrack},
		{"reversed window", func(*Track) {}, Window{10, 0}, ErrBadTrack},
		{"too many repeats", func(tr *Track) { tr.Global, tr.Period = true, 1 }, Window{0, 1 << 40}, ErrTooManyKeys},
	}
	for _, tc := range tests {
		tr := good()
		tc.edit(tr)
		if _, err := Cut(tr, tc.win); !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestSampleSemantics(t *testing.T) {
	tr := &Track{Interp: Linear, Width: 1, Frames: []int64{100, 200, 200, 300}, Values: []float32{1, 2, 5, 6}, Default: []float32{9}}
	w := Window{0, 400}
	tests := []struct {
		t    float64
		want float64
	}{
		{0, 1},     // before the first key: first key holds
		{150, 1.5}, // lerp
		{200, 5},   // repeated frame: the later key wins
		{250, 5.5},
		{400, 6}, // after the last key
	}
	for _, tc := range tests {
		got, err := Sample(tr, w, tc.t)
		if err != nil || math.Abs(got[0]-tc.want) > 1e-9 {
			t.Errorf("at %v: got %v %v, want %v", tc.t, got, err, tc.want)
		}
	}
	if got, _ := Sample(tr, Window{400, 500}, 10); got[0] != 9 {
		t.Errorf("empty window: got %v, want the default", got)
	}
}

func TestSqlerpEndpoints(t *testing.T) {
	a, b, c, d := vec(unitQuat(1), 0, 4), vec(unitQuat(2), 0, 4), vec(unitQuat(3), 0, 4), vec(unitQuat(4), 0, 4)
	if quatDist(sqlerp(a, b, c, d, 0), a) > 1e-12 || quatDist(sqlerp(a, b, c, d, 1), d) > 1e-12 {
		t.Error("sqlerp does not interpolate its end points")
	}
}

// TestBakeCapped: sqlerp is discontinuous where its outer slerp switches arcs; baking cannot
// meet the tolerance there and must say so, yet stay exact elsewhere.
func TestBakeCapped(t *testing.T) {
	a := unitQuat(2)
	for i := range a {
		a[i] = -a[i]
	}
	tr := &Track{Interp: Hermite, Width: 4, Rotation: true, Frames: []int64{0, 250}, Default: []float32{0, 0, 0, 1},
		Values:  append(a, unitQuat(3)...),
		OutTans: append(unitQuat(1.7), 0, 0, 0, 1),
		InTans:  append([]float32{0, 0, 0, 1}, unitQuat(3.3)...)}
	res, err := Cut(tr, Window{0, 250})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("capped %v, %d keys", res.Capped, len(res.Channel.Times))
	if !res.Capped {
		t.Error("discontinuous curve not reported as capped")
	}
	if len(res.Channel.Times) > MaxBakedKeys+4 {
		t.Errorf("%d keys beyond the cap", len(res.Channel.Times))
	}
}

// TestBakeCubicLimits: a vector curve too steep for the key cap, or with tangents that are not
// numbers, ends baking (reported as capped, or left to validation) instead of looping or
// growing without bound.
func TestBakeCubicLimits(t *testing.T) {
	steep := &Track{Interp: Hermite, Width: 3, Frames: []int64{0, 100000}, Default: []float32{0, 0, 0},
		Values: []float32{0, 0, 0, 1, 1, 1}, InTans: []float32{0, 0, 0, 1e30, 1e30, 1e30}, OutTans: []float32{1e30, -1e30, 1e30, 0, 0, 0}}
	res, err := Cut(steep, Window{0, 100000})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Capped || len(res.Channel.Times) > MaxBakedKeys+4 {
		t.Errorf("steep curve: capped %v, %d keys", res.Capped, len(res.Channel.Times))
	}
	nan := float32(math.NaN())
	bad := &Track{Interp: Bezier, Width: 3, Frames: []int64{0, 1000}, Default: []float32{0, 0, 0},
		Values: []float32{0, 0, 0, 1, 1, 1}, InTans: []float32{0, 0, 0, nan, 0, 0}, OutTans: []float32{0, nan, 0, 0, 0, 0}}
	if res, err = Cut(bad, Window{0, 1000}); err != nil || len(res.Channel.Times) > 4 {
		t.Errorf("NaN tangents: %v, %d keys", err, len(res.Channel.Times))
	}
	// A curve at a late clip time whose keys would be closer than float32 seconds resolve.
	late := &Track{Interp: Hermite, Width: 1, Frames: []int64{0, 1 << 40}, Default: []float32{0},
		Values: []float32{0, 1}, InTans: []float32{0, 1e9}, OutTans: []float32{1e9, 0}}
	if res, err = Cut(late, Window{0, 1 << 40}); err != nil || !res.Capped || len(res.Channel.Times) > MaxBakedKeys+4 {
		t.Errorf("late curve: %v, capped %v, %d keys", err, res.Capped, len(res.Channel.Times))
	}
}

// A global-sequence track repeating through a clip is baked once and laid period after
// period: the keys are those baking every period gives (up to the float32 rounding of their
// times), jumps at the period's end included, for whole and partial last periods.
func TestCutRepeatsLikeBakingEachPeriod(t *testing.T) {
	perRepeat := func(tr *Track, w Window) scene.Channel {
		c := cutter{tr: tr, interp: tr.OutputInterp(), budget: MaxBakedKeys}
		segs, _, err := tr.segments(w, nil)
		if err != nil {
			t.Fatal(err)
		}
		c.pieces(segs)
		dur := float64(w.Duration())
		c.boundary(dur, tr.sample(w, dur))
		return emit(c.kl, c.interp, tr.Width, tr.Rotation)
	}
	for _, kind := range []string{"quat", "vec3", "scalar"} {
		for _, interp := range []Interp{DontInterp, Linear, Hermite, Bezier} {
			for _, frames := range [][]int64{{0, 300, 700, 1000}, {100, 400, 900}, {0, 1000}} {
				tr := makeTrack(interp, kind, frames)
				tr.Global, tr.Period = true, 1000
				for _, w := range []Window{{0, 5000}, {2000, 6500}, {0, 60000}, {0, 1500}} {
					name := fmt.Sprintf("%s %v %v %v", kind, interp, frames, w)
					res, err := Cut(tr, w)
					if err != nil {
						t.Fatal(err)
					}
					got, want := res.Channel, perRepeat(tr, w)
					// A partial last period is cut from the whole period's keys rather than baked
					// to its end: a few keys either way.
					if d := len(got.Times) - len(want.Times); d < -6 || d > 6 {
						t.Errorf("%s: %d keys, baking each period gives %d", name, len(got.Times), len(want.Times))
					}
					width := len(want.Values) / len(want.Times)
					for k := 0; k <= 2000; k++ {
						ts := float32(float64(w.Duration()) / 1000 * float64(k) / 2000)
						a, errA := gltfsample.Sample(string(got.Interp), got.Times, got.Values, width, ts)
						b, errB := gltfsample.Sample(string(want.Interp), want.Times, want.Values, width, ts)
						if errA != nil || errB != nil {
							t.Fatal(errA, errB)
						}
						for i := range a {
							if math.Abs(a[i]-b[i]) > 1e-4 {
								t.Fatalf("%s at %v s: %v, baking each period %v", name, ts, a, b)
							}
						}
					}
				}
			}
		}
	}
}
