package m2

import (
	"fmt"
	"math"
	"slices"

	"github.com/modelfs/modelfs/translate/scene"
)

// This file describes the model's particle emitters and ribbons: one node each, under its
// bone, an entry each in the .json's emitters, and a scene.Emitter each for translate/fx, which
// simulates and bakes them as the game runs them (WebWowViewer's reading of the client):
//   - a plane emitter (type 1) spawns over Length × Width and emits along its +Z, spread by
//     the vertical range (a cone when the horizontal range turns all the way round, a fan
//     when it is 0); a sphere emitter (type 2) spawns on a shell and flies outward; with a
//     zSource above 0 particles fly from that point on the emitter's Z through where they
//     spawn.
//   - colour, alpha, scale (half the quad's side) and texture cells run over three keys of
//     the particle's life (before 264 its start, MidPoint and end; from 264 the life tracks,
//     read at their keys).
//   - flag 0x10 keeps particles in the emitter's space; 0x1000 lays them flat; 0x20000 and
//     0x40000 draw the head and the tail (headOrTail when neither is set).
// Spline and bone emitters, spin, twinkle, drag, wind and burst are not simulated: their
// fields are in the .json.

// Emitter kinds, as the .json names them.
const (
	EmitterParticle = "m2particle"
	EmitterRibbon   = "m2ribbon"
)

// emitterNodes adds a node per particle emitter, then per ribbon, under its bone at its
// position (model space, as attachments are).
func (b *builder) emitterNodes() {
	m := b.m
	add := func(name string, kind scene.NodeKind, bone int, pos [3]float32, ex scene.Extras) {
		parent := bone
		if parent < 0 || parent >= b.nb {
			b.warn("%s is on bone %d of %d; placed at the root", name, bone, b.nb)
			parent = -1
		}
		b.pivots[len(b.s.Nodes)] = convPos(pos)
		ex["position"] = convPos(pos)
		b.s.Nodes = append(b.s.Nodes, scene.Node{Name: name, Kind: kind, Parent: parent, Extras: ex})
	}
	b.emitter0 = len(m.Bones) + len(m.Attachments)
	for i := range m.Particles {
		e := &m.Particles[i]
		add(fmt.Sprintf("particle emitter %d", i), scene.KindEmitter, int(e.Bone), e.Pos, scene.Extras{"emitter": i})
	}
	for i := range m.Ribbons {
		r := &m.Ribbons[i]
		add(fmt.Sprintf("ribbon emitter %d", i), scene.KindRibbon, int(r.Bone), r.Pos, scene.Extras{"emitter": len(m.Particles) + i})
	}
}

// partInfo is a life track for the .json: its keys' times (shares of the life) and values.
func partInfo(t *PartTrack) scene.Extras {
	return scene.Extras{"times": slices.Clone(t.Times), "values": slices.Clone(t.Values)}
}

