// Package metajson writes a scene's metadata as a stable, greppable JSON document.
//
// The document (described by the embedded JSON Schema, Schema) is meant both
// for people grepping a whole game tree (grep -rl '"Attack' --include=*.json) and for scripts.
// Its top-level keys, always present and always in this order, are:
//
//	modelfs     document version (DocVersion)
//	source      path, format, version, name, axes, unit, scale
//	counts      meshes, vertices, triangles, materials, textures, nodes, bones, joints, skins,
//	            animations, channels, keys (the sum of all channels' key counts)
//	bounds      {min, max} of every mesh's rest-pose positions, or null without vertices
//	meshes      name, vertices, triangles, material, uvSets, normals, colors, skinned, skin,
//	            maxInfluences [, extras]
//	materials   name, alphaMode (OPAQUE when unset) [, alphaCutoff for MASK], doubleSided,
//	            unlit, baseColor, texture, texCoord, flags [, extras]
//	textures    path (as written), resolved, replaceable, wrapU, wrapV [, extras]
//	nodes       name, kind, parent, translation, rotation, scale [, extras]
//	skins       name, joints, skeleton
//	animations  name, start, end, duration, looping, channels, keys [, extras]
//	variants    name, materials (per mesh: the material it shows in this look, null when the
//	            mesh's look never changes); the first variant is what the meshes show by default
//	extras      the scene's Extras
//	warnings    the decoder's warnings
//
// References to other lists (material, texture, parent, skin, skeleton, joints, materials) are indices
// into those lists, null for none. Per-item extras are written only when not empty.
//
// Layout: two-space indent, one key or element per line, except that arrays of numbers,
// booleans and nulls with at most 16 elements (vectors, colours, quaternions, matrices) stay on
// one line and longer ones are wrapped 12 to a line. Keys of fixed parts come in a fixed order;
// keys of maps in extras are sorted, and the members of a scene.Object keep their order (extras
// are plain values: scene.MakePlain). Floats are written in the shortest form that reads back as the same
// float32 (float64 for float64 fields); NaN and infinities, which JSON cannot hold, are written as
// null. Strings are written as UTF-8 with only quotes, backslashes and control characters
// escaped; each byte of invalid UTF-8 becomes U+FFFD. The same scene always gives the same bytes.
package metajson

import (
	_ "embed"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/modelfs/modelfs/translate/scene"
)

// Schema is the JSON Schema (draft 2020-12) of the documents Encode and EncodeError write
// (package metajsontest checks documents against it).
//
//go:embed schema.json
var Schema []byte

// DocVersion is the version of the document layout, written as the "modelfs" key.
const DocVersion = 1

// Encode writes the metadata document for s.
func Encode(s *scene.Scene) (out []byte, err error) {
	if s == nil {
		return nil, errors.New("metajson: nil scene")
	}
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("metajson: panic while encoding: %v", r)
		}
	}()
	v, err := document(s)
	if err != nil {
		return nil, err
	}
	b := write(make([]byte, 0, 4096), &v, 0)
	return append(b, '\n'), nil
}

// EncodeError writes the document served in place of the metadata of a model that failed to
// translate: {"modelfs": 1, "error": "…", "source": {"path": …, "format": …}}. format may be
// empty when the format is not known.
func EncodeError(path, format string, err error) []byte {
	msg := "unknown error"
	if err != nil {
		msg = err.Error()
	}
	o := newObject(3)
	o.add("modelfs", integer(DocVersion))
	o.add("error", str(msg))
	src := newObject(2)
	src.add("path", str(path))
	src.add("format", str(format))
	o.add("source", src.v)
	b := write(make([]byte, 0, 128+len(msg)+len(path)), &o.v, 0)
	return append(b, '\n')
}

// document builds the metadata document of s; the only error is an extras value that is not
// plain.
func document(s *scene.Scene) (value, error) {
	doc := newObject(12)
	doc.add("modelfs", integer(DocVersion))
	doc.add("source", source(&s.Source))
	doc.add("counts", counts(s))
	doc.add("bounds", bounds(s))
	b := &builder{doc: doc}
	list(b, "meshes", s.Meshes, mesh)
	list(b, "materials", s.Materials, material)
	list(b, "textures", s.Textures, texture)
	list(b, "nodes", s.Nodes, node)
	list(b, "skins", s.Skins, skin)
	if len(s.Shapes) > 0 {
		list(b, "shapes", s.Shapes, shape)
	}
	list(b, "animations", s.Animations, animation)
	list(b, "variants", s.Variants, func(v int, name *string) (*object, scene.Extras) { return variant(s, v, *name), nil })
	if b.err != nil {
		return null, b.err
	}
	ex, err := extras(s.Extras)
	if err != nil {
		return null, err
	}
	doc.add("extras", ex)
	doc.add("warnings", strs(s.Warnings))
	return doc.v, nil
}

