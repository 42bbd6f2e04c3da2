package wc3test

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/modelfs/modelfs/translate/wc3"
)

// MDL writes m as MDL text in the conventional layout (tabs, `{ x, y, z }`, floats in the
// shortest form that reads back to the same float32).
//
// mdl.Read(MDL(m)) equals m apart from Warnings for every model the MDL form can express.
// What it cannot express, and MDL silently drops or normalises:
//   - Sequence.SyncPoint (MDX only);
//   - flag bits without an MDL name: Texture.Flags beyond 0x3, Material.Flags beyond
//     0x1|0x2|0x8|0x10|0x20, Layer.Shading beyond the Shade* bits, Geoset.SelectionFlags other
//     than 4 (Unselectable), GeosetAnim.Flags beyond 0x3 (and 0x2 is implied by a colour track
//     or a non-white colour), node type bits that differ from the block kind, emitter bits
//     of the wrong emitter kind;
//   - enumerations out of range: ParticleEmitter2 FilterMode > 4 or HeadOrTail > 2, Squirt
//     other than 0 or 1, Light.Type > 2, CollisionShape.Type > 3;
//   - tangents on a track that is not Hermite or Bezier;
//   - from version 1100, a Layer.TextureID other than its slot-0 texture's static id (0 when
//     that one is a track): the list by slot is written, and TextureTrack is not;
//   - empty non-nil slices (they read back as nil) and NaN payloads (they read back as the
//     canonical NaN).
//
// MDL fails for models it cannot write at all: strings holding '"' or line breaks, face
// types other than 4 (triangles), face, group or track arrays whose lengths disagree.
func MDL(m *wc3.Model) ([]byte, error) {
	if m == nil {
		return nil, errors.New("wc3test.MDL: nil model")
	}
	w := &mdlWriter{b: make([]byte, 0, mdlSize(m)), slotted: m.Version >= 1100}
	w.model(m)
	if w.err != nil {
		return nil, w.err
	}
	return w.b, nil
}

func mdlSize(m *wc3.Model) int {
	n := 4096
	for i := range m.Geosets {
		g := &m.Geosets[i]
		n += 40*(len(g.Vertices)+len(g.Normals)) + 6*len(g.Faces) + 4*len(g.VertexGroups) + 8*len(g.Matrices)
		for _, uv := range g.UVSets {
			n += 28 * len(uv)
		}
	}
	if n > 1<<30 {
		n = 1 << 30
	}
	return n
}

type mdlWriter struct {
	b       []byte
	err     error
	slotted bool // version 1100 and later: a layer's textures are its list by slot
}

func (w *mdlWriter) fail(format string, args ...any) {
	if w.err == nil {
		w.err = fmt.Errorf("wc3test.MDL: "+format, args...)
	}
}

func (w *mdlWriter) tabs(n int) {
	for ; n > 0; n-- {
		w.b = append(w.b, '\t')
	}
}

func (w *mdlWriter) f(v float32) {
	switch {
	case v != v:
		w.b = append(w.b, "NaN"...)
	default:
		w.b = strconv.AppendFloat(w.b, float64(v), 'g', -1, 32)
	}
}

func (w *mdlWriter) i(v int64) { w.b = strconv.AppendInt(w.b, v, 10) }

func (w *mdlWriter) quote(s, what string) {
	if strings.ContainsAny(s, "\"\n\r") {
		w.fail("%s %q holds a quote or line break, which MDL cannot express", what, s)
	}
	w.b = append(w.b, '"')
	w.b = append(w.b, s...)
	w.b = append(w.b, '"')
}

// open writes `Name {` at depth d.
func (w *mdlWriter) open(d int, name string) {
	w.tabs(d)
	w.b = append(w.b, name...)
	w.b = append(w.b, " {\n"...)
}

func (w *mdlWriter) openN(d int, name string, n int) {
	w.key(d, name)
	w.i(int64(n))
	w.b = append(w.b, " {\n"...)
}

func (w *mdlWriter) openNamed(d int, kind, name string) {
	w.key(d, kind)
	w.quote(name, kind+" name")
	w.b = append(w.b, " {\n"...)
}

func (w *mdlWriter) end(d int) {
	w.tabs(d)
	w.b = append(w.b, "}\n"...)
}

// key starts a property line: the indent, the name and a space.
func (w *mdlWriter) key(d int, name string) {
	w.tabs(d)
	w.b = append(w.b, name...)
	w.b = append(w.b, ' ')
}

// endLine ends a property line.
func (w *mdlWriter) endLine() { w.b = append(w.b, ",\n"...) }

func (w *mdlWriter) flag(d int, name string) {
	w.tabs(d)
	w.b = append(w.b, name...)
	w.endLine()
}

