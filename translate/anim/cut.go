package anim

import (
	"errors"
	"math"
	"slices"
	"sync"

	"github.com/modelfs/modelfs/translate/scene"
)

// BakeTolerance is how far (largest component, in source units) the interpolation between
// two baked samples of a vector curve may stray from the true curve, unless the track says
// otherwise.
const BakeTolerance = 5e-5

// RotationBakeTolerance is the same for rotation curves, as the distance between unit
// quaternions (taken up to sign): a rotation off by d is off by at most 2d radians, so this
// bounds the angle by 2e-4, as BakeTolerance on each component did.
const RotationBakeTolerance = 1e-4

// MaxBakedKeys caps the number of extra samples Cut adds to one channel when baking
// Hermite/Bezier curves; Result.Capped reports when the cap was hit.
const MaxBakedKeys = 1 << 14

// MaxSegments caps the number of curve segments one channel may be cut into (many repeats of a
// short global sequence across a long clip); Cut fails with ErrTooManyKeys beyond it.
const MaxSegments = 1 << 16

// maxBakeDepth caps the halving of one segment during baking (2^16 pieces).
const maxBakeDepth = 16

// ErrTooManyKeys is returned by Cut when a channel would need more than MaxSegments segments.
var ErrTooManyKeys = errors.New("too many keys: global sequence repeats too often in the clip")

// Result is one track cut to one clip.
type Result struct {
	// Channel holds the interpolation, times (s) and values; Node and Path are left for the
	// caller to fill.
	Channel scene.Channel
	// Baked says that Hermite/Bezier curves were baked to LINEAR samples.
	Baked bool
	// Capped says that baking stopped at MaxBakedKeys (or at the time resolution) before every
	// sample interval was within the tolerance.
	Capped bool
	// Repeats is the number of global-sequence periods (the last one possibly partial) baked
	// into the clip; 0 for a track that follows the clip's window.
	Repeats int
}

// OutputInterp returns the glTF interpolation Cut produces for tr: STEP for DontInterp, LINEAR
// for everything else. Hermite and Bezier curves are baked into LINEAR samples rather than
// written as CUBICSPLINE, even for vectors, where glTF could hold them exactly: Blender's glTF
// importer drops CUBICSPLINE tangents and puts automatic Bezier handles through the keys,
// which moved a corpus model's bones by up to 10 units (about 4 % of its height) off the game's pose.
func (tr *Track) OutputInterp() scene.Interp {
	if tr.Interp == DontInterp {
		return scene.Step
	}
	return scene.Linear
}

type segKind uint8

const (
	segHold   segKind = iota // p[0] throughout
	segLinear                // lerp p[0] → p[3]
	segCubic                 // Hermite p[0], tangents p[1], p[2] (normalised), p[3]; baked
	segSlerp                 // slerp p[0] → p[3]
	segSquad                 // sqlerp(p[0], p[1], p[2], p[3]); baked
)

// seg is one piece of the curve in clip time (ms). The piece runs over [t0, t1]; only [a, b]
// lies inside the clip.
type seg struct {
	kind   segKind
	t0, t1 float64
	a, b   float64
	p      [4]val
	tol    float64 // the track's bake tolerance; 0 for the default
}

// tolerance is how far the samples baked of s may stray from its curve.
func (s *seg) tolerance() float64 {
	switch {
	case s.tol > 0:
		return s.tol
	case s.kind == segSquad:
		return RotationBakeTolerance
	}
	return BakeTolerance
}

func (s *seg) param(t float64) float64 { return (t - s.t0) / (s.t1 - s.t0) }

func (s *seg) value(t float64) val {
	switch s.kind {
	case segLinear:
		return lerp(s.p[0], s.p[3], s.param(t))
	case segCubic:
		return hermite(s.p[0], s.p[1], s.p[2], s.p[3], s.param(t))
	case segSlerp:
		return slerp(s.p[0], s.p[3], s.param(t))
	case segSquad:
		return sqlerp(s.p[0], s.p[1], s.p[2], s.p[3], s.param(t))
	}
	return s.p[0]
}

