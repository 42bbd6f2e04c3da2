// Package anim is the timeline machinery shared by the formats that keep all their animation on
// one global timeline in milliseconds, each sequence being a window [start, end] on it (Warcraft
// III MDL/MDX, World of Warcraft M2 before v264).
//
// It does two things. Sample evaluates a source track with the game's own semantics (windowing,
// global-sequence clocks, DontInterp/Linear/Hermite/Bezier, slerp and squad-style "sqlerp" for
// quaternions). Cut turns the part of a track inside one window into a glTF-shaped
// scene.Channel, rebased to t = 0 and in seconds: exact STEP and LINEAR keys for DontInterp and
// Linear tracks, and LINEAR samples baked within BakeTolerance for Hermite/Bezier curves (see
// OutputInterp for why not CUBICSPLINE).
//
// Windowing rules (those of the game as described in formats/README.md): only keys with
// start ≤ frame ≤ end count; before the first of them its value holds, after the last the last
// one's; a window without keys gives the track's default value. A global-sequence track ignores
// the window and runs on its own clock, t mod period, with its own window [0, period]; Cut bakes
// it repeating across the clip, with the global clock taken to be at 0 when the clip starts.
package anim

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
)

// Interp is a source interpolation type, numbered as in MDX (and M2).
type Interp uint32

// Source interpolation types.
const (
	DontInterp Interp = 0 // hold each key's value until the next key
	Linear     Interp = 1 // lerp, or shortest-path slerp for quaternions
	Hermite    Interp = 2 // cubic Hermite with per-key tangents (sqlerp for quaternions)
	Bezier     Interp = 3 // cubic Bezier with per-key control points (sqlerp for quaternions)
)

// String returns the MDL name of the interpolation type.
func (i Interp) String() string {
	switch i {
	case DontInterp:
		return "DontInterp"
	case Linear:
		return "Linear"
	case Hermite:
		return "Hermite"
	case Bezier:
		return "Bezier"
	}
	return fmt.Sprintf("Interp(%d)", uint32(i))
}

// Track is one animated property on a millisecond timeline.
type Track struct {
	Interp   Interp
	Width    int  // floats per value, 1 to MaxWidth
	Rotation bool // values are quaternions (x, y, z, w); Width must be 4
	Frames   []int64
	Values   []float32 // Width floats per key
	// InTans and OutTans hold Width floats per key when Interp is Hermite or Bezier (tangents
	// for the normalised segment parameter, or Bezier control points), and are ignored otherwise.
	InTans, OutTans []float32
	// Default is the value of a window without keys (Width floats).
	Default []float32
	// Global says that the track runs on its own clock of length Period ms (a global sequence)
	// instead of following the clip's window.
	Global bool
	Period int64
	// Tolerance is how far the samples baked of a Hermite or Bezier curve may stray from it
	// (largest component for vectors, the distance between quaternions for rotations); 0 for
	// BakeTolerance or RotationBakeTolerance. Decoders set it from the model's size and how far
	// the track's node reaches: an absolute bound tight for a small model is far tighter than
	// anyone can see for a large one, and costs samples.
	Tolerance float64
}

// MaxWidth is the widest value a track may have (a quaternion).
const MaxWidth = 4

// val is one value of a track; components past the track's width are 0.
type val [MaxWidth]float64

// Window is a clip on the source timeline, in milliseconds, start ≤ end.
type Window struct {
	Start, End int64
}

// Duration returns the window's length in milliseconds.
func (w Window) Duration() int64 { return w.End - w.Start }

// ErrBadTrack is wrapped by the errors Check returns.
var ErrBadTrack = errors.New("inconsistent track")

func badTrack(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadTrack, fmt.Sprintf(format, args...))
}

// Check reports whether the track's lengths, widths and frame order are consistent.
func (tr *Track) Check() error {
	if tr.Width < 1 || tr.Width > MaxWidth {
		return badTrack("width %d", tr.Width)
	}
	if tr.Rotation && tr.Width != 4 {
		return badTrack("rotation track of width %d", tr.Width)
	}
	if tr.Interp > Bezier {
		return badTrack("unknown interpolation %d", uint32(tr.Interp))
	}
	n := len(tr.Frames)
	if len(tr.Values) != n*tr.Width {
		return badTrack("%d values for %d keys of width %d", len(tr.Values), n, tr.Width)
	}
	if tr.cubic() && (len(tr.InTans) != n*tr.Width || len(tr.OutTans) != n*tr.Width) {
		return badTrack("%d in- and %d out-tangents for %d keys of width %d", len(tr.InTans), len(tr.OutTans), n, tr.Width)
	}
	if len(tr.Default) != tr.Width {
		return badTrack("default of width %d, track width %d", len(tr.Default), tr.Width)
	}
	for k := 1; k < n; k++ {
		if tr.Frames[k] < tr.Frames[k-1] {
			return badTrack("frame %d at key %d is before frame %d", tr.Frames[k], k, tr.Frames[k-1])
		}
	}
	if tr.Global && tr.Period < 0 {
		return badTrack("negative global-sequence period %d", tr.Period)
	}
	return nil
}