func (w *mdlWriter) intProp(d int, name string, v int64) {
	w.key(d, name)
	w.i(v)
	w.endLine()
}

func (w *mdlWriter) floatProp(d int, name string, v float32) {
	w.key(d, name)
	w.f(v)
	w.endLine()
}

func (w *mdlWriter) strProp(d int, name, v string) {
	w.key(d, name)
	w.quote(v, name)
	w.endLine()
}

func (w *mdlWriter) vec(v []float32) {
	w.b = append(w.b, "{ "...)
	for i, x := range v {
		if i > 0 {
			w.b = append(w.b, ", "...)
		}
		w.f(x)
	}
	w.b = append(w.b, " }"...)
}

func (w *mdlWriter) vecProp(d int, name string, v []float32) {
	w.key(d, name)
	w.vec(v)
	w.endLine()
}

func (w *mdlWriter) uintsProp(d int, name string, v []uint32) {
	w.key(d, name)
	w.b = append(w.b, "{ "...)
	for i, x := range v {
		if i > 0 {
			w.b = append(w.b, ", "...)
		}
		w.i(int64(x))
	}
	w.b = append(w.b, " },\n"...)
}

func (w *mdlWriter) value(v []float32) {
	if len(v) == 1 {
		w.f(v[0])
		return
	}
	w.vec(v)
}

var interpNames = [...]string{"DontInterp", "Linear", "Hermite", "Bezier"}

// track writes `Name N { … }` at depth d; width is the field's width.
func (w *mdlWriter) track(d int, name string, t *wc3.Track, width int) {
	if t.Width != width {
		w.fail("%s track has width %d, want %d", name, t.Width, width)
		return
	}
	n := len(t.Frames)
	if len(t.Values) != n*width {
		w.fail("%s track has %d keys but %d values", name, n, len(t.Values))
		return
	}
	if int(t.Interp) >= len(interpNames) {
		w.fail("%s track has unknown interpolation %d", name, t.Interp)
		return
	}
	tans := t.Interp >= wc3.Hermite
	if tans && (len(t.InTans) != n*width || len(t.OutTans) != n*width) {
		w.fail("%s track has %d keys but %d/%d tangents", name, n, len(t.InTans), len(t.OutTans))
		return
	}
	w.openN(d, name, n)
	w.flag(d+1, interpNames[t.Interp])
	if t.GlobalSeq != -1 {
		w.intProp(d+1, "GlobalSeqId", int64(t.GlobalSeq))
	}
	for k := 0; k < n; k++ {
		w.tabs(d + 1)
		w.i(int64(t.Frames[k]))
		w.b = append(w.b, ": "...)
		w.value(t.Values[k*width : (k+1)*width])
		w.b = append(w.b, ",\n"...)
		if tans {
			w.tabs(d + 2)
			w.b = append(w.b, "InTan "...)
			w.value(t.InTans[k*width : (k+1)*width])
			w.b = append(w.b, ",\n"...)
			w.tabs(d + 2)
			w.b = append(w.b, "OutTan "...)
			w.value(t.OutTans[k*width : (k+1)*width])
			w.b = append(w.b, ",\n"...)
		}
	}
	w.end(d)
}

// animFloat writes a property that may be animated: the track when there is one, and the
// static value when there is no track or when it differs from the reader's default.
func (w *mdlWriter) animFloat(d int, name string, v, def float32, t *wc3.Track) {
	if t != nil {
		w.track(d, name, t, 1)
		if v == def || v != v && def != def {
			return
		}
	}
	w.floatProp(d, "static "+name, v)
}

func (w *mdlWriter) animVec3(d int, name string, v, def [3]float32, t *wc3.Track) {
	if t != nil {
		w.track(d, name, t, 3)
		if v == def {
			return
		}
	}
	w.vecProp(d, "static "+name, v[:])
}

// animColor writes a colour that may be animated: static ones {B, G, R}, the reverse of the
// model's (MDX's) order, as the MDL reader expects.
func (w *mdlWriter) animColor(d int, name string, v, def [3]float32, t *wc3.Track) {
	if t != nil {
		w.track(d, name, t, 3)
		if v == def {
			return
		}
	}
	w.vecProp(d, "static "+name, []float32{v[2], v[1], v[0]})
}

func (w *mdlWriter) extent(d int, e *wc3.Extent) {
	if e.Min != ([3]float32{}) {
		w.vecProp(d, "MinimumExtent", e.Min[:])
	}
	if e.Max != ([3]float32{}) {
		w.vecProp(d, "MaximumExtent", e.Max[:])
	}
	if e.BoundsRadius != 0 {
		w.floatProp(d, "BoundsRadius", e.BoundsRadius)
	}
}

// each writes every item with write.
func each[T any](items []T, write func(*T)) {
	for i := range items {
		write(&items[i])
	}
}

