package wc3

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/modelfs/modelfs/translate/anim"
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/internal/scenemem"
	"github.com/modelfs/modelfs/translate/scene"
)

// Axes describes the Warcraft III frame and the conversion Build applies.
const Axes = "Z-up right-handed, converted to Y-up by (x, y, z) → (x, z, −y)"

// TransparentCutoff is the alpha below which the game discards pixels of a Transparent
// (alpha-tested) layer; it becomes the glTF alphaCutoff.
const TransparentCutoff = 0.75

// GlobalSequenceNote explains how global-sequence tracks appear in the animations.
const GlobalSequenceNote = "global-sequence tracks run on their own clock; each animation bakes them " +
	"repeating across its duration, with the global clock at 0 when the animation starts"

// maxNodes is the most nodes a skin can address with 16-bit joint indices.
const maxNodes = math.MaxUint16

// builder carries the state of one Build call.
type builder struct {
	m        *Model
	src      codec.Source
	format   string
	s        *scene.Scene
	objs     []object      // nodes in scene order (by ObjectID)
	byID     map[int32]int // ObjectID → node index
	pivots   [][3]float32  // converted pivot per node
	tracks   []nodeTrack   // every node transform track, converted
	warnings []string
	mem      *scenemem.Mem // where the meshes' arrays are carved from

	meshGeoset  []int              // per scene mesh, its geoset
	geosetAnims map[int]int        // geoset → the geoset animation the game uses for it
	teams       map[int]teamLook   // material → how it shows the team colour
	teamMats    map[int][]int      // material → its material per player colour (Variants)
	tints       map[[5]float32]int // material and geoset tint → the material made for them
}

// object is one node of the hierarchy, whatever its block.
type object struct {
	node   *Node
	block  string // MDL block name, e.g. "Bone"
	kind   scene.NodeKind
	list   string // key of the scene.Extras list holding its raw struct
	index  int    // index in that list
	extras scene.Extras
}

// nodeTrack is one transform track of one node, ready for cutting.
type nodeTrack struct {
	node     int
	path     scene.Path
	tr       *anim.Track
	gseq     int32
	rounding float32 // what the channels cut of it may be rounded by (scene.Channel.Rounding)
}

// Build converts a raw model read from src (as format "mdl" or "mdx") into a scene.
func Build(m *Model, src codec.Source, format string) (*scene.Scene, error) {
	if m == nil {
		return nil, &codec.FormatError{Format: format, File: src.Name, Offset: -1, Msg: "no model"}
	}
	b := &builder{m: m, src: src, format: format, byID: map[int32]int{}, mem: scenemem.Get()}
	b.s = &scene.Scene{
		Source: scene.Source{
			Path: src.Name, Format: format, Version: int(m.Version), Name: m.Name,
			Axes: Axes, Unit: "Warcraft III units (about 100 per character height)", Scale: 1,
		},
		Extras:      scene.Extras{},
		PlainExtras: true, // plain.go; TestBuildExtrasPlain holds it
	}
	if err := b.mem.Build(b.nodes, b.skin, b.textures, b.materials, b.meshes, b.animations, b.appearance, b.effects); err != nil {
		return nil, err
	}
	b.modelExtras()
	b.s.Warnings = append(slices.Clone(m.Warnings), b.warnings...)
	b.mem.Attach(b.s)
	return b.s, nil
}

// effects describes the emitters for translate/fx (effects.go).
func (b *builder) effects() error {
	b.emitterScene()
	return nil
}

func (b *builder) fail(format string, args ...any) error {
	return b.failErr(nil, format, args...)
}

// failErr is fail with an error (such as codec.ErrTooLarge) for errors.Is to find.
func (b *builder) failErr(err error, format string, args ...any) error {
	return &codec.FormatError{Format: b.format, File: b.src.Name, Offset: -1, Msg: fmt.Sprintf(format, args...), Err: err}
}

func (b *builder) warn(format string, args ...any) {
	b.warnings = append(b.warnings, fmt.Sprintf(format, args...))
}

// Axis conversions (formats/README.md): positions and directions (x, y, z) → (x, z, −y),
// quaternions (x, y, z, w) → (x, z, −y, w), scales (x, y, z) → (x, z, y).
func convPos(v [3]float32) [3]float32  { return [3]float32{v[0], v[2], -v[1]} }
func convQuat(q [4]float32) [4]float32 { return [4]float32{q[0], q[2], -q[1], q[3]} }
func convScale(v [3]float32) [3]float32 {
	return [3]float32{v[0], v[2], v[1]}
}

