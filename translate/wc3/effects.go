package wc3

import (
	"fmt"
	"hash/fnv"
	"math"
	"sort"
	"strings"

	"github.com/modelfs/modelfs/translate/anim"
	"github.com/modelfs/modelfs/translate/scene"
)

// This file describes the model's emitters to translate/fx (scene.Emitter), which simulates
// and bakes them: ParticleEmitter2 and RibbonEmitter, as the game runs them.
// ParticleEmitter (the first generation, which emits copies of another model) is described
// in the .json only.

// highParticles is how the game's High particle setting scales a ParticleEmitter2's static
// emission rate (as mdx-m3-viewer, the reference renderer, has it; animated rates are used as
// they are).
const highParticles = 2

// curve is a track of the model evaluated as the game does (anim.Sample): windowed by the
// clip, or on its global sequence's clock.
type curve struct {
	tr    *anim.Track
	scale float32
}

func (c *curve) At(clip scene.Clip, t float64) ([3]float32, int) {
	w := anim.Window{Start: int64(math.Round(clip.Start * 1000)), End: int64(math.Round(clip.End * 1000))}
	var v [3]float64
	c.tr.SampleInto(w, t*1000, v[:]) // the track passed Check when it was made
	var out [3]float32
	for i := range 3 {
		out[i] = float32(v[i]) * c.scale
	}
	// The key in effect, for squirting emitters: the last key at or before the moment.
	sw := c.tr.SourceWindow(w)
	first, end := c.tr.KeysIn(sw.Start, sw.End)
	var at float64
	if c.tr.Global {
		if c.tr.Period > 0 {
			at = math.Mod(t*1000, float64(c.tr.Period))
		}
	} else {
		at = float64(w.Start) + t*1000
	}
	keys := c.tr.Frames[first:end]
	key := first + sort.Search(len(keys), func(i int) bool { return float64(keys[i]) > at }) - 1
	if key < first {
		key = -1
	}
	return out, key
}

// param makes a scene parameter of a static value and its track (nil for none).
func (b *builder) param(static []float32, t *Track, scale float32) scene.Param {
	var p scene.Param
	copy(p.Value[:], static)
	for i := range len(static) {
		p.Value[i] *= scale // the static value only: a track is used as it is
	}
	if t == nil || len(t.Frames) == 0 {
		return p
	}
	w := len(static)
	if len(t.Values) != len(t.Frames)*w {
		return p
	}
	// A window without keys holds the static value, scaled as it is.
	tr := &anim.Track{Interp: anim.Interp(t.Interp), Width: w, Frames: make([]int64, len(t.Frames)),
		Values: t.Values, Default: p.Value[:w]}
	for k, f := range t.Frames {
		tr.Frames[k] = int64(f)
	}
	if t.Interp == Hermite || t.Interp == Bezier {
		if len(t.InTans) != len(t.Values) || len(t.OutTans) != len(t.Values) {
			tr.Interp = anim.Linear
		} else {
			tr.InTans, tr.OutTans = t.InTans, t.OutTans
		}
	}
	if t.GlobalSeq >= 0 {
		if int(t.GlobalSeq) >= len(b.m.GlobalSequences) {
			return p
		}
		tr.Global, tr.Period = true, int64(b.m.GlobalSequences[t.GlobalSeq])
	}
	tr.SortKeys()
	if tr.Check() != nil {
		return p
	}
	p.Curve = &curve{tr: tr, scale: 1}
	return p
}

func (b *builder) scalar(v float32, t *Track) scene.Param { return b.param([]float32{v}, t, 1) }