// list writes `name N { … }` around items, or nothing when items is nil.
func list[T any](w *mdlWriter, name string, items []T, write func(*T)) {
	if items == nil {
		return
	}
	w.openN(0, name, len(items))
	each(items, write)
	w.end(0)
}

// model writes the blocks in the order the game's tools use.
func (w *mdlWriter) model(m *wc3.Model) {
	w.b = append(w.b, "// Written by modelfs\n"...)
	w.open(0, "Version")
	w.intProp(1, "FormatVersion", int64(m.Version))
	w.end(0)
	w.modelBlock(m)
	list(w, "Sequences", m.Sequences, w.sequence)
	list(w, "GlobalSequences", m.GlobalSequences, func(d *uint32) { w.intProp(1, "Duration", int64(*d)) })
	list(w, "Textures", m.Textures, w.texture)
	list(w, "Materials", m.Materials, w.material)
	list(w, "TextureAnims", m.TextureAnims, w.textureAnim)
	each(m.Geosets, w.geoset)
	each(m.GeosetAnims, w.geosetAnim)
	each(m.Bones, w.bone)
	each(m.Lights, w.light)
	each(m.Helpers, func(n *wc3.Node) {
		w.nodeHead("Helper", n)
		w.nodeTail(n)
	})
	each(m.Attachments, w.attachment)
	list(w, "PivotPoints", m.PivotPoints, func(v *[3]float32) {
		w.tabs(1)
		w.vec(v[:])
		w.b = append(w.b, ",\n"...)
	})
	each(m.ParticleEmitters, w.particleEmitter)
	each(m.ParticleEmitters2, w.particleEmitter2)
	each(m.RibbonEmitters, w.ribbonEmitter)
	each(m.Cameras, w.camera)
	each(m.Events, w.eventObject)
	each(m.CollisionShapes, w.collisionShape)
	if m.BindPoses != nil {
		w.open(0, "BindPose")
		w.openN(1, "Matrices", len(m.BindPoses))
		for i := range m.BindPoses {
			w.tabs(2)
			w.vec(m.BindPoses[i][:])
			w.b = append(w.b, ",\n"...)
		}
		w.end(1)
		w.end(0)
	}
	each(m.FaceEffects, func(fx *wc3.FaceEffect) {
		w.openNamed(0, "FaceFX", fx.Target)
		w.strProp(1, "Path", fx.Path)
		w.end(0)
	})
	each(m.Popcorns, func(pc *wc3.PopcornRecord) {
		w.openNamed(0, "ParticleEmitterPopcorn", pc.Name)
		w.intProp(1, "ObjectId", int64(pc.ObjectID))
		if pc.Path != "" {
			w.strProp(1, "Path", pc.Path)
		}
		w.end(0)
	})
}

func (w *mdlWriter) modelBlock(m *wc3.Model) {
	w.openNamed(0, "Model", m.Name)
	counts := []struct {
		name string
		n    int
	}{
		{"NumGeosets", len(m.Geosets)}, {"NumGeosetAnims", len(m.GeosetAnims)},
		{"NumLights", len(m.Lights)}, {"NumHelpers", len(m.Helpers)}, {"NumBones", len(m.Bones)},
		{"NumAttachments", len(m.Attachments)}, {"NumParticleEmitters", len(m.ParticleEmitters)},
		{"NumParticleEmitters2", len(m.ParticleEmitters2)}, {"NumRibbonEmitters", len(m.RibbonEmitters)},
		{"NumEvents", len(m.Events)},
	}
	for _, c := range counts {
		if c.n > 0 {
			w.intProp(1, c.name, int64(c.n))
		}
	}
	if m.AnimFile != "" {
		w.strProp(1, "AnimationFile", m.AnimFile)
	}
	w.intProp(1, "BlendTime", int64(m.BlendTime))
	w.extent(1, &m.Extent)
	w.end(0)
}

func (w *mdlWriter) sequence(s *wc3.Sequence) {
	w.openNamed(1, "Anim", s.Name)
	w.uintsProp(2, "Interval", s.Interval[:])
	if s.NonLooping {
		w.flag(2, "NonLooping")
	}
	if s.MoveSpeed != 0 {
		w.floatProp(2, "MoveSpeed", s.MoveSpeed)
	}
	if s.Rarity != 0 {
		w.floatProp(2, "Rarity", s.Rarity)
	}
	w.extent(2, &s.Extent)
	w.end(1)
}

func (w *mdlWriter) texture(t *wc3.Texture) {
	w.open(1, "Bitmap")
	w.strProp(2, "Image", t.Path)
	if t.ReplaceableID != 0 {
		w.intProp(2, "ReplaceableId", int64(t.ReplaceableID))
	}
	if t.Flags&1 != 0 {
		w.flag(2, "WrapWidth")
	}
	if t.Flags&2 != 0 {
		w.flag(2, "WrapHeight")
	}
	w.end(1)
}