// collect lists every object with a node, in block order.
func (b *builder) collect() []object {
	m := b.m
	out := make([]object, 0, len(m.Bones)+len(m.Lights)+len(m.Helpers)+len(m.Attachments)+len(m.ParticleEmitters)+
		len(m.ParticleEmitters2)+len(m.RibbonEmitters)+len(m.Events)+len(m.CollisionShapes))
	add := func(n *Node, block string, kind scene.NodeKind, list string, i int, ex scene.Extras) {
		out = append(out, object{node: n, block: block, kind: kind, list: list, index: i, extras: ex})
	}
	for i := range m.Bones {
		o := &m.Bones[i]
		add(&o.Node, "Bone", scene.KindBone, "bones", i, scene.Extras{"geosetId": int64(o.GeosetID), "geosetAnimId": int64(o.GeosetAnimID)})
	}
	for i := range m.Lights {
		o := &m.Lights[i]
		add(&o.Node, "Light", scene.KindLight, "lights", i, scene.Extras{"lightType": lightTypeName(o.Type)})
	}
	for i := range m.Helpers {
		add(&m.Helpers[i], "Helper", scene.KindHelper, "helpers", i, scene.Extras{})
	}
	for i := range m.Attachments {
		o := &m.Attachments[i]
		add(&o.Node, "Attachment", scene.KindAttachment, "attachments", i, scene.Extras{"path": o.Path, "attachmentId": int64(o.AttachmentID)})
	}
	for i := range m.ParticleEmitters {
		o := &m.ParticleEmitters[i]
		add(&o.Node, "ParticleEmitter", scene.KindEmitter, "particleEmitters", i, scene.Extras{"path": o.Path})
	}
	for i := range m.ParticleEmitters2 {
		o := &m.ParticleEmitters2[i]
		add(&o.Node, "ParticleEmitter2", scene.KindEmitter, "particleEmitters2", i,
			scene.Extras{"textureId": int64(o.TextureID), "filterMode": emitterFilterName(o.FilterMode)})
	}
	for i := range m.RibbonEmitters {
		o := &m.RibbonEmitters[i]
		add(&o.Node, "RibbonEmitter", scene.KindRibbon, "ribbonEmitters", i, scene.Extras{"materialId": int64(o.MaterialID)})
	}
	for i := range m.Events {
		o := &m.Events[i]
		add(&o.Node, "EventObject", scene.KindEvent, "events", i, scene.Extras{"globalSequence": int64(o.GlobalSeq), "frames": scene.Uint32s(o.Frames)})
	}
	for i := range m.CollisionShapes {
		o := &m.CollisionShapes[i]
		add(&o.Node, "CollisionShape", scene.KindCollision, "collisionShapes", i, scene.Extras{"shape": shapeName(o.Type)})
	}
	return out
}

// nodes builds the node hierarchy in ObjectID order with the pivot rest pose.
func (b *builder) nodes() error {
	objs := b.collect()
	if len(objs) > maxNodes {
		return b.fail("%d objects, more than %d", len(objs), maxNodes)
	}
	// ObjectId -1 is the format's "none": such an object can be no one's parent nor carry
	// vertices; it goes last, with no pivot.
	var unnumbered []object
	objs = slices.DeleteFunc(objs, func(o object) bool {
		if o.node.ObjectID == -1 {
			unnumbered = append(unnumbered, o)
			return true
		}
		return false
	})
	slices.SortStableFunc(objs, func(x, y object) int { return cmp.Compare(x.node.ObjectID, y.node.ObjectID) })
	for _, o := range unnumbered {
		b.warn("%s %q has ObjectId -1 (none): placed last, at the origin, parent of nothing", o.block, o.node.Name)
	}
	numbered := len(objs)
	objs = append(objs, unnumbered...)
	contiguous := true
	for i, o := range objs[:numbered] {
		id := o.node.ObjectID
		if id < 0 {
			return b.fail("%s %q has negative ObjectId %d", o.block, o.node.Name, id)
		}
		if _, dup := b.byID[id]; dup {
			// The game loads such a model; what names the id (a parent, a matrix group)
			// finds the object read last, as in mdx-m3-viewer, which keeps its objects by id.
			b.warn("ObjectId %d used twice (%s %q is the one read last): the id names it", id, o.block, o.node.Name)
		}
		b.byID[id] = i
		contiguous = contiguous && int(id) == i
	}
	if !contiguous {
		b.warn("object ids are not 0…%d in order; nodes are ordered by ObjectId", len(objs)-1)
	}
	b.objs = objs
	b.pivots = make([][3]float32, len(objs))
	missing := 0
	for i, o := range objs[:numbered] {
		if id := int(o.node.ObjectID); id < len(b.m.PivotPoints) {
			b.pivots[i] = convPos(b.m.PivotPoints[id])
		} else {
			missing++
		}
	}
	if missing > 0 {
		b.warn("%d objects have no pivot point (PivotPoints has %d); taken as the origin", missing, len(b.m.PivotPoints))
	}
	parents := make([]int, len(objs))
	for i, o := range objs {
		parents[i] = -1
		if p := o.node.ParentID; p != -1 {
			pi, ok := b.byID[p]
			if !ok {
				b.warn("%s %q (ObjectId %d) has parent %d, which is no object: taken as a root", o.block, o.node.Name, o.node.ObjectID, p)
				continue
			}
			parents[i] = pi
		}
	}
	for i := range objs {
		p, steps := parents[i], 0
		for p >= 0 {
			if steps++; steps > len(objs) || p == i {
				b.warn("%s %q (ObjectId %d) is its own ancestor: taken as a root", objs[i].block, objs[i].node.Name, objs[i].node.ObjectID)
				parents[i] = -1
				break
			}
			p = parents[p]
		}
	}
	b.s.Nodes = make([]scene.Node, len(objs))
	for i, o := range objs {
		var parentPivot [3]float32
		if parents[i] >= 0 {
			parentPivot = b.pivots[parents[i]]
		}
		ex := o.extras
		ex["objectId"] = int64(o.node.ObjectID)
		ex["block"] = o.block // the MDL block name; scene.Node.Kind is the normalised kind
		ex["index"] = int64(o.index)
		ex["flags"] = nodeFlagNames(o.node.Flags, o.block)
		ex["pivot"] = scene.Vec3(&b.pivots[i])
		b.s.Nodes[i] = scene.Node{
			Name: o.node.Name, Kind: o.kind, Parent: parents[i],
			Translation: sub(b.pivots[i], parentPivot),
			Rotation:    [4]float32{0, 0, 0, 1},
			Scale:       [3]float32{1, 1, 1},
			Extras:      ex,
		}
	}
	return nil
}

