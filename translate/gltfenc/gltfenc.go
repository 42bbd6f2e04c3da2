// Package gltfenc writes a scene as glTF 2.0: a self-contained .gltf with data-URI buffers, or a .glb.
//
// Layout of the output:
//   - node i is scene node i; after the scene nodes comes one node per mesh (named after the
//     mesh, at the scene root) that carries the mesh and, when skinned, its skin;
//   - the scene's roots are the scene nodes without a parent, then the mesh nodes;
//   - every mesh has one triangle primitive; every animation one sampler per channel;
//   - all binary data lives in one buffer: a base64 data URI in .gltf, the BIN chunk in .glb.
//
// Vertex attributes and indices get one bufferView each (4-byte aligned, with byteStride and
// target); animation keys and inverse bind matrices share one bufferView per kind; samplers
// with identical key times share one input accessor.
//
// The Khronos validator is stricter than scene.Validate, so the encoder repairs what it can as
// it writes: a skin whose joints lie in several trees gets a synthetic common root node (after
// the mesh nodes, holding the scene's roots) and a valid skeleton; weights are renormalised to
// sum to 1 within float32 precision, repeated joints merged and zero-weight joints cleared;
// non-unit normals and rotations are normalised; animations without channels and repeated
// channel targets are left out.
package gltfenc

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/ext/unlit"

	"github.com/modelfs/modelfs/translate/gltfenc/gltfjson"
	"github.com/modelfs/modelfs/translate/scene"
)

// Options select the container.
type Options struct {
	Binary bool // write .glb instead of .gltf
	// EmbedImages puts the images of a .gltf into its buffer too, making it self-contained
	// (a .glb always embeds them).
	EmbedImages bool
}

// Generator is the asset.generator string of every document written.
const Generator = "modelfs"

// Encode writes s as glTF. The same scene always gives the same bytes. s should have passed
// scene.Validate; an inconsistent scene gives an error, never a panic.
func Encode(s *scene.Scene, opt Options) (out []byte, err error) {
	err = encodeWith(s, opt, func(doc *gltf.Document, tail [][]byte) (err error) {
		out, err = gltfjson.WriteParts(doc, opt.Binary, tail)
		return err
	})
	return out, err
}

// EncodeTo writes what Encode returns to w, a .glb in its parts rather than assembled in memory
// first. A write error is returned as it is.
func EncodeTo(w io.Writer, s *scene.Scene, opt Options) error {
	return encodeWith(s, opt, func(doc *gltf.Document, tail [][]byte) error {
		return gltfjson.WritePartsTo(w, doc, opt.Binary, tail)
	})
}

// EncodeParts is Encode handing the document's parts, in order, to use rather than joining
// them: the images a .glb embeds are the very slices the scene holds, the other parts scratch
// memory that use must copy before it returns. A .gltf is one part, new memory use may keep.
func EncodeParts(s *scene.Scene, opt Options, use func(parts [][]byte) error) error {
	return encodeWith(s, opt, func(doc *gltf.Document, tail [][]byte) error {
		return gltfjson.WritePartsFunc(doc, opt.Binary, tail, use)
	})
}

// encodeWith builds the document for s and hands it to finish, which writes it.
func encodeWith(s *scene.Scene, opt Options, finish func(doc *gltf.Document, tail [][]byte) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("gltfenc: inconsistent scene: %v", r)
		}
	}()
	if s == nil {
		return errors.New("gltfenc: nil scene")
	}
	// The buffer is scratch memory: writing copies it into the output (as base64 text or into
	// the .glb), so it goes back to the pool once written. So does the document's memory, which
	// the output shares nothing with either. After a panic both are left to the collector.
	size, arcs := plan(s, opt)
	bin := binPool.Get(size)
	mem := getDocMem()
	e := newEncoder(s, opt, bin, mem)
	e.arcs = arcs
	if err := e.build(); err != nil {
		binPool.Put(e.bin.b)
		mem.release()
		return err
	}
	err = finish(e.doc, e.tail())
	binPool.Put(e.bin.b)
	mem.release()
	return err
}

// Document builds the glTF document for s, with the binary data in doc.Buffers[0].Data
// (no URI). opt.Binary selects how images will be referenced once textures are decoded.
// The document and its buffer belong to the caller. A node scaled to nothing has
// gltfjson.ZeroScale, which gltfjson writes and qmuntal's own encoder does not.
func Document(s *scene.Scene, opt Options) (*gltf.Document, error) {
	// A fresh docMem, never released: the document's objects are carved from it.
	size, arcs := plan(s, opt)
	e := newEncoder(s, opt, make([]byte, 0, size), new(docMem))
	e.arcs = arcs
	if err := e.build(); err != nil {
		return nil, err
	}
	if tail := e.tail(); len(tail) > 0 {
		e.doc.Buffers[0].Data = slices.Concat(append([][]byte{e.bin.b}, tail...)...)
	}
	return e.doc, nil
}

// newEncoder starts the document for s, writing binary data into bin (empty, with the capacity
// plannedSize asks for, its contents irrelevant: every byte is written before it is read) and
// carving the document's small objects from mem.
func newEncoder(s *scene.Scene, opt Options, bin []byte, mem *docMem) *encoder {
	e := &encoder{s: s, opt: opt, mem: mem, doc: &gltf.Document{
		Asset: gltf.Asset{
			Version:   "2.0",
			Generator: Generator,
			Extras:    assetExtras(s.Source),
		},
	}}
	e.bin.b = bin
	// Accessors: a few per mesh and skin, one per channel for its values and one per distinct
	// key times (guessed: one for every other channel); index pointers: one per accessor and
	// channel and a few per mesh; bounds: positions and key times.
	channels := 0
	for i := range s.Animations {
		channels += len(s.Animations[i].Channels)
	}
	accs := channels + channels/2 + len(s.Skins)
	for i := range s.Meshes {
		m := &s.Meshes[i]
		accs += 4 + len(m.UVs) + 2*len(m.Joints)
	}
	e.accs = slabOf(block(&mem.accs, accs))
	e.doc.Accessors = block(&mem.accPtrs, accs)[:0]
	e.ints = slabOf(block(&mem.ints, accs+channels+4*len(s.Meshes)+2*len(s.Skins)+8))
	e.f64s = slabOf(block(&mem.f64s, channels+6*len(s.Meshes)))
	// Buffer views: one per vertex attribute and index list, one per embedded image, two shared.
	views := accs - channels - channels/2 + len(s.Textures) + 2
	e.views = slabOf(block(&mem.views, views))
	e.doc.BufferViews = block(&mem.viewPtrs, views)[:0]
	return e
}

