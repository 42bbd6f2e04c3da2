package gltfenc

import (
	"encoding/binary"
	"math"
	"slices"
	"unsafe"

	"github.com/qmuntal/gltf"

	"github.com/modelfs/modelfs/translate/scene"
)

// animations writes one glTF animation per scene animation. glTF requires a channel: a
// sequence that moves nothing (a game's Stand of a static model) gets one that holds the first
// node where it rests, so that it still reaches the user (Blender makes an action of it). All
// key data shares one bufferView; samplers with identical key times share one input accessor.
func (e *encoder) animations() {
	s := e.s
	if len(s.Nodes) == 0 && !slices.ContainsFunc(e.collapse, func(c bool) bool { return c }) {
		return // nothing for a channel to hold: only nodes and morph weights can be animated
	}
	// The samplers and channels of all animations are carved from one block each of the
	// encoder's docMem; their pointer lists from one more each (one more per animation, for
	// the channel of a motionless one).
	total := 0
	for ai := range s.Animations {
		total += len(s.Animations[ai].Channels) + len(s.Animations[ai].Visibility) + 1
	}
	if len(s.Animations) == 0 {
		return
	}
	m := e.mem
	samplers := block(&m.samplers, total)
	channels := block(&m.channels, total)
	samplerPtrs := block(&m.samplerPtrs, total)
	channelPtrs := block(&m.channelPtrs, total)
	used := 0
	// seen[3·node + path] is the number (from 1) of the last animation that has a channel on
	// that target: glTF forbids two channels on one target within an animation.
	seen := block(&m.seen, 3*len(s.Nodes))
	start := -1
	at := 0 // the first channel's place in e.arcs
	for ai := range s.Animations {
		a := &s.Animations[ai]
		first := at
		at += len(a.Channels)
		if start < 0 {
			start = len(e.bin.b)
			// The view is added after all key data is written; its index is reserved now so that
			// accessors can refer to it.
			e.doc.BufferViews = append(e.doc.BufferViews, e.views.new())
			e.animView = len(e.doc.BufferViews) - 1
			if m.times == nil {
				m.times = make(map[string]int, total/2)
			}
			e.times = m.times
		}
		extras := animationExtras(a, m.extras(len(a.Extras)+5))
		out := &gltf.Animation{Name: a.Name, Extras: extras}
		n := len(a.Channels) + len(a.Visibility) + 1
		out.Samplers = samplerPtrs[used : used : used+n]
		out.Channels = channelPtrs[used : used : used+n]
		stamp := int32(ai + 1)
		for ci := range a.Channels {
			c := &a.Channels[ci]
			if !e.channelOK(c) {
				continue // inconsistent channels are dropped
			}
			t := 3*c.Node + c.Path.Index()
			if seen[t] == stamp {
				continue // glTF forbids two channels on one target
			}
			seen[t] = stamp
			if c.Path == scene.PathRotation && c.Interp == scene.Linear && (e.arcs == nil || e.arcs[first+ci] > 0) {
				c = splitArcs(c)
			}
			in := e.keyTimes(start, c.Times)
			outAcc := e.keyValues(start, c)
			sm, ch := &samplers[used], &channels[used]
			used++
			// The blocks are zeroed: setting the fields one by one rather than assigning whole
			// structs leaves their pointer fields alone, without GC write barriers.
			sm.Input, sm.Output, sm.Interpolation = in, outAcc, interpolation(c.Interp)
			ch.Sampler = len(out.Samplers)
			ch.Target.Node, ch.Target.Path = e.index(c.Node), gltf.TRSProperty(c.Path)
			out.Samplers = append(out.Samplers, sm)
			out.Channels = append(out.Channels, ch)
		}
		moving := len(out.Channels)
		for vi := range a.Visibility {
			v := &a.Visibility[vi]
			if v.Mesh < 0 || v.Mesh >= len(s.Meshes) || e.meshNode[v.Mesh] < 0 || len(v.Times) == 0 || len(v.Shown) != len(v.Times) {
				continue
			}
			sm, ch := &samplers[used], &channels[used]
			used++
			sm.Input, sm.Output, sm.Interpolation = e.keyTimes(start, v.Times), e.hiddenWeights(start, v.Shown), gltf.InterpolationStep
			ch.Sampler = len(out.Samplers)
			ch.Target.Node, ch.Target.Path = e.index(e.meshNode[v.Mesh]), gltf.TRSWeights
			out.Samplers = append(out.Samplers, sm)
			out.Channels = append(out.Channels, ch)
		}
		if moving == 0 && len(s.Nodes) > 0 {
			rest := e.restChannel(a.Duration)
			sm, ch := &samplers[used], &channels[used]
			used++
			sm.Input, sm.Output, sm.Interpolation = e.keyTimes(start, rest.Times), e.keyValues(start, &rest), gltf.InterpolationStep
			ch.Sampler = len(out.Samplers)
			ch.Target.Node, ch.Target.Path = e.index(rest.Node), gltf.TRSProperty(rest.Path)
			out.Samplers = append(out.Samplers, sm)
			out.Channels = append(out.Channels, ch)
			extras["motionless"] = true
		}
		if len(out.Channels) > 0 {
			// Clipped, so that appending to one animation's lists never reaches the next's.
			out.Samplers = slices.Clip(out.Samplers)
			out.Channels = slices.Clip(out.Channels)
			e.doc.Animations = append(e.doc.Animations, out)
		}
	}
	if start >= 0 {
		v := e.doc.BufferViews[e.animView]
		v.ByteOffset, v.ByteLength = start, len(e.bin.b)-start
		e.bin.pad()
	}
}

