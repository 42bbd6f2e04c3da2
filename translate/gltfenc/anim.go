package gltfenc

import (
	"unsafe"

	"github.com/qmuntal/gltf"

	"github.com/modelfs/modelfs/translate/scene"
)

// animations writes one glTF animation per scene animation that has channels (glTF requires at
// least one). All key data shares one bufferView; samplers with identical key times share one
// input accessor.
func (e *encoder) animations() {
	s := e.s
	start := -1
	for ai := range s.Animations {
		a := &s.Animations[ai]
		if len(a.Channels) == 0 {
			continue
		}
		if start < 0 {
			start = len(e.bin.b)
			// The view is added after all key data is written; its index is reserved now so that
			// accessors can refer to it.
			e.doc.BufferViews = append(e.doc.BufferViews, &gltf.BufferView{})
			e.animView = len(e.doc.BufferViews) - 1
			e.times = map[string]int{}
		}
		out := &gltf.Animation{Name: a.Name, Extras: animationExtras(a)}
		type target struct {
			node int
			path scene.Path
		}
		seen := make(map[target]bool, len(a.Channels))
		for ci := range a.Channels {
			c := &a.Channels[ci]
			t := target{c.Node, c.Path}
			if seen[t] || !e.channelOK(c) {
				continue // glTF forbids two channels on one target; inconsistent channels are dropped
			}
			seen[t] = true
			in := e.keyTimes(start, c.Times)
			outAcc := e.keyValues(start, c)
			out.Samplers = append(out.Samplers, &gltf.AnimationSampler{Input: in, Output: outAcc, Interpolation: interpolation(c.Interp)})
			out.Channels = append(out.Channels, &gltf.AnimationChannel{
				Sampler: len(out.Samplers) - 1,
				Target:  gltf.AnimationChannelTarget{Node: gltf.Index(c.Node), Path: gltf.TRSProperty(c.Path)},
			})
		}
		if len(out.Channels) > 0 {
			e.doc.Animations = append(e.doc.Animations, out)
		}
	}
	if start >= 0 {
		v := e.doc.BufferViews[e.animView]
		v.ByteOffset, v.ByteLength = start, len(e.bin.b)-start
		e.bin.pad()
	}
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
	// not change while it is encoded, and the map does not outlive the encoding.
	raw := unsafe.String((*byte)(unsafe.Pointer(unsafe.SliceData(times))), len(times)*4)
	if acc, ok := e.times[raw]; ok {
		return acc
	}
	off := len(e.bin.b) - start
	e.bin.f32s(times)
	lo, hi := bounds(times, 1)
	acc := e.accessor(&gltf.Accessor{
		BufferView: gltf.Index(e.animView), ByteOffset: off,
		ComponentType: gltf.ComponentFloat, Type: gltf.AccessorScalar, Count: len(times),
		Min: lo, Max: hi,
	})
	e.times[raw] = acc
	return acc
}

// keyValues writes c's values and returns their output accessor. Rotation values (not cubic
// tangents) are normalised where they are not unit length to float32 precision.
func (e *encoder) keyValues(start int, c *scene.Channel) int {
	off := len(e.bin.b) - start
	w := c.Path.Width()
	typ := gltf.AccessorVec3
	if w == 4 {
		typ = gltf.AccessorVec4
	}
	count := len(c.Values) / w
	if c.Path != scene.PathRotation {
		e.bin.f32s(c.Values)
	} else {
		stride, at := 4, 0
		if c.Interp == scene.CubicSpline {
			stride, at = 12, 4 // in-tangent, value, out-tangent
		}
		dst := e.bin.grow(len(c.Values) * 4)
		putF32s(dst, c.Values)
		for k := 0; k+stride <= len(c.Values); k += stride {
			v := c.Values[k+at : k+at+4]
			if q := unitQuat([4]float32(v)); q != [4]float32(v) {
				putF32s(dst[(k+at)*4:], q[:])
			}
		}
	}
	return e.accessor(&gltf.Accessor{
		BufferView: gltf.Index(e.animView), ByteOffset: off,
		ComponentType: gltf.ComponentFloat, Type: typ, Count: count,
	})
}

// animationExtras carries the scene animation's own extras plus its timing.
func animationExtras(a *scene.Animation) map[string]any {
	x := make(map[string]any, len(a.Extras)+4)
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
