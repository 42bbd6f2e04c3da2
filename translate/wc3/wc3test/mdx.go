package wc3test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/modelfs/modelfs/translate/wc3"
	"github.com/modelfs/modelfs/translate/wc3/internal/mdxfmt"
)

// MDX writes m as an MDX file (m.Version when it is a Reforged version, 900 to 1200, or newer,
// written with 1200's layout; else 800), chunks in the order
// Blizzard's files use, empty chunks left out. It fails on data the format cannot hold
// unchanged (strings too long or containing NUL, tracks whose lengths disagree with their key
// count, width or interpolation, non-integer texture-id keys, collision shapes with the wrong
// vertex count), so that mdx.Read(MDX(m)) equals m whenever MDX succeeds and m follows the
// conventions of wc3.Model.
func MDX(m *wc3.Model) ([]byte, error) {
	if m == nil {
		return nil, errors.New("wc3test.MDX: nil model")
	}
	w := &mdxWriter{b: make([]byte, 0, mdxSize(m)), v: mdxfmt.Version, label: mdxfmt.Version}
	switch {
	case mdxfmt.KnownVersion(m.Version):
		w.v, w.label = m.Version, m.Version
	case m.Version > mdxfmt.Newest: // read with the newest layout: written so
		w.v, w.label = mdxfmt.Newest, m.Version
	}
	w.model(m)
	if w.err != nil {
		return nil, w.err
	}
	return w.b, nil
}

// mdxSize guesses the encoded size so that big geosets are written without regrowing.
func mdxSize(m *wc3.Model) int {
	n := 4096
	for i := range m.Geosets {
		g := &m.Geosets[i]
		n += 256 + 12*(len(g.Vertices)+len(g.Normals)) + 2*len(g.Faces) + len(g.VertexGroups) +
			4*(len(g.FaceTypes)+len(g.FaceCounts)+len(g.GroupSizes)+len(g.Matrices)) +
			mdxfmt.SizeExtent*len(g.SeqExtents)
		for _, uv := range g.UVSets {
			n += 8 + 8*len(uv)
		}
	}
	n += mdxfmt.SizeSequence*len(m.Sequences) + mdxfmt.SizeTexture*len(m.Textures) + 12*len(m.PivotPoints)
	return n
}

type mdxWriter struct {
	b     []byte
	err   error
	v     uint32 // the version whose layout is written
	label uint32 // the version VERS says
}

func (w *mdxWriter) fail(format string, a ...any) {
	if w.err == nil {
		w.err = fmt.Errorf("wc3test.MDX: "+format, a...)
	}
}

func (w *mdxWriter) u32(v uint32)  { w.b = binary.LittleEndian.AppendUint32(w.b, v) }
func (w *mdxWriter) i32(v int32)   { w.u32(uint32(v)) }
func (w *mdxWriter) f32(v float32) { w.u32(math.Float32bits(v)) }
func (w *mdxWriter) tag(t uint32)  { w.u32(t) }
func (w *mdxWriter) vec3(v [3]float32) {
	w.f32(v[0])
	w.f32(v[1])
	w.f32(v[2])
}

func (w *mdxWriter) extent(e wc3.Extent) {
	w.f32(e.BoundsRadius)
	w.vec3(e.Min)
	w.vec3(e.Max)
}

// str writes s NUL-padded to n bytes.
func (w *mdxWriter) str(s string, n int, what string) {
	if len(s) > n {
		w.fail("%s %q is %d bytes long; the field holds %d", what, s, len(s), n)
	}
	if strings.IndexByte(s, 0) >= 0 {
		w.fail("%s %q contains a NUL byte", what, s)
	}
	s = s[:min(len(s), n)]
	w.b = append(w.b, s...)
	w.b = append(w.b, make([]byte, n-len(s))...)
}

// grow returns the next n bytes of the buffer for direct filling.
func (w *mdxWriter) grow(n int) []byte {
	w.b = slices.Grow(w.b, n)
	off := len(w.b)
	w.b = w.b[:off+n]
	return w.b[off:]
}

// open reserves a size field and returns its offset.
func (w *mdxWriter) open() int {
	p := len(w.b)
	w.u32(0)
	return p
}