// windowSegs returns the pieces of the curve in source window sw, placed so that sw.Start lands
// on clip time off, and trimmed to the clip [0, dur].
func (tr *Track) windowSegs(sw Window, off, dur float64, out []seg) []seg {
	place := func(f int64) float64 { return off + float64(f-sw.Start) }
	end := place(sw.End)
	add := func(s seg) {
		s.a, s.b = max(s.t0, 0), min(s.t1, dur)
		if s.b > s.a {
			out = append(out, s)
		}
	}
	first, last := tr.KeysIn(sw.Start, sw.End)
	if first == last {
		add(seg{kind: segHold, t0: off, t1: end, p: [4]val{tr.def()}})
		return out
	}
	if t := place(tr.Frames[first]); t > off {
		add(seg{kind: segHold, t0: off, t1: t, p: [4]val{tr.value(first)}})
	}
	for i := first; i+1 < last; i++ {
		j := i + 1
		t0, t1 := place(tr.Frames[i]), place(tr.Frames[j])
		if t1 <= t0 {
			continue // repeated frame: the later key wins
		}
		s := seg{t0: t0, t1: t1, tol: tr.Tolerance}
		a, d := tr.value(i), tr.value(j)
		switch {
		case tr.Interp == DontInterp:
			s.kind, s.p[0] = segHold, a
		case tr.Interp == Linear && tr.Rotation:
			s.kind, s.p[0], s.p[3] = segSlerp, a, d
		case tr.Interp == Linear:
			s.kind, s.p[0], s.p[3] = segLinear, a, d
		case tr.Rotation:
			s.kind, s.p = segSquad, [4]val{a, tr.outTan(i), tr.inTan(j), d}
		case tr.Interp == Hermite:
			s.kind, s.p = segCubic, [4]val{a, tr.outTan(i), tr.inTan(j), d}
		default: // Bezier (v0, c0, c1, v1) → Hermite tangents 3(c0 − v0), 3(v1 − c1)
			c0, c1 := tr.outTan(i), tr.inTan(j)
			var m0, m1 val
			for k := range a {
				m0[k] = 3 * (c0[k] - a[k])
				m1[k] = 3 * (d[k] - c1[k])
			}
			s.kind, s.p = segCubic, [4]val{a, m0, m1, d}
		}
		add(s)
	}
	if t := place(tr.Frames[last-1]); t < end {
		add(seg{kind: segHold, t0: t, t1: end, p: [4]val{tr.value(last - 1)}})
	}
	return out
}

// segments returns the curve of clip w as pieces covering [0, w.Duration()] in order.
func (tr *Track) segments(w Window, out []seg) ([]seg, int, error) {
	dur := float64(w.Duration())
	if !tr.Global {
		return tr.windowSegs(w, 0, dur, out), 0, nil
	}
	if tr.Period == 0 {
		// A clock of length 0 never leaves 0.
		v := tr.at(Window{0, 0}, 0)
		return []seg{{kind: segHold, t0: 0, t1: dur, a: 0, b: dur, p: [4]val{v}}}, 1, nil
	}
	p := tr.Period
	repeats := int((w.Duration() + p - 1) / p)
	first, last := tr.KeysIn(0, p)
	if float64(repeats)*float64(last-first+2) > MaxSegments {
		return nil, 0, ErrTooManyKeys
	}
	out = slices.Grow(out, repeats*(last-first+1))
	for k := 0; k < repeats; k++ {
		out = tr.windowSegs(Window{0, p}, float64(int64(k)*p), dur, out)
	}
	return out, repeats, nil
}

// key is one output key: time in seconds and value.
type key struct {
	t float32
	v val
}

// keyList appends keys keeping times strictly increasing: a key at or before the previous
// one replaces it (the later key describes the curve from that time on).
type keyList []key

func (kl *keyList) add(k key) {
	if n := len(*kl); n > 0 && k.t <= (*kl)[n-1].t {
		(*kl)[n-1] = k
		return
	}
	*kl = append(*kl, k)
}

func secs(ms float64) float32 { return float32(ms / 1000) }

// snap moves clip time ms (ms) onto the float32-seconds grid that key times are written in, so
// that a baked sample is taken at the time it is emitted at.
func snap(ms float64) float64 { return float64(secs(ms)) * 1000 }

// same reports whether two values agree to float32 precision (quaternions normalised, as emit
// writes them, and up to sign).
func same(a, b val, width int, rotation bool) bool {
	if rotation {
		a, b = normalize(a), normalize(b)
	}
	close := func(sign float64) bool {
		for i := range width {
			if math.Abs(a[i]-sign*b[i]) > 1e-6*(1+math.Abs(a[i])) {
				return false
			}
		}
		return true
	}
	return close(1) || (rotation && close(-1))
}