func (w *mdlWriter) textureAnim(ta *wc3.TextureAnim) {
	w.open(1, "TVertexAnim")
	if ta.Translation != nil {
		w.track(2, "Translation", ta.Translation, 3)
	}
	if ta.Rotation != nil {
		w.track(2, "Rotation", ta.Rotation, 4)
	}
	if ta.Scaling != nil {
		w.track(2, "Scaling", ta.Scaling, 3)
	}
	w.end(1)
}

func (w *mdlWriter) bone(b *wc3.Bone) {
	w.nodeHead("Bone", &b.Node)
	if b.GeosetID == -1 {
		w.flag(1, "GeosetId Multiple")
	} else {
		w.intProp(1, "GeosetId", int64(b.GeosetID))
	}
	if b.GeosetAnimID == -1 {
		w.flag(1, "GeosetAnimId None")
	} else {
		w.intProp(1, "GeosetAnimId", int64(b.GeosetAnimID))
	}
	w.nodeTail(&b.Node)
}

func (w *mdlWriter) attachment(a *wc3.Attachment) {
	w.nodeHead("Attachment", &a.Node)
	if a.Path != "" {
		w.strProp(1, "Path", a.Path)
	}
	if a.AttachmentID != 0 {
		w.intProp(1, "AttachmentID", int64(a.AttachmentID))
	}
	if a.Visibility != nil {
		w.track(1, "Visibility", a.Visibility, 1)
	}
	w.nodeTail(&a.Node)
}

var filterNames = [...]string{"None", "Transparent", "Blend", "Additive", "AddAlpha", "Modulate", "Modulate2x"}

func (w *mdlWriter) material(mt *wc3.Material) {
	w.open(1, "Material")
	for _, f := range []struct {
		bit  uint32
		name string
	}{{0x1, "ConstantColor"}, {0x2, "TwoSided"}, {0x8, "SortPrimsNearZ"}, {0x10, "SortPrimsFarZ"}, {0x20, "FullResolution"}} {
		if mt.Flags&f.bit != 0 {
			w.flag(2, f.name)
		}
	}
	if mt.PriorityPlane != 0 {
		w.intProp(2, "PriorityPlane", int64(mt.PriorityPlane))
	}
	if mt.Shader != "" {
		w.strProp(2, "Shader", mt.Shader)
	}
	for i := range mt.Layers {
		l := &mt.Layers[i]
		w.open(2, "Layer")
		if int(l.FilterMode) < len(filterNames) {
			w.flag(3, "FilterMode "+filterNames[l.FilterMode])
		} else {
			w.intProp(3, "FilterMode", int64(l.FilterMode))
		}
		for _, f := range []struct {
			bit  uint32
			name string
		}{{wc3.ShadeUnshaded, "Unshaded"}, {wc3.ShadeSphereEnvMap, "SphereEnvMap"}, {wc3.ShadeTwoSided, "TwoSided"},
			{wc3.ShadeUnfogged, "Unfogged"}, {wc3.ShadeNoDepthTest, "NoDepthTest"}, {wc3.ShadeNoDepthSet, "NoDepthSet"},
			{wc3.ShadeUnlit, "Unlit"}} {
			if l.Shading&f.bit != 0 {
				w.flag(3, f.name)
			}
		}
		switch {
		case w.slotted:
			// The texture list says it (layerHD).
		case l.TextureTrack != nil:
			w.track(3, "TextureID", l.TextureTrack, 1)
			if l.TextureID != 0 {
				w.intProp(3, "static TextureID", int64(l.TextureID))
			}
		default:
			w.intProp(3, "static TextureID", int64(l.TextureID))
		}
		if l.TextureAnimID != -1 {
			w.intProp(3, "TVertexAnimId", int64(l.TextureAnimID))
		}
		if l.CoordID != 0 {
			w.intProp(3, "CoordId", int64(l.CoordID))
		}
		if l.AlphaTrack != nil || l.Alpha != 1 {
			w.animFloat(3, "Alpha", l.Alpha, 1, l.AlphaTrack)
		}
		if l.Reforged != nil {
			w.layerHD(l.Reforged)
		}
		w.end(2)
	}
	w.end(1)
}

// slotNames are the MDL keywords of version 1100's layer texture slots, by slot.
var slotNames = [...]string{wc3.SlotDiffuse: "TextureID", wc3.SlotNormal: "NormalTextureID", wc3.SlotORM: "ORMTextureID",
	wc3.SlotEmissive: "EmissiveTextureID", wc3.SlotTeamColor: "TeamColorTextureID", wc3.SlotReflection: "ReflectionsTextureID"}