// close fills the size field at p with the bytes written since p, minus skip (0 for an
// inclusive object size, 4 for a chunk size that leaves out its own field).
func (w *mdxWriter) close(p, skip int) {
	n := len(w.b) - p - skip
	if n > math.MaxUint32 {
		w.fail("a block of %d bytes exceeds the format's 4 GiB limit", n)
		return
	}
	binary.LittleEndian.PutUint32(w.b[p:], uint32(n))
}

// chunk writes a top-level chunk whose contents body produces.
func (w *mdxWriter) chunk(tag uint32, body func()) {
	w.tag(tag)
	p := w.open()
	body()
	w.close(p, 4)
}

// chunks writes items as the chunk tag, each with write, and nothing when there are none.
func chunks[T any](w *mdxWriter, tag uint32, items []T, write func(*T)) {
	if len(items) == 0 {
		return
	}
	w.chunk(tag, func() {
		for i := range items {
			write(&items[i])
		}
	})
}

// model writes the chunks in the order Blizzard's files use.
func (w *mdxWriter) model(m *wc3.Model) {
	w.tag(mdxfmt.TagMDLX)
	w.chunk(mdxfmt.TagVERS, func() { w.u32(w.label) })
	w.chunk(mdxfmt.TagMODL, func() {
		w.str(m.Name, 80, "model name")
		w.str(m.AnimFile, 260, "animation file")
		w.extent(m.Extent)
		w.u32(m.BlendTime)
	})
	chunks(w, mdxfmt.TagSEQS, m.Sequences, w.sequence)
	chunks(w, mdxfmt.TagGLBS, m.GlobalSequences, func(d *uint32) { w.u32(*d) })
	chunks(w, mdxfmt.TagMTLS, m.Materials, w.material)
	chunks(w, mdxfmt.TagTEXS, m.Textures, w.texture)
	chunks(w, mdxfmt.TagTXAN, m.TextureAnims, w.textureAnim)
	chunks(w, mdxfmt.TagGEOS, m.Geosets, w.geoset)
	chunks(w, mdxfmt.TagGEOA, m.GeosetAnims, w.geosetAnim)
	chunks(w, mdxfmt.TagBONE, m.Bones, w.bone)
	chunks(w, mdxfmt.TagLITE, m.Lights, w.light)
	chunks(w, mdxfmt.TagHELP, m.Helpers, func(n *wc3.Node) { w.node(n, "helper") })
	chunks(w, mdxfmt.TagATCH, m.Attachments, w.attachment)
	if len(m.PivotPoints) > 0 {
		w.chunk(mdxfmt.TagPIVT, func() { putVec3s(w.grow(12*len(m.PivotPoints)), m.PivotPoints) })
	}
	chunks(w, mdxfmt.TagPREM, m.ParticleEmitters, w.emitter1)
	chunks(w, mdxfmt.TagPRE2, m.ParticleEmitters2, w.emitter2)
	chunks(w, mdxfmt.TagRIBB, m.RibbonEmitters, w.ribbon)
	chunks(w, mdxfmt.TagCAMS, m.Cameras, w.camera)
	chunks(w, mdxfmt.TagEVTS, m.Events, w.event)
	chunks(w, mdxfmt.TagCLID, m.CollisionShapes, w.collision)
	if len(m.BindPoses) > 0 {
		w.chunk(mdxfmt.TagBPOS, func() {
			w.u32(uint32(len(m.BindPoses)))
			for _, bp := range m.BindPoses {
				for _, f := range bp {
					w.f32(f)
				}
			}
		})
	}
	chunks(w, mdxfmt.TagFAFX, m.FaceEffects, func(f *wc3.FaceEffect) {
		w.str(f.Target, 80, "face effect target")
		w.str(f.Path, 260, "face effect path")
	})
	chunks(w, mdxfmt.TagCORN, m.Popcorns, func(c *wc3.PopcornRecord) {
		p := w.open()
		w.node(&wc3.Node{Name: c.Name, ObjectID: c.ObjectID, ParentID: -1, Flags: 0}, "popcorn emitter")
		for _, f := range []float32{1, 1, 1, 1, 1, 1, 1, 0} {
			w.f32(f)
		}
		w.str(c.Path, 260, "popcorn path")
		w.str("", 260, "popcorn visibility")
		w.close(p, 0)
	})
}

func (w *mdxWriter) sequence(s *wc3.Sequence) {
	w.str(s.Name, 80, "sequence name")
	w.u32(s.Interval[0])
	w.u32(s.Interval[1])
	w.f32(s.MoveSpeed)
	if s.NonLooping {
		w.u32(1)
	} else {
		w.u32(0)
	}
	w.f32(s.Rarity)
	w.u32(s.SyncPoint)
	w.extent(s.Extent)
}