func sub(a, b [3]float32) [3]float32 { return [3]float32{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }

// skin makes the one skin whose joints are all nodes, bound at the pivots.
func (b *builder) skin() error {
	if len(b.s.Nodes) > 0 {
		b.s.Skins = []scene.Skin{scene.PivotSkin(b.m.Name, b.s.Nodes, b.pivots)}
	}
	return nil
}

// replaceableStandIns are the files that stand in for runtime textures: team colour and glow.
var replaceableStandIns = map[uint32]string{
	1: `ReplaceableTextures\TeamColor\TeamColor00.blp`,
	2: `ReplaceableTextures\TeamGlow\TeamGlow00.blp`,
}

// textures copies the texture table.
func (b *builder) textures() error {
	for _, t := range b.m.Textures {
		tx := scene.Texture{
			Path: t.Path, Replaceable: int(t.ReplaceableID),
			WrapU: t.Flags&1 != 0, WrapV: t.Flags&2 != 0,
			Extras: scene.Extras{"flags": uint64(t.Flags)},
		}
		if name := replaceableName(t.ReplaceableID); name != "" {
			tx.Extras["replaceable"] = name
		}
		if stand, ok := replaceableStandIns[t.ReplaceableID]; ok && tx.Path == "" {
			// The game paints these at run time (player colours); the first player's texture,
			// where the tree has it, is the conventional stand-in.
			tx.Path, tx.Guess = stand, true
		}
		b.s.Textures = append(b.s.Textures, tx)
	}
	return nil
}

// materials maps each material to glTF terms as the game draws it at the default frame (see
// looks.go) and keeps every layer in Extras.
func (b *builder) materials() error {
	sp, _ := b.defaultSpan()
	for i := range b.m.Materials {
		m := &b.m.Materials[i]
		mat := scene.Material{
			Name: fmt.Sprintf("Material%d", i), BaseColor: [4]float32{1, 1, 1, 1}, Texture: -1,
			AlphaMode: scene.AlphaOpaque,
			Extras:    scene.Extras{"priorityPlane": int64(m.PriorityPlane), "flags": uint64(m.Flags), "layers": plainList(m.Layers, (*Layer).plain)},
		}
		mat.Flags = materialFlagNames(m.Flags)
		if len(m.Layers) == 0 {
			b.warn("material %d has no layers", i)
			mat.Extras["technique"] = "no layers: plain white"
			b.s.Materials = append(b.s.Materials, mat)
			continue
		}
		if slots, layer, ok := b.hdSlots(i); ok {
			b.hdLook(i, &mat, sp, slots, layer)
		} else {
			b.look(i, &mat, sp)
		}
		b.s.Materials = append(b.s.Materials, mat)
	}
	return nil
}

// meshes turns every geoset with triangles into a mesh.
func (b *builder) meshes() error {
	var dropped error
	for gi := range b.m.Geosets {
		mesh, err := b.mesh(gi)
		var fe *codec.FormatError
		if errors.As(err, &fe) && !errors.Is(err, codec.ErrTooLarge) {
			// A geoset whose faces or skin do not hold together costs itself: the game draws
			// the others.
			b.warn("%s; the geoset is left out", fe.Msg)
			dropped = cmp.Or(dropped, err)
			continue
		}
		if err != nil {
			return err
		}
		if mesh != nil {
			b.s.Meshes = append(b.s.Meshes, *mesh)
			b.meshGeoset = append(b.meshGeoset, gi)
		}
	}
	if len(b.s.Meshes) == 0 && dropped != nil {
		return dropped // nothing left to show
	}
	return nil
}

func (b *builder) mesh(gi int) (*scene.Mesh, error) {
	g := &b.m.Geosets[gi]
	nv := len(g.Vertices)
	mesh := &scene.Mesh{
		Name: fmt.Sprintf("Geoset%d", gi), Material: -1, Skin: -1,
		Extras: scene.Extras{
			"geosetId": int64(gi), "selectionGroup": uint64(g.SelectionGroup), "unselectable": g.SelectionFlags&4 != 0,
			"extent": g.Extent.plain(),
		},
	}
	idx, err := b.triangles(gi, g)
	if err != nil {
		return nil, err
	}
	if nv == 0 || len(idx) == 0 {
		b.warn("geoset %d has %d vertices and %d triangles; skipped", gi, nv, len(idx)/3)
		return nil, nil
	}
	mesh.Indices = idx
	mesh.Positions = b.mem.Vec3.Take(nv)
	for v, p := range g.Vertices {
		mesh.Positions[v] = convPos(p)
	}
	switch {
	case len(g.Normals) == nv:
		mesh.Normals = b.mem.Vec3.Take(nv)
		bad := 0
		for v, n := range g.Normals {
			c := convPos(n)
			l := math.Sqrt(float64(c[0])*float64(c[0]) + float64(c[1])*float64(c[1]) + float64(c[2])*float64(c[2]))
			if !(l >= 1e-12 && l <= math.MaxFloat64) { // zero, NaN or infinite
				bad++
				mesh.Normals[v] = [3]float32{0, 1, 0}
				continue
			}
			mesh.Normals[v] = [3]float32{float32(float64(c[0]) / l), float32(float64(c[1]) / l), float32(float64(c[2]) / l)}
		}
		if bad > 0 {
			b.warn("geoset %d: %d zero or non-finite normals replaced by +Y", gi, bad)
		}
	case len(g.Normals) != 0:
		b.warn("geoset %d: %d normals for %d vertices; normals dropped", gi, len(g.Normals), nv)
	}
	switch {
	case len(g.Tangents) == nv && len(mesh.Normals) == nv:
		mesh.Tangents = make([][4]float32, nv)
		for v, t := range g.Tangents {
			c := convPos([3]float32{t[0], t[1], t[2]}) // a rotation: the handedness (W) stays
			mesh.Tangents[v] = [4]float32{c[0], c[1], c[2], t[3]}
		}
	case len(g.Tangents) != 0:
		b.warn("geoset %d: %d tangents for %d vertices and %d normals; tangents dropped", gi, len(g.Tangents), nv, len(mesh.Normals))
	}
	for u, set := range g.UVSets {
		if len(set) != nv {
			b.warn("geoset %d: UV set %d has %d entries for %d vertices; dropped", gi, u, len(set), nv)
			continue
		}
		// Warcraft III texture coordinates have their origin at the image's top-left, as glTF's.
		mesh.UVs = append(mesh.UVs, b.clone2(set))
	}
	if int(g.MaterialID) < len(b.s.Materials) {
		mesh.Material = int(g.MaterialID)
		mat := b.s.Materials[mesh.Material]
		if mat.Texture >= 0 && mat.TexCoord >= len(mesh.UVs) {
			b.warn("geoset %d: material %d uses UV set %d of %d; padded", gi, mesh.Material, mat.TexCoord, len(mesh.UVs))
			for len(mesh.UVs) <= mat.TexCoord {
				if len(mesh.UVs) > 0 {
					mesh.UVs = append(mesh.UVs, b.clone2(mesh.UVs[0]))
				} else {
					z := b.mem.Vec2.Take(nv)
					clear(z)
					mesh.UVs = append(mesh.UVs, z)
				}
			}
		}
	} else {
		b.warn("geoset %d: material %d of %d; no material", gi, g.MaterialID, len(b.s.Materials))
	}
	if err := b.skinMesh(gi, g, mesh); err != nil {
		return nil, err
	}
	return mesh, nil
}

// clone2 copies texture coordinates into the scene's memory.
func (b *builder) clone2(uv [][2]float32) [][2]float32 {
	out := b.mem.Vec2.Take(len(uv))
	copy(out, uv)
	return out
}

// triangles reads the face groups of a geoset, keeping triangle lists (PTYP 4).
func (b *builder) triangles(gi int, g *Geoset) ([]uint32, error) {
	nv := len(g.Vertices)
	types, counts := g.FaceTypes, g.FaceCounts
	if len(types) == 0 && len(counts) == 0 && len(g.Faces) > 0 {
		b.warn("geoset %d: faces without face groups, read as triangles", gi)
		types, counts = []uint32{4}, []uint32{uint32(len(g.Faces))}
	}
	if len(types) != len(counts) {
		return nil, b.fail("geoset %d: %d face types but %d face counts", gi, len(types), len(counts))
	}
	idx := b.mem.Indices.Take(len(g.Faces) - len(g.Faces)%3)[:0]
	off := 0
	for k, ty := range types {
		c := int(counts[k])
		if c < 0 || c > len(g.Faces)-off {
			return nil, b.fail("geoset %d: face group %d needs %d indices, %d left", gi, k, counts[k], len(g.Faces)-off)
		}
		group := g.Faces[off : off+c]
		off += c
		if ty != 4 {
			b.warn("geoset %d: face group %d of type %d (not triangles) skipped", gi, k, ty)
			continue
		}
		if r := len(group) % 3; r != 0 {
			b.warn("geoset %d: face group %d has %d indices, not a multiple of 3; last %d dropped", gi, k, len(group), r)
			group = group[:len(group)-r]
		}
		// One branch-free pass widens the indices and finds the largest; the search for the
		// culprit only on failure.
		base := len(idx)
		idx = idx[:base+len(group)]
		dst := idx[base:]
		var top uint16
		for j, ix := range group {
			top = max(top, ix)
			dst[j] = uint32(ix)
		}
		if len(group) > 0 && int(top) >= nv {
			j := slices.IndexFunc(group, func(ix uint16) bool { return int(ix) >= nv })
			return nil, b.fail("geoset %d: face index %d is vertex %d of %d", gi, off-c+j, group[j], nv)
		}
	}
	if off < len(g.Faces) {
		b.warn("geoset %d: %d face indices beyond the face groups ignored", gi, len(g.Faces)-off)
	}
	return idx, nil
}

// skinMesh weights each vertex as its SKIN weights say (Reforged), else 1/k to the k distinct
// objects of its matrix group.
func (b *builder) skinMesh(gi int, g *Geoset, mesh *scene.Mesh) error {
	nv := len(g.Vertices)
	if g.Skin != nil {
		if len(g.Skin) == 8*nv {
			return b.skinWeights(gi, g, mesh)
		}
		b.warn("geoset %d: %d bytes of skin weights for %d vertices (8 each); its matrix groups are used", gi, len(g.Skin), nv)
	}
	if len(g.VertexGroups) == 0 {
		if len(b.s.Skins) > 0 {
			b.warn("geoset %d has no vertex groups; left unskinned", gi)
		}
		return nil
	}
	if len(g.VertexGroups) != nv {
		return b.fail("geoset %d: %d vertex groups for %d vertices", gi, len(g.VertexGroups), nv)
	}
	// Resolve every matrix group to its distinct node indices.
	groups := make([][]int, len(g.GroupSizes))
	off, missing, resolved := 0, 0, 0
	for k, size := range g.GroupSizes {
		if int(size) > len(g.Matrices)-off {
			return b.fail("geoset %d: matrix group %d has %d objects, %d left in the matrix list", gi, k, size, len(g.Matrices)-off)
		}
		for _, id := range g.Matrices[off : off+int(size)] {
			ni, ok := b.byID[int32(id)]
			if !ok || id > math.MaxInt32 {
				missing++
				continue
			}
			resolved++
			if !slices.Contains(groups[k], ni) {
				groups[k] = append(groups[k], ni)
			}
		}
		off += int(size)
	}
	if resolved == 0 {
		// A model without bones whose groups name object 0, say: the game draws the
		// vertices where they are stored.
		b.warn("geoset %d: its matrix groups name no object of the model (%d entries); left unskinned, as stored", gi, missing)
		return nil
	}
	if missing > 0 {
		b.warn("geoset %d: %d matrix group entries name no object; left out of their groups", gi, missing)
	}
	maxK, orphans := 0, 0
	for v, gr := range g.VertexGroups {
		if int(gr) >= len(groups) {
			return b.fail("geoset %d: vertex %d is in matrix group %d of %d", gi, v, gr, len(groups))
		}
		if len(groups[gr]) == 0 {
			orphans++
			continue
		}
		maxK = max(maxK, len(groups[gr]))
	}
	if orphans > 0 {
		// Weights must sum to one: they follow the first object.
		b.warn("geoset %d: %d vertices are in matrix groups that name no object; they follow %s %q", gi, orphans, b.objs[0].block, b.objs[0].node.Name)
		for k := range groups {
			if len(groups[k]) == 0 {
				groups[k] = []int{0}
			}
		}
		maxK = max(maxK, 1)
	}
	sets := (maxK + 3) / 4
	mesh.Joints = make([][][4]uint16, sets)
	mesh.Weights = make([][][4]float32, sets)
	for s := range sets {
		mesh.Joints[s] = b.mem.Joints.Take(nv)
		mesh.Weights[s] = b.mem.Weights.Take(nv)
	}
	// Each group's influences are the same for all its vertices: build them once per set, in
	// tables indexed by the (8-bit) group number, then copy.
	var tj [256][4]uint16
	var tw [256][4]float32
	for s := range sets {
		for k, objs := range groups[:min(len(groups), len(tj))] { // a vertex names groups 0–255 only
			tj[k], tw[k] = [4]uint16{}, [4]float32{}
			w := float32(1 / float64(len(objs)))
			for i := 4 * s; i < min(len(objs), 4*s+4); i++ {
				tj[k][i%4], tw[k][i%4] = uint16(objs[i]), w
			}
		}
		js, ws := mesh.Joints[s], mesh.Weights[s]
		vg := g.VertexGroups[:len(js)]
		for v := range js {
			gr := vg[v]
			js[v], ws[v] = tj[gr], tw[gr]
		}
	}
	mesh.Skin = 0
	if maxK > 4 {
		mesh.Extras["influenceSets"] = int64(sets)
	}
	return nil
}

// skinWeights skins a Reforged geoset by its SKIN weights: per vertex four object ids and their
// weights in 255ths, normalised to sum to one. An id naming no object loses its weight; a vertex
// left with none follows the first object.
func (b *builder) skinWeights(gi int, g *Geoset, mesh *scene.Mesh) error {
	nv := len(g.Vertices)
	if len(b.s.Skins) == 0 || len(b.objs) == 0 {
		b.warn("geoset %d has skin weights but the model has no objects; left unskinned, as stored", gi)
		return nil
	}
	js, ws := b.mem.Joints.Take(nv), b.mem.Weights.Take(nv)
	missing, orphans := 0, 0
	for v := range nv {
		rec := g.Skin[8*v : 8*v+8]
		var j [4]uint16
		var w [4]float32
		sum := 0
		for k := range 4 {
			if rec[4+k] == 0 {
				continue
			}
			ni, ok := b.byID[int32(rec[k])]
			if !ok {
				missing++
				continue
			}
			j[k], w[k] = uint16(ni), float32(rec[4+k])
			sum += int(rec[4+k])
		}
		if sum == 0 {
			orphans++
			j, w = [4]uint16{}, [4]float32{1}
			sum = 1
		}
		for k := range w {
			w[k] /= float32(sum)
		}
		js[v], ws[v] = j, w
	}
	if missing > 0 {
		b.warn("geoset %d: %d skin weights name no object; left out", gi, missing)
	}
	if orphans == nv {
		b.warn("geoset %d: its skin weights name no object of the model; left unskinned, as stored", gi)
		return nil
	}
	if orphans > 0 {
		b.warn("geoset %d: %d vertices have no skin weight on an object; they follow %s %q", gi, orphans, b.objs[0].block, b.objs[0].node.Name)
	}
	mesh.Joints = [][][4]uint16{js}
	mesh.Weights = [][][4]float32{ws}
	mesh.Skin = 0
	return nil
}

// Limits on what the animations of one model may make: every animated track makes a channel in
// every sequence, and baking a Hermite or Bezier curve can add up to anim.MaxBakedKeys keys to
// each, so without them a file of a few hundred kilobytes could ask for gigabytes.
const (
	maxChannels = 1 << 18 // node tracks × sequences, at most
	minChannels = 1 << 14 // … and at least this many, else one per 4 bytes of source
	maxKeysBase = 1 << 21 // output keys beyond four per channel (clip edges and jumps)
)

// animations cuts one animation per sequence out of the global timeline.
func (b *builder) animations() error {
	if err := b.prepareTracks(); err != nil {
		return err
	}
	channels := len(b.tracks) * len(b.m.Sequences)
	if limit := min(max(len(b.src.Data)/4, minChannels), maxChannels); channels > limit {
		return b.failErr(codec.ErrTooLarge, "%d animated node tracks × %d sequences is more than %d channels", len(b.tracks), len(b.m.Sequences), limit)
	}
	windows := make([]anim.Window, len(b.m.Sequences))
	for si, sq := range b.m.Sequences {
		windows[si] = anim.Window{Start: int64(sq.Interval[0]), End: int64(sq.Interval[1])}
		if sq.Interval[1] < sq.Interval[0] {
			windows[si] = anim.Window{Start: 0, End: 0} // left out below
		}
	}
	cuts, err := b.cutAll(windows, maxKeysBase+4*channels)
	if err != nil {
		return err
	}
	b.s.Animations = make([]scene.Animation, 0, len(b.m.Sequences))
	for si, sq := range b.m.Sequences {
		if sq.Interval[1] < sq.Interval[0] {
			b.warn("sequence %d %q ends (%d) before it starts (%d); left out", si, sq.Name, sq.Interval[1], sq.Interval[0])
			continue
		}
		w := windows[si]
		a := scene.Animation{
			Name: sq.Name, Duration: float32(float64(w.Duration()) / 1000), Loop: !sq.NonLooping,
			Start: float64(w.Start) / 1000, End: float64(w.End) / 1000,
			Channels: make([]scene.Channel, 0, len(b.tracks)),
			Extras: scene.Extras{
				"rarity": scene.Float(sq.Rarity), "moveSpeed": scene.Float(sq.MoveSpeed), "nonLooping": sq.NonLooping,
				"syncPoint": uint64(sq.SyncPoint), "extent": sq.Extent.plain(), "interval": scene.Uint32s(sq.Interval[:]),
				"hiddenGeosets": scene.Ints(b.hiddenGeosets(w)),
			},
		}
		var globals []any
		baked, capped := 0, 0
		for ti, nt := range b.tracks {
			c := &cuts[ti][si]
			if c.tooMany != nil {
				b.warn("sequence %q: node %d %s: %v; held at its starting value", sq.Name, nt.node, nt.path, c.tooMany)
			}
			if c.err != nil {
				return b.fail("sequence %q: node %d %s: %v", sq.Name, nt.node, nt.path, c.err)
			}
			ch := c.res.Channel
			ch.Node, ch.Path, ch.Rounding = nt.node, nt.path, nt.rounding
			a.Channels = append(a.Channels, ch)
			if nt.tr.Global {
				globals = append(globals, scene.Extras{
					"node": int64(nt.node), "path": string(nt.path), "globalSequence": int64(nt.gseq),
					"period": float64(nt.tr.Period) / 1000, "repeats": int64(c.res.Repeats),
				})
			}
			if c.res.Baked {
				baked++
			}
			if c.res.Capped {
				capped++
			}
		}
		if len(globals) > 0 {
			a.Extras["globalSequenceChannels"] = globals
			a.Extras["globalSequenceNote"] = GlobalSequenceNote
		}
		if baked > 0 {
			a.Extras["bakedChannels"] = int64(baked)
		}
		if capped > 0 {
			a.Extras["bakingCappedChannels"] = int64(capped)
			b.warn("sequence %q: %d channels hit the baking cap of %d samples or the time resolution", sq.Name, capped, anim.MaxBakedKeys)
		}
		b.s.Animations = append(b.s.Animations, a)
	}
	return nil
}

// cut is one node track cut to one sequence.
type cut struct {
	res     anim.Result
	err     error
	tooMany error // the track's first cut failed so (a global sequence too short for the clip) and it is held
}

// cutAll cuts every node track to every window, the tracks spread over the processors (each
// track's cuts are independent, and baking one is most of a heavily animated model's
// translation), and returns the cuts by track and window. It stops with ErrTooLarge once the
// channels hold more than keyCap keys in all.
func (b *builder) cutAll(windows []anim.Window, keyCap int) ([][]cut, error) {
	cuts := make([][]cut, len(b.tracks))
	var next, keys atomic.Int64
	var tooLarge atomic.Bool
	work := func() {
		for {
			ti := int(next.Add(1) - 1)
			if ti >= len(b.tracks) || tooLarge.Load() {
				return
			}
			tr := b.tracks[ti].tr
			cuts[ti] = make([]cut, len(windows))
			err := anim.CutEach(tr, windows, func(si int, res anim.Result, err error) bool {
				c := &cuts[ti][si]
				if errors.Is(err, anim.ErrTooManyKeys) {
					c.tooMany = err
					res, err = anim.Cut(tr, anim.Window{Start: windows[si].Start, End: windows[si].Start})
				}
				c.res, c.err = res, err
				if keys.Add(int64(len(res.Channel.Times))) > int64(keyCap) {
					tooLarge.Store(true)
					return false
				}
				return !tooLarge.Load()
			})
			if err != nil {
				for si := range cuts[ti] {
					cuts[ti][si].err = err
				}
			}
		}
	}
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(b.tracks)) - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	if tooLarge.Load() {
		return nil, b.failErr(codec.ErrTooLarge, "animations need more than %d keys", keyCap)
	}
	return cuts, nil
}

