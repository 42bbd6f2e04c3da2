package mdx

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/modelfs/modelfs/translate/wc3"
)

// Encode writes m as an MDX file (version 800, whatever m.Version says), chunks in the order
// Blizzard's files use, empty chunks left out. It fails on data the format cannot hold
// unchanged (strings too long or containing NUL, tracks whose lengths disagree with their key
// count, width or interpolation, non-integer texture-id keys, collision shapes with the wrong
// vertex count), so that Read(Encode(m)) equals m whenever Encode succeeds and m follows the
// conventions of wc3.Model.
func Encode(m *wc3.Model) ([]byte, error) {
	if m == nil {
		return nil, errors.New("mdx.Encode: nil model")
	}
	w := &writer{b: make([]byte, 0, estimate(m))}
	w.model(m)
	if w.err != nil {
		return nil, w.err
	}
	return w.b, nil
}

// estimate guesses the encoded size so that big geosets are written without regrowing.
func estimate(m *wc3.Model) int {
	n := 4096
	for i := range m.Geosets {
		g := &m.Geosets[i]
		n += 256 + 12*(len(g.Vertices)+len(g.Normals)) + 2*len(g.Faces) + len(g.VertexGroups) +
			4*(len(g.FaceTypes)+len(g.FaceCounts)+len(g.GroupSizes)+len(g.Matrices)) +
			sizeExtent*len(g.SeqExtents)
		for _, uv := range g.UVSets {
			n += 8 + 8*len(uv)
		}
	}
	n += sizeSequence*len(m.Sequences) + sizeTexture*len(m.Textures) + 12*len(m.PivotPoints)
	return n
}

type writer struct {
	b   []byte
	err error
}

func (w *writer) fail(format string, a ...any) {
	if w.err == nil {
		w.err = fmt.Errorf("mdx.Encode: "+format, a...)
	}
}

func (w *writer) u32(v uint32)  { w.b = binary.LittleEndian.AppendUint32(w.b, v) }
func (w *writer) i32(v int32)   { w.u32(uint32(v)) }
func (w *writer) f32(v float32) { w.u32(math.Float32bits(v)) }
func (w *writer) tag(t uint32)  { w.u32(t) }
func (w *writer) vec3(v [3]float32) {
	w.f32(v[0])
	w.f32(v[1])
	w.f32(v[2])
}

func (w *writer) extent(e wc3.Extent) {
	w.f32(e.BoundsRadius)
	w.vec3(e.Min)
	w.vec3(e.Max)
}