// emitterExtras lists every emitter in the .json's emitters, particle emitters first, with
// the format's field names.
func (b *builder) emitterExtras(ex scene.Extras) {
	m := b.m
	var out []scene.Extras
	for i := range m.Particles {
		e := &m.Particles[i]
		x := scene.Extras{"kind": EmitterParticle, "node": b.emitter0 + i, "id": e.ID, "flags": e.Flags,
			"flagNames": flagNames(e.Flags, particleFlagNames), "bone": e.Bone, "position": convPos(e.Pos),
			"texture": e.Texture, "geometryModel": e.Model, "recursionModel": e.ChildEmitter, "blendingType": e.Blend,
			"blendName": blendName(e.Blend), "emitterType": e.EmitterType, "particleColorIndex": e.ColorIndex,
			"particleType": e.ParticleType, "headOrTail": e.HeadOrTail, "textureTileRotation": e.TileRotation,
			"textureDimensionsRows": e.Rows, "textureDimensionsColumns": e.Cols,
			"emissionSpeed": trackInfo(&e.EmissionSpeed), "speedVariation": trackInfo(&e.SpeedVariation),
			"verticalRange": trackInfo(&e.VerticalRange), "horizontalRange": trackInfo(&e.HorizontalRange),
			"gravity": trackInfo(&e.Gravity), "lifespan": trackInfo(&e.Lifespan), "emissionRate": trackInfo(&e.EmissionRate),
			"emissionAreaLength": trackInfo(&e.EmissionAreaLen), "emissionAreaWidth": trackInfo(&e.EmissionAreaWidth),
			"zSource": trackInfo(&e.ZSource), "enabledIn": trackInfo(&e.Enabled),
			"tailLength": e.TailLength, "twinkleSpeed": e.TwinkleSpeed, "twinklePercent": e.TwinklePercent,
			"twinkleScale": e.TwinkleScale, "burstMultiplier": e.BurstMultiplier, "drag": e.Drag, "spin": e.Spin,
			"windVector": convPos(e.WindVector), "windTime": e.WindTime, "followSpeed1": e.FollowSpeed1,
			"followScale1": e.FollowScale1, "followSpeed2": e.FollowSpeed2, "followScale2": e.FollowScale2}
		if m.Layout.Legacy {
			x["midPoint"] = e.MidPoint
			x["colorValues"] = e.ColorValues
			x["scaleValues"] = e.ScaleValues
			x["lifespanUVAnim"], x["decayUVAnim"] = e.LifespanUVAnim, e.DecayUVAnim
			x["tailUVAnim"], x["tailDecayUVAnim"] = e.TailUVAnim, e.TailDecayUVAnim
		} else {
			x["lifespanVary"], x["emissionRateVary"] = e.LifespanVary, e.EmissionRateVary
			x["colorTrack"], x["alphaTrack"], x["scaleTrack"] = partInfo(&e.ColorTrack), partInfo(&e.AlphaTrack), partInfo(&e.ScaleTrack)
			x["scaleVary"] = e.ScaleVary
			x["headCellTrack"], x["tailCellTrack"] = partInfo(&e.HeadCellTrack), partInfo(&e.TailCellTrack)
			x["baseSpin"], x["baseSpinVary"], x["spinVary"] = e.BaseSpin, e.BaseSpinVary, e.SpinVary
		}
		out = append(out, x)
	}
	for i := range m.Ribbons {
		r := &m.Ribbons[i]
		x := scene.Extras{"kind": EmitterRibbon, "node": b.emitter0 + len(m.Particles) + i, "id": r.ID, "bone": r.Bone,
			"position": convPos(r.Pos), "textureIndices": r.Textures, "materialIndices": r.Materials,
			"color": trackInfo(&r.Color), "alpha": trackInfo(&r.Alpha), "heightAbove": trackInfo(&r.HeightAbove),
			"heightBelow": trackInfo(&r.HeightBelow), "edgesPerSecond": r.EdgesPerSecond, "edgeLifetime": r.EdgeLifetime,
			"gravity": r.Gravity, "textureRows": r.Rows, "textureCols": r.Cols, "texSlot": trackInfo(&r.TexSlot),
			"visibility": trackInfo(&r.Visibility)}
		if r.HasPriorityPlane {
			x["priorityPlane"] = r.PriorityPlane
		}
		out = append(out, x)
	}
	putSome(ex, "emitters", len(out), out)
}

// particleFlagNames names the particle flags whose meaning is known (WebWowViewer's reading of
// the client).
var particleFlagNames = map[uint32]string{
	0x1: "Lit", 0x4: "VelocityAligned", 0x8: "WorldUp", 0x10: "ModelSpace", 0x20: "BoneScale", 0x40: "Burst",
	0x80: "SphereInward", 0x100: "GoUp", 0x200: "AlternateSpin", 0x400: "Pinned", 0x1000: "XYQuad",
	0x2000: "ClampToGround", 0x4000: "Follow", 0x8000: "RandomCellOffset", 0x10000: "RandomCell",
	0x20000: "Head", 0x40000: "Tail", 0x80000: "ScaleVaryXY", 0x200000: "RandomFlipbookStart",
	0x10000000: "MultiTexture",
}

// curve is a track of the model as the game evaluates it in each sequence, copied out of the
// track's memory (which is reused once the model is built).
type curve struct {
	seqs   []curveKeys // per sequence; none for a global track
	starts []uint32    // each sequence's start on the keys' clock
	global *curveKeys
	period uint32
	def    []float32
	scale  float32
}

func (c *curve) At(clip scene.Clip, t float64) ([3]float32, int) {
	var ck *curveKeys
	at := t * 1000
	switch {
	case c.global != nil:
		ck = c.global
		if c.period > 0 {
			at = math.Mod(at, float64(c.period))
		}
	case clip.Index >= 0 && clip.Index < len(c.seqs):
		ck = &c.seqs[clip.Index]
		at += float64(c.starts[clip.Index])
	}
	var out [3]float32
	if ck == nil || len(ck.times) == 0 {
		copy(out[:], c.def)
	} else {
		v := ck.eval(at)
		for i := range min(ck.width, 3) {
			out[i] = float32(v[i])
		}
	}
	for i := range out {
		out[i] *= c.scale
	}
	return out, -1
}