// prepareTracks converts every node transform track into scene terms, once.
func (b *builder) prepareTracks() error {
	for ni, o := range b.objs {
		var parentPivot [3]float32
		if p := b.s.Nodes[ni].Parent; p >= 0 {
			parentPivot = b.pivots[p]
		}
		off := sub(b.pivots[ni], parentPivot)
		for _, x := range []struct {
			t    *Track
			path scene.Path
		}{{o.node.Translation, scene.PathTranslation}, {o.node.Rotation, scene.PathRotation}, {o.node.Scaling, scene.PathScale}} {
			if x.t == nil {
				continue
			}
			tr, moved, err := b.convertTrack(x.t, x.path, off)
			if err != nil {
				// The game plays the rest of the model: this track costs itself, not the model.
				b.warn("%s %q (ObjectId %d) %s track dropped: %v", o.block, o.node.Name, o.node.ObjectID, x.path, err)
				continue
			}
			if moved > 0 {
				b.warn("%s %q (ObjectId %d) %s track: keys out of frame order, %d of %d put in order (of keys at one frame the last in the file wins)",
					o.block, o.node.Name, o.node.ObjectID, x.path, moved, len(tr.Frames))
			}
			b.tracks = append(b.tracks, nodeTrack{node: ni, path: x.path, tr: tr, gseq: x.t.GlobalSeq})
		}
	}
	b.setTolerances()
	return nil
}