// str writes s NUL-padded to n bytes.
func (w *writer) str(s string, n int, what string) {
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
func (w *writer) grow(n int) []byte {
	w.b = slices.Grow(w.b, n)
	off := len(w.b)
	w.b = w.b[:off+n]
	return w.b[off:]
}

// open reserves a size field and returns its offset.
func (w *writer) open() int {
	p := len(w.b)
	w.u32(0)
	return p
}

// close fills the size field at p with the bytes written since p, minus skip (0 for an
// inclusive object size, 4 for a chunk size that leaves out its own field).
func (w *writer) close(p, skip int) {
	n := len(w.b) - p - skip
	if n > math.MaxUint32 {
		w.fail("a block of %d bytes exceeds the format's 4 GiB limit", n)
		return
	}
	binary.LittleEndian.PutUint32(w.b[p:], uint32(n))
}

// chunk writes a top-level chunk whose contents body produces.
func (w *writer) chunk(tag uint32, body func()) {
	w.tag(tag)
	p := w.open()
	body()
	w.close(p, 4)
}

func (w *writer) model(m *wc3.Model) {
	w.tag(tagMDLX)
	w.chunk(tagVERS, func() { w.u32(Version) })
	w.chunk(tagMODL, func() {
		w.str(m.Name, 80, "model name")
		w.str(m.AnimFile, 260, "animation file")
		w.extent(m.Extent)
		w.u32(m.BlendTime)
	})
	if len(m.Sequences) > 0 {
		w.chunk(tagSEQS, func() {
			for _, s := range m.Sequences {
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
		})
	}
	if len(m.GlobalSequences) > 0 {
		w.chunk(tagGLBS, func() {
			for _, g := range m.GlobalSequences {
				w.u32(g)
			}
		})
	}
	if len(m.Materials) > 0 {
		w.chunk(tagMTLS, func() {
			for i := range m.Materials {
				w.material(&m.Materials[i])
			}
		})
	}
	if len(m.Textures) > 0 {
		w.chunk(tagTEXS, func() {
			for _, t := range m.Textures {
				w.u32(t.ReplaceableID)
				w.str(t.Path, 260, "texture path")
				w.u32(t.Flags)
			}
		})
	}
	if len(m.TextureAnims) > 0 {
		w.chunk(tagTXAN, func() {
			for i := range m.TextureAnims {
				ta := &m.TextureAnims[i]
				p := w.open()
				w.tracks("texture animation", []slot{
					{kKTAT, &ta.Translation}, {kKTAR, &ta.Rotation}, {kKTAS, &ta.Scaling}})
				w.close(p, 0)
			}
		})
	}
	if len(m.Geosets) > 0 {
		w.chunk(tagGEOS, func() {
			for i := range m.Geosets {
				w.geoset(&m.Geosets[i])
			}
		})
	}
	if len(m.GeosetAnims) > 0 {
		w.chunk(tagGEOA, func() {
			for i := range m.GeosetAnims {
				ga := &m.GeosetAnims[i]
				p := w.open()
				w.f32(ga.Alpha)
				w.u32(ga.Flags)
				w.vec3(ga.Color)
				w.i32(ga.GeosetID)
				w.tracks("geoset animation", []slot{{kKGAO, &ga.AlphaTrack}, {kKGAC, &ga.ColorTrack}})
				w.close(p, 0)
			}
		})
	}
	if len(m.Bones) > 0 {
		w.chunk(tagBONE, func() {
			for i := range m.Bones {
				b := &m.Bones[i]
				w.node(&b.Node, "bone")
				w.i32(b.GeosetID)
				w.i32(b.GeosetAnimID)
			}
		})
	}
	if len(m.Lights) > 0 {
		w.chunk(tagLITE, func() {
			for i := range m.Lights {
				l := &m.Lights[i]
				p := w.open()
				w.node(&l.Node, "light")
				w.u32(l.Type)
				w.f32(l.AttenuationStart)
				w.f32(l.AttenuationEnd)
				w.vec3(l.Color)
				w.f32(l.Intensity)
				w.vec3(l.AmbColor)
				w.f32(l.AmbIntensity)
				w.tracks("light", []slot{
					{kKLAS, &l.AttenuationStartTrack}, {kKLAE, &l.AttenuationEndTrack},
					{kKLAC, &l.ColorTrack}, {kKLAI, &l.IntensityTrack},
					{kKLBI, &l.AmbIntensityTrack}, {kKLBC, &l.AmbColorTrack}, {kKLAV, &l.Visibility}})
				w.close(p, 0)
			}
		})
	}
	if len(m.Helpers) > 0 {
		w.chunk(tagHELP, func() {
			for i := range m.Helpers {
				w.node(&m.Helpers[i], "helper")
			}
		})
	}
	if len(m.Attachments) > 0 {
		w.chunk(tagATCH, func() {
			for i := range m.Attachments {
				a := &m.Attachments[i]
				p := w.open()
				w.node(&a.Node, "attachment")
				w.str(a.Path, 260, "attachment path")
				w.i32(a.AttachmentID)
				w.tracks("attachment", []slot{{kKATV, &a.Visibility}})
				w.close(p, 0)
			}
		})
	}
	if len(m.PivotPoints) > 0 {
		w.chunk(tagPIVT, func() {
			dst := w.grow(12 * len(m.PivotPoints))
			putVec3s(dst, m.PivotPoints)
		})
	}
	if len(m.ParticleEmitters) > 0 {
		w.chunk(tagPREM, func() {
			for i := range m.ParticleEmitters {
				w.emitter1(&m.ParticleEmitters[i])
			}
		})
	}
	if len(m.ParticleEmitters2) > 0 {
		w.chunk(tagPRE2, func() {
			for i := range m.ParticleEmitters2 {
				w.emitter2(&m.ParticleEmitters2[i])
			}
		})
	}
	if len(m.RibbonEmitters) > 0 {
		w.chunk(tagRIBB, func() {
			for i := range m.RibbonEmitters {
				w.ribbon(&m.RibbonEmitters[i])
			}
		})
	}
	if len(m.Cameras) > 0 {
		w.chunk(tagCAMS, func() {
			for i := range m.Cameras {
				c := &m.Cameras[i]
				p := w.open()
				w.str(c.Name, 80, "camera name")
				w.vec3(c.Position)
				w.f32(c.FieldOfView)
				w.f32(c.FarClip)
				w.f32(c.NearClip)
				w.vec3(c.TargetPosition)
				w.tracks("camera", []slot{
					{kKCTR, &c.Translation}, {kKCRL, &c.Rotation}, {kKTTR, &c.TargetTranslation}})
				w.close(p, 0)
			}
		})
	}
	if len(m.Events) > 0 {
		w.chunk(tagEVTS, func() {
			for i := range m.Events {
				e := &m.Events[i]
				w.node(&e.Node, "event object")
				if e.Frames == nil {
					if e.GlobalSeq != -1 {
						w.fail("event object %q: GlobalSeq %d without frames cannot be stored (no KEVT block)", e.Name, e.GlobalSeq)
					}
					continue
				}
				w.tag(tagKEVT)
				w.u32(uint32(len(e.Frames)))
				w.i32(e.GlobalSeq)
				for _, f := range e.Frames {
					w.u32(f)
				}
			}
		})
	}
	if len(m.CollisionShapes) > 0 {
		w.chunk(tagCLID, func() {
			for i := range m.CollisionShapes {
				w.collision(&m.CollisionShapes[i])
			}
		})
	}
}

func (w *writer) material(mt *wc3.Material) {
	p := w.open()
	w.i32(mt.PriorityPlane)
	w.u32(mt.Flags)
	w.tag(tagLAYS)
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
		w.tracks("layer", []slot{{kKMTF, &l.TextureTrack}, {kKMTA, &l.AlphaTrack}})
		w.close(q, 0)
	}
	w.close(p, 0)
}

func (w *writer) geoset(g *wc3.Geoset) {
	p := w.open()
	w.tag(tagVRTX)
	w.u32(uint32(len(g.Vertices)))
	putVec3s(w.grow(12*len(g.Vertices)), g.Vertices)
	w.tag(tagNRMS)
	w.u32(uint32(len(g.Normals)))
	putVec3s(w.grow(12*len(g.Normals)), g.Normals)
	w.u32Array(tagPTYP, g.FaceTypes)
	w.u32Array(tagPCNT, g.FaceCounts)
	w.tag(tagPVTX)
	w.u32(uint32(len(g.Faces)))
	dst := w.grow(2 * len(g.Faces))
	for i, f := range g.Faces {
		binary.LittleEndian.PutUint16(dst[2*i:], f)
	}
	w.tag(tagGNDX)
	w.u32(uint32(len(g.VertexGroups)))
	w.b = append(w.b, g.VertexGroups...)
	w.u32Array(tagMTGC, g.GroupSizes)
	w.u32Array(tagMATS, g.Matrices)
	w.u32(g.MaterialID)
	w.u32(g.SelectionGroup)
	w.u32(g.SelectionFlags)
	w.extent(g.Extent)
	w.u32(uint32(len(g.SeqExtents)))
	for _, e := range g.SeqExtents {
		w.extent(e)
	}
	w.tag(tagUVAS)
	w.u32(uint32(len(g.UVSets)))
	for _, uv := range g.UVSets {
		w.tag(tagUVBS)
		w.u32(uint32(len(uv)))
		dst := w.grow(8 * len(uv))
		for i, c := range uv {
			binary.LittleEndian.PutUint32(dst[8*i:], math.Float32bits(c[0]))
			binary.LittleEndian.PutUint32(dst[8*i+4:], math.Float32bits(c[1]))
		}
	}
	w.close(p, 0)
}

func (w *writer) u32Array(tag uint32, a []uint32) {
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

func (w *writer) node(n *wc3.Node, what string) {
	p := w.open()
	w.str(n.Name, 80, what+" name")
	w.i32(n.ObjectID)
	w.i32(n.ParentID)
	w.u32(n.Flags)
	w.tracks(what+" "+n.Name, []slot{{kKGTR, &n.Translation}, {kKGRT, &n.Rotation}, {kKGSC, &n.Scaling}})
	w.close(p, 0)
}

func (w *writer) emitter1(e *wc3.ParticleEmitter) {
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
		{kKPEE, &e.EmissionRateTrack}, {kKPEG, &e.GravityTrack}, {kKPLN, &e.LongitudeTrack},
		{kKPLT, &e.LatitudeTrack}, {kKPEL, &e.LifeSpanTrack}, {kKPES, &e.InitVelocityTrack},
		{kKPEV, &e.Visibility}})
	w.close(p, 0)
}