// restChannel is the channel of a motionless animation: the first node's rest translation,
// held from 0 to the end.
func (e *encoder) restChannel(duration float32) scene.Channel {
	t := e.s.Nodes[0].Translation
	c := scene.Channel{Node: 0, Path: scene.PathTranslation, Interp: scene.Step, Times: []float32{0}, Values: t[:]}
	if duration > 0 {
		c.Times = []float32{0, duration}
		c.Values = []float32{t[0], t[1], t[2], t[0], t[1], t[2]}
	}
	return c
}

// channelOK reports whether c is consistent enough to write.
func (e *encoder) channelOK(c *scene.Channel) bool {
	if c.Node < 0 || c.Node >= len(e.s.Nodes) || len(c.Times) == 0 {
		return false
	}
	switch c.Path {
	case scene.PathTranslation, scene.PathRotation, scene.PathScale:
	default:
		return false
	}
	per := c.Path.Width()
	switch c.Interp {
	case scene.Step, scene.Linear:
	case scene.CubicSpline:
		per *= 3
	default:
		return false
	}
	return len(c.Values) == per*len(c.Times)
}

func interpolation(i scene.Interp) gltf.Interpolation {
	switch i {
	case scene.Step:
		return gltf.InterpolationStep
	case scene.CubicSpline:
		return gltf.InterpolationCubicSpline
	}
	return gltf.InterpolationLinear
}

// keyTimes returns the input accessor for times, writing it unless identical times were
// written before.
func (e *encoder) keyTimes(start int, times []float32) int {
	// The map key is the times' raw bytes, viewed in place rather than copied: the scene does
	// not change while it is encoded, and the map is cleared (by docMem's reset) or dropped
	// once the document is written.
	raw := unsafe.String((*byte)(unsafe.Pointer(unsafe.SliceData(times))), len(times)*4)
	if acc, ok := e.times[raw]; ok {
		return acc
	}
	off := len(e.bin.b) - start
	e.bin.f32s(times)
	// scene.Validate makes key times strictly increasing, so their bounds are the first and
	// the last: no scan. (For a scene that did not pass it the bounds may be wrong, as the
	// times already make the glTF invalid.)
	both := e.f64s.take(2)
	both[0], both[1] = e.r32(times[0]), e.r32(times[len(times)-1])
	lo, hi := both[:1:1], both[1:]
	acc, a := e.newAccessor()
	a.BufferView, a.ByteOffset = e.index(e.animView), off
	a.ComponentType, a.Type, a.Count = gltf.ComponentFloat, gltf.AccessorScalar, len(times)
	a.Min, a.Max = lo, hi
	e.times[raw] = acc
	return acc
}