func assetExtras(src scene.Source) map[string]any {
	x := map[string]any{}
	if src.Path != "" {
		x["source"] = src.Path
	}
	if src.Format != "" {
		x["format"] = src.Format
	}
	if src.Version != 0 {
		x["version"] = src.Version
	}
	if len(x) == 0 {
		return nil
	}
	return x
}

// embedded is an embedded image: its bufferView and bytes.
type embedded struct {
	view int
	data []byte
}

// encoder accumulates one document.
type encoder struct {
	s    *scene.Scene
	pose []mat4 // node world matrices of the default pose, made when first needed
	opt  Options
	doc  *gltf.Document
	bin  binWriter
	mem  *docMem // where the document's small objects come from

	animView  int            // bufferView shared by animation keys, -1 until created
	ibmView   int            // bufferView shared by inverse bind matrices, -1 until created
	times     map[string]int // raw key times → input accessor, shared between samplers
	skeletons []int          // per skin: the skeleton node written, -1 for none
	collapse  []bool         // per mesh: it has a HiddenTarget
	// Per scene mesh: the node that draws it (-1 for a mesh of a shape) and the glTF mesh it is
	// (one of a shape's primitives: -1); the shapes' glTF meshes follow the others'.
	meshNode, meshGL []int
	textures         map[int]int // scene texture → glTF texture, for those written
	arcs             []int32     // per channel of the scene, in order, what splitArcs adds (nil: unknown)
	// images are the embedded images, each a bufferView placed after everything else in the
	// buffer once that is written (see placeImages). Their bytes are not copied into bin: the
	// writer takes them as they are, so a .glb of large textures holds each image once.
	images []embedded

	// Slabs for the document's many small objects, sized for the scene by newEncoder.
	accs  slab[gltf.Accessor]
	ints  slab[int]     // index pointers (gltf.Index)
	f64s  slab[float64] // accessor bounds
	views slab[gltf.BufferView]
}

func (e *encoder) build() error {
	s := e.s
	e.animView, e.ibmView = -1, -1
	e.textures = make(map[int]int)
	if err := e.nodes(); err != nil {
		return err
	}
	for i := range s.Materials {
		m, err := e.material(i)
		if err != nil {
			return err
		}
		e.doc.Materials = append(e.doc.Materials, m)
	}
	if err := e.skins(); err != nil {
		return err
	}
	e.collapse = collapsible(s)
	for i := range s.Meshes {
		if e.meshGL[i] < 0 {
			continue
		}
		prim, weights, err := e.primitive(i)
		if err != nil {
			return err
		}
		e.doc.Meshes = append(e.doc.Meshes, e.singleMesh(&s.Meshes[i], prim, weights))
	}
	for _, sh := range s.Shapes {
		out := &gltf.Mesh{Name: sh.Name, Primitives: make([]*gltf.Primitive, len(sh.Meshes))}
		for k, i := range sh.Meshes {
			prim, _, err := e.primitive(i)
			if err != nil {
				return err
			}
			out.Primitives[k] = prim
		}
		if len(sh.Extras) > 0 {
			out.Extras = sh.Extras
		}
		e.doc.Meshes = append(e.doc.Meshes, out)
	}
	if len(s.Variants) > 0 {
		vs := make([]any, len(s.Variants))
		for i, name := range s.Variants {
			vs[i] = map[string]any{"name": name}
		}
		e.useExtension(variantsExtension)
		e.docExtension(variantsExtension, map[string]any{"variants": vs})
	}
	e.lights()
	e.animations()
	if n := e.placeImages(); n > 0 {
		e.doc.Buffers = []*gltf.Buffer{{ByteLength: n, Data: e.bin.b}}
	}
	return nil
}

// placeImages puts the embedded images after the buffer's other contents, each at a 4-byte
// boundary, and returns the buffer's whole length.
func (e *encoder) placeImages() int {
	n := len(e.bin.b)
	for _, im := range e.images {
		n = align4(n)
		e.doc.BufferViews[im.view].ByteOffset = n
		n += len(im.data)
	}
	return align4(n)
}

// tail is the buffer's part after bin, as placeImages placed it: the images with the zeros
// before each that align it and after the last, as the writer takes them (gltfjson.WriteParts).
func (e *encoder) tail() [][]byte {
	if len(e.images) == 0 {
		return nil
	}
	var zeros [3]byte
	parts := make([][]byte, 0, 2*len(e.images)+1)
	n := len(e.bin.b)
	for _, im := range e.images {
		if at := e.doc.BufferViews[im.view].ByteOffset; at > n {
			parts = append(parts, zeros[:at-n])
		}
		parts = append(parts, im.data)
		n = e.doc.BufferViews[im.view].ByteOffset + len(im.data)
	}
	if end := align4(n); end > n {
		parts = append(parts, zeros[:end-n])
	}
	return parts
}

// plannedSize is the buffer size the scene needs, an upper bound (shared key times, dropped
// channels and unused or unloadable textures may shrink it), so that the buffer is never
// regrown. Every section it counts is a multiple of 4 bytes or padded to one, as written.
func plannedSize(s *scene.Scene, opt Options) int {
	n, _ := plan(s, opt)
	return n
}

// plan is plannedSize, and the number of samples splitArcs adds to each channel (all the
// scene's channels in order), counted once for both.
func plan(s *scene.Scene, opt Options) (n int, arcs []int32) {
	// Embedded images are not copied into the buffer (see encoder.images).
	for i := range s.Meshes {
		m := &s.Meshes[i]
		nv := len(m.Positions)
		n += nv * 12
		if len(m.Normals) == nv {
			n += nv * 12
		}
		if len(m.Tangents) == nv {
			n += nv * 16
		}
		n += len(m.UVs) * nv * 8
		if len(m.Colors) == nv {
			n += nv * 16
		}
		jsize := 8
		if m.Skin >= 0 && m.Skin < len(s.Skins) && len(s.Skins[m.Skin].Joints) <= 256 {
			jsize = 4
		}
		n += len(m.Joints) * nv * (jsize + 16)
		isize := 4
		if nv < 65536 {
			isize = 2
		}
		n += align4(len(m.Indices) * isize)
	}
	for i, c := range collapsible(s) {
		if c {
			n += len(s.Meshes[i].Positions) * 12
		}
	}
	for _, sk := range s.Skins {
		n += len(sk.InverseBind) * 64
	}
	for _, a := range s.Animations {
		for _, v := range a.Visibility {
			n += len(v.Times) * 8
		}
	}
	channels := 0
	for _, a := range s.Animations {
		channels += len(a.Channels)
	}
	arcs = make([]int32, 0, channels)
	for _, a := range s.Animations {
		for ci := range a.Channels {
			c := &a.Channels[ci]
			n += (len(c.Times) + len(c.Values)) * 4
			extra := 0
			if c.Path == scene.PathRotation && c.Interp == scene.Linear {
				extra = arcSamples(c)
				n += extra * 20
			}
			arcs = append(arcs, int32(extra))
		}
	}
	return n, arcs
}