// emitterScene describes the emitters for translate/fx, with a material for each
// ParticleEmitter2's particles, and where their billboards face: the portrait camera's side.
func (b *builder) emitterScene() {
	m := b.m
	if len(m.ParticleEmitters2)+len(m.RibbonEmitters) == 0 {
		return
	}
	h := fnv.New64a()
	h.Write(b.src.Data)
	seed := h.Sum64()
	nodeOf := b.emitterNodes()
	for _, c := range m.Cameras {
		if strings.Contains(strings.ToLower(c.Name), "portrait") {
			d := convPos([3]float32{c.Position[0] - c.TargetPosition[0], c.Position[1] - c.TargetPosition[1], c.Position[2] - c.TargetPosition[2]})
			b.s.Effects.View = d
			break
		}
	}
	one := []float32{1}
	for i := range m.ParticleEmitters2 {
		p := &m.ParticleEmitters2[i]
		node, ok := nodeOf[[2]int{1, i}]
		if !ok {
			continue
		}
		index := len(m.ParticleEmitters) + i
		e := scene.Emitter{
			Name: p.Name, Kind: EmitterParticle2, Index: index, Node: node, Seed: seed ^ uint64(index+1)*0x9e3779b97f4a7c15,
			Material:   b.particleMaterial(p),
			Rate:       b.param([]float32{p.EmissionRate}, p.EmissionRateTrack, highParticles),
			Visibility: b.param(one, p.Visibility, 1),
			LifeSpan:   p.LifeSpan,
			Speed:      b.scalar(p.Speed, p.SpeedTrack), Variation: b.scalar(p.Variation, p.VariationTrack),
			Latitude: b.scalar(p.Latitude, p.LatitudeTrack), Gravity: b.scalar(p.Gravity, p.GravityTrack),
			Width: b.scalar(p.Width, p.WidthTrack), Length: b.scalar(p.Length, p.LengthTrack),
			Additive: p.FilterMode == 1, Squirt: p.Squirt != 0, Line: p.Flags&0x20000 != 0, ModelSpace: p.Flags&0x80000 != 0, XYQuad: p.Flags&0x100000 != 0,
			Head: p.HeadOrTail == 0 || p.HeadOrTail == 2, Tail: p.HeadOrTail == 1 || p.HeadOrTail == 2,
			TailLength: p.TailLength, Middle: p.Time, Scales: p.SegmentScaling,
			Rows: int(min(p.Rows, 256)), Columns: int(min(p.Columns, 256)),
		}
		for k := range 3 {
			e.Colors[k] = [4]float32{p.SegmentColor[k][0], p.SegmentColor[k][1], p.SegmentColor[k][2], float32(p.SegmentAlpha[k]) / 255}
		}
		if p.ReplaceableID != 1 && p.ReplaceableID != 2 {
			// A team-coloured particle shows the player's cell instead of its animation.
			e.Cells = [4][3]uint32{p.HeadIntervals[0], p.HeadIntervals[1], p.TailIntervals[0], p.TailIntervals[1]}
		}
		b.s.Emitters = append(b.s.Emitters, e)
	}
	for i := range m.RibbonEmitters {
		r := &m.RibbonEmitters[i]
		node, ok := nodeOf[[2]int{2, i}]
		if !ok {
			continue
		}
		index := len(m.ParticleEmitters) + len(m.ParticleEmitters2) + i
		mat, additive := -1, false
		if r.MaterialID >= 0 && int(r.MaterialID) < len(m.Materials) && int(r.MaterialID) < len(b.s.Materials) {
			mat = int(r.MaterialID)
			ls := m.Materials[mat].Layers
			additive = len(ls) > 0 && adds(ls[0].FilterMode)
		} else {
			b.warn("RibbonEmitter %q: material %d of %d: not drawn", r.Name, r.MaterialID, len(m.Materials))
		}
		b.s.Emitters = append(b.s.Emitters, scene.Emitter{
			Name: r.Name, Kind: EmitterRibbon, Index: index, Node: node, Seed: seed ^ uint64(index+1)*0x9e3779b97f4a7c15,
			Material: mat, Ribbon: true, Additive: additive,
			Rate:       scene.Param{Value: [3]float32{float32(r.EmissionRate)}},
			Visibility: b.param(one, r.Visibility, 1),
			LifeSpan:   r.LifeSpan,
			Gravity:    scene.Param{Value: [3]float32{r.Gravity}},
			Above:      b.scalar(r.HeightAbove, r.HeightAboveTrack), Below: b.scalar(r.HeightBelow, r.HeightBelowTrack),
			Alpha: b.scalar(r.Alpha, r.AlphaTrack), Color: b.param(r.Color[:], r.ColorTrack, 1),
			Slot: b.scalar(float32(r.TextureSlot), r.TextureSlotTrack),
			Rows: int(min(r.Rows, 256)), Columns: int(min(r.Columns, 256)),
		})
	}
}

// particleMaterial makes the material a ParticleEmitter2's particles are drawn with: its
// texture (or the team colour's or glow's), unlit and two-sided, blended as its filter mode
// blends; their colour and alpha are the vertices'. -1 when it has no texture to show.
func (b *builder) particleMaterial(p *ParticleEmitter2) int {
	tex := -1
	switch {
	case p.ReplaceableID != 0:
		for i := range b.s.Textures {
			if t := &b.s.Textures[i]; t.Replaceable == int(p.ReplaceableID) && t.Look == nil {
				tex = i
				break
			}
		}
	case p.TextureID >= 0 && int(p.TextureID) < len(b.m.Textures):
		tex = int(p.TextureID)
	}
	if tex < 0 {
		b.warn("ParticleEmitter2 %q: texture %d (replaceable %d) is none of the model's: not drawn", p.Name, p.TextureID, p.ReplaceableID)
		return -1
	}
	mat := scene.Material{
		Name: p.Name + " particles", BaseColor: [4]float32{1, 1, 1, 1}, Texture: tex, AlphaMode: scene.AlphaBlend,
		DoubleSided: true, Unlit: true, Flags: []string{"FilterMode:" + emitterFilterName(p.FilterMode)},
		Extras: scene.Extras{"technique": "particles of ParticleEmitter2 " + quoteName(p.Name) + ", filter mode " + emitterFilterName(p.FilterMode)},
	}
	switch p.FilterMode {
	case 1: // Additive
		mat.Texture = b.paint(tex, scene.Look{Additive: true})
	case 2, 3: // Modulate, Modulate2x
		scale := float32(1)
		if p.FilterMode == 3 {
			scale = 2
		}
		mat.Texture = b.paint(tex, scene.Look{Modulate: true, Scale: scale})
	case 4: // AlphaKey: the game keeps what is at least 3/4 opaque
		mat.AlphaMode, mat.AlphaCutoff = scene.AlphaMask, 0.75
	}
	b.s.Materials = append(b.s.Materials, mat)
	return len(b.s.Materials) - 1
}

func quoteName(s string) string { return fmt.Sprintf("%q", s) }
