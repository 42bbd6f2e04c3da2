package wc3

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/modelfs/modelfs/translate/scene"
)

// This file decides what the game shows: the model's default look is the game's first frame
// of its first Stand sequence. Geoset animations and layer alphas are read there, as the game
// and mdx-m3-viewer (its reference renderer) read them: a track's keys are those inside the
// sequence's interval, a track with no key there has its tag's default (alpha 1, colour 0),
// and a geoset or layer whose alpha is at most VisibleAlpha is not drawn.

// VisibleAlpha is the alpha at or below which the game does not draw a geoset or a layer.
const VisibleAlpha = 0.01

// span is the stretch of the timeline a value is read in: a sequence's interval, or a global
// sequence's period.
type span struct {
	start, end int64
	ok         bool // false: no sequence; static values are used
}

// defaultSpan returns the interval of the model's default pose: the first sequence whose name
// starts with "Stand", else the first sequence. Its second value is that sequence's index,
// -1 when the model has none.
func (b *builder) defaultSpan() (span, int) {
	si := slices.IndexFunc(b.m.Sequences, func(s Sequence) bool {
		return strings.HasPrefix(strings.ToLower(strings.TrimSpace(s.Name)), "stand")
	})
	if si < 0 && len(b.m.Sequences) > 0 {
		si = 0
	}
	if si < 0 {
		return span{}, -1
	}
	iv := b.m.Sequences[si].Interval
	return span{start: int64(iv[0]), end: int64(iv[1]), ok: iv[1] >= iv[0]}, si
}

// value reads track t (width w; nil for none) at frame f of sequence sp, with static as the
// value when there is no track and def as the tag's default when the track has no key in the
// sequence. out receives w floats.
func (b *builder) value(t *Track, static []float32, def []float32, sp span, f int64, out []float32) {
	w := len(out)
	if t == nil || len(t.Values) != len(t.Frames)*w || !sp.ok {
		copy(out, static)
		return
	}
	start, end := sp.start, sp.end
	global := t.GlobalSeq >= 0 && int(t.GlobalSeq) < len(b.m.GlobalSequences)
	if global {
		start, end = 0, int64(b.m.GlobalSequences[t.GlobalSeq])
		f = 0 // the global clock at the start of the sequence
	}
	var keys []int // indices of the keys inside the interval, in frame order
	if global && len(t.Frames) > 0 && int64(t.Frames[0]) > end {
		keys = append(keys, 0) // a global track that starts after its period holds its first key
	}
	for k, fr := range t.Frames {
		if int64(fr) >= start && int64(fr) <= end {
			keys = append(keys, k)
		}
	}
	val := func(k int) []float32 { return t.Values[k*w : k*w+w] }
	switch {
	case len(keys) == 0:
		copy(out, def)
		return
	case len(keys) == 1 || f < start:
		copy(out, val(keys[0]))
		return
	}
	last := len(keys) - 1
	i0, i1 := last, 0
	if f >= int64(t.Frames[keys[0]]) && f < int64(t.Frames[keys[last]]) {
		for i := 1; i <= last; i++ {
			if int64(t.Frames[keys[i]]) > f {
				i0, i1 = i-1, i
				break
			}
		}
	}
	f0, f1 := float64(t.Frames[keys[i0]]), float64(t.Frames[keys[i1]])
	between := f1 - f0
	if between < 0 { // wrapping from the last key to the first
		between += float64(end - start)
		if float64(f) < f0 {
			f0 = f1
		}
	}
	u := 0.0
	if between != 0 {
		u = (float64(f) - f0) / between
	}
	a, c := val(keys[i0]), val(keys[i1])
	for k := range w {
		if t.Interp == DontInterp {
			out[k] = a[k]
		} else {
			// Hermite and Bezier keys are read as linear: their tangents move a value between
			// keys, not whether it is 0 at one.
			out[k] = float32(float64(a[k]) + u*(float64(c[k])-float64(a[k])))
		}
	}
}

// geosetState is what the game draws of one geoset at one frame.
type geosetState struct {
	color [3]float32 // red, green, blue
	alpha float32
}

var (
	one   = []float32{1}
	black = []float32{0, 0, 0}
)

// geosetAt reads geoset gi's animation (the last one naming it, as the game takes it) at frame
// f of sp.
func (b *builder) geosetAt(gi int, sp span, f int64) geosetState {
	st := geosetState{color: [3]float32{1, 1, 1}, alpha: 1}
	ga := b.geosetAnim(gi)
	if ga == nil {
		return st
	}
	// The static colour is read as written, an animated one as blue, green, red: the order
	// mdx-m3-viewer reads them in.
	st.color = ga.Color
	if ga.ColorTrack != nil {
		var bgr [3]float32
		b.value(ga.ColorTrack, ga.Color[:], black, sp, f, bgr[:])
		st.color = [3]float32{bgr[2], bgr[1], bgr[0]}
	}
	var a [1]float32
	b.value(ga.AlphaTrack, []float32{ga.Alpha}, one, sp, f, a[:])
	st.alpha = a[0]
	for k := range st.color {
		st.color[k] = clamp01(st.color[k])
	}
	st.alpha = clamp01(st.alpha)
	return st
}