// view adds a bufferView over the bytes written since start and pads the buffer to 4 bytes.
func (e *encoder) view(start int, target gltf.Target, stride int) int {
	i := e.viewAt(start, len(e.bin.b)-start, target, stride)
	e.bin.pad()
	return i
}

// viewAt adds a bufferView (carved from the encoder's slab) over n bytes at start, already
// written and 4-byte aligned.
func (e *encoder) viewAt(start, n int, target gltf.Target, stride int) int {
	v := e.views.new()
	*v = gltf.BufferView{ByteOffset: start, ByteLength: n, ByteStride: stride, Target: target}
	e.doc.BufferViews = append(e.doc.BufferViews, v)
	return len(e.doc.BufferViews) - 1
}

// accessor adds a copy of a (carved from the encoder's slab) and returns its index.
func (e *encoder) accessor(a gltf.Accessor) int {
	p := e.accs.new()
	*p = a
	e.doc.Accessors = append(e.doc.Accessors, p)
	return len(e.doc.Accessors) - 1
}

// newAccessor adds a zero accessor (carved from the encoder's slab), to be filled in, and
// returns its index.
func (e *encoder) newAccessor() (int, *gltf.Accessor) {
	p := e.accs.new()
	e.doc.Accessors = append(e.doc.Accessors, p)
	return len(e.doc.Accessors) - 1, p
}

// index returns a pointer to i, as gltf.Index does, carved from the encoder's slab.
func (e *encoder) index(i int) *int {
	p := e.ints.new()
	*p = i
	return p
}

// vertexAccessor adds an accessor over a bufferView of its own holding the bytes written since
// start.
func (e *encoder) vertexAccessor(start int, ct gltf.ComponentType, t gltf.AccessorType, count int, lo, hi []float64) int {
	stride := gltf.SizeOfElement(ct, t)
	v := e.view(start, gltf.TargetArrayBuffer, stride)
	return e.accessor(gltf.Accessor{BufferView: e.index(v), ComponentType: ct, Type: t, Count: count, Min: lo, Max: hi})
}

// rootName names the node added above the scene's roots when a skin's joints have no common
// root (glTF requires one): the model's file name without its extension, which Blender gives
// the armature and, after the animation's name, each action ("Walk_Footman").
func rootName(s *scene.Scene) string {
	name := path.Base(s.Source.Path)
	name = strings.TrimSuffix(name, path.Ext(name))
	if name == "" || name == "." || name == "/" {
		return "model"
	}
	return name
}

// nodes writes the scene nodes, then one node per mesh, then the synthetic root if one is
// needed, and the single scene.
func (e *encoder) nodes() error {
	s := e.s
	n := len(s.Nodes)
	for i, nd := range s.Nodes {
		if nd.Parent < -1 || nd.Parent >= n || nd.Parent == i {
			return fmt.Errorf("gltfenc: node %d has parent %d of %d", i, nd.Parent, n)
		}
	}
	for i := range s.Nodes {
		for p, steps := s.Nodes[i].Parent, 0; p >= 0; p = s.Nodes[p].Parent {
			if steps++; steps > n {
				return fmt.Errorf("gltfenc: node %d: parent chain has a cycle", i)
			}
		}
	}
	for i, sk := range s.Skins {
		for _, j := range sk.Joints {
			if j < 0 || j >= n {
				return fmt.Errorf("gltfenc: skin %d uses node %d of %d", i, j, n)
			}
		}
		if sk.Skeleton < -1 || sk.Skeleton >= n {
			return fmt.Errorf("gltfenc: skin %d has skeleton %d of %d", i, sk.Skeleton, n)
		}
	}
	if err := s.CheckShapes(); err != nil {
		return fmt.Errorf("gltfenc: %w", err)
	}
	// The nodes: the scene's, one per mesh outside the shapes, one per shape drawn where its
	// meshes are, the synthetic root.
	e.meshNode, e.meshGL = make([]int, len(s.Meshes)), make([]int, len(s.Meshes))
	for _, sh := range s.Shapes {
		for _, m := range sh.Meshes {
			e.meshNode[m], e.meshGL[m] = -1, -1
		}
	}
	drawn := n
	for i := range s.Meshes {
		if e.meshGL[i] == 0 {
			e.meshNode[i], e.meshGL[i] = drawn, drawn-n
			drawn++
		}
	}
	singles := drawn - n
	for _, sh := range s.Shapes {
		if len(sh.Instances) == 0 {
			drawn++
		}
	}
	synthetic := -1
	if e.needsRoot() {
		synthetic = drawn
	}
	parent := func(i int) int {
		if i == synthetic {
			return -1
		}
		if p := s.Nodes[i].Parent; p >= 0 || synthetic < 0 {
			return p
		}
		return synthetic
	}
	e.skeletons = make([]int, len(s.Skins))
	for i, sk := range s.Skins {
		e.skeletons[i] = skeleton(sk, parent)
	}

	// The nodes are carved from one block of the encoder's docMem, and their children lists from
	// one more: each parent's slot is counted first, then filled in node order.
	total := drawn + 1 // with the synthetic root
	nb := block(&e.mem.nodes, total)
	nodes := block(&e.mem.nodePtrs, total)[:total-1]
	// One block of ints: at, the children lists, the scene's roots.
	ints := block(&e.mem.nodeInts, (n+1)+n+total)
	at := ints[: n+1 : n+1] // at[p]: where parent p's children start, then end; at[n]: roots
	for _, nd := range s.Nodes {
		at[parentSlot(nd.Parent, n)]++
	}
	sum := 0
	for p, c := range at {
		at[p] = sum
		sum += c
	}
	children := ints[n+1 : 2*n+1 : 2*n+1]
	for i, nd := range s.Nodes {
		p := parentSlot(nd.Parent, n)
		children[at[p]] = i
		at[p]++
	}
	for i := range s.Nodes {
		nodes[i] = &nb[i]
		node(nodes[i], &s.Nodes[i], e.mem.extras(len(s.Nodes[i].Extras)+1))
		if start := childStart(at, i); start < at[i] {
			nodes[i].Children = children[start:at[i]:at[i]]
		}
	}
	var roots []int
	if start := childStart(at, n); start < at[n] {
		roots = children[start:at[n]:at[n]]
	}
	if synthetic >= 0 {
		sr := &nb[drawn]
		*sr = gltf.Node{Name: rootName(s), Children: roots, Extras: map[string]any{"kind": "synthetic_root"}}
		nodes = append(nodes, sr)
		roots = []int{synthetic}
	}
	roots = append(ints[2*n+1:2*n+1], roots...)
	for i := range s.Meshes {
		m, at := &s.Meshes[i], e.meshNode[i]
		if at < 0 {
			continue
		}
		mn := &nb[at]
		x := e.mem.extras(1)
		x["kind"] = "mesh"
		*mn = gltf.Node{Name: m.Name, Mesh: e.index(e.meshGL[i]), Extras: x}
		if m.Skin >= 0 {
			mn.Skin = e.index(m.Skin)
		}
		roots = append(roots, at)
		nodes[at] = mn
	}
	next := n + singles
	for k, sh := range s.Shapes {
		if len(sh.Instances) > 0 {
			for _, inst := range sh.Instances {
				nodes[inst].Mesh = e.index(singles + k)
			}
			continue
		}
		mn := &nb[next]
		x := e.mem.extras(1)
		x["kind"] = "mesh"
		*mn = gltf.Node{Name: sh.Name, Mesh: e.index(singles + k), Extras: x}
		roots = append(roots, next)
		nodes[next] = mn
		next++
	}
	e.doc.Nodes = nodes
	sc := &gltf.Scene{Name: s.Source.Name, Nodes: roots}
	e.doc.Scenes = []*gltf.Scene{sc}
	e.doc.Scene = gltf.Index(0)
	return nil
}

