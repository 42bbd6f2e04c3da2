package wc3

import "github.com/modelfs/modelfs/translate/scene"

// The model's records as extras: JSON-ready values (scene.Plain's forms) built field by field,
// in the order and with the omissions their json tags give, so that no encoder reflects on
// them. plain_test.go holds them equal to scene.Plain of the records.

// record builds a scene.Object member by member.
type record scene.Object

func (o *record) put(key string, v any) { *o = append(*o, scene.Member{Key: key, Value: v}) }

// track puts t under key unless t is nil (the fields are omitempty pointers).
func (o *record) track(key string, t *Track) {
	if t != nil {
		o.put(key, t.plain())
	}
}

// newRecord starts a record of exactly n members, as the record's own count says: extras stay
// for the scene's life, so no capacity is left unused.
func newRecord(n int) *record { o := make(record, 0, n); return &o }

// tracks counts the tracks of ts that are present.
func tracks(ts ...*Track) int {
	n := 0
	for _, t := range ts {
		if t != nil {
			n++
		}
	}
	return n
}

// nodeSize is the number of members Node.members puts.
func nodeSize(n *Node) int { return 4 + tracks(n.Translation, n.Rotation, n.Scaling) }

// nonEmpty is 1 for a non-empty v (an omitempty member present), else 0.
func nonEmpty[T any](v []T) int {
	if len(v) > 0 {
		return 1
	}
	return 0
}

func (o *record) done() scene.Object { return scene.Object(*o) }

func (o *record) node(n *Node) *record { n.members(o); return o }

func (o *record) str(key, s string)                { o.put(key, s) }
func (o *record) int(key string, v int32)          { o.put(key, int64(v)) }
func (o *record) uint(key string, v uint32)        { o.put(key, uint64(v)) }
func (o *record) uints(key string, v []uint32)     { o.put(key, scene.Uint32s(v)) }
func (o *record) float(key string, f float32)      { o.put(key, scene.Float(f)) }
func (o *record) floats(key string, v []float32)   { o.put(key, scene.Floats(v)) }
func (o *record) vec3(key string, v *[3]float32)   { o.put(key, scene.Vec3(v)) }
func (o *record) vec3s(key string, v [][3]float32) { o.put(key, vec3s(v)) }
func (o *record) extent(key string, e *Extent)     { o.put(key, e.plain()) }

func vec3s(v [][3]float32) any {
	if v == nil {
		return nil
	}
	out := make([]any, len(v))
	for i := range v {
		out[i] = scene.Vec3(&v[i])
	}
	return out
}

func (t *Track) plain() scene.Object {
	o := newRecord(4 + nonEmpty(t.InTans) + nonEmpty(t.OutTans))
	o.uint("interpolation", uint32(t.Interp))
	o.int("globalSequence", t.GlobalSeq)
	o.put("frames", scene.Int32s(t.Frames))
	o.floats("values", t.Values)
	if len(t.InTans) > 0 {
		o.floats("inTans", t.InTans)
	}
	if len(t.OutTans) > 0 {
		o.floats("outTans", t.OutTans)
	}
	return o.done()
}

func (e *Extent) plain() scene.Object {
	o := newRecord(3)
	o.float("boundsRadius", e.BoundsRadius)
	o.vec3("min", &e.Min)
	o.vec3("max", &e.Max)
	return o.done()
}

// members puts the node's fields, which every node record embeds first.
func (n *Node) members(o *record) {
	o.str("name", n.Name)
	o.int("objectId", n.ObjectID)
	o.int("parent", n.ParentID)
	o.uint("flags", n.Flags)
	o.track("translation", n.Translation)
	o.track("rotation", n.Rotation)
	o.track("scaling", n.Scaling)
}

func (s *Sequence) plain() scene.Object {
	o := newRecord(7)
	o.str("name", s.Name)
	o.uints("interval", s.Interval[:])
	o.float("moveSpeed", s.MoveSpeed)
	o.put("nonLooping", s.NonLooping)
	o.float("rarity", s.Rarity)
	o.uint("syncPoint", s.SyncPoint)
	o.extent("extent", &s.Extent)
	return o.done()
}

func (l *Layer) plain() scene.Object {
	o := newRecord(6 + tracks(l.TextureTrack, l.AlphaTrack) + nonNil(l.Reforged))
	o.uint("filterMode", l.FilterMode)
	o.uint("shading", l.Shading)
	o.int("textureId", l.TextureID)
	o.int("textureAnimId", l.TextureAnimID)
	o.uint("coordId", l.CoordID)
	o.float("alpha", l.Alpha)
	o.track("textureTrack", l.TextureTrack)
	o.track("alphaTrack", l.AlphaTrack)
	if l.Reforged != nil {
		o.put("reforged", l.Reforged.plain())
	}
	return o.done()
}

func nonNil[T any](p *T) int {
	if p == nil {
		return 0
	}
	return 1
}

