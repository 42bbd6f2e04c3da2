package m2

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/modelfs/modelfs/translate/anim"
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/internal/scenemem"
	"github.com/modelfs/modelfs/translate/scene"
)

// Axes describes the World of Warcraft frame and the conversion Build applies.
const Axes = "Z-up right-handed, converted to Y-up by (x, y, z) → (x, z, −y)"

// Unit is the source's unit of length.
const Unit = "yards (World of Warcraft world units)"

// AlphaKeyCutoff is the alpha below which the game discards pixels of an alpha-keyed (blend
// mode 1) material: 224/255.
const AlphaKeyCutoff = 224.0 / 255

// GlobalSequenceNote explains how global-sequence tracks appear in the animations.
const GlobalSequenceNote = "global-sequence tracks run on their own clock; each animation bakes them " +
	"repeating across its duration, with the global clock at 0 when the animation starts"

// GeosetNote explains the default geoset choice.
const GeosetNote = "character models hold every alternative geoset at once (all hairstyles, all " +
	"glove and boot shapes); by default only geoset 0 and the lowest id of each group (id / 100) " +
	"are kept; other models keep every geoset; the m2 option AllGeosets keeps them all"

// Limits on the scene one model may produce.
const (
	maxNodes    = math.MaxUint16 // joints are 16-bit in glTF
	maxChannels = 1 << 18        // animated tracks × sequences, at most
	minChannels = 1 << 14        // … and at least this many, else one per 4 bytes of source
	maxKeysBase = 1 << 21        // output keys beyond those the source's keys account for
	loopingNote = "M2 sequences do not say whether they loop; every animation is marked looping"
)

// builder carries the state of one Build call.
type builder struct {
	m        *Model
	name     string
	opt      Options
	s        *scene.Scene
	pivots   [][3]float32 // converted pivot per node
	nb       int          // bones: nodes [0, nb)
	emitter0 int          // the first emitter's node: particle emitters, then ribbons
	matOf    map[matKey]int
	keys     int // output keys so far
	keyCap   int
	warnings []string
	mem      *scenemem.Mem // where the scene's large arrays are carved from
	*meshScratch
	curves []trackCurve // animation: the curve of each track, reused from sequence to sequence
}

// trackCurve is what builder.seqCurve returns: the keys a sequence shows of one track.
type trackCurve struct {
	ck    curveKeys
	s, e  uint32
	moved bool
}

// meshScratch holds what mesh reuses from mesh to mesh, and Build from model to model (through
// meshScratchPool): none of it reaches the scene.
type meshScratch struct {
	local []int      // mesh vertex → view vertex
	tris  triScratch // the tables repeatedTriangles reuses
}

// meshScratchPool recycles the meshScratch of finished builds.
var meshScratchPool = sync.Pool{New: func() any { return new(meshScratch) }}

// maxPooledScratch is the most scratch memory (in table entries) kept for reuse.
const maxPooledScratch = 1 << 20

// Build converts a model read from the file name (relative to the root) into a scene.
func Build(m *Model, name string, opt Options) (*scene.Scene, error) {
	if m == nil {
		return nil, &codec.FormatError{Format: Format, File: name, Offset: -1, Msg: "no model"}
	}
	b := &builder{m: m, name: name, opt: opt, matOf: map[matKey]int{}, mem: scenemem.Get()}
	b.meshScratch = meshScratchPool.Get().(*meshScratch)
	defer func() {
		sc := b.meshScratch
		if cap(sc.local)+cap(sc.tris.head)+cap(sc.tris.next) <= maxPooledScratch {
			meshScratchPool.Put(sc)
		}
	}()
	b.s = &scene.Scene{
		Source: scene.Source{Path: name, Format: Format, Version: int(m.Version), Name: m.Name, Axes: Axes, Unit: Unit, Scale: 1},
		Extras: scene.Extras{},
	}
	if err := b.mem.Build(b.nodes, b.skin, b.textures, b.meshes, b.animations); err != nil {
		return nil, err
	}
	b.extras()
	b.emitterScene()
	b.s.Warnings = append(slices.Clone(m.Warnings), b.warnings...)
	b.mem.Attach(b.s)
	return b.s, nil
}

func trackKeys(ts ...*Track) int {
	n := 0
	for _, t := range ts {
		for i := range t.Keys {
			n += len(t.Keys[i].Times)
		}
	}
	return n
}

func (b *builder) fail(err error, format string, args ...any) error {
	return &codec.FormatError{Format: Format, File: b.name, Offset: -1, Msg: fmt.Sprintf(format, args...), Err: err}
}

func (b *builder) warn(format string, args ...any) {
	b.warnings = append(b.warnings, fmt.Sprintf(format, args...))
}

// convPos converts a position or direction to glTF axes (formats/README.md): (x, y, z) →
// (x, z, −y); boneTrack.conv does quaternions (x, z, −y, w) and scales (x, z, y).
func convPos(v [3]float32) [3]float32 { return [3]float32{v[0], v[2], -v[1]} }