// geosetAnim returns the geoset animation of geoset gi, nil for none.
func (b *builder) geosetAnim(gi int) *GeosetAnim {
	if b.geosetAnims == nil {
		b.geosetAnims = make(map[int]int, len(b.m.GeosetAnims))
		for i, ga := range b.m.GeosetAnims {
			b.geosetAnims[int(ga.GeosetID)] = i
		}
	}
	if i, ok := b.geosetAnims[gi]; ok {
		return &b.m.GeosetAnims[i]
	}
	return nil
}

// layerAlpha reads layer l's alpha at frame f of sp.
func (b *builder) layerAlpha(l *Layer, sp span, f int64) float32 {
	var a [1]float32
	b.value(l.AlphaTrack, []float32{l.Alpha}, one, sp, f, a[:])
	return clamp01(a[0])
}

// shown reports whether the game draws geoset gi at frame f of sp: its alpha and the alpha of
// at least one layer of its material are above VisibleAlpha.
func (b *builder) shown(gi int, sp span, f int64) bool {
	if b.geosetAt(gi, sp, f).alpha <= VisibleAlpha {
		return false
	}
	g := &b.m.Geosets[gi]
	if int(g.MaterialID) >= len(b.m.Materials) {
		return true
	}
	ls := b.m.Materials[g.MaterialID].Layers
	if len(ls) == 0 {
		return true
	}
	for i := range ls {
		if b.layerAlpha(&ls[i], sp, f) > VisibleAlpha {
			return true
		}
	}
	return false
}

func clamp01(f float32) float32 {
	if !(f > 0) { // also NaN
		return 0
	}
	return min(f, 1)
}

// visibilityTimes returns the frames of sp at which geoset gi's visibility may change: the
// start and every key of its geoset and layer alpha tracks inside the interval.
func (b *builder) visibilityTimes(gi int, sp span) []int64 {
	times := []int64{sp.start}
	add := func(t *Track) {
		if t == nil || (t.GlobalSeq >= 0 && int(t.GlobalSeq) < len(b.m.GlobalSequences)) {
			return // a global track is read at its clock's start throughout (see appearance)
		}
		for _, fr := range t.Frames {
			if int64(fr) > sp.start && int64(fr) <= sp.end {
				times = append(times, int64(fr))
			}
		}
	}
	if ga := b.geosetAnim(gi); ga != nil {
		add(ga.AlphaTrack)
	}
	if g := &b.m.Geosets[gi]; int(g.MaterialID) < len(b.m.Materials) {
		for i := range b.m.Materials[g.MaterialID].Layers {
			add(b.m.Materials[g.MaterialID].Layers[i].AlphaTrack)
		}
	}
	slices.Sort(times)
	return slices.Compact(times)
}

// visibility returns when geoset gi is shown within sp, as steps from the sequence's start
// (seconds). Between two key frames the geoset is shown when it is at their midpoint, from
// just after the first: a linear fade from 0 shows it from its start, a fade to 0 until its end.
func (b *builder) visibility(gi int, sp span) ([]float32, []bool) {
	fr := b.visibilityTimes(gi, sp)
	var times []float32
	var shown []bool
	add := func(f float64, on bool) {
		t := float32((f - float64(sp.start)) / 1000)
		if n := len(shown); n > 0 && (shown[n-1] == on || t <= times[n-1]) {
			return
		}
		times, shown = append(times, t), append(shown, on)
	}
	for i, f := range fr {
		at := b.shown(gi, sp, f)
		add(float64(f), at)
		next := sp.end
		if i+1 < len(fr) {
			next = fr[i+1]
		}
		if next-f >= 2 {
			add(float64(f)+1, b.shown(gi, sp, f+(next-f)/2))
		}
	}
	return times, shown
}