func (w *mdxWriter) texture(t *wc3.Texture) {
	w.u32(t.ReplaceableID)
	w.str(t.Path, 260, "texture path")
	w.u32(t.Flags)
}

func (w *mdxWriter) textureAnim(ta *wc3.TextureAnim) {
	p := w.open()
	w.tracks("texture animation", []slot{
		{mdxfmt.KTAT, &ta.Translation}, {mdxfmt.KTAR, &ta.Rotation}, {mdxfmt.KTAS, &ta.Scaling}})
	w.close(p, 0)
}

func (w *mdxWriter) geosetAnim(ga *wc3.GeosetAnim) {
	p := w.open()
	w.f32(ga.Alpha)
	w.u32(ga.Flags)
	w.vec3(ga.Color)
	w.i32(ga.GeosetID)
	w.tracks("geoset animation", []slot{{mdxfmt.KGAO, &ga.AlphaTrack}, {mdxfmt.KGAC, &ga.ColorTrack}})
	w.close(p, 0)
}

func (w *mdxWriter) bone(b *wc3.Bone) {
	w.node(&b.Node, "bone")
	w.i32(b.GeosetID)
	w.i32(b.GeosetAnimID)
}

func (w *mdxWriter) light(l *wc3.Light) {
	p := w.open()
	w.node(&l.Node, "light")
	w.u32(l.Type)
	w.f32(l.AttenuationStart)
	w.f32(l.AttenuationEnd)
	w.vec3(l.Color)
	w.f32(l.Intensity)
	w.vec3(l.AmbColor)
	w.f32(l.AmbIntensity)
	if w.v >= mdxfmt.V1200 {
		si := float32(0.4) // what older versions mean
		if l.ShadowIntensity != nil {
			si = *l.ShadowIntensity
		}
		w.f32(si)
	}
	w.tracks("light", []slot{
		{mdxfmt.KLAS, &l.AttenuationStartTrack}, {mdxfmt.KLAE, &l.AttenuationEndTrack},
		{mdxfmt.KLAC, &l.ColorTrack}, {mdxfmt.KLAI, &l.IntensityTrack},
		{mdxfmt.KLBI, &l.AmbIntensityTrack}, {mdxfmt.KLBC, &l.AmbColorTrack}, {mdxfmt.KLAV, &l.Visibility}})
	w.close(p, 0)
}

func (w *mdxWriter) attachment(a *wc3.Attachment) {
	p := w.open()
	w.node(&a.Node, "attachment")
	w.str(a.Path, 260, "attachment path")
	w.i32(a.AttachmentID)
	w.tracks("attachment", []slot{{mdxfmt.KATV, &a.Visibility}})
	w.close(p, 0)
}

func (w *mdxWriter) camera(c *wc3.Camera) {
	p := w.open()
	w.str(c.Name, 80, "camera name")
	w.vec3(c.Position)
	w.f32(c.FieldOfView)
	w.f32(c.FarClip)
	w.f32(c.NearClip)
	w.vec3(c.TargetPosition)
	w.tracks("camera", []slot{
		{mdxfmt.KCTR, &c.Translation}, {mdxfmt.KCRL, &c.Rotation}, {mdxfmt.KTTR, &c.TargetTranslation}})
	w.close(p, 0)
}

func (w *mdxWriter) event(e *wc3.EventObject) {
	w.node(&e.Node, "event object")
	if e.Frames == nil {
		if e.GlobalSeq != -1 {
			w.fail("event object %q: GlobalSeq %d without frames cannot be stored (no KEVT block)", e.Name, e.GlobalSeq)
		}
		return
	}
	w.tag(mdxfmt.TagKEVT)
	w.u32(uint32(len(e.Frames)))
	w.i32(e.GlobalSeq)
	for _, f := range e.Frames {
		w.u32(f)
	}
}