// Cut cuts the part of tr that clip w shows into a glTF channel starting at 0 and ending at the
// clip's duration, in seconds. See the package documentation for the windowing rules.
func Cut(tr *Track, w Window) (Result, error) {
	if err := tr.Check(); err != nil {
		return Result{}, err
	}
	return tr.cut(w)
}

// CutEach cuts tr to each of ws in turn, as Cut does, checking the track once (a track of
// thousands of keys cut to a hundred sequences is checked once, not a hundred times): yield
// gets each window's index and result, or error, and stops the cutting by returning false. It
// returns the track's own error, before any window is cut.
func CutEach(tr *Track, ws []Window, yield func(i int, res Result, err error) bool) error {
	if err := tr.Check(); err != nil {
		return err
	}
	for i, w := range ws {
		res, err := tr.cut(w)
		if !yield(i, res, err) {
			break
		}
	}
	return nil
}

// cut is Cut of a checked track.
func (tr *Track) cut(w Window) (Result, error) {
	var res Result
	if w.End < w.Start {
		return res, badTrack("window [%d, %d] ends before it starts", w.Start, w.End)
	}
	buf := keyPool.Get().(*keyList)
	defer func() { *buf = (*buf)[:0]; keyPool.Put(buf) }()
	c := cutter{tr: tr, interp: tr.OutputInterp(), kl: *buf, budget: MaxBakedKeys}
	res.Baked = tr.cubic()
	if w.Duration() == 0 {
		c.kl.add(key{t: 0, v: tr.sample(w, 0)})
		if tr.Global {
			res.Repeats = 1
		}
	} else {
		sb := segPool.Get().(*[]seg)
		defer func() { *sb = (*sb)[:0]; segPool.Put(sb) }()
		done := false
		if tr.Global && tr.Period > 0 && w.Duration() > tr.Period {
			var err error
			if done, err = c.repeat(w, sb, &res); err != nil {
				return Result{}, err
			}
		}
		if !done {
			segs, repeats, err := tr.segments(w, (*sb)[:0])
			if err != nil {
				return Result{}, err
			}
			*sb = segs
			res.Repeats = repeats
			c.kl = slices.Grow(c.kl, 2*len(segs)+2)
			c.pieces(segs)
		}
		// The value at the clip's end is the game's (for a global track whose period divides the
		// clip, the start of the next period).
		dur := float64(w.Duration())
		c.boundary(dur, tr.sample(w, dur))
	}
	res.Capped = res.Capped || c.capped
	res.Channel = emit(c.kl, c.interp, tr.Width, tr.Rotation)
	*buf = c.kl
	return res, nil
}

// cutter lays out the keys of one cut.
type cutter struct {
	tr      *Track
	interp  scene.Interp
	kl      keyList
	budget  int  // samples baking may still add
	capped  bool // baking stopped at the budget or the time resolution
	started bool // a key has been laid
	prev    val  // the value the curve arrives with at the last boundary
}

// boundary lays the key at clip time t (ms) where the curve arrives with value c.prev and leaves
// with v; a jump takes a second key one float32 step earlier.
func (c *cutter) boundary(t float64, v val) {
	ts := secs(t)
	switch {
	case !c.started:
		c.kl.add(key{t: ts, v: v})
		c.started = true
	case c.interp == scene.Step || same(v, c.prev, c.tr.Width, c.tr.Rotation):
		// STEP holds the previous value up to t anyway.
		c.kl.add(key{t: ts, v: v})
	default:
		c.kl.add(key{t: math.Nextafter32(ts, float32(math.Inf(-1))), v: c.prev})
		c.kl.add(key{t: ts, v: v})
	}
}

// pieces lays out the keys of the curve's pieces, baking those that need it.
func (c *cutter) pieces(segs []seg) {
	for i := range segs {
		s := &segs[i]
		switch s.kind {
		case segSquad:
			// Baking samples the ends anyway (normalised, as emit writes them).
			c.prev = s.bake(func(v val) { c.boundary(s.a, v) }, &c.kl, &c.budget, &c.capped)
			continue
		case segCubic:
			c.boundary(s.a, s.value(s.a))
			s.bakeCubic(&c.kl, &c.budget, &c.capped)
		default:
			c.boundary(s.a, s.value(s.a))
		}
		c.prev = s.value(s.b)
	}
}