// modelSize returns the diagonal of the bounding box of the meshes' vertices (0 without any).
func modelSize(meshes []scene.Mesh) float64 {
	lo, hi := [3]float32{math.MaxFloat32, math.MaxFloat32, math.MaxFloat32}, [3]float32{-math.MaxFloat32, -math.MaxFloat32, -math.MaxFloat32}
	n := 0
	for i := range meshes {
		for _, p := range meshes[i].Positions {
			for k := range 3 {
				lo[k], hi[k] = min(lo[k], p[k]), max(hi[k], p[k])
			}
			n++
		}
	}
	if n == 0 {
		return 0
	}
	var d2 float64
	for k := range 3 {
		d := float64(hi[k]) - float64(lo[k])
		d2 += d * d
	}
	return math.Sqrt(d2)
}

// convertTrack turns a raw node track into an anim.Track in glTF axes: a translation key t
// becomes off + conv(t) (off = pivot − parentPivot), rotations and scales are converted.
// It also returns how many keys it put in frame order (see anim.Track.SortKeys).
func (b *builder) convertTrack(t *Track, path scene.Path, off [3]float32) (*anim.Track, int, error) {
	w := path.Width()
	n := len(t.Frames)
	cubic := t.Interp == Hermite || t.Interp == Bezier
	if len(t.Values) != n*w {
		return nil, 0, fmt.Errorf("%d values for %d keys of width %d", len(t.Values), n, w)
	}
	if cubic && (len(t.InTans) != n*w || len(t.OutTans) != n*w) {
		return nil, 0, fmt.Errorf("%d in- and %d out-tangents for %d keys of width %d", len(t.InTans), len(t.OutTans), n, w)
	}
	tr := &anim.Track{Interp: anim.Interp(t.Interp), Width: w, Rotation: path == scene.PathRotation, Frames: make([]int64, n)}
	for k, f := range t.Frames {
		tr.Frames[k] = int64(f)
	}
	if t.GlobalSeq >= 0 {
		if int(t.GlobalSeq) >= len(b.m.GlobalSequences) {
			return nil, 0, fmt.Errorf("global sequence %d of %d", t.GlobalSeq, len(b.m.GlobalSequences))
		}
		tr.Global, tr.Period = true, int64(b.m.GlobalSequences[t.GlobalSeq])
	}
	// conv converts a flat list of values; point says whether the offset applies (values and
	// Bezier control points) or not (Hermite tangents, which are differences).
	conv := func(src []float32, point bool) []float32 {
		out := make([]float32, len(src))
		for k := 0; k+w <= len(src); k += w {
			switch path {
			case scene.PathRotation:
				q := convQuat([4]float32(src[k : k+4]))
				copy(out[k:], q[:])
			case scene.PathScale:
				s := convScale([3]float32(src[k : k+3]))
				copy(out[k:], s[:])
			default:
				p := convPos([3]float32(src[k : k+3]))
				if point {
					p = [3]float32{p[0] + off[0], p[1] + off[1], p[2] + off[2]}
				}
				copy(out[k:], p[:])
			}
		}
		return out
	}
	tr.Values = conv(t.Values, true)
	if cubic {
		bez := t.Interp == Bezier
		tr.InTans, tr.OutTans = conv(t.InTans, bez), conv(t.OutTans, bez)
	}
	switch path {
	case scene.PathRotation:
		tr.Default = []float32{0, 0, 0, 1}
	case scene.PathScale:
		tr.Default = []float32{1, 1, 1}
	default:
		tr.Default = off[:]
	}
	moved := tr.SortKeys()
	if err := tr.Check(); err != nil {
		return nil, 0, err
	}
	return tr, moved, nil
}