func sub(a, b [3]float32) [3]float32 { return [3]float32{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }

// nodes makes one node per bone (in bone order, with the pivot rest pose) and one per
// attachment, under its bone.
func (b *builder) nodes() error {
	m := b.m
	nb, na, ne := len(m.Bones), len(m.Attachments), len(m.Particles)+len(m.Ribbons)
	if nb+na+ne > maxNodes {
		return b.fail(codec.ErrTooLarge, "%d bones, %d attachments and %d emitters, more than %d nodes", nb, na, ne, maxNodes)
	}
	b.nb = nb
	parents := make([]int, nb)
	for i := range m.Bones {
		p := int(m.Bones[i].Parent)
		if p < -1 || p >= nb || p == i {
			b.warn("bone %d has parent %d of %d bones; made a root", i, p, nb)
			p = -1
		}
		parents[i] = p
	}
	// Break cycles: walking up from any bone must reach a root within nb steps.
	for i := range parents {
		for p, steps := parents[i], 0; p >= 0; p = parents[p] {
			if steps++; steps > nb {
				b.warn("bone %d is its own ancestor; made a root", i)
				parents[i] = -1
				break
			}
		}
	}
	b.pivots = make([][3]float32, nb+na+ne)
	b.s.Nodes = make([]scene.Node, 0, nb+na+ne)
	for i := range m.Bones {
		bone := &m.Bones[i]
		b.pivots[i] = convPos(bone.Pivot)
		ex := scene.Extras{"bone": i, "flags": flagsValue(bone.Flags, boneFlagNames), "pivot": b.pivots[i], "submesh": bone.Submesh}
		if bone.KeyBone >= 0 {
			ex["keyBone"] = bone.KeyBone
		}
		if m.Layout.BoneCRC {
			ex["nameCRC"] = bone.CRC
		}
		b.s.Nodes = append(b.s.Nodes, scene.Node{Name: boneName(i, bone.KeyBone), Kind: scene.KindBone, Parent: parents[i], Extras: ex})
	}
	for i := range m.Attachments {
		a := &m.Attachments[i]
		parent := int(a.Bone)
		if parent >= nb {
			b.warn("attachment %d (%s) is on bone %d of %d; placed at the root", i, attachmentName(a.ID), a.Bone, nb)
			parent = -1
		}
		b.pivots[nb+i] = convPos(a.Pos)
		ex := scene.Extras{"attachment": i, "attachmentId": a.ID, "position": b.pivots[nb+i]}
		b.s.Nodes = append(b.s.Nodes, scene.Node{Name: attachmentName(a.ID), Kind: scene.KindAttachment, Parent: parent, Extras: ex})
	}
	b.emitterNodes()
	for i := range b.s.Nodes {
		nd := &b.s.Nodes[i]
		nd.Translation = b.pivots[i]
		if nd.Parent >= 0 {
			nd.Translation = sub(b.pivots[i], b.pivots[nd.Parent])
		}
		nd.Rotation = [4]float32{0, 0, 0, 1}
		nd.Scale = [3]float32{1, 1, 1}
	}
	return nil
}

// skin makes the one skin whose joints are all nodes, bound at the pivots.
func (b *builder) skin() error {
	if len(b.s.Nodes) > 0 {
		b.s.Skins = []scene.Skin{scene.PivotSkin(b.m.Name, b.s.Nodes, b.pivots)}
	}
	return nil
}

// textures copies the texture table: files by the path written, runtime slots by their type.
func (b *builder) textures() error {
	for i, t := range b.m.Textures {
		tx := scene.Texture{
			Path: t.Path, Replaceable: int(t.Type), WrapU: t.Flags&1 != 0, WrapV: t.Flags&2 != 0,
			Extras: scene.Extras{"type": t.Type, "typeName": TextureTypeName(t.Type), "flags": flagNames(t.Flags, textureFlagNames)},
		}
		if t.Type != 0 {
			tx.Extras["slot"] = TextureTypeName(t.Type)
			tx.Extras["runtime"] = slotNote(t.Type)
		} else if t.Path == "" {
			b.warn("texture %d names no file", i)
		}
		b.s.Textures = append(b.s.Textures, tx)
	}
	return nil
}

// slotNote says where the game takes a runtime texture from.
func slotNote(t uint32) string {
	switch t {
	case 11, 12, 13:
		return fmt.Sprintf("creature skin %d: the texture variation %d of the creature's CreatureDisplayInfo record, a file beside the model", t-10, t-10)
	case 1, 6, 8, 10:
		return "a character texture composed by the client from the character's customisation"
	case 2:
		return "the cape or object texture of the equipped item"
	}
	return "filled by the client at run time"
}

// matKey identifies the material a texture unit gives.
type matKey struct {
	material, color, weight, transform int
	texture, texCoord                  int
	shader                             uint16
	priority                           int8
	flags                              uint8
	count                              uint16
}

// lookup returns table[i], or -1 when i is out of range.
func lookup(table []int16, i int) int {
	if i < 0 || i >= len(table) {
		return -1
	}
	return int(table[i])
}

// material returns the scene material of texture unit u, making it on first use.
func (b *builder) material(ui int, u *TexUnit) int {
	m := b.m
	k := matKey{
		material: int(u.Material), color: int(u.Color), shader: u.Shader, priority: u.Priority, flags: u.Flags, count: u.TextureCount,
		texture:   lookup(m.TextureLookup, int(u.TextureCombo)),
		texCoord:  lookup(m.TexUnitLookup, int(u.TexCoordCombo)),
		weight:    lookup(m.TransparencyLookup, int(u.WeightCombo)),
		transform: lookup(m.TransformLookup, int(u.TransformCombo)),
	}
	if k.texture >= len(m.Textures) {
		k.texture = -1
	}
	if k.weight >= len(m.TextureWeights) {
		k.weight = -1
	}
	if k.transform >= len(m.TextureTransforms) {
		k.transform = -1
	}
	if k.color >= len(m.Colors) {
		k.color = -1
	}
	if i, ok := b.matOf[k]; ok {
		return i
	}
	mat := scene.Material{
		Name: "Material" + strconv.Itoa(len(b.s.Materials)), BaseColor: [4]float32{1, 1, 1, 1}, Texture: k.texture,
		AlphaMode: scene.AlphaOpaque,
	}
	ex := scene.Extras{
		"textureUnit": ui, "shader": u.Shader, "priorityPlane": u.Priority, "layer": u.Layer,
		"unitFlags": u.Flags, "textureCount": u.TextureCount,
	}
	var mm Material
	if k.material >= 0 && k.material < len(m.Materials) {
		mm = m.Materials[k.material]
		ex["material"] = k.material
	} else {
		b.warn("texture unit %d names material %d of %d; opaque", ui, u.Material, len(m.Materials))
	}
	note, _ := b.blendAs(&mat, mm.Blend)
	technique := "blend mode " + blendName(mm.Blend) + note
	mat.DoubleSided = mm.Flags&0x4 != 0
	mat.Unlit = mm.Flags&0x1 != 0
	mat.Flags = append([]string{"Blend:" + blendName(mm.Blend)}, flagNames(uint32(mm.Flags), renderFlagNames)...)
	switch tc := k.texCoord; {
	case tc == -1 && int(u.TexCoordCombo) < len(m.TexUnitLookup):
		mat.Flags = append(mat.Flags, "EnvironmentMap")
		ex["texCoord"] = "environment"
	case tc == 0 || tc == 1:
		mat.TexCoord = tc
	default:
		b.warn("texture unit %d: texture coordinate combo %d gives %d; UV set 0 used", ui, u.TexCoordCombo, tc)
	}
	if u.TextureCount > 1 {
		var texs []int
		for j := 0; j < int(u.TextureCount) && j < 4; j++ {
			texs = append(texs, lookup(m.TextureLookup, int(u.TextureCombo)+j))
		}
		ex["textures"] = texs
	}
	if k.color >= 0 {
		ex["color"] = k.color
		c, anim := b.staticValue(&m.Colors[k.color].Color, []float32{1, 1, 1})
		// The game multiplies colours as written (sRGB); glTF's factor is linear.
		mat.BaseColor[0], mat.BaseColor[1], mat.BaseColor[2] = scene.SRGBToLinear(clamp01(c[0])), scene.SRGBToLinear(clamp01(c[1])), scene.SRGBToLinear(clamp01(c[2]))
		if anim {
			ex["colorAnimated"] = true
		}
		a, anim := b.staticValue(&m.Colors[k.color].Alpha, []float32{1})
		mat.BaseColor[3] *= clamp01(a[0])
		if anim {
			ex["alphaAnimated"] = true
		}
	}
	if k.weight >= 0 {
		ex["textureWeight"] = k.weight
		a, anim := b.staticValue(&m.TextureWeights[k.weight], []float32{1})
		mat.BaseColor[3] *= clamp01(a[0])
		if anim {
			ex["textureWeightAnimated"] = true
		}
	}
	if k.transform >= 0 {
		ex["textureTransform"] = k.transform
	}
	if mat.Unlit {
		technique += "; unlit: KHR_materials_unlit"
	}
	ex["technique"] = technique
	mat.Extras = ex
	b.s.Materials = append(b.s.Materials, mat)
	b.matOf[k] = len(b.s.Materials) - 1
	return len(b.s.Materials) - 1
}

// blendAs sets how mat blends for the game's blend mode blend, and paints its texture when
// that takes a picture: glTF blends, as the game's Alpha mode does; the game's adding and
// multiplying modes get a picture that blending turns into them (scene.Look). It returns what
// the material's technique note adds, and whether the game adds the colour.
func (b *builder) blendAs(mat *scene.Material, blend uint16) (note string, adds bool) {
	var look *scene.Look
	switch blend {
	case 0:
		mat.AlphaMode = scene.AlphaOpaque
	case 1:
		mat.AlphaMode, mat.AlphaCutoff = scene.AlphaMask, AlphaKeyCutoff
	case 3: // NoAlphaAdd: the colour is added whatever the alpha
		look, adds = &scene.Look{Opaque: true, Additive: true}, true
		note = "; adds light: blended with alpha from brightness"
	case 4:
		look, adds = &scene.Look{Additive: true}, true
		note = "; adds light: blended with alpha from brightness"
	case 5, 6:
		look = &scene.Look{Modulate: true, Scale: float32(blend - 4)}
		note = "; darkens what is behind: black, blended with alpha from darkness"
	default:
		mat.AlphaMode = scene.AlphaBlend
	}
	if look != nil {
		mat.AlphaMode = scene.AlphaBlend
		if mat.Texture >= 0 {
			mat.Texture = b.s.Paint(mat.Texture, *look)
		}
	}
	return note, adds
}

func clamp01(f float32) float32 {
	if !(f >= 0) {
		return 0
	}
	return min(f, 1)
}

// constant returns the value of a track whose keys all hold the same value.
func constant(t *Track) ([]float32, bool) {
	var v []float32
	for i := range t.Keys {
		k := &t.Keys[i]
		for j := 0; j < len(k.Times); j++ {
			x := k.Values[j*t.Width : j*t.Width+t.Width]
			if v == nil {
				v = x
			} else if !slices.Equal(v, x) {
				return nil, false
			}
		}
	}
	return v, v != nil
}

// isCharacter reports whether the model is a character model, whose geosets are alternatives:
// it lies under Character/ or uses a character skin or hair texture.
func (b *builder) isCharacter() bool {
	for _, e := range strings.Split(strings.ToLower(b.name), "/") {
		if e == "character" {
			return true
		}
	}
	for _, t := range b.m.Textures {
		if t.Type == 1 || t.Type == 6 {
			return true
		}
	}
	return false
}

// GeosetInfo describes one submesh (geoset) of the view for the metadata: whether it was kept,
// whether a texture unit draws it, and the mesh it became.
type GeosetInfo struct {
	Submesh   int    `json:"submesh"`
	ID        uint16 `json:"id"`
	Group     int    `json:"group"`
	Kept      bool   `json:"kept"`
	Drawn     bool   `json:"drawn"`
	Mesh      *int   `json:"mesh"`
	Vertices  int    `json:"vertices"`
	Triangles int    `json:"triangles"`
}

// meshes turns the kept submeshes of the view into meshes.
func (b *builder) meshes() error {
	v := b.m.View
	if v == nil {
		return nil
	}
	character := b.isCharacter()
	keep := map[uint16]bool{}
	lowest := map[int]uint16{}
	for _, s := range v.Submeshes {
		g := int(s.ID / 100)
		if cur, ok := lowest[g]; !ok || s.ID < cur {
			lowest[g] = s.ID
		}
	}
	for _, id := range lowest {
		keep[id] = true
	}
	keep[0] = true
	filter := character && !b.opt.AllGeosets
	// Texture units per submesh, lowest layer first.
	units := make([][]int, len(v.Submeshes))
	for i, u := range v.Units {
		if int(u.Submesh) < len(units) {
			units[u.Submesh] = append(units[u.Submesh], i)
		} else {
			b.warn("texture unit %d names submesh %d of %d; left out", i, u.Submesh, len(v.Submeshes))
		}
	}
	uv1 := false
	for si := range units {
		slices.SortStableFunc(units[si], func(x, y int) int {
			return cmp.Or(cmp.Compare(v.Units[x].Layer, v.Units[y].Layer), cmp.Compare(v.Units[x].Priority, v.Units[y].Priority))
		})
	}
	var geosets []GeosetInfo
	for si := range v.Submeshes {
		sm := &v.Submeshes[si]
		gi := GeosetInfo{Submesh: si, ID: sm.ID, Group: int(sm.ID / 100), Kept: !filter || keep[sm.ID], Drawn: len(units[si]) > 0,
			Vertices: int(sm.VertexCount), Triangles: int(sm.IndexCount) / 3}
		if gi.Kept && gi.Drawn {
			mesh, err := b.mesh(si, sm, units[si])
			if err != nil {
				return err
			}
			if mesh != nil {
				uv1 = uv1 || len(mesh.UVs) > 1
				idx := len(b.s.Meshes)
				gi.Mesh = &idx
				b.s.Meshes = append(b.s.Meshes, *mesh)
			}
		}
		geosets = append(geosets, gi)
	}
	if len(geosets) > 0 {
		b.s.Extras["geosets"] = geosets
		b.s.Extras["geosetPolicy"] = scene.Extras{"characterModel": character, "allGeosets": b.opt.AllGeosets, "note": GeosetNote}
	}
	return nil
}

// mesh makes the mesh of submesh si drawn by the texture units us (lowest layer first).
func (b *builder) mesh(si int, sm *Submesh, us []int) (*scene.Mesh, error) {
	v := b.m.View
	local, indices, degenerate, ok := b.triangles(si, sm)
	if !ok {
		return nil, nil
	}
	// A face drawn from both sides is stored as two triangles over the same three vertices;
	// importers that weld faces by their vertices (Blender) would keep one. The repeat gets
	// copies of its vertices.
	repeats := repeatedTriangles(indices, len(local), &b.tris)
	for _, tri := range repeats {
		for c := 0; c < 3; c++ {
			local = append(local, local[indices[3*tri+c]])
			indices[3*tri+c] = uint32(len(local) - 1)
		}
	}
	b.local = local[:0]
	nv := len(local)
	mat := b.material(us[0], &v.Units[us[0]])
	mesh := &scene.Mesh{
		Name: "Submesh" + strconv.Itoa(si) + "_Geoset" + strconv.Itoa(int(sm.ID)), Indices: indices, Material: mat, Skin: -1,
		Positions: b.mem.Vec3.Take(nv), Normals: b.mem.Vec3.Take(nv),
		Extras: scene.Extras{"submesh": si, "geoset": sm.ID, "textureUnits": us},
	}
	if degenerate > 0 {
		mesh.Extras["degenerateTrianglesDropped"] = degenerate
	}
	if len(repeats) > 0 {
		mesh.Extras["repeatedTriangles"] = len(repeats)
		mesh.Extras["repeatedTrianglesNote"] = "triangles over the same vertices as an earlier one (a face drawn from both sides) got copies of their vertices"
	}
	if len(us) > 1 {
		var layers []int
		for _, ui := range us[1:] {
			layers = append(layers, b.material(ui, &v.Units[ui]))
		}
		mesh.Extras["overlayMaterials"] = layers
	}
	if !b.vertices(si, mesh, local) {
		return nil, nil
	}
	return mesh, nil
}

// triangles numbers the vertices submesh si's triangles use (local: mesh vertex → view
// vertex) and returns its triangles over them, without the degenerate ones, which it counts;
// ok is false when the submesh is left out, with a warning.
func (b *builder) triangles(si int, sm *Submesh) (local []int, indices []uint32, degenerate int, ok bool) {
	v := b.m.View
	vs, vc := int(sm.VertexStart), int(sm.VertexCount)
	is, ic := int(sm.IndexStart), int(sm.IndexCount)
	if vs+vc > len(v.Vertices) || is+ic > len(v.Indices) {
		b.warn("submesh %d: vertices [%d, %d) of %d or triangles [%d, %d) of %d out of range; left out",
			si, vs, vs+vc, len(v.Vertices), is, is+ic, len(v.Indices))
		return nil, nil, 0, false
	}
	ic -= ic % 3
	tri := v.Indices[is : is+ic]
	// The triangles index the view's vertex list; a submesh normally uses its own range of it.
	local = slices.Grow(b.local[:0], vc) // mesh vertex → view vertex
	indices = b.mem.Indices.Take(len(tri))
	lo, hi := math.MaxInt, -1
	for _, ix := range tri {
		lo, hi = min(lo, int(ix)), max(hi, int(ix))
	}
	// Degenerate triangles (a vertex twice) cover nothing; importers drop them. Numbering the
	// vertices is one-to-one, so they are found before or after it alike: with the submesh's
	// own range, in the same pass.
	kept := 0
	switch {
	case lo >= vs && hi < vs+vc, vs > 0 && hi < vc:
		// Indices into the view's list inside the submesh's range, or relative to its first
		// vertex.
		for k := 0; k < vc; k++ {
			local = append(local, vs+k)
		}
		off := uint32(0)
		if lo >= vs && hi < vs+vc {
			off = uint32(vs)
		}
		for k := 0; k+3 <= len(tri); k += 3 {
			t := tri[k : k+3 : k+3]
			a, b, c := uint32(t[0])-off, uint32(t[1])-off, uint32(t[2])-off
			if a == b || b == c || a == c {
				continue
			}
			d := indices[kept : kept+3 : kept+3]
			d[0], d[1], d[2] = a, b, c
			kept += 3
		}
	default:
		seen := map[uint16]uint32{}
		for k, ix := range tri {
			if int(ix) >= len(v.Vertices) {
				b.warn("submesh %d: triangle vertex %d of %d; left out", si, ix, len(v.Vertices))
				return nil, nil, 0, false
			}
			j, ok := seen[ix]
			if !ok {
				j = uint32(len(local))
				seen[ix] = j
				local = append(local, int(ix))
			}
			indices[k] = j
		}
		for k := 0; k+3 <= len(indices); k += 3 {
			a, b, c := indices[k], indices[k+1], indices[k+2]
			if a == b || b == c || a == c {
				continue
			}
			indices[kept], indices[kept+1], indices[kept+2] = a, b, c
			kept += 3
		}
	}
	degenerate = (len(indices) - kept) / 3
	indices = indices[:kept]
	if len(indices) == 0 || len(local) == 0 {
		b.warn("submesh %d has no triangles; left out", si)
		return nil, nil, 0, false
	}
	return local, indices, degenerate, true
}

// vertices fills mesh's vertex arrays from the model's vertices local names: positions,
// normals, texture coordinates and, when the model has bones, joints and weights; ok is false
// when the mesh is left out, with a warning.
func (b *builder) vertices(si int, mesh *scene.Mesh, local []int) (ok bool) {
	nv := len(local)
	m, v := b.m, b.m.View
	useUV1 := b.s.Materials[mesh.Material].TexCoord == 1
	uv0 := b.mem.Vec2.Take(nv)
	var uv1 [][2]float32
	if useUV1 {
		uv1 = b.mem.Vec2.Take(nv)
	}
	skinned := b.nb > 0
	var joints [][4]uint16
	var weights [][4]float32
	if skinned {
		joints, weights = b.mem.Joints.Take(nv), b.mem.Weights.Take(nv)
	}
	badBone, noWeight, badNormal := 0, 0, 0
	// Neighbouring vertices mostly have the same bones and weights: the last influences are
	// kept and reused while they do.
	var last struct {
		ok             bool
		weights, bones [4]uint8
		j              [4]uint16
		w              [4]float32
		bad, none      bool
	}
	for k, li := range local {
		gv := int(v.Vertices[li])
		if gv >= len(m.Vertices) {
			b.warn("submesh %d: view vertex %d names vertex %d of %d; left out", si, li, gv, len(m.Vertices))
			return false
		}
		vx := &m.Vertices[gv]
		mesh.Positions[k] = convPos(vx.Pos)
		nx, ny, nz := vx.Normal[0], vx.Normal[2], -vx.Normal[1] // convPos, on scalars
		l2 := float64(nx)*float64(nx) + float64(ny)*float64(ny) + float64(nz)*float64(nz)
		switch {
		case math.Abs(l2-1) <= 1e-6:
			mesh.Normals[k] = [3]float32{nx, ny, nz}
		case l2 > 1e-24 && !math.IsInf(l2, 0) && !math.IsNaN(l2):
			inv := 1 / math.Sqrt(l2)
			mesh.Normals[k] = [3]float32{float32(float64(nx) * inv), float32(float64(ny) * inv), float32(float64(nz) * inv)}
		default:
			mesh.Normals[k] = [3]float32{0, 1, 0}
			badNormal++
		}
		uv0[k] = vx.UV[0]
		if useUV1 {
			uv1[k] = vx.UV[1]
		}
		if skinned {
			if !last.ok || vx.Weights != last.weights || vx.Bones != last.bones {
				last.ok, last.weights, last.bones, last.j, last.w = true, vx.Weights, vx.Bones, [4]uint16{}, [4]float32{}
				last.bad, last.none = influences(vx, b.nb, &last.j, &last.w)
			}
			joints[k], weights[k] = last.j, last.w
			bad, none := last.bad, last.none
			if bad {
				badBone++
			}
			if none {
				noWeight++
			}
		}
	}
	mesh.UVs = [][][2]float32{uv0}
	if useUV1 {
		mesh.UVs = append(mesh.UVs, uv1)
	}
	if skinned {
		mesh.Skin = 0
		mesh.Joints, mesh.Weights = [][][4]uint16{joints}, [][][4]float32{weights}
	}
	if badBone > 0 {
		b.warn("submesh %d: %d vertices name bones past the %d the model has; those weights are dropped", si, badBone, b.nb)
	}
	if noWeight > 0 {
		b.warn("submesh %d: %d vertices have no bone weight; bound to bone 0", si, noWeight)
	}
	if badNormal > 0 {
		b.warn("submesh %d: %d zero or non-finite normals replaced by +Y", si, badNormal)
	}
	return true
}

// triScratch holds repeatedTriangles' tables, kept from one mesh to the next.
type triScratch struct {
	head, next []int32
	rest       []uint64
}

// repeatedTriangles returns the triangles (by number) whose three vertices are those of an
// earlier triangle, in any order.
func repeatedTriangles(indices []uint32, nv int, sc *triScratch) []int {
	nt := len(indices) / 3
	// Triangles are chained by their smallest vertex (head and next hold a triangle's number
	// + 1, 0 ending a chain); in a chain, the other two vertices, packed in rest, tell them apart.
	head := grow(sc.head, nv)
	clear(head)
	next := grow(sc.next, nt)
	rest := grow(sc.rest, nt)
	sc.head, sc.next, sc.rest = head, next, rest
	var out []int
	for t := 0; t < nt; t++ {
		x, y, z := indices[3*t], indices[3*t+1], indices[3*t+2]
		a, c := min(x, y, z), max(x, y, z)
		r := uint64(x^y^z^a^c)<<32 | uint64(c) // x^y^z^a^c is the middle one
		repeat := false
		for u := head[a]; u > 0; u = next[u-1] {
			if rest[u-1] == r {
				repeat = true
				break
			}
		}
		if repeat {
			out = append(out, t)
			continue
		}
		rest[t] = r
		next[t] = head[a]
		head[a] = int32(t + 1)
	}
	return out
}

// grow returns s with length n, reallocated when its capacity is short (contents are not kept).
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// influences converts a vertex's four byte weights into glTF joints and weights summing to 1:
// repeated bones merged, bones out of range dropped (bad), no weight at all bound to bone 0
// (none).
func influences(v *Vertex, nb int, j *[4]uint16, w *[4]float32) (bad, none bool) {
	var bones [4]int
	var ws [4]int
	n, sum := 0, 0
outer:
	for c := 0; c < 4; c++ {
		x := int(v.Weights[c])
		if x == 0 {
			continue
		}
		bi := int(v.Bones[c])
		if bi >= nb {
			bad = true
			continue
		}
		sum += x
		for k := 0; k < n; k++ {
			if bones[k] == bi {
				ws[k] += x
				continue outer
			}
		}
		bones[n], ws[n] = bi, x
		n++
	}
	if n == 0 {
		j[0], w[0] = 0, 1
		return bad, true
	}
	if n == 1 {
		j[0], w[0] = uint16(bones[0]), 1
		return bad, false
	}
	var total float64
	big := 0
	for k := 0; k < n; k++ {
		j[k] = uint16(bones[k])
		w[k] = float32(float64(ws[k]) / float64(sum))
		total += float64(w[k])
		if ws[k] > ws[big] {
			big = k
		}
	}
	if math.Abs(total-1) > 1e-7 {
		w[big] = float32(float64(w[big]) + 1 - total)
	}
	return bad, false
}

// boneTrack is one animated property of one bone.
type boneTrack struct {
	node int
	path scene.Path
	t    *Track
	off  [3]float32 // translation offset: pivot − parent pivot
	// global is the track on its global sequence's clock (globalTrack), made for the first
	// sequence and cut again for the others.
	global *anim.Track
}

// animations makes one animation per sequence.
func (b *builder) animations() error {
	m := b.m
	tracks := make([]boneTrack, 0, 3*len(m.Bones))
	for i := range m.Bones {
		bone := &m.Bones[i]
		off := b.s.Nodes[i].Translation
		for _, x := range []struct {
			t *Track
			p scene.Path
		}{{&bone.Translation, scene.PathTranslation}, {&bone.Rotation, scene.PathRotation}, {&bone.Scale, scene.PathScale}} {
			if !x.t.Empty() {
				tracks = append(tracks, boneTrack{node: i, path: x.p, t: x.t, off: off})
			}
		}
	}
	// Every animated track makes a channel in every sequence; a small file must not ask for
	// millions of them.
	if limit := min(max(m.SourceBytes/4, minChannels), maxChannels); len(tracks)*len(m.Sequences) > limit {
		return b.fail(codec.ErrTooLarge, "%d animated bone tracks × %d sequences is more than %d channels", len(tracks), len(m.Sequences), limit)
	}
	// Output keys: the source's, two at the edges of each clip, and global sequences repeating
	// within a fixed allowance.
	b.keyCap = maxKeysBase + 4*len(tracks)*len(m.Sequences)
	for _, bt := range tracks {
		b.keyCap += 4 * trackKeys(bt.t)
	}
	splines := 0
	for _, bt := range tracks {
		if bt.t.Interp > 1 {
			splines++
		}
	}
	if splines > 0 {
		b.warn("%d bone tracks have spline interpolation (2 or 3) but bone keys carry no tangents; interpolated linearly", splines)
	}
	names := b.sequenceNames()
	if len(m.Sequences) > 0 {
		b.s.Animations = make([]scene.Animation, 0, len(m.Sequences))
	}
	b.curves = make([]trackCurve, 0, len(tracks))
	// The key arrays of all sequences come from one block of the size they need (each
	// sequence's own reserve then finds room), rather than a large allocation per sequence.
	// Only within the key allowance: legacy sequences may each show all of a track's keys, and
	// a file asking for more keys than allowed fails once the keys made pass keyCap, which
	// must not be preceded by an allocation for all of them.
	nt, nv := 0, 0
	for si := range m.Sequences {
		target, _ := b.aliasTarget(si)
		for ti := range tracks {
			if t := tracks[ti].t; t.GlobalSeq < 0 {
				n := b.seqKeys(t, target) + 2
				nt += n
				nv += n * t.Width
			}
		}
		if nt > b.keyCap {
			nt, nv = 0, 0 // each sequence reserves its own, as animation does
			break
		}
	}
	b.mem.Times.Reserve(nt)
	b.mem.Values.Reserve(nv)
	for si := range m.Sequences {
		if err := b.animation(si, names[si], tracks); err != nil {
			return err
		}
	}
	return nil
}

// sequenceNames names the sequences by animation id, with "_<variation>" for variations: the
// variation field when it makes the name unique, else the sequence's place among those with
// the same id, else the first free number.
func (b *builder) sequenceNames() []string {
	seqs := b.m.Sequences
	names := make([]string, len(seqs))
	used := map[string]bool{}
	ordinal := map[uint16]int{}
	for i, q := range seqs {
		base := AnimationName(q.ID)
		nth := ordinal[q.ID]
		ordinal[q.ID]++
		cands := []int{int(q.Variation), nth}
		name := ""
		for _, v := range cands {
			c := base
			if v > 0 {
				c = base + "_" + strconv.Itoa(v)
			}
			if !used[c] {
				name = c
				break
			}
		}
		for v := 1; name == ""; v++ {
			if c := base + "_" + strconv.Itoa(v); !used[c] {
				name = c
			}
		}
		used[name] = true
		names[i] = name
	}
	return names
}

// aliasTarget follows alias links from sequence si to the sequence whose keys it plays.
func (b *builder) aliasTarget(si int) (int, bool) {
	seqs := b.m.Sequences
	t := si
	for steps := 0; seqs[t].Flags&SeqAlias != 0; steps++ {
		next := int(seqs[t].AliasNext)
		if next == t || next >= len(seqs) || steps > len(seqs) {
			return si, false
		}
		t = next
	}
	return t, true
}

// animation makes the animation of sequence si.
func (b *builder) animation(si int, name string, tracks []boneTrack) error {
	m := b.m
	q := &m.Sequences[si]
	target, ok := b.aliasTarget(si)
	if !ok {
		b.warn("sequence %d (%s) is an alias of %d, which leads nowhere; its own keys are used", si, name, q.AliasNext)
	}
	tq := &m.Sequences[target]
	dur := tq.Duration()
	a := scene.Animation{Name: name, Duration: float32(float64(dur) / 1000), Loop: true}
	if m.Layout.Legacy {
		a.Start, a.End = float64(tq.Start)/1000, float64(tq.Start+dur)/1000
	}
	ex := scene.Extras{
		"sequence": si, "id": q.ID, "idName": AnimationName(q.ID), "variation": q.Variation,
		"flags": flagsValue(q.Flags, sequenceFlagNames), "moveSpeed": q.MoveSpeed, "frequency": q.Frequency,
		"replay": [2]uint32{q.ReplayMin, q.ReplayMax}, "blendTime": q.BlendTime,
		"nextVariation": q.NextVariation,
	}
	if ms := float64(q.MoveSpeed); math.IsNaN(ms) || math.IsInf(ms, 0) {
		// JSON has no NaN or infinity: an encoder could not write the animation's extras.
		delete(ex, "moveSpeed")
		b.warn("sequence %d (%s): move speed %v is not a finite number; left out", si, name, q.MoveSpeed)
	}
	if target != si {
		ex["aliasOf"] = target
	}
	if m.Layout.Legacy {
		ex["window"] = [2]uint32{tq.Start, tq.End}
	}
	switch {
	case tq.AnimFile != "" && tq.AnimMissing:
		ex["animFile"], ex["animFileMissing"] = tq.AnimFile, true
		ex["note"] = "the keys of this sequence are in an .anim file that is missing; the animation holds the rest pose"
	case tq.AnimFile != "":
		ex["animFile"] = tq.AnimFile
	}
	w := anim.Window{Start: 0, End: int64(dur)}
	var globals []scene.Extras
	if len(tracks) > 0 {
		a.Channels = make([]scene.Channel, 0, len(tracks)) // one per track
	}
	// The curves of the tracks not on a global sequence, first: their key arrays, which
	// layoutKeys carves, then come from one block of the size they need.
	curves := b.curves[:0]
	nt, nv := 0, 0
	for ti := range tracks {
		bt := &tracks[ti]
		var c trackCurve
		if bt.t.GlobalSeq < 0 {
			c.ck, c.s, c.e, c.moved = b.seqCurve(bt.t, target, bt.path == scene.PathRotation)
			nt += len(c.ck.times) + 2
			nv += (len(c.ck.times) + 2) * c.ck.width
		}
		curves = append(curves, c)
	}
	b.curves = curves
	b.mem.Times.Reserve(nt)
	b.mem.Values.Reserve(nv)
	for ti := range tracks {
		bt := &tracks[ti]
		var res anim.Result
		var tr *anim.Track
		if bt.t.GlobalSeq >= 0 {
			// A global-sequence track repeats across the clip: package anim bakes it.
			var err error
			if bt.global == nil {
				if bt.global, err = b.globalTrack(bt); err != nil {
					return b.fail(err, "sequence %d (%s): bone %d %s", si, name, bt.node, bt.path)
				}
			}
			tr = bt.global
			res, err = anim.Cut(tr, w)
			if errors.Is(err, anim.ErrTooManyKeys) {
				b.warn("sequence %d (%s): bone %d %s: %v; held at its starting value", si, name, bt.node, bt.path, err)
				res, err = anim.Cut(tr, anim.Window{})
			}
			if err != nil {
				return b.fail(err, "sequence %d (%s): bone %d %s", si, name, bt.node, bt.path)
			}
		} else {
			// Step and linear keys map one to one onto glTF's once cut to the clip.
			c := &curves[ti]
			if c.moved {
				b.warn("bone %d %s, sequence %d: key times out of order; sorted", bt.node, bt.path, target)
			}
			res.Channel = b.layoutKeys(&c.ck, c.s, c.e, bt)
		}
		ch := res.Channel
		ch.Node, ch.Path = bt.node, bt.path
		if b.keys += len(ch.Times); b.keys > b.keyCap {
			return b.fail(codec.ErrTooLarge, "animations need more than %d keys", b.keyCap)
		}
		a.Channels = append(a.Channels, ch)
		if tr != nil {
			globals = append(globals, scene.Extras{"node": bt.node, "path": pathValue(bt.path), "globalSequence": bt.t.GlobalSeq,
				"period": float64(tr.Period) / 1000, "repeats": res.Repeats})
		}
	}
	if len(a.Channels) == 0 && len(b.s.Nodes) > 0 {
		// Nothing moves: hold the rest pose of the first node, so the clip still exists.
		t := b.s.Nodes[0].Translation
		ch := scene.Channel{Node: 0, Path: scene.PathTranslation, Interp: scene.Step, Times: []float32{0}, Values: t[:]}
		if dur > 0 {
			ch.Times = append(ch.Times, a.Duration)
			ch.Values = append(slices.Clone(t[:]), t[:]...)
		}
		a.Channels = append(a.Channels, ch)
		ex["restPoseOnly"] = true
	}
	if len(globals) > 0 {
		ex["globalSequenceChannels"] = globals
		ex["globalSequenceNote"] = GlobalSequenceNote
	}
	a.Extras = ex
	b.s.Animations = append(b.s.Animations, a)
	return nil
}

// globalTrack makes the anim.Track of global-sequence bone track bt, in glTF axes, on the
// global sequence's clock.
func (b *builder) globalTrack(bt *boneTrack) (*anim.Track, error) {
	m, t := b.m, bt.t
	w := t.Width
	tr := &anim.Track{Interp: anim.DontInterp, Width: w, Rotation: bt.path == scene.PathRotation, Default: bt.def()}
	if t.Interp != 0 {
		tr.Interp = anim.Linear
	}
	g := int(t.GlobalSeq)
	if g >= len(m.GlobalSequences) {
		return nil, fmt.Errorf("global sequence %d of %d", g, len(m.GlobalSequences))
	}
	tr.Global, tr.Period = true, int64(m.GlobalSequences[g])
	if len(t.Keys) > 0 {
		k := &t.Keys[0]
		times, v, _ := sortKeys(k.Times, k.Values, w)
		tr.Frames = make([]int64, len(times))
		for i, x := range times {
			tr.Frames[i] = int64(x)
		}
		tr.Values = make([]float32, len(v))
		for i := 0; i+w <= len(v); i += w {
			var x [4]float32
			copy(x[:], v[i:i+w])
			x = bt.conv(x)
			copy(tr.Values[i:i+w], x[:w])
		}
	}
	if err := tr.Check(); err != nil {
		return nil, err
	}
	return tr, nil
}

// pathValue returns p as the plain string extras hold, without an allocation for the paths
// scene defines (constants convert to an interface for free).
func pathValue(p scene.Path) any {
	switch p {
	case scene.PathTranslation:
		return string(scene.PathTranslation)
	case scene.PathRotation:
		return string(scene.PathRotation)
	case scene.PathScale:
		return string(scene.PathScale)
	}
	return string(p)
}

// def is the track's value where it has no keys, in glTF axes: the rest pose.
func (bt *boneTrack) def() []float32 {
	switch bt.path {
	case scene.PathRotation:
		return []float32{0, 0, 0, 1}
	case scene.PathScale:
		return []float32{1, 1, 1}
	}
	return bt.off[:]
}

// conv converts a source value to glTF axes (see convPos); a translation gets the rest offset.
func (bt *boneTrack) conv(v [4]float32) [4]float32 {
	switch bt.path {
	case scene.PathRotation:
		return [4]float32{v[0], v[2], -v[1], v[3]}
	case scene.PathScale:
		return [4]float32{v[0], v[2], v[1]}
	}
	return [4]float32{bt.off[0] + v[0], bt.off[1] + v[2], bt.off[2] - v[1]}
}

// seqCurve returns the keys of non-global track t that sequence si shows and the window [s, e]
// on their clock: the sequence's range of the legacy timeline, or its own keys from v264.
// moved says that key times were out of order and had to be sorted.
func (b *builder) seqCurve(t *Track, si int, rot bool) (ck curveKeys, s, e uint32, moved bool) {
	m, w := b.m, t.Width
	ck = curveKeys{width: w, linear: t.Interp != 0, rot: rot}
	var times []uint32
	var v []float32
	q := &m.Sequences[si]
	if m.Layout.Legacy {
		s, e = q.Start, q.Start+q.Duration()
		if len(t.Keys) > 0 {
			k := &t.Keys[0]
			lo, hi, ok := legacyRange(t, si, k.Times, s, e)
			if ok {
				times, v = k.Times[lo:hi+1], k.Values[lo*w:(hi+1)*w]
			}
		}
	} else {
		s, e = 0, q.Duration()
		if si < len(t.Keys) {
			times, v = t.Keys[si].Times, t.Keys[si].Values
		}
	}
	ck.times, ck.vals, moved = sortKeys(times, v, w)
	return ck, s, e, moved
}

// seqKeys is the number of keys of non-global track t that sequence si shows: the length of
// seqCurve's keys, counted without sorting them.
func (b *builder) seqKeys(t *Track, si int) int {
	m := b.m
	if !m.Layout.Legacy {
		if si < len(t.Keys) {
			return len(t.Keys[si].Times)
		}
		return 0
	}
	if len(t.Keys) == 0 {
		return 0
	}
	q := &m.Sequences[si]
	s, e := q.Start, q.Start+q.Duration()
	if lo, hi, ok := legacyRange(t, si, t.Keys[0].Times, s, e); ok {
		return hi + 1 - lo
	}
	return 0
}

// staticValue returns the value track t holds at the start of the first sequence (at global
// time 0 for a global-sequence track), def when it has no keys there, and whether the value
// changes anywhere (another value in any sequence, or def in one without keys).
func (b *builder) staticValue(t *Track, def []float32) (v []float32, animated bool) {
	w := t.Width
	if len(def) != w {
		return def, false
	}
	at := func(ck *curveKeys, time uint32) []float32 {
		if len(ck.times) == 0 {
			return def
		}
		x := ck.eval(float64(time))
		out := make([]float32, w)
		for i := range out {
			out[i] = float32(x[i])
		}
		return out
	}
	differs := func(ck *curveKeys, s, e uint32) bool {
		if len(ck.times) == 0 {
			return !slices.Equal(def, v)
		}
		frames, vals := ck.window(s, e)
		for k := range frames {
			if !slices.Equal(vals[k*w:k*w+w], v) {
				return true
			}
		}
		return false
	}
	if t.GlobalSeq >= 0 {
		ck := curveKeys{width: w, linear: t.Interp != 0}
		if len(t.Keys) > 0 {
			ck.times, ck.vals, _ = sortKeys(t.Keys[0].Times, t.Keys[0].Values, w)
		}
		v = at(&ck, 0)
		return v, differs(&ck, 0, math.MaxUint32)
	}
	if len(b.m.Sequences) == 0 {
		return def, !t.Empty()
	}
	for si := range b.m.Sequences {
		ck, s, e, _ := b.seqCurve(t, si, false)
		if si == 0 {
			v = at(&ck, s)
		}
		if differs(&ck, s, e) {
			return v, true
		}
	}
	return v, false
}

// layoutKeys lays out the curve a sequence shows — the keys of ck over the window [s, e] of
// their clock — as a glTF channel on the clip's clock in seconds, in glTF axes: STEP for
// interpolation 0, LINEAR otherwise. Where no key sits on an edge of the window, a key there
// holds the curve's value (so the part inside is the same curve); a clip without keys holds the
// default. Of keys at the same time the later wins, and a linear curve that jumps there gets a
// key one float32 step earlier holding the value it arrives with. Quaternions are normalised
// and kept in one hemisphere from key to key (for consumers that interpolate them
// component-wise).
func (b *builder) layoutKeys(ck *curveKeys, s, e uint32, bt *boneTrack) scene.Channel {
	w := ck.width
	n := len(ck.times)
	// A channel has at most the keys plus one at each edge: its arrays are carved once, at that
	// size, and filled in place.
	kw := keyWriter{times: b.mem.Times.Take(n + 2), vals: b.mem.Values.Take((n + 2) * w), w: w, linear: ck.linear}
	kw.rot = bt.path == scene.PathRotation
	ch := scene.Channel{Interp: scene.Step}
	if ck.linear {
		ch.Interp = scene.Linear
	}
	if n == 0 {
		var d [4]float32
		copy(d[:], bt.def())
		kw.put(0, d)
		if e > s {
			kw.put(e-s, d)
		}
		ch.Times, ch.Values = kw.result()
		return ch
	}
	edge := func(t uint32) {
		v := ck.eval(float64(t))
		kw.put(t-s, bt.conv([4]float32{float32(v[0]), float32(v[1]), float32(v[2]), float32(v[3])}))
	}
	times, vals := ck.times, ck.vals
	a, _ := slices.BinarySearch(times, s)
	if a == n || times[a] > s {
		edge(s)
	}
	z := a
	switch {
	case kw.rot && w == 4:
		z = kw.putRotations(times, vals, z, s, e)
	case !kw.rot && w == 3:
		z = kw.putVectors(times, vals, z, s, e, bt)
	default:
		cw := min(w, 4) // floats of a key that reach the value (as copy into a [4]float32 would)
		for ; z < n && times[z] <= e; z++ {
			var x [4]float32
			copy(x[:], vals[z*w:z*w+cw])
			kw.put(times[z]-s, bt.conv(x))
		}
	}
	if e > s && (z == a || times[z-1] < e) {
		edge(e)
	}
	ch.Times, ch.Values = kw.result()
	return ch
}

// keyWriter fills one channel's key arrays, sized beforehand for every key it can get.
type keyWriter struct {
	times  []float32
	vals   []float32 // w floats per key
	n      int       // keys so far
	w      int
	linear bool
	rot    bool
}

// result returns the keys written.
func (kw *keyWriter) result() ([]float32, []float32) {
	return kw.times[:kw.n], kw.vals[:kw.n*kw.w]
}

// putRotations puts the rotation keys from z on, up to the window's end e (s is its start),
// and returns the index after the last. The usual key, later than the one before it, is put by
// putRotationRun, unrolled on scalars (a Go array lives in memory); the first key and repeated
// times go through put.
func (kw *keyWriter) putRotations(times []uint32, vals []float32, z int, s, e uint32) int {
	for z < len(times) && times[z] <= e {
		if z = kw.putRotationRun(times, vals, z, s, e); z < len(times) && times[z] <= e {
			v := (*[4]float32)(vals[4*z:])
			kw.put(times[z]-s, [4]float32{v[0], v[2], -v[1], v[3]}) // boneTrack.conv of a rotation
			z++
		}
	}
	return z
}

// putRotationRun is putRotations' loop for the usual key, later than the one before it; it
// stops at the first other key (the first of all, or one at a repeated time), which its
// caller puts. Without a call inside, the loop keeps the key count, the last key's time and
// value in registers, not in kw and its arrays.
func (kw *keyWriter) putRotationRun(times []uint32, vals []float32, z int, s, e uint32) int {
	k := kw.n
	if k == 0 {
		return z
	}
	kt, kv := kw.times, kw.vals
	p := (*[4]float32)(kv[4*(k-1):])
	pt, p0, p1, p2, p3 := kt[k-1], p[0], p[1], p[2], p[3] // the last key written
	for ; z < len(times) && times[z] <= e; z++ {
		t := float32(float64(times[z]-s) / 1000)
		if t <= pt {
			break
		}
		v := (*[4]float32)(vals[4*z:])
		x0, x1, x2, x3 := v[0], v[2], -v[1], v[3] // boneTrack.conv of a rotation
		// As put does: normalised unless unit within 1e-6, zero or not finite.
		l2 := float64(x0)*float64(x0) + float64(x1)*float64(x1) + float64(x2)*float64(x2) + float64(x3)*float64(x3)
		if d := l2 - 1; d > 1e-6 || d < -1e-6 {
			x0, x1, x2, x3 = normQuat(x0, x1, x2, x3, l2)
		}
		if x0*p0+x1*p1+x2*p2+x3*p3 < 0 {
			x0, x1, x2, x3 = -x0, -x1, -x2, -x3
		}
		kt[k] = t
		d := (*[4]float32)(kv[4*k:])
		d[0], d[1], d[2], d[3] = x0, x1, x2, x3
		pt, p0, p1, p2, p3 = t, x0, x1, x2, x3
		k++
	}
	kw.n = k
	return z
}

// normQuat returns x scaled to unit length, as put does, when its squared length l2 (computed
// as there) is positive and finite, else x unchanged. It is kept out of putRotationRun's loop,
// which rarely needs it.
//
//go:noinline
func normQuat(x0, x1, x2, x3 float32, l2 float64) (float32, float32, float32, float32) {
	if !(l2 > 0) || math.IsInf(l2, 0) {
		return x0, x1, x2, x3
	}
	l := math.Sqrt(l2)
	return float32(float64(x0) / l), float32(float64(x1) / l), float32(float64(x2) / l), float32(float64(x3) / l)
}

// putVectors is putRotations for translation and scale keys.
func (kw *keyWriter) putVectors(times []uint32, vals []float32, z int, s, e uint32, bt *boneTrack) int {
	scale := bt.path == scene.PathScale
	for z < len(times) && times[z] <= e {
		if z = kw.putVectorRun(times, vals, z, s, e, bt.off, scale); z < len(times) && times[z] <= e {
			v := (*[3]float32)(vals[3*z:])
			kw.put(times[z]-s, bt.conv([4]float32{v[0], v[1], v[2]}))
			z++
		}
	}
	return z
}

// putVectorRun is putRotationRun for translation (offset by off) and scale keys.
func (kw *keyWriter) putVectorRun(times []uint32, vals []float32, z int, s, e uint32, off [3]float32, scale bool) int {
	k := kw.n
	if k == 0 {
		return z
	}
	kt, kv := kw.times, kw.vals
	pt := kt[k-1] // the last key's time
	o0, o1, o2 := off[0], off[1], off[2]
	for ; z < len(times) && times[z] <= e; z++ {
		t := float32(float64(times[z]-s) / 1000)
		if t <= pt {
			break
		}
		v := (*[3]float32)(vals[3*z:])
		// boneTrack.conv
		x0, x1, x2 := o0+v[0], o1+v[2], o2-v[1]
		if scale {
			x0, x1, x2 = v[0], v[2], v[1]
		}
		kt[k] = t
		d := (*[3]float32)(kv[3*k:])
		d[0], d[1], d[2] = x0, x1, x2
		pt = t
		k++
	}
	kw.n = k
	return z
}

// put adds the key x (in glTF axes) at ms on the clip's clock, as layoutKeys describes.
func (kw *keyWriter) put(ms uint32, x [4]float32) {
	t := float32(float64(ms) / 1000)
	w, k := kw.w, kw.n
	if kw.rot {
		l2 := float64(x[0])*float64(x[0]) + float64(x[1])*float64(x[1]) + float64(x[2])*float64(x[2]) + float64(x[3])*float64(x[3])
		if l2 > 0 && !math.IsInf(l2, 0) && math.Abs(l2-1) > 1e-6 {
			l := math.Sqrt(l2)
			for i := range x {
				x[i] = float32(float64(x[i]) / l)
			}
		}
	}
	if k > 0 && t <= kw.times[k-1] {
		p := kw.vals[(k-1)*w : k*w]
		same := true
		for i, v := range p {
			if v != x[i] {
				same = false
				break
			}
		}
		if kw.rot && !same {
			same = p[0] == -x[0] && p[1] == -x[1] && p[2] == -x[2] && p[3] == -x[3]
		}
		switch early := math.Nextafter32(t, float32(math.Inf(-1))); {
		case !kw.linear || same || (k > 1 && early <= kw.times[k-2]):
			// The later key wins; a jump shows only on a linear curve, from one float32
			// step earlier, when there is room.
			k--
		default:
			kw.times[k-1] = early
		}
	}
	if kw.rot && k > 0 {
		if p := kw.vals[(k-1)*w : k*w]; x[0]*p[0]+x[1]*p[1]+x[2]*p[2]+x[3]*p[3] < 0 {
			x = [4]float32{-x[0], -x[1], -x[2], -x[3]}
		}
	}
	kw.times[k] = t
	for i, v := range x[:w] {
		kw.vals[k*w+i] = v
	}
	kw.n = k + 1
}

// legacyRange returns the key index range [lo, hi] sequence si uses on a legacy timeline: its
// range entry when it has a valid one, else the keys inside its window [s, e].
func legacyRange(t *Track, si int, times []uint32, s, e uint32) (lo, hi int, ok bool) {
	n := len(times)
	if si < len(t.Ranges) {
		r := t.Ranges[si]
		if r[0] <= r[1] && int(r[1]) < n {
			return int(r[0]), int(r[1]), true
		}
	}
	lo = slices.IndexFunc(times, func(x uint32) bool { return x >= s })
	if lo < 0 || times[lo] > e {
		return 0, 0, false
	}
	hi = lo
	for hi+1 < n && times[hi+1] <= e {
		hi++
	}
	return lo, hi, true
}