// repeat lays out a global-sequence track that repeats within clip w: its period is baked
// once and its keys laid again period after period (a flag waving through a minute-long clip
// is one bake, not fifty). The keys are those baking each period would give, up to the
// rounding of their float32 times. It reports false, having laid nothing, when the repeats
// would outrun the bake budget: Cut then bakes them one by one, up to the budget.
func (c *cutter) repeat(w Window, sb *[]seg, res *Result) (bool, error) {
	tr := c.tr
	p := tr.Period
	dur := float64(w.Duration())
	repeats := int((w.Duration() + p - 1) / p)
	first, last := tr.KeysIn(0, p)
	if float64(repeats)*float64(last-first+2) > MaxSegments {
		return false, ErrTooManyKeys
	}
	segs := tr.windowSegs(Window{0, p}, 0, float64(p), (*sb)[:0])
	*sb = segs
	kb := keyPool.Get().(*keyList)
	defer func() { *kb = (*kb)[:0]; keyPool.Put(kb) }()
	one := cutter{tr: tr, interp: c.interp, kl: *kb, budget: c.budget}
	one.pieces(segs)
	*kb = one.kl
	if one.capped || (c.budget-one.budget)*repeats > c.budget {
		return false, nil
	}
	c.budget -= (c.budget - one.budget) * repeats
	res.Repeats = repeats
	ks := one.kl
	c.kl = slices.Grow(c.kl, repeats*len(ks)+2)
	for k := range repeats {
		off := float64(int64(k) * p)
		for j := 0; j < len(ks); j++ {
			t := float64(ks[j].t)*1000 + off
			if t >= dur {
				break // the clip ends in this period; Cut lays the key at its end
			}
			switch {
			case j == 0:
				c.boundary(t, ks[j].v)
			case j+1 < len(ks) && ks[j].t == math.Nextafter32(ks[j+1].t, float32(math.Inf(-1))):
				// A jump: its two keys a float32 step apart, a step of the clip's time now.
				t2 := float64(ks[j+1].t)*1000 + off
				if t2 >= dur {
					j = len(ks)
					continue
				}
				ts := secs(t2)
				c.kl.add(key{t: math.Nextafter32(ts, float32(math.Inf(-1))), v: ks[j].v})
				c.kl.add(key{t: ts, v: ks[j+1].v})
				j++
			default:
				c.kl.add(key{t: secs(t), v: ks[j].v})
			}
		}
		c.prev = one.prev // what the curve arrives with at the period's end
	}
	if rem := math.Mod(dur, float64(p)); rem != 0 {
		c.prev = tr.at(Window{0, p}, rem) // the clip ends inside a period
	}
	return true, nil
}

// keyPool recycles the key lists Cut builds before laying them out, and segPool the pieces of
// curve it cuts them from: a model cuts thousands of tracks.
var (
	keyPool = sync.Pool{New: func() any { return new(keyList) }}
	segPool = sync.Pool{New: func() any { return new([]seg) }}
)

// quatDist is the largest component difference between two quaternions, up to sign.
func quatDist(a, b val) float64 {
	dp, dn := 0.0, 0.0
	for i := range a {
		dp = max(dp, math.Abs(a[i]-b[i]))
		dn = max(dn, math.Abs(a[i]+b[i]))
	}
	return min(dp, dn)
}

// emit lays the keys out as a glTF channel, quaternions normalised and kept in one hemisphere
// between consecutive keys.
func emit(kl keyList, interp scene.Interp, width int, rotation bool) scene.Channel {
	ch := scene.Channel{Interp: interp, Times: make([]float32, len(kl))}
	if rotation {
		ch.Values = make([]float32, 4*len(kl))
		var prev quat
		for k := range kl {
			ky := &kl[k]
			ch.Times[k] = ky.t
			q := toQuat(ky.v).normalize()
			if k > 0 && prev.dot(q) < 0 {
				q = q.neg()
			}
			prev = q
			out := ch.Values[4*k : 4*k+4]
			out[0], out[1], out[2], out[3] = float32(q.x), float32(q.y), float32(q.z), float32(q.w)
		}
		return ch
	}
	ch.Values = make([]float32, width*len(kl))
	for k := range kl {
		ch.Times[k] = kl[k].t
		for i, f := range kl[k].v[:width] {
			ch.Values[width*k+i] = float32(f)
		}
	}
	return ch
}