// hiddenGeosets lists the geosets whose geoset animation keeps alpha at 0 throughout window w.
func (b *builder) hiddenGeosets(w anim.Window) []int {
	hidden := []int{}
	for _, ga := range b.m.GeosetAnims {
		if ga.GeosetID < 0 || int(ga.GeosetID) >= len(b.m.Geosets) {
			continue
		}
		zero := ga.Alpha == 0
		if t := ga.AlphaTrack; t != nil && len(t.Values) == len(t.Frames) {
			sw := w
			if t.GlobalSeq >= 0 && int(t.GlobalSeq) < len(b.m.GlobalSequences) {
				sw = anim.Window{Start: 0, End: int64(b.m.GlobalSequences[t.GlobalSeq])}
			}
			first, end := 0, 0
			for first < len(t.Frames) && int64(t.Frames[first]) < sw.Start {
				first++
			}
			for end = first; end < len(t.Frames) && int64(t.Frames[end]) <= sw.End; end++ {
			}
			if first < end {
				zero = true
				for _, v := range t.Values[first:end] {
					zero = zero && v == 0
				}
			}
		}
		if zero && !slices.Contains(hidden, int(ga.GeosetID)) {
			hidden = append(hidden, int(ga.GeosetID))
		}
	}
	slices.Sort(hidden)
	return hidden
}