func (w *mdxWriter) material(mt *wc3.Material) {
	p := w.open()
	w.i32(mt.PriorityPlane)
	w.u32(mt.Flags)
	if w.v == mdxfmt.V900 || w.v == mdxfmt.V1000 {
		w.str(mt.Shader, 80, "shader name")
	}
	w.tag(mdxfmt.TagLAYS)
	w.u32(uint32(len(mt.Layers)))
	for i := range mt.Layers {
		l := &mt.Layers[i]
		q := w.open()
		w.u32(l.FilterMode)
		w.u32(l.Shading)
		w.i32(l.TextureID)
		w.i32(l.TextureAnimID)
		w.u32(l.CoordID)
		w.f32(l.Alpha)
		slots := []slot{{mdxfmt.KMTF, &l.TextureTrack}, {mdxfmt.KMTA, &l.AlphaTrack}}
		if hd := l.Reforged; w.v > mdxfmt.Version {
			if hd == nil {
				hd = &wc3.LayerHD{EmissiveGain: 1, FresnelColor: [3]float32{1, 1, 1}}
			}
			w.f32(hd.EmissiveGain)
			w.vec3(hd.FresnelColor)
			w.f32(hd.FresnelOpacity)
			w.f32(hd.FresnelTeamColor)
			slots = append(slots, slot{mdxfmt.KMTE, &hd.EmissiveTrack}, slot{mdxfmt.KFC3, &hd.FresnelColorTrack},
				slot{mdxfmt.KFCA, &hd.FresnelAlphaTrack}, slot{mdxfmt.KFTC, &hd.FresnelTeamTrack})
			if w.v >= mdxfmt.V1100 {
				w.u32(hd.ShaderType)
				w.u32(uint32(len(hd.Textures)))
				for i := range hd.Textures {
					t := &hd.Textures[i]
					w.i32(t.TextureID)
					w.u32(t.Slot)
					w.tracks("layer texture", []slot{{mdxfmt.KMTF, &t.TextureTrack}})
				}
				slots = slots[1:]
			}
		}
		w.tracks("layer", slots)
		w.close(q, 0)
	}
	w.close(p, 0)
}

func (w *mdxWriter) geoset(g *wc3.Geoset) {
	p := w.open()
	w.tag(mdxfmt.TagVRTX)
	w.u32(uint32(len(g.Vertices)))
	putVec3s(w.grow(12*len(g.Vertices)), g.Vertices)
	w.tag(mdxfmt.TagNRMS)
	w.u32(uint32(len(g.Normals)))
	putVec3s(w.grow(12*len(g.Normals)), g.Normals)
	w.u32Array(mdxfmt.TagPTYP, g.FaceTypes)
	w.u32Array(mdxfmt.TagPCNT, g.FaceCounts)
	w.tag(mdxfmt.TagPVTX)
	w.u32(uint32(len(g.Faces)))
	dst := w.grow(2 * len(g.Faces))
	for i, f := range g.Faces {
		binary.LittleEndian.PutUint16(dst[2*i:], f)
	}
	w.tag(mdxfmt.TagGNDX)
	w.u32(uint32(len(g.VertexGroups)))
	w.b = append(w.b, g.VertexGroups...)
	w.u32Array(mdxfmt.TagMTGC, g.GroupSizes)
	w.u32Array(mdxfmt.TagMATS, g.Matrices)
	w.u32(g.MaterialID)
	w.u32(g.SelectionGroup)
	w.u32(g.SelectionFlags)
	if w.v > mdxfmt.Version {
		w.i32(g.LOD)
		w.str(g.Name, 80, "geoset name")
	}
	w.extent(g.Extent)
	w.u32(uint32(len(g.SeqExtents)))
	for _, e := range g.SeqExtents {
		w.extent(e)
	}
	if w.v > mdxfmt.Version && g.Tangents != nil {
		w.tag(mdxfmt.TagTANG)
		w.u32(uint32(len(g.Tangents)))
		for _, t := range g.Tangents {
			for _, f := range t {
				w.f32(f)
			}
		}
	}
	if w.v > mdxfmt.Version && g.Skin != nil {
		w.tag(mdxfmt.TagSKIN)
		w.u32(uint32(len(g.Skin)))
		w.b = append(w.b, g.Skin...)
	}
	w.tag(mdxfmt.TagUVAS)
	w.u32(uint32(len(g.UVSets)))
	for _, uv := range g.UVSets {
		w.tag(mdxfmt.TagUVBS)
		w.u32(uint32(len(uv)))
		dst := w.grow(8 * len(uv))
		for i, c := range uv {
			binary.LittleEndian.PutUint32(dst[8*i:], math.Float32bits(c[0]))
			binary.LittleEndian.PutUint32(dst[8*i+4:], math.Float32bits(c[1]))
		}
	}
	w.close(p, 0)
}