// builder adds arrays to a document, keeping the first error.
type builder struct {
	doc *object
	err error
}

// list adds the array key of items, each made into an object by item, with the extras item
// returns as its last member when they are not empty.
func list[T any](b *builder, key string, items []T, item func(i int, t *T) (*object, scene.Extras)) {
	if b.err != nil {
		return // the document is dropped
	}
	arr := value{k: kArr, items: make([]value, 0, len(items))}
	for i := range items {
		o, x := item(i, &items[i])
		if err := addExtras(o, x); err != nil && b.err == nil {
			b.err = err
		}
		arr.items = append(arr.items, o.v)
	}
	b.doc.add(key, arr)
}

func source(src *scene.Source) value {
	o := newObject(7)
	o.add("path", str(src.Path))
	o.add("format", str(src.Format))
	o.add("version", integer(int64(src.Version)))
	o.add("name", str(src.Name))
	o.add("axes", str(src.Axes))
	o.add("unit", str(src.Unit))
	o.add("scale", float(src.Scale, 64))
	return o.v
}

func mesh(_ int, m *scene.Mesh) (*object, scene.Extras) {
	o := newObject(12)
	o.add("name", str(m.Name))
	o.add("vertices", integer(int64(len(m.Positions))))
	o.add("triangles", integer(int64(len(m.Indices)/3)))
	o.add("material", index(m.Material))
	o.add("uvSets", integer(int64(len(m.UVs))))
	o.add("normals", boolean(len(m.Normals) > 0))
	o.add("colors", boolean(len(m.Colors) > 0))
	if len(m.Tangents) > 0 {
		o.add("tangents", boolean(true))
	}
	o.add("skinned", boolean(m.Skin >= 0 && len(m.Joints) > 0))
	o.add("skin", index(m.Skin))
	o.add("maxInfluences", integer(int64(maxInfluences(m))))
	o.add("visible", boolean(!m.Hidden))
	return o, m.Extras
}

func material(_ int, m *scene.Material) (*object, scene.Extras) {
	o := newObject(12)
	o.add("name", str(m.Name))
	mode := m.AlphaMode
	if mode == "" {
		mode = scene.AlphaOpaque // glTF's default
	}
	o.add("alphaMode", str(string(mode)))
	if m.AlphaMode == scene.AlphaMask {
		o.add("alphaCutoff", f32(m.AlphaCutoff))
	}
	o.add("doubleSided", boolean(m.DoubleSided))
	o.add("unlit", boolean(m.Unlit))
	o.add("baseColor", f32s(m.BaseColor[:]...))
	o.add("texture", index(m.Texture))
	o.add("texCoord", integer(int64(m.TexCoord)))
	o.add("flags", strs(m.Flags))
	if e := m.Emission; e != nil {
		em := newObject(3)
		em.add("texture", index(e.Texture))
		em.add("texCoord", integer(int64(e.TexCoord)))
		em.add("factor", f32s(e.Factor[:]...))
		o.add("emission", em.v)
	}
	if p := m.PBR; p != nil {
		pm := newObject(2)
		pm.add("normal", index(p.Normal))
		pm.add("orm", index(p.ORM))
		o.add("pbr", pm.v)
	}
	return o, m.Extras
}

// strOrNull is a string, or null when it is empty.
func strOrNull(s string) value {
	if s == "" {
		return null
	}
	return str(s)
}

func texture(_ int, t *scene.Texture) (*object, scene.Extras) {
	o := newObject(6)
	o.add("path", str(t.Path))
	o.add("resolved", strOrNull(t.Resolved))
	o.add("image", strOrNull(t.ImagePath()))
	if t.ImageError != "" {
		o.add("imageError", str(t.ImageError))
	}
	o.add("replaceable", integer(int64(t.Replaceable)))
	o.add("guess", boolean(t.Guess))
	o.add("wrapU", boolean(t.WrapU))
	o.add("wrapV", boolean(t.WrapV))
	if t.Look != nil {
		o.add("painted", str(strings.TrimSuffix(t.Look.Key(), ";")))
	}
	return o, t.Extras
}

func node(_ int, n *scene.Node) (*object, scene.Extras) {
	o := newObject(7)
	o.add("name", str(n.Name))
	o.add("kind", str(string(n.Kind)))
	o.add("parent", index(n.Parent))
	o.add("translation", f32s(n.Translation[:]...))
	o.add("rotation", f32s(n.Rotation[:]...))
	o.add("scale", f32s(n.Scale[:]...))
	return o, n.Extras
}

func skin(_ int, sk *scene.Skin) (*object, scene.Extras) {
	o := newObject(3)
	o.add("name", str(sk.Name))
	o.add("joints", ints(sk.Joints))
	o.add("skeleton", index(sk.Skeleton))
	return o, nil
}