func (h *LayerHD) plain() scene.Object {
	hd := h
	o := newRecord(5 + tracks(hd.EmissiveTrack, hd.FresnelColorTrack, hd.FresnelAlphaTrack, hd.FresnelTeamTrack) + nonEmpty(hd.Textures))
	o.float("emissiveGain", hd.EmissiveGain)
	o.vec3("fresnelColor", &hd.FresnelColor)
	o.float("fresnelOpacity", hd.FresnelOpacity)
	o.float("fresnelTeamColor", hd.FresnelTeamColor)
	o.track("emissiveTrack", hd.EmissiveTrack)
	o.track("fresnelColorTrack", hd.FresnelColorTrack)
	o.track("fresnelAlphaTrack", hd.FresnelAlphaTrack)
	o.track("fresnelTeamTrack", hd.FresnelTeamTrack)
	o.uint("shaderType", hd.ShaderType)
	if len(hd.Textures) > 0 {
		o.put("textures", plainList(hd.Textures, func(t *LayerTexture) scene.Object {
			o := newRecord(2 + tracks(t.TextureTrack))
			o.int("textureId", t.TextureID)
			o.uint("slot", t.Slot)
			o.track("textureTrack", t.TextureTrack)
			return o.done()
		}))
	}
	return o.done()
}

func (t *TextureAnim) plain() scene.Object {
	o := newRecord(tracks(t.Translation, t.Rotation, t.Scaling))
	o.track("translation", t.Translation)
	o.track("rotation", t.Rotation)
	o.track("scaling", t.Scaling)
	return o.done()
}

func (g *GeosetAnim) plain() scene.Object {
	o := newRecord(4 + tracks(g.AlphaTrack, g.ColorTrack))
	o.float("alpha", g.Alpha)
	o.uint("flags", g.Flags)
	o.vec3("color", &g.Color)
	o.int("geosetId", g.GeosetID)
	o.track("alphaTrack", g.AlphaTrack)
	o.track("colorTrack", g.ColorTrack)
	return o.done()
}

func (l *Light) plain() scene.Object {
	o := newRecord(nodeSize(&l.Node) + 7 + nonNil(l.ShadowIntensity) + tracks(l.AttenuationStartTrack, l.AttenuationEndTrack, l.ColorTrack,
		l.IntensityTrack, l.AmbIntensityTrack, l.AmbColorTrack, l.Visibility)).node(&l.Node)
	o.uint("type", l.Type)
	o.float("attenuationStart", l.AttenuationStart)
	o.float("attenuationEnd", l.AttenuationEnd)
	o.vec3("color", &l.Color)
	o.float("intensity", l.Intensity)
	o.vec3("ambColor", &l.AmbColor)
	o.float("ambIntensity", l.AmbIntensity)
	if l.ShadowIntensity != nil {
		o.float("shadowIntensity", *l.ShadowIntensity)
	}
	o.track("attenuationStartTrack", l.AttenuationStartTrack)
	o.track("attenuationEndTrack", l.AttenuationEndTrack)
	o.track("colorTrack", l.ColorTrack)
	o.track("intensityTrack", l.IntensityTrack)
	o.track("ambIntensityTrack", l.AmbIntensityTrack)
	o.track("ambColorTrack", l.AmbColorTrack)
	o.track("visibility", l.Visibility)
	return o.done()
}

func (a *Attachment) plain() scene.Object {
	o := newRecord(nodeSize(&a.Node) + 2 + tracks(a.Visibility)).node(&a.Node)
	o.str("path", a.Path)
	o.int("attachmentId", a.AttachmentID)
	o.track("visibility", a.Visibility)
	return o.done()
}

func (c *Camera) plain() scene.Object {
	o := newRecord(6 + tracks(c.Translation, c.Rotation, c.TargetTranslation))
	o.str("name", c.Name)
	o.vec3("position", &c.Position)
	o.float("fieldOfView", c.FieldOfView)
	o.float("farClip", c.FarClip)
	o.float("nearClip", c.NearClip)
	o.vec3("targetPosition", &c.TargetPosition)
	o.track("translation", c.Translation)
	o.track("rotation", c.Rotation)
	o.track("targetTranslation", c.TargetTranslation)
	return o.done()
}

func (e *EventObject) plain() scene.Object {
	o := newRecord(nodeSize(&e.Node) + 1 + nonEmpty(e.Frames)).node(&e.Node)
	o.int("globalSequence", e.GlobalSeq)
	if len(e.Frames) > 0 {
		o.uints("frames", e.Frames)
	}
	return o.done()
}

func (c *CollisionShape) plain() scene.Object {
	o := newRecord(nodeSize(&c.Node) + 3).node(&c.Node)
	o.uint("type", c.Type)
	o.vec3s("vertices", c.Vertices)
	o.float("boundsRadius", c.BoundsRadius)
	return o.done()
}

// plainList makes the JSON array of a record list.
func plainList[T any](v []T, plain func(*T) scene.Object) []any {
	out := make([]any, len(v))
	for i := range v {
		out[i] = plain(&v[i])
	}
	return out
}