// layerHD writes a layer's Reforged fields: those with their default value are left out, as
// the reader fills them in.
func (w *mdlWriter) layerHD(hd *wc3.LayerHD) {
	if hd.EmissiveTrack != nil || hd.EmissiveGain != 1 {
		w.animFloat(3, "EmissiveGain", hd.EmissiveGain, 1, hd.EmissiveTrack)
	}
	if hd.FresnelColorTrack != nil || hd.FresnelColor != [3]float32{1, 1, 1} {
		w.animVec3(3, "FresnelColor", hd.FresnelColor, [3]float32{1, 1, 1}, hd.FresnelColorTrack)
	}
	if hd.FresnelAlphaTrack != nil || hd.FresnelOpacity != 0 {
		w.animFloat(3, "FresnelOpacity", hd.FresnelOpacity, 0, hd.FresnelAlphaTrack)
	}
	if hd.FresnelTeamTrack != nil || hd.FresnelTeamColor != 0 {
		w.animFloat(3, "FresnelTeamColor", hd.FresnelTeamColor, 0, hd.FresnelTeamTrack)
	}
	if !w.slotted {
		return
	}
	w.intProp(3, "ShaderTypeId", int64(hd.ShaderType))
	for _, t := range hd.Textures {
		if int(t.Slot) >= len(slotNames) {
			w.fail("layer texture slot %d has no MDL name", t.Slot)
			return
		}
		name := slotNames[t.Slot]
		if t.TextureTrack != nil {
			w.track(3, name, t.TextureTrack, 1)
		} else {
			w.intProp(3, "static "+name, int64(t.TextureID))
		}
	}
}

func (w *mdlWriter) geoset(g *wc3.Geoset) {
	w.open(0, "Geoset")
	if g.Vertices != nil {
		w.vec3List(1, "Vertices", g.Vertices)
	}
	if g.Normals != nil {
		w.vec3List(1, "Normals", g.Normals)
	}
	for _, uv := range g.UVSets {
		w.openN(1, "TVertices", len(uv))
		for _, v := range uv {
			w.b = append(w.b, "\t\t{ "...)
			w.f(v[0])
			w.b = append(w.b, ", "...)
			w.f(v[1])
			w.b = append(w.b, " },\n"...)
		}
		w.end(1)
	}
	if g.VertexGroups != nil {
		w.open(1, "VertexGroup") // no count, as the game's own files write it
		for _, v := range g.VertexGroups {
			w.b = append(w.b, "\t\t"...)
			w.i(int64(v))
			w.b = append(w.b, ",\n"...)
		}
		w.end(1)
	}
	if g.FaceTypes != nil || g.FaceCounts != nil || g.Faces != nil {
		w.faces(g)
	}
	if g.GroupSizes != nil || g.Matrices != nil {
		total := 0
		for _, n := range g.GroupSizes {
			total += int(n)
		}
		if total != len(g.Matrices) {
			w.fail("geoset group sizes add up to %d but there are %d matrix indices", total, len(g.Matrices))
			return
		}
		w.tabs(1)
		w.b = append(w.b, "Groups "...)
		w.i(int64(len(g.GroupSizes)))
		w.b = append(w.b, ' ')
		w.i(int64(total))
		w.b = append(w.b, " {\n"...)
		at := 0
		for _, n := range g.GroupSizes {
			w.uintsProp(2, "Matrices", g.Matrices[at:at+int(n)])
			at += int(n)
		}
		w.end(1)
	}
	w.extent(1, &g.Extent)
	for i := range g.SeqExtents {
		w.open(1, "Anim")
		w.extent(2, &g.SeqExtents[i])
		w.end(1)
	}
	w.intProp(1, "MaterialID", int64(g.MaterialID))
	w.intProp(1, "SelectionGroup", int64(g.SelectionGroup))
	if g.SelectionFlags&4 != 0 {
		w.flag(1, "Unselectable")
	}
	// Reforged fields, written only when set (the reader leaves them zero when absent).
	if g.LOD != 0 {
		w.intProp(1, "LevelOfDetail", int64(g.LOD))
	}
	if g.Name != "" {
		w.strProp(1, "Name", g.Name)
	}
	if g.Tangents != nil {
		w.openN(1, "Tangents", len(g.Tangents))
		for _, t := range g.Tangents {
			w.tabs(2)
			w.vec(t[:])
			w.b = append(w.b, ",\n"...)
		}
		w.end(1)
	}
	if g.Skin != nil {
		if len(g.Skin)%8 != 0 {
			w.fail("geoset skin weights: %d bytes, not 8 per vertex", len(g.Skin))
			return
		}
		w.openN(1, "SkinWeights", len(g.Skin)/8)
		for v := 0; v < len(g.Skin); v += 8 {
			w.tabs(2)
			for k, b := range g.Skin[v : v+8] {
				if k > 0 {
					w.b = append(w.b, ", "...)
				}
				w.i(int64(b))
			}
			w.b = append(w.b, ",\n"...)
		}
		w.end(1)
	}
	w.end(0)
}