func shape(_ int, sh *scene.Shape) (*object, scene.Extras) {
	o := newObject(4)
	o.add("name", str(sh.Name))
	o.add("meshes", ints(sh.Meshes))
	o.add("instances", ints(sh.Instances))
	return o, sh.Extras
}

func animation(_ int, a *scene.Animation) (*object, scene.Extras) {
	o := newObject(8)
	o.add("name", str(a.Name))
	o.add("start", float(a.Start, 64))
	o.add("end", float(a.End, 64))
	o.add("duration", f32(a.Duration))
	o.add("looping", boolean(a.Loop))
	o.add("channels", integer(int64(len(a.Channels))))
	keys := 0
	for _, ch := range a.Channels {
		keys += len(ch.Times)
	}
	o.add("keys", integer(int64(keys)))
	if len(a.Visibility) > 0 {
		vs := value{k: kArr, items: make([]value, len(a.Visibility))}
		for i, v := range a.Visibility {
			step := newObject(3)
			step.add("mesh", integer(int64(v.Mesh)))
			step.add("times", f32s(v.Times...))
			shown := value{k: kArr, items: make([]value, len(v.Shown))}
			for k, on := range v.Shown {
				shown.items[k] = boolean(on)
			}
			step.add("shown", shown)
			vs.items[i] = step.v
		}
		o.add("visibility", vs)
	}
	return o, a.Extras
}

// variant lists, for variant v, each mesh's material (null where the mesh has none).
func variant(s *scene.Scene, v int, name string) *object {
	o := newObject(2)
	o.add("name", str(name))
	per := value{k: kArr, items: make([]value, len(s.Meshes))}
	for i := range s.Meshes {
		per.items[i] = null
		if vm := s.Meshes[i].VariantMaterials; v < len(vm) {
			per.items[i] = index(vm[v])
		}
	}
	o.add("materials", per)
	return o
}

func addExtras(o *object, x scene.Extras) error {
	if len(x) == 0 {
		return nil
	}
	v, err := extras(x)
	if err != nil {
		return err
	}
	o.add("extras", v)
	return nil
}

func counts(s *scene.Scene) value {
	var verts, tris, bones, channels, keys int
	for i := range s.Meshes {
		verts += len(s.Meshes[i].Positions)
		tris += len(s.Meshes[i].Indices) / 3
	}
	for i := range s.Nodes {
		if s.Nodes[i].Kind == scene.KindBone {
			bones++
		}
	}
	joints := map[int]bool{}
	for i := range s.Skins {
		for _, j := range s.Skins[i].Joints {
			joints[j] = true
		}
	}
	for i := range s.Animations {
		channels += len(s.Animations[i].Channels)
		for _, ch := range s.Animations[i].Channels {
			keys += len(ch.Times)
		}
	}
	o := newObject(12)
	o.add("meshes", integer(int64(len(s.Meshes))))
	o.add("vertices", integer(int64(verts)))
	o.add("triangles", integer(int64(tris)))
	o.add("materials", integer(int64(len(s.Materials))))
	o.add("textures", integer(int64(len(s.Textures))))
	o.add("nodes", integer(int64(len(s.Nodes))))
	o.add("bones", integer(int64(bones)))
	o.add("joints", integer(int64(len(joints))))
	o.add("skins", integer(int64(len(s.Skins))))
	o.add("animations", integer(int64(len(s.Animations))))
	o.add("channels", integer(int64(channels)))
	o.add("keys", integer(int64(keys)))
	return o.v
}

// bounds is the box around every finite rest-pose position, or null when there is none.
func bounds(s *scene.Scene) value {
	lo := [3]float32{math.MaxFloat32, math.MaxFloat32, math.MaxFloat32}
	hi := [3]float32{-math.MaxFloat32, -math.MaxFloat32, -math.MaxFloat32}
	found := false
	for i := range s.Meshes {
		for _, p := range s.Meshes[i].Positions {
			if !finite(p[0]) || !finite(p[1]) || !finite(p[2]) {
				continue
			}
			found = true
			for k := 0; k < 3; k++ {
				lo[k] = min(lo[k], p[k])
				hi[k] = max(hi[k], p[k])
			}
		}
	}
	if !found {
		return null
	}
	o := newObject(2)
	o.add("min", f32s(lo[:]...))
	o.add("max", f32s(hi[:]...))
	return o.v
}

func finite(f float32) bool {
	return !math.IsNaN(float64(f)) && !math.IsInf(float64(f), 0)
}

// maxInfluences is the largest number of joints with a non-zero weight on one vertex.
func maxInfluences(m *scene.Mesh) int {
	best := 0
	for v := range m.Positions {
		n := 0
		for set := range m.Weights {
			if v >= len(m.Weights[set]) {
				continue
			}
			for _, w := range m.Weights[set][v] {
				if w > 0 {
					n++
				}
			}
		}
		best = max(best, n)
	}
	return best
}