func (w *mdxWriter) u32Array(tag uint32, a []uint32) {
	w.tag(tag)
	w.u32(uint32(len(a)))
	dst := w.grow(4 * len(a))
	for i, v := range a {
		binary.LittleEndian.PutUint32(dst[4*i:], v)
	}
}

func putVec3s(dst []byte, v [][3]float32) {
	dst = dst[:12*len(v)]
	for i, x := range v {
		b := dst[12*i : 12*i+12]
		binary.LittleEndian.PutUint32(b[0:], math.Float32bits(x[0]))
		binary.LittleEndian.PutUint32(b[4:], math.Float32bits(x[1]))
		binary.LittleEndian.PutUint32(b[8:], math.Float32bits(x[2]))
	}
}

func (w *mdxWriter) node(n *wc3.Node, what string) {
	p := w.open()
	w.str(n.Name, 80, what+" name")
	w.i32(n.ObjectID)
	w.i32(n.ParentID)
	w.u32(n.Flags)
	w.tracks(what+" "+n.Name, []slot{{mdxfmt.KGTR, &n.Translation}, {mdxfmt.KGRT, &n.Rotation}, {mdxfmt.KGSC, &n.Scaling}})
	w.close(p, 0)
}

func (w *mdxWriter) emitter1(e *wc3.ParticleEmitter) {
	p := w.open()
	w.node(&e.Node, "particle emitter")
	w.f32(e.EmissionRate)
	w.f32(e.Gravity)
	w.f32(e.Longitude)
	w.f32(e.Latitude)
	w.str(e.Path, 260, "particle emitter path")
	w.f32(e.LifeSpan)
	w.f32(e.InitVelocity)
	w.tracks("particle emitter", []slot{
		{mdxfmt.KPEE, &e.EmissionRateTrack}, {mdxfmt.KPEG, &e.GravityTrack}, {mdxfmt.KPLN, &e.LongitudeTrack},
		{mdxfmt.KPLT, &e.LatitudeTrack}, {mdxfmt.KPEL, &e.LifeSpanTrack}, {mdxfmt.KPES, &e.InitVelocityTrack},
		{mdxfmt.KPEV, &e.Visibility}})
	w.close(p, 0)
}

func (w *mdxWriter) emitter2(e *wc3.ParticleEmitter2) {
	p := w.open()
	w.node(&e.Node, "particle emitter 2")
	for _, f := range []float32{e.Speed, e.Variation, e.Latitude, e.Gravity, e.LifeSpan,
		e.EmissionRate, e.Width, e.Length} {
		w.f32(f)
	}
	w.u32(e.FilterMode)
	w.u32(e.Rows)
	w.u32(e.Columns)
	w.u32(e.HeadOrTail)
	w.f32(e.TailLength)
	w.f32(e.Time)
	for _, c := range e.SegmentColor {
		w.vec3(c)
	}
	w.b = append(w.b, e.SegmentAlpha[:]...)
	w.vec3(e.SegmentScaling)
	for _, iv := range [][2][3]uint32{e.HeadIntervals, e.TailIntervals} {
		for _, x := range iv {
			for _, v := range x {
				w.u32(v)
			}
		}
	}
	w.i32(e.TextureID)
	w.u32(e.Squirt)
	w.i32(e.PriorityPlane)
	w.u32(e.ReplaceableID)
	w.tracks("particle emitter 2", []slot{
		{mdxfmt.KP2S, &e.SpeedTrack}, {mdxfmt.KP2R, &e.VariationTrack}, {mdxfmt.KP2L, &e.LatitudeTrack},
		{mdxfmt.KP2G, &e.GravityTrack}, {mdxfmt.KP2E, &e.EmissionRateTrack}, {mdxfmt.KP2N, &e.WidthTrack},
		{mdxfmt.KP2W, &e.LengthTrack}, {mdxfmt.KP2V, &e.Visibility}})
	w.close(p, 0)
}