func (w *writer) emitter2(e *wc3.ParticleEmitter2) {
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
		{kKP2S, &e.SpeedTrack}, {kKP2R, &e.VariationTrack}, {kKP2L, &e.LatitudeTrack},
		{kKP2G, &e.GravityTrack}, {kKP2E, &e.EmissionRateTrack}, {kKP2N, &e.WidthTrack},
		{kKP2W, &e.LengthTrack}, {kKP2V, &e.Visibility}})
	w.close(p, 0)
}

func (w *writer) ribbon(e *wc3.RibbonEmitter) {
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
		{kKRHA, &e.HeightAboveTrack}, {kKRHB, &e.HeightBelowTrack}, {kKRAL, &e.AlphaTrack},
		{kKRCO, &e.ColorTrack}, {kKRTX, &e.TextureSlotTrack}, {kKRVS, &e.Visibility}})
	w.close(p, 0)
}

func (w *writer) collision(c *wc3.CollisionShape) {
	w.node(&c.Node, "collision shape")
	w.u32(c.Type)
	nv, radius := 2, false
	switch c.Type {
	case wc3.ShapeBox, wc3.ShapePlane:
	case wc3.ShapeSphere:
		nv, radius = 1, true
	case wc3.ShapeCylinder:
		radius = true
	default:
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
func (w *writer) tracks(what string, slots []slot) {
	for i := range slots {
		if t := *slots[i].dst; t != nil {
			w.track(what, &slots[i].kind, t)
		}
	}
}

func (w *writer) track(what string, k *kind, t *wc3.Track) {
	n := len(t.Frames)
	switch {
	case t.Width != k.width:
		w.fail("%s: track %s has width %d, want %d", what, k.name, t.Width, k.width)
		return
	case t.Interp > wc3.Bezier:
		w.fail("%s: track %s: unknown interpolation %d", what, k.name, t.Interp)
		return
	case len(t.Values) != n*k.width:
		w.fail("%s: track %s: %d values for %d keys of width %d", what, k.name, len(t.Values), n, k.width)
		return
	}
	tans := t.Interp >= wc3.Hermite
	if tans && (len(t.InTans) != n*k.width || len(t.OutTans) != n*k.width) {
		w.fail("%s: track %s: %d in- and %d out-tangents for %d keys of width %d",
			what, k.name, len(t.InTans), len(t.OutTans), n, k.width)
		return
	}
	if !tans && (len(t.InTans) != 0 || len(t.OutTans) != 0) {
		w.fail("%s: track %s: tangents on a track with interpolation %d", what, k.name, t.Interp)
		return
	}
	w.tag(k.tag)
	w.u32(uint32(n))
	w.u32(uint32(t.Interp))
	w.i32(t.GlobalSeq)
	per := k.width
	if tans {
		per *= 3
	}
	dst := w.grow(n * (4 + 4*per))
	o := 0
	for i, f := range t.Frames {
		binary.LittleEndian.PutUint32(dst[o:], uint32(f))
		o += 4
		o = w.values(dst, o, t.Values[i*k.width:(i+1)*k.width], k, what)
		if tans {
			o = w.values(dst, o, t.InTans[i*k.width:(i+1)*k.width], k, what)
			o = w.values(dst, o, t.OutTans[i*k.width:(i+1)*k.width], k, what)
		}
	}
}

func (w *writer) values(dst []byte, o int, v []float32, k *kind, what string) int {
	for _, x := range v {
		var u uint32
		if k.isInt {
			f := float64(x)
			if f != math.Trunc(f) || f < math.MinInt32 || f > math.MaxInt32 {
				w.fail("%s: track %s: value %v is not a 32-bit integer", what, k.name, x)
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