func (w *mdlWriter) faces(g *wc3.Geoset) {
	if len(g.FaceTypes) != len(g.FaceCounts) {
		w.fail("geoset has %d face types but %d face counts", len(g.FaceTypes), len(g.FaceCounts))
		return
	}
	total := 0
	for i, t := range g.FaceTypes {
		if t != 4 {
			w.fail("face type %d is not expressible in MDL (only 4, triangles)", t)
			return
		}
		if g.FaceCounts[i]%3 != 0 {
			w.fail("face group of %d indices is not whole triangles", g.FaceCounts[i])
			return
		}
		total += int(g.FaceCounts[i])
	}
	if total != len(g.Faces) {
		w.fail("face counts add up to %d but there are %d indices", total, len(g.Faces))
		return
	}
	w.tabs(1)
	w.b = append(w.b, "Faces "...)
	w.i(int64(len(g.FaceTypes)))
	w.b = append(w.b, ' ')
	w.i(int64(total))
	w.b = append(w.b, " {\n"...)
	at := 0
	for _, n := range g.FaceCounts {
		w.open(2, "Triangles")
		w.b = append(w.b, "\t\t\t{ "...)
		for i, v := range g.Faces[at : at+int(n)] {
			if i > 0 {
				w.b = append(w.b, ", "...)
			}
			w.i(int64(v))
		}
		w.b = append(w.b, " },\n"...)
		w.end(2)
		at += int(n)
	}
	w.end(1)
}

func (w *mdlWriter) vec3List(d int, name string, vs [][3]float32) {
	w.openN(d, name, len(vs))
	for _, v := range vs {
		w.tabs(d + 1)
		w.b = append(w.b, "{ "...)
		w.f(v[0])
		w.b = append(w.b, ", "...)
		w.f(v[1])
		w.b = append(w.b, ", "...)
		w.f(v[2])
		w.b = append(w.b, " },\n"...)
	}
	w.end(d)
}

func (w *mdlWriter) geosetAnim(ga *wc3.GeosetAnim) {
	w.open(0, "GeosetAnim")
	if ga.Flags&1 != 0 {
		w.flag(1, "DropShadow")
	}
	w.animFloat(1, "Alpha", ga.Alpha, 1, ga.AlphaTrack)
	white := [3]float32{1, 1, 1}
	if ga.ColorTrack != nil || ga.Flags&2 != 0 || ga.Color != white {
		w.animColor(1, "Color", ga.Color, white, ga.ColorTrack)
	}
	w.intProp(1, "GeosetId", int64(ga.GeosetID))
	w.end(0)
}

// nodeHead opens a node block and writes the fields every node shares except its tracks.
func (w *mdlWriter) nodeHead(kind string, n *wc3.Node) {
	w.openNamed(0, kind, n.Name)
	w.intProp(1, "ObjectId", int64(n.ObjectID))
	if n.ParentID != -1 {
		w.intProp(1, "Parent", int64(n.ParentID))
	}
	for _, f := range []struct {
		bit  uint32
		name string
	}{{wc3.NodeBillboarded, "Billboarded"}, {wc3.NodeBillboardedLockX, "BillboardedLockX"},
		{wc3.NodeBillboardedLockY, "BillboardedLockY"}, {wc3.NodeBillboardedLockZ, "BillboardedLockZ"},
		{wc3.NodeCameraAnchored, "CameraAnchored"}} {
		if n.Flags&f.bit != 0 {
			w.flag(1, f.name)
		}
	}
	if di := n.Flags & (wc3.NodeDontInheritTranslation | wc3.NodeDontInheritRotation | wc3.NodeDontInheritScaling); di != 0 {
		var parts []string
		if di&wc3.NodeDontInheritTranslation != 0 {
			parts = append(parts, "Translation")
		}
		if di&wc3.NodeDontInheritRotation != 0 {
			parts = append(parts, "Rotation")
		}
		if di&wc3.NodeDontInheritScaling != 0 {
			parts = append(parts, "Scaling")
		}
		w.flag(1, "DontInherit { "+strings.Join(parts, ", ")+" }")
	}
}

// nodeTail writes a node's transform tracks and closes its block.
func (w *mdlWriter) nodeTail(n *wc3.Node) {
	if n.Translation != nil {
		w.track(1, "Translation", n.Translation, 3)
	}
	if n.Rotation != nil {
		w.track(1, "Rotation", n.Rotation, 4)
	}
	if n.Scaling != nil {
		w.track(1, "Scaling", n.Scaling, 3)
	}
	w.end(0)
}

