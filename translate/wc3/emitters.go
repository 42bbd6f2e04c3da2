package wc3

import (
	"github.com/modelfs/modelfs/translate/scene"
)

// The .json's "emitters": one record per emitter of every kind, in the order ParticleEmitter,
// ParticleEmitter2, RibbonEmitter, ParticleEmitterPopcorn (each in file order), with MDL's own
// keywords in lower camel case. A parameter the model animates is its track (as tracks are
// written everywhere in the .json); a static one is its number. Each record names its node
// ("node", an index into the .json's nodes) and its kind, so that a grep finds every speed or
// life span of a game, whatever the emitter's generation.

// Emitter kinds, as the .json's "kind" and the nodes' extras name them.
const (
	EmitterParticle  = "particle"  // ParticleEmitter (PREM)
	EmitterParticle2 = "particle2" // ParticleEmitter2 (PRE2)
	EmitterRibbon    = "ribbon"    // RibbonEmitter (RIBB)
	EmitterPopcorn   = "popcorn"   // ParticleEmitterPopcorn (CORN, Reforged): a PopcornFX effect file
)

// param puts a parameter: its track when the model animates it, else its static value.
func (o *record) param(key string, static float32, t *Track) {
	if t != nil {
		o.put(key, t.plain())
		return
	}
	o.float(key, static)
}

// visibility puts an emitter's visibility: 1 (always shown) without a track.
func (o *record) visibility(t *Track) {
	if t != nil {
		o.put("visibility", t.plain())
		return
	}
	o.put("visibility", int64(1))
}

// emitterHead starts an emitter's record with what every kind has.
func emitterHead(n int, kind string, node int, nd *Node, block string) *record {
	o := newRecord(n + 6)
	o.str("kind", kind)
	if node >= 0 {
		o.put("node", int64(node))
	} else {
		o.put("node", nil)
	}
	o.str("name", nd.Name)
	o.int("objectId", nd.ObjectID)
	o.int("parent", nd.ParentID)
	o.put("flags", nodeFlagNames(nd.Flags, block))
	return o
}

func headOrTailName(v uint32) string {
	switch v {
	case 0:
		return "Head"
	case 1:
		return "Tail"
	case 2:
		return "Both"
	}
	return "Unknown"
}

func (p *ParticleEmitter) record(node int) scene.Object {
	o := emitterHead(8, EmitterParticle, node, &p.Node, "ParticleEmitter")
	o.param("emissionRate", p.EmissionRate, p.EmissionRateTrack)
	o.param("gravity", p.Gravity, p.GravityTrack)
	o.param("longitude", p.Longitude, p.LongitudeTrack)
	o.param("latitude", p.Latitude, p.LatitudeTrack)
	o.param("lifeSpan", p.LifeSpan, p.LifeSpanTrack)
	o.param("initVelocity", p.InitVelocity, p.InitVelocityTrack)
	o.str("path", p.Path)
	o.visibility(p.Visibility)
	return o.done()
}

func (p *ParticleEmitter2) record(node int) scene.Object {
	o := emitterHead(26, EmitterParticle2, node, &p.Node, "ParticleEmitter2")
	o.param("speed", p.Speed, p.SpeedTrack)
	o.param("variation", p.Variation, p.VariationTrack)
	o.param("latitude", p.Latitude, p.LatitudeTrack)
	o.param("gravity", p.Gravity, p.GravityTrack)
	o.float("lifeSpan", p.LifeSpan)
	o.param("emissionRate", p.EmissionRate, p.EmissionRateTrack)
	o.param("width", p.Width, p.WidthTrack)
	o.param("length", p.Length, p.LengthTrack)
	o.str("filterMode", emitterFilterName(p.FilterMode))
	o.uint("rows", p.Rows)
	o.uint("columns", p.Columns)
	o.str("headOrTail", headOrTailName(p.HeadOrTail))
	o.float("tailLength", p.TailLength)
	o.float("time", p.Time)
	o.put("segmentColor", vec3s(p.SegmentColor[:]))
	o.put("alpha", scene.Uints(p.SegmentAlpha[:]))
	o.vec3("particleScaling", &p.SegmentScaling)
	o.uints("lifeSpanUVAnim", p.HeadIntervals[0][:])
	o.uints("decayUVAnim", p.HeadIntervals[1][:])
	o.uints("tailUVAnim", p.TailIntervals[0][:])
	o.uints("tailDecayUVAnim", p.TailIntervals[1][:])
	o.int("textureId", p.TextureID)
	o.uint("replaceableId", p.ReplaceableID)
	o.int("priorityPlane", p.PriorityPlane)
	o.put("squirt", p.Squirt != 0)
	o.visibility(p.Visibility)
	return o.done()
}