// modelExtras records everything glTF has no place for.
func (b *builder) modelExtras() {
	m := b.m
	ex := b.s.Extras
	ex["model"] = scene.Extras{
		"name": m.Name, "version": uint64(m.Version), "blendTime": uint64(m.BlendTime), "extent": m.Extent.plain(),
		"animationFile": m.AnimFile,
	}
	put := func(key string, n int, v func() any) {
		if n > 0 {
			ex[key] = v()
		}
	}
	put("sequences", len(m.Sequences), func() any { return plainList(m.Sequences, (*Sequence).plain) })
	put("globalSequences", len(m.GlobalSequences), func() any { return scene.Uint32s(m.GlobalSequences) })
	put("geosetAnimations", len(m.GeosetAnims), func() any { return plainList(m.GeosetAnims, (*GeosetAnim).plain) })
	put("textureAnimations", len(m.TextureAnims), func() any { return plainList(m.TextureAnims, (*TextureAnim).plain) })
	put("lights", len(m.Lights), func() any { return plainList(m.Lights, (*Light).plain) })
	put("emitters", m.emitterCount(), func() any { return b.emitterRecords() })
	put("cameras", len(m.Cameras), func() any { return plainList(m.Cameras, (*Camera).plain) })
	put("events", len(m.Events), func() any { return plainList(m.Events, (*EventObject).plain) })
	put("collisionShapes", len(m.CollisionShapes), func() any { return plainList(m.CollisionShapes, (*CollisionShape).plain) })
	put("attachments", len(m.Attachments), func() any { return plainList(m.Attachments, (*Attachment).plain) })
	if len(m.GlobalSequences) > 0 {
		ex["globalSequenceNote"] = GlobalSequenceNote
	}
}