// appearance sets what the default scene shows: it hides the geosets the game hides at the
// default frame, tints the others with their geoset animation's colour and alpha there (a
// material of their own where that differs), records both in each mesh's extras, and gives
// every animation the steps of each geoset that it shows or hides.
func (b *builder) appearance() error {
	sp, si := b.defaultSpan()
	f := sp.start
	changing := make([]bool, len(b.s.Meshes))
	teams := false
	for mi := range b.s.Meshes {
		m := &b.s.Meshes[mi]
		gi := b.meshGeoset[mi]
		st := b.geosetAt(gi, sp, f)
		m.Hidden = !b.shown(gi, sp, f)
		m.Extras["defaultVisible"] = !m.Hidden
		m.Extras["defaultColor"] = scene.Floats([]float32{st.color[0], st.color[1], st.color[2], st.alpha})
		if si >= 0 {
			m.Extras["defaultSequence"] = b.m.Sequences[si].Name
		}
		if m.Material < 0 {
			continue
		}
		orig := m.Material
		if m.Hidden {
			st.alpha = 1 // its colour is what it shows when an animation shows it
		}
		m.Material = b.tinted(orig, st, gi)
		if _, ok := b.teams[orig]; ok {
			teams = true
			m.VariantMaterials = make([]int, len(PlayerColors))
			for p := range PlayerColors {
				m.VariantMaterials[p] = b.tinted(b.playerMaterial(orig, p), st, gi)
			}
		}
	}
	if teams {
		for _, p := range PlayerColors {
			b.s.Variants = append(b.s.Variants, p.Name)
		}
	}
	// Steps per animation, for every geoset whose visibility changes in some sequence or
	// differs from its default there; the others keep their default throughout.
	steps := make([][]scene.Visibility, len(b.s.Animations))
	for ai := range b.s.Animations {
		a := &b.s.Animations[ai]
		asp := span{start: int64(math.Round(a.Start * 1000)), end: int64(math.Round(a.End * 1000)), ok: true}
		for mi := range b.s.Meshes {
			times, shown := b.visibility(b.meshGeoset[mi], asp)
			if len(shown) > 1 || shown[0] == b.s.Meshes[mi].Hidden {
				changing[mi] = true
			}
			if last := len(times) - 1; a.Duration > times[last] {
				// Held to the end, so that a player that takes a clip's length from its keys
				// (Blender's action range) plays it whole.
				times, shown = append(times, a.Duration), append(shown, shown[last])
			}
			steps[ai] = append(steps[ai], scene.Visibility{Mesh: mi, Times: times, Shown: shown})
		}
	}
	for ai := range b.s.Animations {
		var vs []scene.Visibility
		for _, v := range steps[ai] {
			if changing[v.Mesh] || b.s.Meshes[v.Mesh].Hidden {
				vs = append(vs, v)
			}
		}
		b.s.Animations[ai].Visibility = vs
	}
	b.defaultFirst(si)
	return nil
}

// defaultFirst moves the animation of sequence si (the default pose's) to the front: glTF
// readers show the first animation on import (Blender makes it the active action), and the
// game shows Stand. The others keep the file's order; each records its sequence's index.
func (b *builder) defaultFirst(si int) {
	at := -1
	for ai := range b.s.Animations {
		a := &b.s.Animations[ai]
		seq := slices.IndexFunc(b.m.Sequences, func(s Sequence) bool {
			return s.Name == a.Name && int64(s.Interval[0]) == int64(math.Round(a.Start*1000))
		})
		a.Extras["sequence"] = int64(seq)
		if seq == si && si >= 0 && at < 0 {
			at = ai
		}
	}
	if at > 0 {
		d := b.s.Animations[at]
		copy(b.s.Animations[1:at+1], b.s.Animations[:at])
		b.s.Animations[0] = d
	}
}

// tinted returns material mat as geoset gi shows it with state st: mat itself when the geoset
// is not tinted, else a copy of it with the geoset's colour (and, where the material blends,
// alpha) multiplied in, made once per material and tint.
func (b *builder) tinted(mat int, st geosetState, gi int) int {
	if b.s.Materials[mat].AlphaMode == scene.AlphaOpaque {
		st.alpha = 1 // the game ignores alpha on opaque layers
	}
	if st.color == [3]float32{1, 1, 1} && st.alpha == 1 {
		return mat
	}
	key := [5]float32{float32(mat), st.color[0], st.color[1], st.color[2], st.alpha}
	if at, ok := b.tints[key]; ok {
		return at
	}
	m := b.s.Materials[mat]
	m.Name = fmt.Sprintf("%s geoset %d", m.Name, gi)
	for k := range 3 {
		m.BaseColor[k] *= linear(st.color[k])
	}
	m.BaseColor[3] *= st.alpha
	if m.Emission != nil { // the geoset's colour tints every layer
		e := *m.Emission
		for k := range 3 {
			e.Factor[k] *= linear(st.color[k]) * st.alpha
		}
		m.Emission = &e
	}
	m.Extras = cloneExtras(m.Extras)
	m.Extras["geosetTint"] = scene.Floats([]float32{st.color[0], st.color[1], st.color[2], st.alpha})
	if b.tints == nil {
		b.tints = map[[5]float32]int{}
	}
	b.tints[key] = len(b.s.Materials)
	b.s.Materials = append(b.s.Materials, m)
	return len(b.s.Materials) - 1
}

// cloneExtras returns a shallow copy of x.
func cloneExtras(x scene.Extras) scene.Extras {
	c := make(scene.Extras, len(x)+1)
	for k, v := range x {
		c[k] = v
	}
	return c
}