func (r *RibbonEmitter) record(node int) scene.Object {
	o := emitterHead(12, EmitterRibbon, node, &r.Node, "RibbonEmitter")
	o.param("heightAbove", r.HeightAbove, r.HeightAboveTrack)
	o.param("heightBelow", r.HeightBelow, r.HeightBelowTrack)
	o.param("alpha", r.Alpha, r.AlphaTrack)
	if r.ColorTrack != nil {
		o.put("color", r.ColorTrack.plain())
	} else {
		o.vec3("color", &r.Color)
	}
	o.param("textureSlot", float32(r.TextureSlot), r.TextureSlotTrack)
	o.uint("emissionRate", r.EmissionRate)
	o.float("lifeSpan", r.LifeSpan)
	o.float("gravity", r.Gravity)
	o.uint("rows", r.Rows)
	o.uint("columns", r.Columns)
	o.int("materialId", r.MaterialID)
	o.visibility(r.Visibility)
	return o.done()
}

func (p *PopcornRecord) record() scene.Object {
	nd := Node{Name: p.Name, ObjectID: p.ObjectID, ParentID: -1}
	o := emitterHead(1, EmitterPopcorn, -1, &nd, "ParticleEmitterPopcorn")
	o.str("path", p.Path)
	return o.done()
}

// emitterCount is the number of records emitterRecords makes.
func (m *Model) emitterCount() int {
	return len(m.ParticleEmitters) + len(m.ParticleEmitters2) + len(m.RibbonEmitters) + len(m.Popcorns)
}

// emitterNodes maps each emitter, by its list (0 ParticleEmitter, 1 ParticleEmitter2, 2
// RibbonEmitter) and its index there, to its scene node.
func (b *builder) emitterNodes() map[[2]int]int {
	nodeOf := map[[2]int]int{}
	for i, o := range b.objs {
		switch o.list {
		case "particleEmitters":
			nodeOf[[2]int{0, o.index}] = i
		case "particleEmitters2":
			nodeOf[[2]int{1, o.index}] = i
		case "ribbonEmitters":
			nodeOf[[2]int{2, o.index}] = i
		}
	}
	return nodeOf
}

// emitterRecords makes the .json's "emitters", and marks each emitter's node with its index
// in them ("emitter").
func (b *builder) emitterRecords() []any {
	m := b.m
	nodeOf := b.emitterNodes()
	out := make([]any, 0, m.emitterCount())
	node := func(kind, i int) int {
		n, ok := nodeOf[[2]int{kind, i}]
		if !ok {
			return -1
		}
		b.s.Nodes[n].Extras["emitter"] = int64(len(out))
		return n
	}
	for i := range m.ParticleEmitters {
		out = append(out, m.ParticleEmitters[i].record(node(0, i)))
	}
	for i := range m.ParticleEmitters2 {
		out = append(out, m.ParticleEmitters2[i].record(node(1, i)))
	}
	for i := range m.RibbonEmitters {
		out = append(out, m.RibbonEmitters[i].record(node(2, i)))
	}
	for i := range m.Popcorns {
		out = append(out, m.Popcorns[i].record())
	}
	return out
}