// keyValues writes c's values and returns their output accessor. Rotation values (not cubic
// tangents) are normalised where they are not unit length to float32 precision; those of STEP
// and LINEAR channels that allow the rounding are written as normalised 16-bit integers (see
// rotationShorts).
func (e *encoder) keyValues(start int, c *scene.Channel) int {
	off := len(e.bin.b) - start
	w := c.Path.Width()
	typ := gltf.AccessorVec3
	if w == 4 {
		typ = gltf.AccessorVec4
	}
	count := len(c.Values) / w
	if c.Path == scene.PathRotation && c.Interp != scene.CubicSpline && c.Rounding >= scene.ShortRounding {
		rotationShorts(e.bin.grow(len(c.Values)*2), c.Values)
		acc, a := e.newAccessor()
		a.BufferView, a.ByteOffset = e.index(e.animView), off
		a.ComponentType, a.Normalized, a.Type, a.Count = gltf.ComponentShort, true, typ, count
		return acc
	}
	if c.Path != scene.PathRotation {
		e.bin.f32s(c.Values)
	} else {
		stride, at := 4, 0
		if c.Interp == scene.CubicSpline {
			stride, at = 12, 4 // in-tangent, value, out-tangent
		}
		dst := e.bin.grow(len(c.Values) * 4)
		putF32s(dst, c.Values)
		vals := c.Values
		for k := 0; k+stride <= len(vals); k += stride {
			v := (*[4]float32)(vals[k+at : k+at+4])
			// Most keys are unit already: those well inside unitQuat's tolerance (whatever the
			// rounding of this sum) skip the call, which would return them unchanged.
			qx, qy, qz, qw := float64(v[0]), float64(v[1]), float64(v[2]), float64(v[3])
			if l2 := qx*qx + qy*qy + qz*qz + qw*qw; l2 >= 1-5e-7 && l2 <= 1+5e-7 {
				continue
			}
			if q := unitQuat(*v); q != *v {
				putF32s(dst[(k+at)*4:], q[:])
			}
		}
	}
	acc, a := e.newAccessor()
	a.BufferView, a.ByteOffset = e.index(e.animView), off
	a.ComponentType, a.Type, a.Count = gltf.ComponentFloat, typ, count
	return acc
}

// hiddenWeights writes the weights of a mesh's HiddenTarget for each step of a visibility
// channel (1 where the mesh is hidden) and returns their output accessor.
func (e *encoder) hiddenWeights(start int, shown []bool) int {
	off := len(e.bin.b) - start
	w := make([]float32, len(shown))
	for k, on := range shown {
		if !on {
			w[k] = 1
		}
	}
	e.bin.f32s(w)
	acc, a := e.newAccessor()
	a.BufferView, a.ByteOffset = e.index(e.animView), off
	a.ComponentType, a.Type, a.Count = gltf.ComponentFloat, gltf.AccessorScalar, len(w)
	return acc
}

// rotationShorts writes rotation keys (x, y, z, w each) into dst as glTF's normalised signed
// 16-bit integers, each key made unit length first: round(32767·c), which a reader turns back
// into max(i/32767, −1). That halves the bytes of the keys that make up most of an animated
// model's file, and moves no key by more than scene.ShortRounding. glTF allows it for rotation
// outputs without an extension.
func rotationShorts(dst []byte, vals []float32) {
	for k := 0; k+4 <= len(vals); k += 4 {
		q := [4]float32(vals[k : k+4])
		qx, qy, qz, qw := float64(q[0]), float64(q[1]), float64(q[2]), float64(q[3])
		if l2 := qx*qx + qy*qy + qz*qz + qw*qw; l2 < 1-5e-7 || l2 > 1+5e-7 {
			q = unitQuat(q)
		}
		for i, c := range q {
			v := float64(c) * 32767
			// Round half away from zero (math.Round's rule), by truncation.
			if v >= 0 {
				v += 0.5
			} else {
				v -= 0.5
			}
			if !(v >= -32767) { // also NaN, which validation rejects
				v = -32767
			}
			binary.LittleEndian.PutUint16(dst[2*(k+i):], uint16(int16(min(v, 32767))))
		}
	}
}

// animationExtras carries the scene animation's own extras plus its timing, in x (empty).
func animationExtras(a *scene.Animation, x map[string]any) map[string]any {
	for k, v := range a.Extras {
		x[k] = v
	}
	x["duration"] = r32(a.Duration)
	x["loop"] = a.Loop
	if a.Start != 0 || a.End != 0 {
		x["start"] = a.Start
		x["end"] = a.End
	}
	return x
}

// maxArc is the widest angle (radians, between the quaternions: half the turn) that two
// consecutive LINEAR rotation keys are written to span. glTF interpolates them by slerp;
// Blender's importer makes an F-curve of each component and interpolates those linearly (then
// normalises), which strays from slerp by up to about 0.016·θ³ over an angle θ: 0.9° of turn
// between keys 90° of turn apart, which moved a corpus model's attachments 1.1 units. Up to 8°
// that stays within 4.4e-5, the sampling tolerance of the decoders.
const maxArc = 8 * math.Pi / 180