// topOf returns the root of node i's tree.
func (e *encoder) topOf(i int) int {
	for e.s.Nodes[i].Parent >= 0 {
		i = e.s.Nodes[i].Parent
	}
	return i
}

// needsRoot reports whether some skin has joints in more than one tree.
func (e *encoder) needsRoot() bool {
	for _, sk := range e.s.Skins {
		if len(sk.Joints) == 0 {
			continue
		}
		top := e.topOf(sk.Joints[0])
		for _, j := range sk.Joints[1:] {
			if e.topOf(j) != top {
				return true
			}
		}
	}
	return false
}

// skeleton returns the skin's skeleton node: the scene's choice when it is an ancestor (or
// self) of the joints' closest common ancestor, as glTF requires, else that ancestor; -1 when
// the scene names none and none is needed.
func skeleton(sk scene.Skin, parent func(int) int) int {
	if sk.Skeleton < 0 || len(sk.Joints) == 0 {
		return sk.Skeleton
	}
	// Chain from the first joint up to its root; the common ancestor is the highest chain entry
	// any other joint reaches first.
	pos := map[int]int{}
	var chain []int
	for a := sk.Joints[0]; a >= 0; a = parent(a) {
		pos[a] = len(chain)
		chain = append(chain, a)
	}
	at := 0
	for _, j := range sk.Joints[1:] {
		a := j
		for a >= 0 {
			if p, ok := pos[a]; ok {
				at = max(at, p)
				break
			}
			a = parent(a)
		}
		if a < 0 {
			return -1 // no common root: cannot happen once the synthetic root is in place
		}
	}
	for _, a := range chain[at:] {
		if a == sk.Skeleton {
			return sk.Skeleton
		}
	}
	return chain[at]
}

// parentSlot is the slot of a node's parent in the counting of nodes' children: the parent,
// or n for a root.
func parentSlot(parent, n int) int {
	if parent < 0 {
		return n
	}
	return parent
}

// childStart returns where the children of slot p start, once at holds each slot's end.
func childStart(at []int, p int) int {
	if p == 0 {
		return 0
	}
	return at[p-1]
}

// node converts one scene node into n (zero), leaving out identity transforms; x is an empty
// map for its extras.
func node(n *gltf.Node, nd *scene.Node, x map[string]any) {
	n.Name = nd.Name
	if nd.Translation != [3]float32{} {
		n.Translation = [3]float64{r32(nd.Translation[0]), r32(nd.Translation[1]), r32(nd.Translation[2])}
	}
	if q := unitQuat(nd.Rotation); q != [4]float32{0, 0, 0, 1} {
		n.Rotation = [4]float64{r32(q[0]), r32(q[1]), r32(q[2]), r32(q[3])}
	}
	// qmuntal/gltf reads a scale of [0 0 0] as unset: the writer takes negative zeros for it.
	switch nd.Scale {
	case [3]float32{1, 1, 1}:
	case [3]float32{}:
		n.Scale = gltfjson.ZeroScale
	default:
		n.Scale = [3]float64{r32(nd.Scale[0]), r32(nd.Scale[1]), r32(nd.Scale[2])}
	}
	for k, v := range nd.Extras {
		x[k] = v
	}
	if nd.Kind != "" {
		x["kind"] = kindValue(nd.Kind)
	}
	if len(x) > 0 {
		n.Extras = x
	}
}

// kindValue returns k as the plain string extras hold. The kinds scene defines are constants,
// which convert to an interface without an allocation; a scene has a node of one per bone.
func kindValue(k scene.NodeKind) any {
	switch k {
	case scene.KindRoot:
		return string(scene.KindRoot)
	case scene.KindBone:
		return string(scene.KindBone)
	case scene.KindHelper:
		return string(scene.KindHelper)
	case scene.KindAttachment:
		return string(scene.KindAttachment)
	case scene.KindEvent:
		return string(scene.KindEvent)
	case scene.KindLight:
		return string(scene.KindLight)
	case scene.KindCamera:
		return string(scene.KindCamera)
	case scene.KindEmitter:
		return string(scene.KindEmitter)
	case scene.KindRibbon:
		return string(scene.KindRibbon)
	case scene.KindCollision:
		return string(scene.KindCollision)
	}
	return string(k)
}

// unitQuat returns q scaled to unit length; a zero quaternion becomes the identity. A
// quaternion already unit to float32 precision is returned unchanged, bit for bit.
func unitQuat(q [4]float32) [4]float32 {
	l2 := float64(q[0])*float64(q[0]) + float64(q[1])*float64(q[1]) + float64(q[2])*float64(q[2]) + float64(q[3])*float64(q[3])
	if math.Abs(l2-1) <= 1e-6 {
		return q
	}
	if l2 == 0 || math.IsNaN(l2) || math.IsInf(l2, 0) {
		return [4]float32{0, 0, 0, 1}
	}
	inv := 1 / math.Sqrt(l2)
	return [4]float32{float32(float64(q[0]) * inv), float32(float64(q[1]) * inv), float32(float64(q[2]) * inv), float32(float64(q[3]) * inv)}
}