// Names of flags and enumerations, as MDL spells them.

func nodeFlagNames(f uint32, block string) []string {
	names := []string{}
	for _, x := range []struct {
		bit  uint32
		name string
	}{
		{NodeDontInheritTranslation, "DontInherit:Translation"}, {NodeDontInheritScaling, "DontInherit:Scaling"},
		{NodeDontInheritRotation, "DontInherit:Rotation"}, {NodeBillboarded, "Billboarded"},
		{NodeBillboardedLockX, "BillboardedLockX"}, {NodeBillboardedLockY, "BillboardedLockY"},
		{NodeBillboardedLockZ, "BillboardedLockZ"}, {NodeCameraAnchored, "CameraAnchored"},
	} {
		if f&x.bit != 0 {
			names = append(names, x.name)
		}
	}
	var extra []struct {
		bit  uint32
		name string
	}
	switch block {
	case "ParticleEmitter":
		extra = []struct {
			bit  uint32
			name string
		}{{0x8000, "EmitterUsesMDL"}, {0x10000, "EmitterUsesTGA"}}
	case "ParticleEmitter2":
		extra = []struct {
			bit  uint32
			name string
		}{{0x8000, "Unshaded"}, {0x10000, "SortPrimsFarZ"}, {0x20000, "LineEmitter"}, {0x40000, "Unfogged"}, {0x80000, "ModelSpace"}, {0x100000, "XYQuad"}}
	}
	for _, x := range extra {
		if f&x.bit != 0 {
			names = append(names, x.name)
		}
	}
	return names
}

func materialFlagNames(f uint32) []string {
	var names []string
	for _, x := range []struct {
		bit  uint32
		name string
	}{{0x1, "ConstantColor"}, {0x8, "SortPrimsNearZ"}, {0x10, "SortPrimsFarZ"}, {0x20, "FullResolution"}} {
		if f&x.bit != 0 {
			names = append(names, x.name)
		}
	}
	return names
}

func shadingNames(f uint32) []string {
	var names []string
	for _, x := range []struct {
		bit  uint32
		name string
	}{
		{ShadeUnshaded, "Unshaded"}, {ShadeSphereEnvMap, "SphereEnvMap"}, {ShadeTwoSided, "TwoSided"},
		{ShadeUnfogged, "Unfogged"}, {ShadeNoDepthTest, "NoDepthTest"}, {ShadeNoDepthSet, "NoDepthSet"},
		{ShadeUnlit, "Unlit"},
	} {
		if f&x.bit != 0 {
			names = append(names, x.name)
		}
	}
	return names
}

func filterName(m uint32) string {
	names := []string{"None", "Transparent", "Blend", "Additive", "AddAlpha", "Modulate", "Modulate2x"}
	if int(m) < len(names) {
		return names[m]
	}
	return fmt.Sprintf("Unknown%d", m)
}

func emitterFilterName(m uint32) string {
	names := []string{"Blend", "Additive", "Modulate", "Modulate2x", "AlphaKey"}
	if int(m) < len(names) {
		return names[m]
	}
	return fmt.Sprintf("Unknown%d", m)
}

func lightTypeName(t uint32) string {
	names := []string{"Omnidirectional", "Directional", "Ambient"}
	if int(t) < len(names) {
		return names[t]
	}
	return fmt.Sprintf("Unknown%d", t)
}

func shapeName(t uint32) string {
	names := []string{"Box", "Plane", "Sphere", "Cylinder"}
	if int(t) < len(names) {
		return names[t]
	}
	return fmt.Sprintf("Unknown%d", t)
}

func replaceableName(id uint32) string {
	switch id {
	case 0:
		return ""
	case 1:
		return "TeamColor"
	case 2:
		return "TeamGlow"
	case 11:
		return "Cliff"
	case 31:
		return "LordaeronTree"
	case 32:
		return "AshenvaleTree"
	case 33:
		return "BarrensTree"
	case 34:
		return "NorthrendTree"
	case 35:
		return "MushroomTree"
	case 36:
		return "RuinsTree"
	case 37:
		return "OutlandMushroomTree"
	}
	return fmt.Sprintf("Replaceable%d", id)
}