// param makes a scene parameter of track t: its value at the start of the first sequence
// when it does not change, else a curve; def is its value without keys. Values are scaled.
func (b *builder) param(t *Track, def []float32, scale float32) scene.Param {
	var p scene.Param
	// A track whose keys all hold one value holds it throughout, in every sequence: the
	// legacy emitters' static values sit on one key at time 0, in no sequence's window.
	v, held := constant(t)
	animated := false
	if !held || len(v) != len(def) {
		v, animated = b.staticValue(t, def)
	}
	for i := range min(len(v), 3) {
		p.Value[i] = v[i] * scale
	}
	if !animated || t.Width != len(def) || t.Width > 3 {
		return p
	}
	c := &curve{def: slices.Clone(def), scale: scale}
	if t.GlobalSeq >= 0 {
		g := int(t.GlobalSeq)
		if g >= len(b.m.GlobalSequences) {
			return p
		}
		c.global = &curveKeys{width: t.Width, linear: t.Interp != 0}
		if len(t.Keys) > 0 {
			times, vals, _ := sortKeys(t.Keys[0].Times, t.Keys[0].Values, t.Width)
			c.global.times, c.global.vals = slices.Clone(times), slices.Clone(vals)
		}
		c.period = b.m.GlobalSequences[g]
	} else {
		for si := range b.m.Sequences {
			ck, s, _, _ := b.seqCurve(t, si, false)
			ck.times, ck.vals = slices.Clone(ck.times), slices.Clone(ck.vals)
			c.seqs, c.starts = append(c.seqs, ck), append(c.starts, s)
		}
	}
	p.Curve = c
	return p
}

// emitterScene describes the emitters for translate/fx.
func (b *builder) emitterScene() {
	m := b.m
	if len(m.Particles)+len(m.Ribbons) == 0 || len(b.s.Nodes) < b.emitter0+len(m.Particles)+len(m.Ribbons) {
		return
	}
	seed := m.Seed
	one, zero := []float32{1}, []float32{0}
	for i := range m.Particles {
		p := &m.Particles[i]
		e := scene.Emitter{
			Name: fmt.Sprintf("particle emitter %d", i), Kind: EmitterParticle, Index: i, Node: b.emitter0 + i,
			Seed:       seed ^ uint64(i+1)*0x9e3779b97f4a7c15,
			Rate:       b.param(&p.EmissionRate, zero, 1),
			Visibility: b.param(&p.Enabled, one, 1),
			Speed:      b.param(&p.EmissionSpeed, zero, 1), Variation: b.param(&p.SpeedVariation, zero, 1),
			Latitude: b.param(&p.VerticalRange, zero, 180/math.Pi), Gravity: b.param(&p.Gravity, zero, 1),
			Width: b.param(&p.EmissionAreaWidth, zero, 1), Length: b.param(&p.EmissionAreaLen, zero, 1),
			Source:     b.param(&p.ZSource, zero, 1),
			ModelSpace: p.Flags&0x10 != 0, XYQuad: p.Flags&0x1000 != 0,
			TailLength: p.TailLength, Rows: int(min(p.Rows, 256)), Columns: int(min(p.Cols, 256)),
		}
		e.LifeSpan = b.param(&p.Lifespan, one, 1).Value[0]
		switch p.EmitterType {
		case 1:
		case 2:
			e.Sphere = true
		default:
			b.warn("particle emitter %d: emitter type %d (spline or bone) is not simulated; not drawn", i, p.EmitterType)
			continue
		}
		e.Line = b.param(&p.HorizontalRange, zero, 1).Value[0] == 0
		switch {
		case p.Flags&0x60000 != 0:
			e.Head, e.Tail = p.Flags&0x20000 != 0, p.Flags&0x40000 != 0
		case m.Version < 265: // from Cataclysm the byte is a multitexture parameter
			e.Head, e.Tail = p.HeadOrTail != 1, p.HeadOrTail >= 1
		default:
			e.Head = true
		}
		b.particleLife(p, &e)
		e.Material, e.Additive = b.emitterMaterial(fmt.Sprintf("particle emitter %d", i), b.particleTexture(i, p), p.Blend, true)
		b.s.Emitters = append(b.s.Emitters, e)
	}
	for i := range m.Ribbons {
		r := &m.Ribbons[i]
		index := len(m.Particles) + i
		tex, blend := -1, uint16(0)
		if len(r.Textures) > 0 && int(r.Textures[0]) < len(b.s.Textures) {
			tex = int(r.Textures[0])
		}
		if len(r.Materials) > 0 && int(r.Materials[0]) < len(m.Materials) {
			blend = m.Materials[r.Materials[0]].Blend
		}
		e := scene.Emitter{
			Name: fmt.Sprintf("ribbon emitter %d", i), Kind: EmitterRibbon, Index: index, Node: b.emitter0 + index,
			Seed: seed ^ uint64(index+1)*0x9e3779b97f4a7c15, Ribbon: true,
			Rate:       scene.Param{Value: [3]float32{r.EdgesPerSecond}},
			Visibility: b.param(&r.Visibility, one, 1),
			LifeSpan:   max(r.EdgeLifetime, 0.25), // the game keeps an edge at least a quarter second
			Gravity:    scene.Param{Value: [3]float32{r.Gravity}},
			Above:      b.param(&r.HeightAbove, zero, 1), Below: b.param(&r.HeightBelow, zero, 1),
			Alpha: b.param(&r.Alpha, one, 1), Color: b.param(&r.Color, []float32{1, 1, 1}, 1),
			Slot: b.param(&r.TexSlot, zero, 1), Rows: int(min(r.Rows, 256)), Columns: int(min(r.Cols, 256)),
		}
		e.Material, e.Additive = b.emitterMaterial(e.Name, tex, blend, false)
		b.s.Emitters = append(b.s.Emitters, e)
	}
}