// material converts material i. Metallic 0 and roughness 1 approximate the sources' diffuse
// shading.
func (e *encoder) material(i int) (*gltf.Material, error) {
	m := &e.s.Materials[i]
	bc := m.BaseColor
	pbr := &gltf.PBRMetallicRoughness{
		MetallicFactor:  gltf.Float(0),
		RoughnessFactor: gltf.Float(1),
	}
	if bc != [4]float32{1, 1, 1, 1} {
		pbr.BaseColorFactor = &[4]float64{r32(clamp01(bc[0])), r32(clamp01(bc[1])), r32(clamp01(bc[2])), r32(clamp01(bc[3]))}
	}
	out := &gltf.Material{Name: m.Name, PBRMetallicRoughness: pbr, DoubleSided: m.DoubleSided}
	switch m.AlphaMode {
	case scene.AlphaMask:
		out.AlphaMode = gltf.AlphaMask
		out.AlphaCutoff = gltf.Float(r32(max(m.AlphaCutoff, 0)))
	case scene.AlphaBlend:
		out.AlphaMode = gltf.AlphaBlend
	}
	if m.Unlit {
		out.Extensions = gltf.Extensions{unlit.ExtensionName: unlit.Unlit{}}
		e.useExtension(unlit.ExtensionName)
	}
	x := make(map[string]any, len(m.Extras)+2)
	for k, v := range m.Extras {
		x[k] = v
	}
	if len(m.Flags) > 0 {
		x["flags"] = m.Flags
	}
	if m.Texture >= len(e.s.Textures) {
		return nil, fmt.Errorf("gltfenc: material %d uses texture %d of %d", i, m.Texture, len(e.s.Textures))
	}
	if m.Texture >= 0 {
		if ti := e.texture(m.Texture, m.TexCoord); ti != nil {
			pbr.BaseColorTexture = ti
		} else {
			x["texture"] = textureExtras(&e.s.Textures[m.Texture], m.TexCoord)
		}
	}
	if p := m.PBR; p != nil {
		if p.Normal >= len(e.s.Textures) || p.ORM >= len(e.s.Textures) {
			return nil, fmt.Errorf("gltfenc: material %d uses maps %d and %d of %d textures", i, p.Normal, p.ORM, len(e.s.Textures))
		}
		if p.Normal >= 0 {
			if ti := e.texture(p.Normal, m.TexCoord); ti != nil {
				out.NormalTexture = &gltf.NormalTexture{Index: gltf.Index(ti.Index), TexCoord: ti.TexCoord}
			} else {
				x["normalTexture"] = textureExtras(&e.s.Textures[p.Normal], m.TexCoord)
			}
		}
		if p.ORM >= 0 {
			if ti := e.texture(p.ORM, m.TexCoord); ti != nil {
				out.OcclusionTexture = &gltf.OcclusionTexture{Index: gltf.Index(ti.Index), TexCoord: ti.TexCoord}
				pbr.MetallicRoughnessTexture = ti
				pbr.MetallicFactor = gltf.Float(1) // the map's blue says how metallic
			} else {
				x["ormTexture"] = textureExtras(&e.s.Textures[p.ORM], m.TexCoord)
			}
		}
	}
	if em := m.Emission; em != nil {
		if em.Texture >= len(e.s.Textures) {
			return nil, fmt.Errorf("gltfenc: material %d emits texture %d of %d", i, em.Texture, len(e.s.Textures))
		}
		f := [3]float64{r32(clamp01(em.Factor[0])), r32(clamp01(em.Factor[1])), r32(clamp01(em.Factor[2]))}
		out.EmissiveFactor = f
		if em.Texture >= 0 {
			if ti := e.texture(em.Texture, em.TexCoord); ti != nil {
				out.EmissiveTexture = ti
			} else {
				x["emissiveTexture"] = textureExtras(&e.s.Textures[em.Texture], em.TexCoord)
				out.EmissiveFactor = [3]float64{} // no glow without its picture
			}
		}
	}
	if t := m.UVTransform; t != nil {
		ext := uvTransform(t)
		for _, ti := range []*gltf.TextureInfo{pbr.BaseColorTexture, out.EmissiveTexture, pbr.MetallicRoughnessTexture} {
			if ti != nil {
				ti.Extensions = gltf.Extensions{textureTransformExtension: ext}
				e.useExtension(textureTransformExtension)
			}
		}
		if nt := out.NormalTexture; nt != nil {
			nt.Extensions = gltf.Extensions{textureTransformExtension: ext}
			e.useExtension(textureTransformExtension)
		}
		if ot := out.OcclusionTexture; ot != nil {
			ot.Extensions = gltf.Extensions{textureTransformExtension: ext}
			e.useExtension(textureTransformExtension)
		}
	}
	if len(x) > 0 {
		out.Extras = x
	}
	return out, nil
}

// textureTransformExtension moves a texture's coordinates: a texture animation's default frame.
const textureTransformExtension = "KHR_texture_transform"

// uvTransform is the extension's object for t, members at their defaults left out.
func uvTransform(t *scene.UVTransform) map[string]any {
	m := map[string]any{}
	if t.Offset != [2]float32{} {
		m["offset"] = []float64{r32(t.Offset[0]), r32(t.Offset[1])}
	}
	if t.Rotation != 0 {
		m["rotation"] = r32(t.Rotation)
	}
	if t.Scale != [2]float32{1, 1} {
		m["scale"] = []float64{r32(t.Scale[0]), r32(t.Scale[1])}
	}
	return m
}

func clamp01(f float32) float32 { return min(max(f, 0), 1) }