// splitArcs returns c, or when some of its consecutive keys are more than maxArc apart, a copy
// with slerp samples between them (at float32 times strictly between theirs), so that an
// importer interpolating the components linearly follows the slerp the keys define. The
// samples lie on the arcs the glTF sampler follows: the curve is unchanged.
func splitArcs(c *scene.Channel) *scene.Channel {
	extra := arcSamples(c)
	if extra == 0 {
		return c
	}
	n := len(c.Times)
	out := *c
	out.Times = make([]float32, 0, n+extra)
	out.Values = make([]float32, 0, 4*(n+extra))
	for k := 0; k < n; k++ {
		out.Times = append(out.Times, c.Times[k])
		out.Values = append(out.Values, c.Values[4*k:4*k+4]...)
		if k+1 == n {
			break
		}
		p, q := c.Values[4*k:4*k+4], c.Values[4*k+4:4*k+8]
		if near(p, q) {
			continue
		}
		r := arcBetween(p, q)
		t0, t1 := float64(c.Times[k]), float64(c.Times[k+1])
		for j := 1; j < r.pieces; j++ {
			t := float32(t0 + (t1-t0)*float64(j)/float64(r.pieces))
			if t <= out.Times[len(out.Times)-1] || t >= c.Times[k+1] {
				continue // no float32 time between the keys (a jump)
			}
			u := (float64(t) - t0) / (t1 - t0) // the glTF sampler's parameter at t
			w0, w1 := math.Sin((1-u)*r.om)/math.Sin(r.om), r.sign*math.Sin(u*r.om)/math.Sin(r.om)
			out.Times = append(out.Times, t)
			for i := range 4 {
				out.Values = append(out.Values, float32(w0*float64(r.a[i])+w1*float64(r.b[i])))
			}
		}
	}
	return &out
}

// arcSamples is an upper bound on the number of samples splitArcs adds to the LINEAR rotation
// channel c (it leaves out those a jump has no float32 time for): at most 11 per key, as no
// two quaternions are more than 90° apart along the shorter way.
func arcSamples(c *scene.Channel) int {
	extra := 0
	v := c.Values
	for k := 0; k+1 < len(c.Times) && 4*k+8 <= len(v); k++ {
		if p, q := v[4*k:4*k+4], v[4*k+4:4*k+8]; !near(p, q) {
			extra += arcBetween(p, q).pieces - 1
		}
	}
	return extra
}

// near reports whether key values p and q (4 floats each) are within maxArc of each other, or
// not a rotation at all (written as identity), without a square root:
// (p·q)² ≥ cos²(maxArc)·|p|²|q|².
func near(p, q []float32) bool {
	p, q = p[:4], q[:4]
	pq := float64(p[0])*float64(q[0]) + float64(p[1])*float64(q[1]) + float64(p[2])*float64(q[2]) + float64(p[3])*float64(q[3])
	pp := float64(p[0])*float64(p[0]) + float64(p[1])*float64(p[1]) + float64(p[2])*float64(p[2]) + float64(p[3])*float64(p[3])
	qq := float64(q[0])*float64(q[0]) + float64(q[1])*float64(q[1]) + float64(q[2])*float64(q[2]) + float64(q[3])*float64(q[3])
	return pq*pq >= cosMax2*pp*qq || !(pp > 0 && qq > 0)
}

// keyArc is the slerp between two consecutive rotation keys as the glTF sampler follows it.
type keyArc struct {
	a, b   [4]float32 // the keys, normalised
	om     float64    // the angle between them
	sign   float64    // −1 when b is in the other hemisphere (the sampler takes −b)
	pieces int        // how many arcs of at most maxArc it is written as
}

// cosMax2 is cos²(maxArc).
var cosMax2 = math.Cos(maxArc) * math.Cos(maxArc)

// arcBetween measures the arc between key values p and q (4 floats each) that are not near.
func arcBetween(p, q []float32) keyArc {
	r := keyArc{a: unitQuat([4]float32(p)), b: unitQuat([4]float32(q)), sign: 1}
	d := dot4(r.a, r.b)
	if d < 0 {
		r.sign, d = -1, -d
	}
	r.om = math.Acos(min(d, 1))
	r.pieces = max(1, int(math.Ceil(r.om/maxArc)))
	if !(r.pieces <= 12) {
		r.pieces = 1 // NaN or infinite components (validation rejects them)
	}
	return r
}

func dot4(a, b [4]float32) float64 {
	return float64(a[0])*float64(b[0]) + float64(a[1])*float64(b[1]) + float64(a[2])*float64(b[2]) + float64(a[3])*float64(b[3])
}