// particleTexture is the scene texture a particle emitter draws (the first of a multitexture
// emitter's three), -1 for none.
func (b *builder) particleTexture(i int, p *Particle) int {
	t := int(p.Texture)
	if p.Flags&0x10000000 != 0 {
		t &= 0x1f
	}
	if t >= len(b.s.Textures) {
		b.warn("particle emitter %d: texture %d of %d; drawn without one", i, t, len(b.s.Textures))
		return -1
	}
	return t
}

// particleLife sets e's three keys over a particle's life: colour, alpha, scale and cells.
func (b *builder) particleLife(p *Particle, e *scene.Emitter) {
	if b.m.Layout.Legacy {
		e.Middle = p.MidPoint
		if !(e.Middle > 0 && e.Middle < 1) {
			e.Middle = 0.5
		}
		for k := range 3 {
			c := p.ColorValues[k]
			e.Colors[k] = [4]float32{float32(c[0]) / 255, float32(c[1]) / 255, float32(c[2]) / 255, float32(c[3]) / 255}
			e.Scales[k] = p.ScaleValues[k]
		}
		u, d := p.LifespanUVAnim, p.DecayUVAnim
		e.Cells[0] = [3]uint32{uint32(u[0]), uint32(u[1]), uint32(u[2])}
		e.Cells[1] = [3]uint32{uint32(d[0]), uint32(d[1]), uint32(d[2])}
		t, td := p.TailUVAnim, p.TailDecayUVAnim
		e.Cells[2] = [3]uint32{uint32(max(t[0], 0)), uint32(max(t[1], 0)), 1}
		e.Cells[3] = [3]uint32{uint32(max(td[0], 0)), uint32(max(td[1], 0)), 1}
		return
	}
	// The middle key's share of the life (the game's tracks have three keys), else half.
	e.Middle = 0.5
	if ts := p.ColorTrack.Times; len(ts) == 3 && ts[1] > 0 && ts[1] < 1 {
		e.Middle = ts[1]
	}
	at := [3]float32{0, e.Middle, 1}
	var cells [2][3]float32
	for k, u := range at {
		c := p.ColorTrack.At(u, []float32{255, 255, 255})
		a := p.AlphaTrack.At(u, []float32{1})
		s := p.ScaleTrack.At(u, []float32{1, 1})
		e.Colors[k] = [4]float32{c[0] / 255, c[1] / 255, c[2] / 255, a[0]}
		e.Scales[k] = s[0]
		cells[0][k] = p.HeadCellTrack.At(u, []float32{0})[0]
		cells[1][k] = p.TailCellTrack.At(u, []float32{0})[0]
	}
	for h := range 2 {
		c := cells[h]
		e.Cells[2*h] = [3]uint32{uint32(max(c[0], 0)), uint32(max(c[1], 0)), 1}
		e.Cells[2*h+1] = [3]uint32{uint32(max(c[1], 0)), uint32(max(c[2], 0)), 1}
	}
}

// emitterMaterial makes the material an emitter's quads are drawn with: texture tex, unlit
// and two-sided, blended as blend mode blend blends; and whether the game adds them.
func (b *builder) emitterMaterial(name string, tex int, blend uint16, particles bool) (int, bool) {
	what := "ribbon"
	if particles {
		what = "particles"
	}
	mat := scene.Material{
		Name: name + " " + what, BaseColor: [4]float32{1, 1, 1, 1}, Texture: tex, AlphaMode: scene.AlphaBlend,
		DoubleSided: true, Unlit: true, Flags: []string{"Blend:" + blendName(blend)},
		Extras: scene.Extras{"technique": "quads of " + name + ", blend mode " + blendName(blend)},
	}
	_, additive := b.blendAs(&mat, blend)
	b.s.Materials = append(b.s.Materials, mat)
	return len(b.s.Materials) - 1, additive
}