// texture returns the glTF texture reference for scene texture i, adding the texture, its image
// and its sampler to the document on first use; nil when there is no image to show: the texture
// is unresolved, or (for .glb, which embeds its images) its image could not be loaded. The
// material then carries the texture's description in its extras instead.
//
// A .gltf refers to the image by a URI relative to the model's folder — the file itself for PNG
// and JPEG, its NAME.EXT.png translation for other formats, as they appear in the mount; a .glb
// embeds the bytes in its buffer.
func (e *encoder) texture(i, texCoord int) *gltf.TextureInfo {
	if idx, ok := e.textures[i]; ok {
		return &gltf.TextureInfo{Index: idx, TexCoord: texCoord}
	}
	t := &e.s.Textures[i]
	painted := t.Look != nil // no file holds it: embedded
	if !painted && t.ImagePath() == "" {
		return nil
	}
	img := &gltf.Image{Name: path.Base(cmp.Or(t.Resolved, strings.ReplaceAll(t.Path, `\`, "/")))}
	if painted {
		img.Name += " (" + strings.TrimSuffix(t.Look.Key(), ";") + ")"
	}
	if e.opt.Binary || e.opt.EmbedImages || painted {
		if len(t.Image) == 0 || t.MIME == "" {
			return nil
		}
		v := e.viewAt(0, len(t.Image), gltf.TargetNone, 0) // placed by placeImages
		e.images = append(e.images, embedded{v, t.Image})
		img.BufferView = gltf.Index(v)
		img.MimeType = t.MIME
	} else {
		img.URI = relativeURI(e.s.Source.Path, t.ImagePath())
	}
	wrap := func(repeat bool) gltf.WrappingMode {
		if repeat {
			return gltf.WrapRepeat
		}
		return gltf.WrapClampToEdge
	}
	e.doc.Images = append(e.doc.Images, img)
	e.doc.Samplers = append(e.doc.Samplers, &gltf.Sampler{WrapS: wrap(t.WrapU), WrapT: wrap(t.WrapV)})
	e.doc.Textures = append(e.doc.Textures, &gltf.Texture{
		Source:  gltf.Index(len(e.doc.Images) - 1),
		Sampler: gltf.Index(len(e.doc.Samplers) - 1),
		Extras:  textureExtras(t, 0),
	})
	idx := len(e.doc.Textures) - 1
	e.textures[i] = idx
	return &gltf.TextureInfo{Index: idx, TexCoord: texCoord}
}

// relativeURI returns target's path relative to the folder of from (both slash-separated and
// relative to one root), percent-encoding every byte outside [A-Za-z0-9._/-].
func relativeURI(from, target string) string {
	var fromDir []string
	if d := path.Dir(from); d != "." && d != "/" {
		fromDir = strings.Split(d, "/")
	}
	to := strings.Split(target, "/")
	common := 0
	for common < len(fromDir) && common < len(to)-1 && fromDir[common] == to[common] {
		common++
	}
	var parts []string
	for range fromDir[common:] {
		parts = append(parts, "..")
	}
	rel := strings.Join(append(parts, to[common:]...), "/")
	var b strings.Builder
	for i := 0; i < len(rel); i++ {
		c := rel[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("._/-", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// textureExtras describes a texture that is not embedded.
func textureExtras(t *scene.Texture, texCoord int) map[string]any {
	x := make(map[string]any, len(t.Extras)+6)
	for k, v := range t.Extras {
		x[k] = v
	}
	if t.Path != "" {
		x["path"] = t.Path
	}
	if t.Resolved != "" {
		x["resolved"] = t.Resolved
	}
	if t.ImageError != "" {
		x["imageError"] = t.ImageError
	}
	if t.Replaceable != 0 {
		x["replaceable"] = t.Replaceable
	}
	x["wrapU"] = t.WrapU
	x["wrapV"] = t.WrapV
	if texCoord != 0 {
		x["texCoord"] = texCoord
	}
	return x
}

func (e *encoder) useExtension(name string) {
	for _, n := range e.doc.ExtensionsUsed {
		if n == name {
			return
		}
	}
	e.doc.ExtensionsUsed = append(e.doc.ExtensionsUsed, name)
}

// skins writes the skins; their inverse bind matrices share one bufferView.
func (e *encoder) skins() error {
	s := e.s
	if len(s.Skins) == 0 {
		return nil
	}
	start := len(e.bin.b)
	offsets := make([]int, len(s.Skins))
	for i, sk := range s.Skins {
		offsets[i] = len(e.bin.b) - start
		e.bin.f32s(flat16(sk.InverseBind))
	}
	e.ibmView = e.view(start, gltf.TargetNone, 0)
	for i, sk := range s.Skins {
		if len(sk.Joints) == 0 || len(sk.InverseBind) != len(sk.Joints) {
			return fmt.Errorf("gltfenc: skin %d has %d joints and %d inverse bind matrices", i, len(sk.Joints), len(sk.InverseBind))
		}
		acc := e.accessor(gltf.Accessor{
			BufferView: e.index(e.ibmView), ByteOffset: offsets[i],
			ComponentType: gltf.ComponentFloat, Type: gltf.AccessorMat4, Count: len(sk.InverseBind),
		})
		out := &gltf.Skin{Name: sk.Name, InverseBindMatrices: gltf.Index(acc), Joints: append([]int(nil), sk.Joints...)}
		if sk := e.skeletons[i]; sk >= 0 {
			out.Skeleton = gltf.Index(sk)
		}
		e.doc.Skins = append(e.doc.Skins, out)
	}
	return nil
}

// mesh writes mesh i as one primitive.
// primitive writes mesh i's vertices and triangles and returns its primitive, with the weights
// of its morph target when it has one.
func (e *encoder) primitive(i int) (*gltf.Primitive, []float64, error) {
	s := e.s
	m := &s.Meshes[i]
	nv := len(m.Positions)
	if nv == 0 || len(m.Indices) == 0 {
		return nil, nil, fmt.Errorf("gltfenc: mesh %d has %d vertices and %d indices", i, nv, len(m.Indices))
	}
	attrs := gltf.PrimitiveAttributes{}

	pos := flat3(m.Positions)
	lo, hi := e.bounds(pos, 3)
	start := len(e.bin.b)
	e.bin.f32s(pos)
	attrs[gltf.POSITION] = e.vertexAccessor(start, gltf.ComponentFloat, gltf.AccessorVec3, nv, lo, hi)

	if len(m.Normals) > 0 {
		if len(m.Normals) != nv {
			return nil, nil, fmt.Errorf("gltfenc: mesh %d has %d normals for %d vertices", i, len(m.Normals), nv)
		}
		start = len(e.bin.b)
		e.bin.f32s(flat3(m.Normals))
		fixNormals(e.bin.b[start:], m.Normals)
		attrs[gltf.NORMAL] = e.vertexAccessor(start, gltf.ComponentFloat, gltf.AccessorVec3, nv, nil, nil)
	}
	if len(m.Tangents) > 0 {
		if len(m.Tangents) != nv || len(m.Normals) != nv {
			return nil, nil, fmt.Errorf("gltfenc: mesh %d has %d tangents and %d normals for %d vertices", i, len(m.Tangents), len(m.Normals), nv)
		}
		start = len(e.bin.b)
		e.bin.f32s(flat4(m.Tangents))
		fixTangents(e.bin.b[start:], m.Tangents)
		attrs[gltf.TANGENT] = e.vertexAccessor(start, gltf.ComponentFloat, gltf.AccessorVec4, nv, nil, nil)
	}
	for u, set := range m.UVs {
		if len(set) != nv {
			return nil, nil, fmt.Errorf("gltfenc: mesh %d uv set %d has %d entries for %d vertices", i, u, len(set), nv)
		}
		start = len(e.bin.b)
		e.bin.f32s(flat2(set))
		attrs[attrName(&texcoordNames, "TEXCOORD_", u)] = e.vertexAccessor(start, gltf.ComponentFloat, gltf.AccessorVec2, nv, nil, nil)
	}
	if len(m.Colors) > 0 {
		if len(m.Colors) != nv {
			return nil, nil, fmt.Errorf("gltfenc: mesh %d has %d colours for %d vertices", i, len(m.Colors), nv)
		}
		start = len(e.bin.b)
		if unitColors(m.Colors) {
			// Normalised 16-bit colours, a quarter of the floats' size short of half, and
			// finer than any display: what a mesh of baked particles is mostly made of.
			dst := e.bin.grow(nv * 8)
			for i, c := range m.Colors {
				for k, x := range c {
					v := uint16(math.Round(float64(x) * 65535))
					dst[i*8+2*k], dst[i*8+2*k+1] = byte(v), byte(v>>8)
				}
			}
			v := e.view(start, gltf.TargetArrayBuffer, 8)
			attrs[gltf.COLOR_0] = e.accessor(gltf.Accessor{BufferView: e.index(v), ComponentType: gltf.ComponentUshort,
				Normalized: true, Type: gltf.AccessorVec4, Count: nv})
		} else {
			e.bin.f32s(flat4(m.Colors))
			attrs[gltf.COLOR_0] = e.vertexAccessor(start, gltf.ComponentFloat, gltf.AccessorVec4, nv, nil, nil)
		}
	}
	if m.Skin >= 0 {
		if err := e.influences(i, attrs); err != nil {
			return nil, nil, err
		}
	}

	start = len(e.bin.b)
	ct := gltf.ComponentUint
	var largest uint32
	if nv < 65536 {
		ct = gltf.ComponentUshort
		largest = e.bin.u32sAsU16(m.Indices)
	} else {
		e.bin.u32s(m.Indices)
		largest = maxIndex(m.Indices)
	}
	if len(m.Indices)%3 != 0 || largest >= uint32(nv) {
		return nil, nil, fmt.Errorf("gltfenc: mesh %d: %d indices are not triangles over %d vertices", i, len(m.Indices), nv)
	}
	iv := e.view(start, gltf.TargetElementArrayBuffer, 0)
	ia := e.accessor(gltf.Accessor{BufferView: e.index(iv), ComponentType: ct, Type: gltf.AccessorScalar, Count: len(m.Indices)})

	prim := &gltf.Primitive{Attributes: attrs, Indices: gltf.Index(ia)}
	var weights []float64
	if e.collapse[i] {
		prim.Targets = []gltf.PrimitiveAttributes{{gltf.POSITION: e.collapseTarget(pos, e.collapsePoints(m))}}
		weights = []float64{0}
		if m.Hidden {
			weights[0] = 1
		}
	}
	if m.Material >= len(s.Materials) {
		return nil, nil, fmt.Errorf("gltfenc: mesh %d uses material %d of %d", i, m.Material, len(s.Materials))
	}
	if m.Material >= 0 {
		prim.Material = gltf.Index(m.Material)
	}
	if m.VariantMaterials != nil {
		prim.Extensions = gltf.Extensions{variantsExtension: map[string]any{"mappings": mappings(m.VariantMaterials)}}
	}
	return prim, weights, nil
}

// singleMesh is the glTF mesh of the scene mesh m alone, its primitive prim.
func (e *encoder) singleMesh(m *scene.Mesh, prim *gltf.Primitive, weights []float64) *gltf.Mesh {
	out := &gltf.Mesh{Name: m.Name, Primitives: []*gltf.Primitive{prim}, Weights: weights}
	if len(m.Extras) > 0 {
		out.Extras = m.Extras
	}
	if weights != nil {
		// Blender names the shape key after targetNames, a convention of its importer and
		// three.js's.
		x := make(map[string]any, len(m.Extras)+1)
		for k, v := range m.Extras {
			x[k] = v
		}
		x["targetNames"] = []string{HiddenTarget}
		out.Extras = x
	}
	return out
}

// unitColors reports whether every component of cs is between 0 and 1, as glTF's normalised
// colours hold them.
func unitColors(cs [][4]float32) bool {
	for _, c := range cs {
		for _, x := range c {
			if !(x >= 0 && x <= 1) {
				return false
			}
		}
	}
	return true
}

// HiddenTarget names the morph target of a mesh that the model shows only at times: at
// weight 1 it draws the mesh as nothing, every vertex moved to one point.
const HiddenTarget = "hidden"

// collapsible marks the meshes that get a HiddenTarget: those hidden by default and those an
// animation shows or hides.
func collapsible(s *scene.Scene) []bool {
	c := make([]bool, len(s.Meshes))
	for i := range s.Meshes {
		c[i] = s.Meshes[i].Hidden
	}
	for ai := range s.Animations {
		for _, v := range s.Animations[ai].Visibility {
			if v.Mesh >= 0 && v.Mesh < len(c) {
				c[v.Mesh] = true
			}
		}
	}
	return c
}

// collapseTarget writes the morph target that moves every vertex of a mesh (pos, flat xyz)
// to the point to gives it (see collapsePoints), or, with to nil, to the mean of its positions,
// and returns its accessor. A morph target is what every glTF reader plays, Blender 3.4
// included (as a shape key whose value the actions key).
func (e *encoder) collapseTarget(pos []float32, to [][3]float64) int {
	var c [3]float64
	nv := len(pos) / 3
	for v := range nv {
		for k := range 3 {
			c[k] += float64(pos[3*v+k])
		}
	}
	disp := make([]float32, len(pos))
	for v := range nv {
		for k := range 3 {
			if to != nil {
				disp[3*v+k] = float32(to[v][k] - float64(pos[3*v+k]))
			} else {
				disp[3*v+k] = float32(c[k]/float64(nv) - float64(pos[3*v+k]))
			}
		}
	}
	lo, hi := e.bounds(disp, 3)
	start := len(e.bin.b)
	e.bin.f32s(disp)
	return e.vertexAccessor(start, gltf.ComponentFloat, gltf.AccessorVec3, nv, lo, hi)
}

// docExtension sets the document's object for extension name.
func (e *encoder) docExtension(name string, v any) {
	if e.doc.Extensions == nil {
		e.doc.Extensions = gltf.Extensions{}
	}
	e.doc.Extensions[name] = v
}

// lightsExtension places lights at nodes.
const lightsExtension = "KHR_lights_punctual"

// lights writes the scene's lights into the extension's list, and each at its node. Members at
// their defaults are left out.
func (e *encoder) lights() {
	if len(e.s.Lights) == 0 {
		return
	}
	list := make([]any, len(e.s.Lights))
	for i, l := range e.s.Lights {
		m := map[string]any{"type": string(l.Type)}
		if l.Name != "" {
			m["name"] = l.Name
		}
		if l.Color != [3]float32{1, 1, 1} {
			m["color"] = []float64{r32(l.Color[0]), r32(l.Color[1]), r32(l.Color[2])}
		}
		if l.Intensity != 1 {
			m["intensity"] = r32(l.Intensity)
		}
		if l.Range > 0 {
			m["range"] = r32(l.Range)
		}
		if l.Type == scene.LightSpot {
			m["spot"] = map[string]any{"innerConeAngle": r32(l.InnerCone), "outerConeAngle": r32(l.OuterCone)}
		}
		list[i] = m
		nd := e.doc.Nodes[l.Node]
		if nd.Extensions == nil {
			nd.Extensions = gltf.Extensions{}
		}
		nd.Extensions[lightsExtension] = map[string]any{"light": i}
	}
	e.useExtension(lightsExtension)
	e.docExtension(lightsExtension, map[string]any{"lights": list})
}

// variantsExtension is the glTF extension holding a model's alternative looks.
const variantsExtension = "KHR_materials_variants"

// mappings groups a mesh's material per variant into the extension's mappings: one per
// material, listing its variants, in the order of each material's first variant.
func mappings(perVariant []int) []any {
	var out []any
	at := map[int]int{} // material → its mapping in out
	for v, mat := range perVariant {
		i, ok := at[mat]
		if !ok {
			i = len(out)
			at[mat] = i
			out = append(out, map[string]any{"material": mat, "variants": []any{}})
		}
		mp := out[i].(map[string]any)
		mp["variants"] = append(mp["variants"].([]any), v)
	}
	return out
}

// influences writes the JOINTS_n and WEIGHTS_n attributes of skinned mesh i.
func (e *encoder) influences(i int, attrs gltf.PrimitiveAttributes) error {
	s := e.s
	m := &s.Meshes[i]
	nv := len(m.Positions)
	if m.Skin >= len(s.Skins) {
		return fmt.Errorf("gltfenc: mesh %d uses skin %d of %d", i, m.Skin, len(s.Skins))
	}
	if len(m.Joints) == 0 || len(m.Joints) != len(m.Weights) {
		return fmt.Errorf("gltfenc: mesh %d has %d joint sets and %d weight sets", i, len(m.Joints), len(m.Weights))
	}
	nj := len(s.Skins[m.Skin].Joints)
	for set := range m.Joints {
		if len(m.Joints[set]) != nv || len(m.Weights[set]) != nv {
			return fmt.Errorf("gltfenc: mesh %d influence set %d does not cover %d vertices", i, set, nv)
		}
		for _, j := range flat4u16(m.Joints[set]) {
			if int(j) >= nj {
				return fmt.Errorf("gltfenc: mesh %d uses joint %d of %d", i, j, nj)
			}
		}
	}
	small := nj <= 256
	ct, jsize := gltf.ComponentUshort, 8
	if small {
		ct, jsize = gltf.ComponentUbyte, 4
	}
	// Reserve all regions (each a multiple of 4 bytes), fill them in one pass, then add views.
	sets := len(m.Joints)
	jdst, wdst := make([][]byte, sets), make([][]byte, sets)
	jat, wat := make([]int, sets), make([]int, sets)
	for set := 0; set < sets; set++ {
		jat[set] = len(e.bin.b)
		jdst[set] = e.bin.grow(nv * jsize)
		wat[set] = len(e.bin.b)
		wdst[set] = e.bin.grow(nv * 16)
	}
	writeInfluences(jdst, wdst, m.Joints, m.Weights, small)
	for set := 0; set < sets; set++ {
		jv := e.viewAt(jat[set], nv*jsize, gltf.TargetArrayBuffer, jsize)
		attrs[attrName(&jointsNames, "JOINTS_", set)] = e.accessor(gltf.Accessor{BufferView: e.index(jv), ComponentType: ct, Type: gltf.AccessorVec4, Count: nv})
		wv := e.viewAt(wat[set], nv*16, gltf.TargetArrayBuffer, 16)
		attrs[attrName(&weightsNames, "WEIGHTS_", set)] = e.accessor(gltf.Accessor{BufferView: e.index(wv), ComponentType: gltf.ComponentFloat, Type: gltf.AccessorVec4, Count: nv})
	}
	return nil
}

// The names of the first vertex attribute sets of each kind, which meshes nearly always stay
// within: naming those allocates nothing.
var (
	texcoordNames = [...]string{"TEXCOORD_0", "TEXCOORD_1", "TEXCOORD_2", "TEXCOORD_3"}
	jointsNames   = [...]string{"JOINTS_0", "JOINTS_1", "JOINTS_2", "JOINTS_3"}
	weightsNames  = [...]string{"WEIGHTS_0", "WEIGHTS_1", "WEIGHTS_2", "WEIGHTS_3"}
)

// attrName returns the name of vertex attribute set i of the kind whose first names are names
// and whose prefix is prefix ("TEXCOORD_").
func attrName(names *[4]string, prefix string, i int) string {
	if i < len(names) {
		return names[i]
	}
	return prefix + strconv.Itoa(i)
}

// maxIndex returns the largest of ix, 0 for none. Four running maxima let the comparisons of
// consecutive values overlap (about twice as fast as one).
func maxIndex(ix []uint32) uint32 {
	var m0, m1, m2, m3 uint32
	for len(ix) >= 4 {
		v := ix[:4:4]
		m0, m1, m2, m3 = max(m0, v[0]), max(m1, v[1]), max(m2, v[2]), max(m3, v[3])
		ix = ix[4:]
	}
	for _, x := range ix {
		m0 = max(m0, x)
	}
	return max(m0, m1, m2, m3)
}