func (w *mdxWriter) ribbon(e *wc3.RibbonEmitter) {
	p := w.open()
	w.node(&e.Node, "ribbon emitter")
	w.f32(e.HeightAbove)
	w.f32(e.HeightBelow)
	w.f32(e.Alpha)
	w.vec3(e.Color)
	w.f32(e.LifeSpan)
	w.u32(e.TextureSlot)
	w.u32(e.EmissionRate)
	w.u32(e.Rows)
	w.u32(e.Columns)
	w.i32(e.MaterialID)
	w.f32(e.Gravity)
	w.tracks("ribbon emitter", []slot{
		{mdxfmt.KRHA, &e.HeightAboveTrack}, {mdxfmt.KRHB, &e.HeightBelowTrack}, {mdxfmt.KRAL, &e.AlphaTrack},
		{mdxfmt.KRCO, &e.ColorTrack}, {mdxfmt.KRTX, &e.TextureSlotTrack}, {mdxfmt.KRVS, &e.Visibility}})
	w.close(p, 0)
}

func (w *mdxWriter) collision(c *wc3.CollisionShape) {
	w.node(&c.Node, "collision shape")
	w.u32(c.Type)
	nv, radius, ok := mdxfmt.ShapeLayout(c.Type)
	if !ok {
		w.fail("collision shape %q: unknown type %d", c.Name, c.Type)
		return
	}
	if len(c.Vertices) != nv {
		w.fail("collision shape %q: type %d needs %d vertices, has %d", c.Name, c.Type, nv, len(c.Vertices))
		return
	}
	if !radius && c.BoundsRadius != 0 {
		w.fail("collision shape %q: type %d stores no radius, has %v", c.Name, c.Type, c.BoundsRadius)
	}
	for _, v := range c.Vertices {
		w.vec3(v)
	}
	if radius {
		w.f32(c.BoundsRadius)
	}
}

// tracks writes the present tracks among slots, in slot order.
func (w *mdxWriter) tracks(what string, slots []slot) {
	for i := range slots {
		if t := *slots[i].dst; t != nil {
			w.track(what, &slots[i].Kind, t)
		}
	}
}

func (w *mdxWriter) track(what string, k *mdxfmt.Kind, t *wc3.Track) {
	n := len(t.Frames)
	switch {
	case t.Width != k.Width:
		w.fail("%s: track %s has width %d, want %d", what, k.Name, t.Width, k.Width)
		return
	case t.Interp > wc3.Bezier:
		w.fail("%s: track %s: unknown interpolation %d", what, k.Name, t.Interp)
		return
	case len(t.Values) != n*k.Width:
		w.fail("%s: track %s: %d values for %d keys of width %d", what, k.Name, len(t.Values), n, k.Width)
		return
	}
	tans := t.Interp >= wc3.Hermite
	if tans && (len(t.InTans) != n*k.Width || len(t.OutTans) != n*k.Width) {
		w.fail("%s: track %s: %d in- and %d out-tangents for %d keys of width %d",
			what, k.Name, len(t.InTans), len(t.OutTans), n, k.Width)
		return
	}
	if !tans && (len(t.InTans) != 0 || len(t.OutTans) != 0) {
		w.fail("%s: track %s: tangents on a track with interpolation %d", what, k.Name, t.Interp)
		return
	}
	w.tag(k.Tag)
	w.u32(uint32(n))
	w.u32(uint32(t.Interp))
	w.i32(t.GlobalSeq)
	per := k.Width
	if tans {
		per *= 3
	}
	dst := w.grow(n * (4 + 4*per))
	o := 0
	for i, f := range t.Frames {
		binary.LittleEndian.PutUint32(dst[o:], uint32(f))
		o += 4
		o = w.values(dst, o, t.Values[i*k.Width:(i+1)*k.Width], k, what)
		if tans {
			o = w.values(dst, o, t.InTans[i*k.Width:(i+1)*k.Width], k, what)
			o = w.values(dst, o, t.OutTans[i*k.Width:(i+1)*k.Width], k, what)
		}
	}
}

func (w *mdxWriter) values(dst []byte, o int, v []float32, k *mdxfmt.Kind, what string) int {
	for _, x := range v {
		var u uint32
		if k.IsInt {
			f := float64(x)
			if f != math.Trunc(f) || f < math.MinInt32 || f > math.MaxInt32 {
				w.fail("%s: track %s: value %v is not a 32-bit integer", what, k.Name, x)
			}
			u = uint32(int32(f))
		} else {
			u = math.Float32bits(x)
		}
		binary.LittleEndian.PutUint32(dst[o:], u)
		o += 4
	}
	return o
}

// slot binds a track kind to the field of the object being written.
type slot struct {
	mdxfmt.Kind
	dst **wc3.Track
}