var lightTypes = [...]string{"Omnidirectional", "Directional", "Ambient"}

func (w *mdlWriter) light(l *wc3.Light) {
	w.nodeHead("Light", &l.Node)
	if int(l.Type) < len(lightTypes) {
		w.flag(1, lightTypes[l.Type])
	}
	w.animFloat(1, "AttenuationStart", l.AttenuationStart, 0, l.AttenuationStartTrack)
	w.animFloat(1, "AttenuationEnd", l.AttenuationEnd, 0, l.AttenuationEndTrack)
	w.animFloat(1, "Intensity", l.Intensity, 0, l.IntensityTrack)
	w.animColor(1, "Color", l.Color, [3]float32{}, l.ColorTrack)
	w.animFloat(1, "AmbIntensity", l.AmbIntensity, 0, l.AmbIntensityTrack)
	w.animColor(1, "AmbColor", l.AmbColor, [3]float32{}, l.AmbColorTrack)
	if l.ShadowIntensity != nil {
		w.key(1, "ShadowIntensity")
		w.f(*l.ShadowIntensity)
		w.endLine()
	}
	if l.Visibility != nil {
		w.track(1, "Visibility", l.Visibility, 1)
	}
	w.nodeTail(&l.Node)
}

func (w *mdlWriter) particleEmitter(e *wc3.ParticleEmitter) {
	w.nodeHead("ParticleEmitter", &e.Node)
	if e.Flags&0x8000 != 0 {
		w.flag(1, "EmitterUsesMDL")
	}
	if e.Flags&0x10000 != 0 {
		w.flag(1, "EmitterUsesTGA")
	}
	w.animFloat(1, "EmissionRate", e.EmissionRate, 0, e.EmissionRateTrack)
	w.animFloat(1, "Gravity", e.Gravity, 0, e.GravityTrack)
	w.animFloat(1, "Longitude", e.Longitude, 0, e.LongitudeTrack)
	w.animFloat(1, "Latitude", e.Latitude, 0, e.LatitudeTrack)
	if e.Visibility != nil {
		w.track(1, "Visibility", e.Visibility, 1)
	}
	w.open(1, "Particle")
	w.animFloat(2, "LifeSpan", e.LifeSpan, 0, e.LifeSpanTrack)
	w.animFloat(2, "InitVelocity", e.InitVelocity, 0, e.InitVelocityTrack)
	w.strProp(2, "Path", e.Path)
	w.end(1)
	w.nodeTail(&e.Node)
}

var pe2FilterNames = [...]string{"Blend", "Additive", "Modulate", "Modulate2x", "AlphaKey"}
var headOrTailNames = [...]string{"Head", "Tail", "Both"}

func (w *mdlWriter) particleEmitter2(e *wc3.ParticleEmitter2) {
	w.nodeHead("ParticleEmitter2", &e.Node)
	for _, f := range []struct {
		bit  uint32
		name string
	}{{0x10000, "SortPrimsFarZ"}, {0x8000, "Unshaded"}, {0x20000, "LineEmitter"}, {0x40000, "Unfogged"},
		{0x80000, "ModelSpace"}, {0x100000, "XYQuad"}} {
		if e.Flags&f.bit != 0 {
			w.flag(1, f.name)
		}
	}
	w.animFloat(1, "Speed", e.Speed, 0, e.SpeedTrack)
	w.animFloat(1, "Variation", e.Variation, 0, e.VariationTrack)
	w.animFloat(1, "Latitude", e.Latitude, 0, e.LatitudeTrack)
	w.animFloat(1, "Gravity", e.Gravity, 0, e.GravityTrack)
	if e.Visibility != nil {
		w.track(1, "Visibility", e.Visibility, 1)
	}
	if e.Squirt != 0 {
		w.flag(1, "Squirt")
	}
	w.floatProp(1, "LifeSpan", e.LifeSpan)
	w.animFloat(1, "EmissionRate", e.EmissionRate, 0, e.EmissionRateTrack)
	w.animFloat(1, "Width", e.Width, 0, e.WidthTrack)
	w.animFloat(1, "Length", e.Length, 0, e.LengthTrack)
	if int(e.FilterMode) < len(pe2FilterNames) {
		w.flag(1, pe2FilterNames[e.FilterMode])
	}
	w.intProp(1, "Rows", int64(e.Rows))
	w.intProp(1, "Columns", int64(e.Columns))
	if int(e.HeadOrTail) < len(headOrTailNames) {
		w.flag(1, headOrTailNames[e.HeadOrTail])
	}
	w.floatProp(1, "TailLength", e.TailLength)
	w.floatProp(1, "Time", e.Time)
	w.open(1, "SegmentColor")
	for i := range e.SegmentColor {
		w.vecProp(2, "Color", []float32{e.SegmentColor[i][2], e.SegmentColor[i][1], e.SegmentColor[i][0]})
	}
	w.end(1)
	a := e.SegmentAlpha
	w.uintsProp(1, "Alpha", []uint32{uint32(a[0]), uint32(a[1]), uint32(a[2])})
	w.vecProp(1, "ParticleScaling", e.SegmentScaling[:])
	w.uintsProp(1, "LifeSpanUVAnim", e.HeadIntervals[0][:])
	w.uintsProp(1, "DecayUVAnim", e.HeadIntervals[1][:])
	w.uintsProp(1, "TailUVAnim", e.TailIntervals[0][:])
	w.uintsProp(1, "TailDecayUVAnim", e.TailIntervals[1][:])
	w.intProp(1, "TextureID", int64(e.TextureID))
	if e.ReplaceableID != 0 {
		w.intProp(1, "ReplaceableId", int64(e.ReplaceableID))
	}
	if e.PriorityPlane != 0 {
		w.intProp(1, "PriorityPlane", int64(e.PriorityPlane))
	}
	w.nodeTail(&e.Node)
}