func (tr *Track) cubic() bool { return tr.Interp == Hermite || tr.Interp == Bezier }

// KeysIn returns the range [first, end) of the keys whose frames lie in [lo, hi]. The frames
// are in order (Check), so it searches: a track keyed through a hundred sequences is cut a
// hundred times.
func (tr *Track) KeysIn(lo, hi int64) (first, end int) {
	first, _ = slices.BinarySearch(tr.Frames, lo) // the first at or after lo
	end = first + sort.Search(len(tr.Frames)-first, func(i int) bool { return tr.Frames[first+i] > hi })
	return first, end
}

// SourceWindow returns the window of the track's own timeline that clip w uses: w itself, or
// [0, Period] for a global-sequence track.
func (tr *Track) SourceWindow(w Window) Window {
	if tr.Global {
		return Window{0, tr.Period}
	}
	return w
}

func (tr *Track) value(k int) val  { return vec(tr.Values, k, tr.Width) }
func (tr *Track) inTan(k int) val  { return vec(tr.InTans, k, tr.Width) }
func (tr *Track) outTan(k int) val { return vec(tr.OutTans, k, tr.Width) }
func (tr *Track) def() val         { return vec(tr.Default, 0, tr.Width) }

// vec reads value k of width w out of fs.
func vec(fs []float32, k, w int) val {
	var out val
	for i, f := range fs[k*w : k*w+w] {
		out[i] = float64(f)
	}
	return out
}

// SortKeys puts the keys in frame order, keeping the file's order among keys of one frame (so
// that the last of them is the value from that frame on, as a later key overrides an earlier
// one when a track is read in order), and returns how many keys moved. Tools write tracks out of
// order now and then; the game plays them by frame.
func (tr *Track) SortKeys() int {
	n := len(tr.Frames)
	if slices.IsSorted(tr.Frames) || len(tr.Values) != n*tr.Width || tr.cubic() && (len(tr.InTans) != n*tr.Width || len(tr.OutTans) != n*tr.Width) {
		return 0
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(tr.Frames[a], tr.Frames[b]) })
	moved := 0
	for i, k := range order {
		if i != k {
			moved++
		}
	}
	w := tr.Width
	permute := func(vals []float32) []float32 {
		if vals == nil {
			return nil
		}
		out := make([]float32, len(vals))
		for i, k := range order {
			copy(out[i*w:(i+1)*w], vals[k*w:(k+1)*w])
		}
		return out
	}
	frames := make([]int64, n)
	for i, k := range order {
		frames[i] = tr.Frames[k]
	}
	tr.Frames, tr.Values = frames, permute(tr.Values)
	if tr.cubic() {
		tr.InTans, tr.OutTans = permute(tr.InTans), permute(tr.OutTans)
	}
	return moved
}

// Reach returns the farthest a vector track (width 3, such as a translation) takes its value
// from rest: over its keys and, for Hermite and Bezier curves, the control points between which
// the curve stays.
func (tr *Track) Reach(rest [3]float32) float64 { return tr.reach(rest, true) }

// KeyReach returns the farthest a vector track's keys lie from rest: where the curve surely
// goes, which its tangents may only overstate.
func (tr *Track) KeyReach(rest [3]float32) float64 { return tr.reach(rest, false) }

func (tr *Track) reach(rest [3]float32, controls bool) float64 {
	if tr.Width != 3 {
		return 0
	}
	dist := func(v [3]float64) float64 {
		d0, d1, d2 := v[0]-float64(rest[0]), v[1]-float64(rest[1]), v[2]-float64(rest[2])
		return math.Sqrt(d0*d0 + d1*d1 + d2*d2)
	}
	at := func(s []float32, k int) [3]float64 {
		return [3]float64{float64(s[3*k]), float64(s[3*k+1]), float64(s[3*k+2])}
	}
	far := 0.0
	if len(tr.Default) == 3 {
		far = dist(at(tr.Default, 0))
	}
	cubic := controls && tr.cubic() && len(tr.InTans) == len(tr.Values) && len(tr.OutTans) == len(tr.Values)
	for k := range len(tr.Values) / 3 {
		v := at(tr.Values, k)
		far = max(far, dist(v))
		if !cubic {
			continue
		}
		in, out := at(tr.InTans, k), at(tr.OutTans, k)
		if tr.Interp == Hermite { // tangents for the normalised segment: control points v ∓ tan/3
			for c := range 3 {
				in[c], out[c] = v[c]-in[c]/3, v[c]+out[c]/3
			}
		}
		far = max(far, dist(in), dist(out))
	}
	return far
}