func (w *mdlWriter) ribbonEmitter(r *wc3.RibbonEmitter) {
	w.nodeHead("RibbonEmitter", &r.Node)
	w.animFloat(1, "HeightAbove", r.HeightAbove, 0, r.HeightAboveTrack)
	w.animFloat(1, "HeightBelow", r.HeightBelow, 0, r.HeightBelowTrack)
	w.animFloat(1, "Alpha", r.Alpha, 0, r.AlphaTrack)
	w.animColor(1, "Color", r.Color, [3]float32{}, r.ColorTrack)
	if r.TextureSlotTrack != nil {
		w.track(1, "TextureSlot", r.TextureSlotTrack, 1)
	}
	if r.TextureSlotTrack == nil || r.TextureSlot != 0 {
		w.intProp(1, "static TextureSlot", int64(r.TextureSlot))
	}
	if r.Visibility != nil {
		w.track(1, "Visibility", r.Visibility, 1)
	}
	w.intProp(1, "EmissionRate", int64(r.EmissionRate))
	w.floatProp(1, "LifeSpan", r.LifeSpan)
	if r.Gravity != 0 {
		w.floatProp(1, "Gravity", r.Gravity)
	}
	w.intProp(1, "Rows", int64(r.Rows))
	w.intProp(1, "Columns", int64(r.Columns))
	w.intProp(1, "MaterialID", int64(r.MaterialID))
	w.nodeTail(&r.Node)
}

func (w *mdlWriter) camera(c *wc3.Camera) {
	w.openNamed(0, "Camera", c.Name)
	w.vecProp(1, "Position", c.Position[:])
	if c.Translation != nil {
		w.track(1, "Translation", c.Translation, 3)
	}
	if c.Rotation != nil {
		w.track(1, "Rotation", c.Rotation, 1)
	}
	w.floatProp(1, "FieldOfView", c.FieldOfView)
	w.floatProp(1, "FarClip", c.FarClip)
	w.floatProp(1, "NearClip", c.NearClip)
	w.open(1, "Target")
	w.vecProp(2, "Position", c.TargetPosition[:])
	if c.TargetTranslation != nil {
		w.track(2, "Translation", c.TargetTranslation, 3)
	}
	w.end(1)
	w.end(0)
}

func (w *mdlWriter) eventObject(e *wc3.EventObject) {
	w.nodeHead("EventObject", &e.Node)
	if e.Frames != nil {
		w.openN(1, "EventTrack", len(e.Frames))
		if e.GlobalSeq != -1 {
			w.intProp(2, "GlobalSeqId", int64(e.GlobalSeq))
		}
		for _, f := range e.Frames {
			w.tabs(2)
			w.i(int64(f))
			w.b = append(w.b, ",\n"...)
		}
		w.end(1)
	} else if e.GlobalSeq != -1 {
		w.intProp(1, "GlobalSeqId", int64(e.GlobalSeq))
	}
	w.nodeTail(&e.Node)
}

var shapeNames = [...]string{"Box", "Plane", "Sphere", "Cylinder"}

func (w *mdlWriter) collisionShape(c *wc3.CollisionShape) {
	w.nodeHead("CollisionShape", &c.Node)
	if int(c.Type) < len(shapeNames) {
		w.flag(1, shapeNames[c.Type])
	}
	if c.Vertices != nil {
		w.vec3List(1, "Vertices", c.Vertices)
	}
	if c.BoundsRadius != 0 || c.Type == wc3.ShapeSphere || c.Type == wc3.ShapeCylinder {
		w.floatProp(1, "BoundsRadius", c.BoundsRadius)
	}
	w.nodeTail(&c.Node)
}
