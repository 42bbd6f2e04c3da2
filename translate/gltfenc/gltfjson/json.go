// Package gltfjson writes glTF documents (qmuntal/gltf's types) as .gltf and .glb, producing
// for the documents modelfs builds exactly the bytes qmuntal/gltf's encoder produces through
// encoding/json: the same keys in the same order (struct declaration order, with the buffers
// first as qmuntal's document wrapper puts them, and the fields that qmuntal's MarshalJSON
// methods re-declare ahead of the embedded alias), the same omission of empty and default
// values, encoding/json's number formatting and its string escaping (HTML characters and
// U+2028/U+2029 included), without the reflection and re-compacting those take. Extras and
// extensions hold plain values (scene.Plain). A document with parts the writer does not write
// (Writable) or a value JSON cannot hold is an error: modelfs's encoder makes neither, and its
// tests hold the writer to qmuntal's bytes. One addition: a node's scale of 0 (ZeroScale),
// which qmuntal's types cannot carry.
package gltfjson

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/ext/unlit"

	"github.com/modelfs/modelfs/translate/scene"
)

// componentTypeCodes and the other tables give the JSON text qmuntal's MarshalJSON methods write
// for each enum value; a value outside a table is unsupported.
var (
	componentTypeCodes = [...]string{
		gltf.ComponentFloat:  "5126",
		gltf.ComponentByte:   "5120",
		gltf.ComponentUbyte:  "5121",
		gltf.ComponentShort:  "5122",
		gltf.ComponentUshort: "5123",
		gltf.ComponentUint:   "5125",
	}
	accessorTypeNames = [...]string{
		gltf.AccessorScalar: `"SCALAR"`,
		gltf.AccessorVec2:   `"VEC2"`,
		gltf.AccessorVec3:   `"VEC3"`,
		gltf.AccessorVec4:   `"VEC4"`,
		gltf.AccessorMat2:   `"MAT2"`,
		gltf.AccessorMat3:   `"MAT3"`,
		gltf.AccessorMat4:   `"MAT4"`,
	}
	// The zero value of these enums is their default and is left out (omitempty), so index 0 is
	// never looked up.
	alphaModeNames     = [...]string{gltf.AlphaMask: `"MASK"`, gltf.AlphaBlend: `"BLEND"`}
	interpolationNames = [...]string{gltf.InterpolationStep: `"STEP"`, gltf.InterpolationCubicSpline: `"CUBICSPLINE"`}
	magFilterCodes     = [...]string{gltf.MagLinear: "9729", gltf.MagNearest: "9728"}
	minFilterCodes     = [...]string{
		gltf.MinLinear:               "9729",
		gltf.MinNearestMipMapLinear:  "9986",
		gltf.MinNearest:              "9728",
		gltf.MinNearestMipMapNearest: "9984",
		gltf.MinLinearMipMapNearest:  "9985",
		gltf.MinLinearMipMapLinear:   "9987",
	}
	wrapCodes = [...]string{gltf.WrapClampToEdge: "33071", gltf.WrapMirroredRepeat: "33648"}
)

// Writable reports whether Write can write doc exactly as qmuntal/gltf would (the oracle its
// tests compare it with): no camera, sparse accessor, morph target, normal or occlusion
// texture, second buffer or buffer URI, nil entry, primitive other than triangles, matrix
// beside a translation, rotation or scale, or alpha cutoff on an opaque material, and every
// enumerated value in range. Write checks it up
// front, so that a document is never half written.
func Writable(doc *gltf.Document) bool {
	if doc == nil || len(doc.Cameras) > 0 || len(doc.Buffers) > 1 {
		return false
	}
	for _, b := range doc.Buffers {
		// A URI would make qmuntal validate it and maybe write a file; a negative length would
		// make its .glb writer panic.
		if b == nil || b.URI != "" || b.ByteLength < 0 {
			return false
		}
	}
	for _, a := range doc.Accessors {
		if a == nil || a.Sparse != nil || int(a.ComponentType) >= len(componentTypeCodes) || int(a.Type) >= len(accessorTypeNames) {
			return false
		}
	}
	for _, a := range doc.Animations {
		if a == nil {
			return false
		}
		if slices.Contains(a.Channels, nil) {
			return false
		}
		for _, s := range a.Samplers {
			if s == nil || int(s.Interpolation) >= len(interpolationNames) {
				return false
			}
		}
	}
	for _, m := range doc.Materials {
		if m == nil || int(m.AlphaMode) >= len(alphaModeNames) {
			return false
		}
		// qmuntal refuses normal and occlusion textures without an index.
		if (m.NormalTexture != nil && m.NormalTexture.Index == nil) || (m.OcclusionTexture != nil && m.OcclusionTexture.Index == nil) {
			return false
		}
		// qmuntal refuses a cutoff on an opaque material.
		if m.AlphaCutoff != nil && *m.AlphaCutoff != 0.5 && m.AlphaMode == gltf.AlphaOpaque {
			return false
		}
	}
	for _, m := range doc.Meshes {
		if m == nil {
			return false
		}
		for _, p := range m.Primitives {
			if p == nil || p.Mode != gltf.PrimitiveTriangles || slices.ContainsFunc(p.Targets, func(t gltf.PrimitiveAttributes) bool { return t == nil }) {
				return false
			}
		}
	}
	for _, n := range doc.Nodes {
		if n == nil {
			return false
		}
		// qmuntal refuses a matrix together with TRS properties.
		if hasMatrix(n) && (hasRotation(n) || hasScale(n) || hasTranslation(n)) {
			return false
		}
	}
	for _, s := range doc.Samplers {
		if s == nil || int(s.MagFilter) >= len(magFilterCodes) || int(s.MinFilter) >= len(minFilterCodes) ||
			int(s.WrapS) >= len(wrapCodes) || int(s.WrapT) >= len(wrapCodes) {
			return false
		}
	}
	// Lists whose entries need no other check than being there.
	return !slices.Contains(doc.BufferViews, nil) && !slices.Contains(doc.Images, nil) &&
		!slices.Contains(doc.Scenes, nil) && !slices.Contains(doc.Skins, nil) && !slices.Contains(doc.Textures, nil)
}

// hasMatrix and the three below are qmuntal's tests for writing a node's transform: a value equal
// to the default, or all zeros (read as unset), is left out.
func hasMatrix(n *gltf.Node) bool {
	return n.Matrix != gltf.DefaultMatrix && n.Matrix != [16]float64{}
}

func hasRotation(n *gltf.Node) bool {
	return n.Rotation != gltf.DefaultRotation && n.Rotation != [4]float64{}
}

func hasScale(n *gltf.Node) bool {
	return n.Scale != gltf.DefaultScale && n.Scale != [3]float64{} || IsZeroScale(n.Scale)
}

// ZeroScale is how a node scaled to nothing is given to the writer: qmuntal's types read a zero
// scale as unset (the default, 1), so the writer takes three negative zeros to mean a scale of
// 0 and writes [0,0,0], where qmuntal would write nothing.
var ZeroScale = [3]float64{math.Copysign(0, -1), math.Copysign(0, -1), math.Copysign(0, -1)}

// IsZeroScale reports whether s is ZeroScale.
func IsZeroScale(s [3]float64) bool {
	return s == [3]float64{} && math.Signbit(s[0]) && math.Signbit(s[1]) && math.Signbit(s[2])
}

func hasTranslation(n *gltf.Node) bool {
	return n.Translation != gltf.DefaultTranslation
}

// errUnencodable stops the writer at a value JSON cannot hold (NaN or ±Inf), which the encoder
// never makes: scene.Validate refuses them, and extras are plain (scene.Plain).
var errUnencodable = errors.New("gltfjson: value not encodable as JSON")

// jsonWriter writes a document's JSON text. Its methods take the text so far and return it
// extended, strconv.Append style: the slice stays in registers and local variables, where
// appending to a slice field would cost a GC write barrier per append. The first error sticks;
// writing goes on but the result is thrown away.
type jsonWriter struct {
	err error
	// memo holds the text of recently written numbers, by a hash of their bits: many repeat
	// (the ends of key times are the clips' durations), and the shortest decimal of a number
	// takes strconv about a hundred nanoseconds to find.
	memo [64]floatText
}

// floatText is the JSON text of a number: f's bits and whether it was written as a float32.
type floatText struct {
	bits uint64
	is32 bool
	n    uint8 // length of the text; 0 for an empty entry
	text [30]byte
}

// appendDocument appends doc's JSON text to dst, as qmuntal/gltf writes it for a .glb (binary)
// or a .gltf. For a .gltf whose buffer is embedded, the data URI's base64 text is left out and
// uriAt is where it belongs (the text before uriAt ends with the URI's prefix); otherwise uriAt
// is -1. The caller has checked Writable(doc).
func appendDocument(dst []byte, doc *gltf.Document, binary bool) (out []byte, uriAt int, err error) {
	var w jsonWriter
	b := dst
	uriAt = -1
	b = append(b, '{')
	first := true
	if len(doc.Buffers) > 0 {
		b = w.key(b, &first, `"buffers":[`)
		buf := doc.Buffers[0]
		b = append(b, '{')
		f := true
		b = w.common(b, &f, buf.Extensions, buf.Extras, buf.Name)
		// qmuntal embeds a buffer without URI as a data URI holding all of Data, except the
		// first buffer of a .glb, which becomes the BIN chunk.
		if !binary && len(buf.Data) > 0 {
			b = w.key(b, &f, `"uri":"`+DataURIPrefix)
			uriAt = len(b)
			b = append(b, '"')
		}
		b = w.key(b, &f, `"byteLength":`)
		b = w.int(b, buf.ByteLength)
		b = append(b, "}]"...)
	}
	b = w.common(b, &first, doc.Extensions, doc.Extras, "")
	b = appendList(&w, b, &first, `"extensionsUsed":`, doc.ExtensionsUsed, appendJSONString)
	b = appendList(&w, b, &first, `"extensionsRequired":`, doc.ExtensionsRequired, appendJSONString)
	b = appendList(&w, b, &first, `"accessors":`, doc.Accessors, w.accessor)
	b = appendList(&w, b, &first, `"animations":`, doc.Animations, w.animation)
	b = w.key(b, &first, `"asset":`)
	b = w.asset(b, &doc.Asset)
	b = appendList(&w, b, &first, `"bufferViews":`, doc.BufferViews, w.bufferView)
	b = appendList(&w, b, &first, `"images":`, doc.Images, w.image)
	b = appendList(&w, b, &first, `"materials":`, doc.Materials, w.material)
	b = appendList(&w, b, &first, `"meshes":`, doc.Meshes, w.mesh)
	b = appendList(&w, b, &first, `"nodes":`, doc.Nodes, w.node)
	b = appendList(&w, b, &first, `"samplers":`, doc.Samplers, w.sampler)
	if doc.Scene != nil {
		b = w.key(b, &first, `"scene":`)
		b = w.int(b, *doc.Scene)
	}
	b = appendList(&w, b, &first, `"scenes":`, doc.Scenes, w.scene)
	b = appendList(&w, b, &first, `"skins":`, doc.Skins, w.skin)
	b = appendList(&w, b, &first, `"textures":`, doc.Textures, w.texture)
	b = append(b, '}')
	if w.err != nil {
		return dst, -1, w.err
	}
	return b, uriAt, nil
}

// key starts an object member: a comma unless it is the object's first, then the quoted name
// and colon given in k.
func (w *jsonWriter) key(b []byte, first *bool, k string) []byte {
	if !*first {
		b = append(b, ',')
	}
	*first = false
	return append(b, k...)
}

// comma separates array element i from the one before.
func (w *jsonWriter) comma(b []byte, i int) []byte {
	if i > 0 {
		b = append(b, ',')
	}
	return b
}

// appendList writes the member key (`"name":`) with the array of list's elements, each written
// by elem, when list is not empty (the document's arrays are all omitempty).
func appendList[T any](w *jsonWriter, b []byte, first *bool, key string, list []T, elem func([]byte, T) []byte) []byte {
	if len(list) == 0 {
		return b
	}
	return array(w, w.key(b, first, key), list, elem)
}

// array writes list as a JSON array, each element written by elem.
func array[T any](w *jsonWriter, b []byte, list []T, elem func([]byte, T) []byte) []byte {
	b = append(b, '[')
	for i, x := range list {
		b = w.comma(b, i)
		b = elem(b, x)
	}
	return append(b, ']')
}

// arrayOrNull is array, with null for a nil list as encoding/json writes it.
func arrayOrNull[T any](w *jsonWriter, b []byte, list []T, elem func([]byte, T) []byte) []byte {
	if list == nil {
		return append(b, "null"...)
	}
	return array(w, b, list, elem)
}

// optString writes a string member unless it is empty.
func (w *jsonWriter) optString(b []byte, first *bool, k, v string) []byte {
	if v == "" {
		return b
	}
	return appendJSONString(w.key(b, first, k), v)
}

// common writes the extensions, extras and name members that most glTF objects start with.
func (w *jsonWriter) common(b []byte, first *bool, ext gltf.Extensions, extras any, name string) []byte {
	if len(ext) > 0 {
		b = w.key(b, first, `"extensions":`)
		b = w.value(b, ext)
	}
	if extras != nil {
		b = w.key(b, first, `"extras":`)
		b = w.value(b, extras)
	}
	return w.optString(b, first, `"name":`, name)
}

// optIndex writes an optional index member.
func (w *jsonWriter) optIndex(b []byte, first *bool, k string, p *int) []byte {
	if p != nil {
		b = w.key(b, first, k)
		b = w.int(b, *p)
	}
	return b
}

// optInt writes an int member left out when zero.
func (w *jsonWriter) optInt(b []byte, first *bool, k string, v int) []byte {
	if v != 0 {
		b = w.key(b, first, k)
		b = w.int(b, v)
	}
	return b
}

func (w *jsonWriter) int(b []byte, v int) []byte {
	return appendInt(b, v)
}

// appendInt appends v in decimal, as strconv.AppendInt does. The document's integers — indices,
// offsets, counts — are small and never negative: those are written here without the general
// routine's calls, two digits at a time, straight into b.
func appendInt(b []byte, v int) []byte {
	if v < 0 || v >= 1e8 {
		return strconv.AppendInt(b, int64(v), 10)
	}
	if v < 10 {
		return append(b, byte('0'+v))
	}
	// The digit count without a loop of divisions: t = ⌊bits.Len·1233/4096⌋ (1233/4096 is just
	// above log10(2)) is the digit count less one, or the digit count itself when v < 10^t.
	t := bits.Len64(uint64(v)) * 1233 >> 12
	n := t + 1
	if v < pow10[t] {
		n--
	}
	l := len(b)
	if cap(b)-l < n {
		b = slices.Grow(b, n)
	}
	b = b[:l+n]
	d := b[l : l+n]
	i := n
	for v >= 100 {
		q := v / 100
		r := v - q*100
		i -= 2
		d[i], d[i+1] = digitPairs[2*r], digitPairs[2*r+1]
		v = q
	}
	if v >= 10 {
		d[0], d[1] = digitPairs[2*v], digitPairs[2*v+1]
	} else {
		d[0] = byte('0' + v)
	}
	return b
}

// pow10 holds the powers of ten appendInt compares with.
var pow10 = [...]int{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8}

// digitPairs holds the two digits of 00 to 99, in order.
const digitPairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"

func (w *jsonWriter) ints(b []byte, v []int) []byte {
	return arrayOrNull(w, b, v, appendInt)
}

// uint32s writes v as an array of numbers.
func (w *jsonWriter) uint32s(b []byte, v []uint32) []byte {
	return array(w, b, v, func(b []byte, x uint32) []byte {
		if x < 1e8 {
			return appendInt(b, int(x))
		}
		return strconv.AppendUint(b, uint64(x), 10)
	})
}

func (w *jsonWriter) float(b []byte, f float64) []byte {
	return w.memoFloat(b, f, 64)
}

// float32 writes f as encoding/json writes a float32.
func (w *jsonWriter) float32(b []byte, f float32) []byte {
	return w.memoFloat(b, float64(f), 32)
}

// memoFloat writes f as appendJSONFloat does with bits = size, taking the text from w.memo when f was written
// recently and remembering it otherwise.
func (w *jsonWriter) memoFloat(b []byte, f float64, size int) []byte {
	key, is32 := math.Float64bits(f), size == 32
	m := &w.memo[(key*0x9e3779b97f4a7c15)>>58] // Fibonacci hashing: the top 6 bits of the product
	if m.n > 0 && m.bits == key && m.is32 == is32 {
		return append(b, m.text[:m.n]...)
	}
	n := len(b)
	b, ok := appendJSONFloat(b, f, size)
	if !ok {
		w.err = errUnencodable
		return b
	}
	if t := b[n:]; len(t) <= len(m.text) {
		m.bits, m.is32, m.n = key, is32, uint8(len(t))
		copy(m.text[:], t)
	}
	return b
}

func (w *jsonWriter) float32s(b []byte, v []float32) []byte { return array(w, b, v, w.float32) }

func (w *jsonWriter) floats(b []byte, v []float64) []byte { return array(w, b, v, w.float) }

func (w *jsonWriter) strings(b []byte, v []string) []byte { return array(w, b, v, appendJSONString) }

// value writes an extras or extensions value: a plain value or one of the encoder's own (see
// anyValue); anything else stops the writer with errNotPlain.
func (w *jsonWriter) value(b []byte, v any) []byte {
	return w.anyValue(b, v, 0)
}

// maxDepth is how deep anyValue recurses into nested values.
const maxDepth = 200

// errNotPlain stops the writer at an extras value that is not plain (see scene.Plain): the
// pipeline makes every extras value plain before encoding (scene.MakePlain).
var errNotPlain = errors.New("gltfjson: extras value not plain")

// anyValue writes v, a plain value (scene.Plain) or one of the plain Go types the encoder
// itself puts into the document (ints, small arrays of numbers, the extensions' maps), as
// encoding/json would: maps with their keys sorted, Objects in their order.
func (w *jsonWriter) anyValue(b []byte, v any, depth int) []byte {
	if depth > maxDepth {
		w.err = errNotPlain
		return b
	}
	// A nil slice is written null, as encoding/json writes it (arrayOrNull, orNull); maps
	// write their own null.
	switch x := v.(type) {
	case nil:
		b = append(b, "null"...)
	case string:
		b = appendJSONString(b, x)
	case bool:
		b = strconv.AppendBool(b, x)
	case int:
		b = appendInt(b, x)
	case int8:
		b = strconv.AppendInt(b, int64(x), 10)
	case int16:
		b = strconv.AppendInt(b, int64(x), 10)
	case uint8:
		b = strconv.AppendUint(b, uint64(x), 10)
	case uint16:
		b = strconv.AppendUint(b, uint64(x), 10)
	case uint:
		b = strconv.AppendUint(b, uint64(x), 10)
	case int32:
		b = strconv.AppendInt(b, int64(x), 10)
	case int64:
		b = strconv.AppendInt(b, x, 10)
	case uint32:
		b = strconv.AppendUint(b, uint64(x), 10)
	case uint64:
		b = strconv.AppendUint(b, x, 10)
	case float64:
		b = w.float(b, x)
	case float32:
		b = w.float32(b, x)
	case []string:
		b = orNull(b, x, w.strings)
	case []bool:
		b = arrayOrNull(w, b, x, strconv.AppendBool)
	case []int:
		b = w.ints(b, x)
	case []int64:
		b = arrayOrNull(w, b, x, func(b []byte, n int64) []byte { return strconv.AppendInt(b, n, 10) })
	case []uint64:
		b = arrayOrNull(w, b, x, func(b []byte, n uint64) []byte { return strconv.AppendUint(b, n, 10) })
	case []uint32:
		b = orNull(b, x, w.uint32s)
	case []int32:
		b = arrayOrNull(w, b, x, func(b []byte, n int32) []byte { return strconv.AppendInt(b, int64(n), 10) })
	case []float64:
		b = orNull(b, x, w.floats)
	case []float32:
		b = orNull(b, x, w.float32s)
	case [3]float64:
		b = w.floats(b, x[:])
	case [4]float64:
		b = w.floats(b, x[:])
	case [2]float32:
		b = w.float32s(b, x[:])
	case [3]float32:
		b = w.float32s(b, x[:])
	case [4]float32:
		b = w.float32s(b, x[:])
	case [2]uint32:
		b = w.uint32s(b, x[:])
	case []any:
		b = arrayOrNull(w, b, x, func(b []byte, e any) []byte { return w.anyValue(b, e, depth+1) })
	case scene.Object:
		b = append(b, '{')
		for i, m := range x {
			b = w.member(b, i, m.Key, m.Value, depth)
		}
		b = append(b, '}')
	case map[string]any:
		b = w.mapValue(b, x, depth)
	case scene.Extras:
		b = w.mapValue(b, x, depth)
	case gltf.Extensions:
		b = w.mapValue(b, x, depth)
	case unlit.Unlit:
		b = w.mapValue(b, x, depth)
	default:
		w.err = fmt.Errorf("%w: %T", errNotPlain, v)
	}
	return b
}

// orNull writes null for a nil list, else the list with write.
func orNull[T any](b []byte, list []T, write func([]byte, []T) []byte) []byte {
	if list == nil {
		return append(b, "null"...)
	}
	return write(b, list)
}

// mapValue writes m as encoding/json writes a map with string keys: null when nil, else the
// members sorted by key.
func (w *jsonWriter) mapValue(b []byte, m map[string]any, depth int) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	// The entries are gathered in one pass over the map and sorted by key, so that no value is
	// looked up again by its key. Extras maps are small: most fit the array on the stack, where
	// storing them needs no GC write barrier, and an insertion sort of their positions (bytes,
	// not pointers: no barriers either) beats a general sort on them.
	if len(m) > maxStackEntries {
		ents := make([]mapEntry, 0, len(m))
		for k, v := range m {
			ents = append(ents, mapEntry{k, v})
		}
		slices.SortFunc(ents, func(a, b mapEntry) int { return strings.Compare(a.k, b.k) })
		b = append(b, '{')
		for i := range ents {
			b = w.member(b, i, ents[i].k, ents[i].v, depth)
		}
		return append(b, '}')
	}
	var ents [maxStackEntries]mapEntry
	var order [maxStackEntries]uint8
	n := 0
	for k, v := range m {
		ents[n] = mapEntry{k, v}
		order[n] = uint8(n)
		n++
	}
	for i := 1; i < n; i++ {
		for j := i; j > 0 && ents[order[j]].k < ents[order[j-1]].k; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	b = append(b, '{')
	for i, o := range order[:n] {
		b = w.member(b, i, ents[o].k, ents[o].v, depth)
	}
	return append(b, '}')
}

// maxStackEntries is the largest map mapValue sorts on the stack.
const maxStackEntries = 32

// member writes the i-th member of an object at depth: its key and value.
func (w *jsonWriter) member(b []byte, i int, k string, v any, depth int) []byte {
	b = w.comma(b, i)
	b = appendJSONString(b, k)
	b = append(b, ':')
	return w.anyValue(b, v, depth+1)
}

// mapEntry is one key and value of a map mapValue writes.
type mapEntry struct {
	k string
	v any
}

func (w *jsonWriter) asset(b []byte, a *gltf.Asset) []byte {
	b = append(b, '{')
	f := true
	b = w.common(b, &f, a.Extensions, a.Extras, "")
	b = w.optString(b, &f, `"copyright":`, a.Copyright)
	b = w.optString(b, &f, `"generator":`, a.Generator)
	b = w.key(b, &f, `"version":`)
	if a.Version == "" {
		b = append(b, `"2.0"`...) // qmuntal's default
	} else {
		b = appendJSONString(b, a.Version)
	}
	b = w.optString(b, &f, `"minVersion":`, a.MinVersion)
	return append(b, '}')
}

func (w *jsonWriter) accessor(b []byte, a *gltf.Accessor) []byte {
	b = append(b, '{')
	f := true
	b = w.common(b, &f, a.Extensions, a.Extras, a.Name)
	b = w.optIndex(b, &f, `"bufferView":`, a.BufferView)
	b = w.optInt(b, &f, `"byteOffset":`, a.ByteOffset)
	b = w.key(b, &f, `"componentType":`)
	b = append(b, componentTypeCodes[a.ComponentType]...)
	if a.Normalized {
		b = w.key(b, &f, `"normalized":true`)
	}
	b = w.key(b, &f, `"count":`)
	b = w.int(b, a.Count)
	b = w.key(b, &f, `"type":`)
	b = append(b, accessorTypeNames[a.Type]...)
	if len(a.Max) > 0 {
		b = w.key(b, &f, `"max":`)
		b = w.floats(b, a.Max)
	}
	if len(a.Min) > 0 {
		b = w.key(b, &f, `"min":`)
		b = w.floats(b, a.Min)
	}
	return append(b, '}')
}

func (w *jsonWriter) animation(b []byte, a *gltf.Animation) []byte {
	b = append(b, '{')
	f := true
	b = w.common(b, &f, a.Extensions, a.Extras, a.Name)
	b = w.key(b, &f, `"channels":`)
	b = arrayOrNull(w, b, a.Channels, w.channel)
	b = w.key(b, &f, `"samplers":`)
	b = arrayOrNull(w, b, a.Samplers, w.animSampler)
	return append(b, '}')
}

func (w *jsonWriter) channel(b []byte, c *gltf.AnimationChannel) []byte {
	b = append(b, '{')
	f := true
	b = w.common(b, &f, c.Extensions, c.Extras, "")
	b = w.key(b, &f, `"sampler":`)
	b = w.int(b, c.Sampler)
	b = w.key(b, &f, `"target":{`)
	t := &c.Target
	tf := true
	b = w.common(b, &tf, t.Extensions, t.Extras, "")
	b = w.optIndex(b, &tf, `"node":`, t.Node)
	b = w.key(b, &tf, `"path":`)
	b = appendJSONString(b, string(t.Path))
	return append(b, "}}"...)
}

func (w *jsonWriter) animSampler(b []byte, s *gltf.AnimationSampler) []byte {
	b = append(b, '{')
	f := true
	b = w.common(b, &f, s.Extensions, s.Extras, "")
	b = w.key(b, &f, `"input":`)
	b = w.int(b, s.Input)
	if s.Interpolation != gltf.InterpolationLinear {
		b = w.key(b, &f, `"interpolation":`)
		b = append(b, interpolationNames[s.Interpolation]...)
	}
	b = w.key(b, &f, `"output":`)
	b = w.int(b, s.Output)
	return append(b, '}')
}

func (w *jsonWriter) bufferView(b []byte, v *gltf.BufferView) []byte {
	b = append(b, '{')
	f := true
	b = w.common(b, &f, v.Extensions, v.Extras, "")
	b = w.key(b, &f, `"buffer":`)
	b = w.int(b, v.Buffer)
	b = w.optInt(b, &f, `"byteOffset":`, v.ByteOffset)
	b = w.key(b, &f, `"byteLength":`)
	b = w.int(b, v.ByteLength)
	b = w.optInt(b, &f, `"byteStride":`, v.ByteStride)
	b = w.optInt(b, &f, `"target":`, int(v.Target))
	b = w.optString(b, &f, `"name":`, v.Name)
	return append(b, '}')
}

func (w *jsonWriter) image(b []byte, im *gltf.Image) []byte {
	b = append(b, '{')
	f := true
	b = w.common(b, &f, im.Extensions, im.Extras, im.Name)
	b = w.optString(b, &f, `"uri":`, im.URI)
	b = w.optString(b, &f, `"mimeType":`, im.MimeType)
	b = w.optIndex(b, &f, `"bufferView":`, im.BufferView)
	return append(b, '}')
}

// material follows qmuntal's Material.MarshalJSON: emissiveFactor and alphaCutoff come first
// (its wrapper declares them ahead of the embedded fields), each left out at its default.
func (w *jsonWriter) material(b []byte, m *gltf.Material) []byte {
	b = append(b, '{')
	f := true
	if m.EmissiveFactor != [3]float64{} {
		b = w.key(b, &f, `"emissiveFactor":`)
		b = w.floats(b, m.EmissiveFactor[:])
	}
	if m.AlphaCutoff != nil && *m.AlphaCutoff != 0.5 {
		b = w.key(b, &f, `"alphaCutoff":`)
		b = w.float(b, *m.AlphaCutoff)
	}
	b = w.common(b, &f, m.Extensions, m.Extras, m.Name)
	if p := m.PBRMetallicRoughness; p != nil {
		b = w.key(b, &f, `"pbrMetallicRoughness":`)
		b = w.pbr(b, p)
	}
	if t := m.NormalTexture; t != nil {
		b = w.key(b, &f, `"normalTexture":`)
		b = w.scaledTexture(b, t.Extensions, t.Extras, t.Index, t.TexCoord, `"scale":`, t.Scale)
	}
	if t := m.OcclusionTexture; t != nil {
		b = w.key(b, &f, `"occlusionTexture":`)
		b = w.scaledTexture(b, t.Extensions, t.Extras, t.Index, t.TexCoord, `"strength":`, t.Strength)
	}
	if m.EmissiveTexture != nil {
		b = w.key(b, &f, `"emissiveTexture":`)
		b = w.textureInfo(b, m.EmissiveTexture)
	}
	if m.AlphaMode != gltf.AlphaOpaque {
		b = w.key(b, &f, `"alphaMode":`)
		b = append(b, alphaModeNames[m.AlphaMode]...)
	}
	if m.DoubleSided {
		b = w.key(b, &f, `"doubleSided":true`)
	}
	return append(b, '}')
}

// pbr follows qmuntal's PBRMetallicRoughness.MarshalJSON, which leaves out factors equal to
// their defaults.
func (w *jsonWriter) pbr(b []byte, p *gltf.PBRMetallicRoughness) []byte {
	b = append(b, '{')
	f := true
	b = w.common(b, &f, p.Extensions, p.Extras, "")
	if p.BaseColorFactor != nil && *p.BaseColorFactor != [4]float64{1, 1, 1, 1} {
		b = w.key(b, &f, `"baseColorFactor":`)
		b = w.floats(b, p.BaseColorFactor[:])
	}
	if p.BaseColorTexture != nil {
		b = w.key(b, &f, `"baseColorTexture":`)
		b = w.textureInfo(b, p.BaseColorTexture)
	}
	if p.MetallicFactor != nil && *p.MetallicFactor != 1 {
		b = w.key(b, &f, `"metallicFactor":`)
		b = w.float(b, *p.MetallicFactor)
	}
	if p.RoughnessFactor != nil && *p.RoughnessFactor != 1 {
		b = w.key(b, &f, `"roughnessFactor":`)
		b = w.float(b, *p.RoughnessFactor)
	}
	if p.MetallicRoughnessTexture != nil {
		b = w.key(b, &f, `"metallicRoughnessTexture":`)
		b = w.textureInfo(b, p.MetallicRoughnessTexture)
	}
	return append(b, '}')
}

// scaledTexture writes a normal or occlusion texture reference as qmuntal does: its scale (or
// strength) left out at the default 1.
func (w *jsonWriter) scaledTexture(b []byte, ext gltf.Extensions, extras any, index *int, texCoord int, key string, scale *float64) []byte {
	b = append(b, '{')
	f := true
	b = w.common(b, &f, ext, extras, "")
	b = w.optIndex(b, &f, `"index":`, index)
	b = w.optInt(b, &f, `"texCoord":`, texCoord)
	if scale != nil && *scale != 1 {
		b = w.key(b, &f, key)
		b = w.float(b, *scale)
	}
	return append(b, '}')
}

func (w *jsonWriter) textureInfo(b []byte, t *gltf.TextureInfo) []byte {
	b = append(b, '{')
	f := true
	b = w.common(b, &f, t.Extensions, t.Extras, "")
	b = w.key(b, &f, `"index":`)
	b = w.int(b, t.Index)
	b = w.optInt(b, &f, `"texCoord":`, t.TexCoord)
	return append(b, '}')
}

func (w *jsonWriter) mesh(b []byte, m *gltf.Mesh) []byte {
	b = append(b, '{')
	f := true
	b = w.common(b, &f, m.Extensions, m.Extras, m.Name)
	b = w.key(b, &f, `"primitives":`)
	b = arrayOrNull(w, b, m.Primitives, w.primitive)
	if len(m.Weights) > 0 {
		b = w.key(b, &f, `"weights":`)
		b = w.floats(b, m.Weights)
	}
	return append(b, '}')
}

func (w *jsonWriter) primitive(b []byte, p *gltf.Primitive) []byte {
	b = append(b, '{')
	f := true
	b = w.common(b, &f, p.Extensions, p.Extras, "")
	b = w.key(b, &f, `"attributes":`)
	b = w.attributes(b, p.Attributes)
	b = w.optIndex(b, &f, `"indices":`, p.Indices)
	b = w.optIndex(b, &f, `"material":`, p.Material)
	if len(p.Targets) > 0 {
		b = w.key(b, &f, `"targets":`)
		b = array(w, b, p.Targets, w.attributes)
	}
	return append(b, '}')
}

// attributes writes the map with its keys sorted, as encoding/json does.
func (w *jsonWriter) attributes(b []byte, m gltf.PrimitiveAttributes) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	var keyBuf [16]string
	keys := keyBuf[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		b = w.comma(b, i)
		b = appendJSONString(b, k)
		b = append(b, ':')
		b = w.int(b, m[k])
	}
	return append(b, '}')
}

// node follows qmuntal's Node.MarshalJSON: the transform members come first (its wrapper
// declares them ahead of the embedded fields), each left out at its default.
func (w *jsonWriter) node(b []byte, n *gltf.Node) []byte {
	b = append(b, '{')
	f := true
	if hasMatrix(n) {
		b = w.key(b, &f, `"matrix":`)
		b = w.floats(b, n.Matrix[:])
	}
	if hasRotation(n) {
		b = w.key(b, &f, `"rotation":`)
		b = w.floats(b, n.Rotation[:])
	}
	if IsZeroScale(n.Scale) {
		b = w.key(b, &f, `"scale":[0,0,0]`)
	} else if hasScale(n) {
		b = w.key(b, &f, `"scale":`)
		b = w.floats(b, n.Scale[:])
	}
	if hasTranslation(n) {
		b = w.key(b, &f, `"translation":`)
		b = w.floats(b, n.Translation[:])
	}
	b = w.common(b, &f, n.Extensions, n.Extras, n.Name)
	b = w.optIndex(b, &f, `"camera":`, n.Camera)
	if len(n.Children) > 0 {
		b = w.key(b, &f, `"children":`)
		b = w.ints(b, n.Children)
	}
	b = w.optIndex(b, &f, `"skin":`, n.Skin)
	b = w.optIndex(b, &f, `"mesh":`, n.Mesh)
	if len(n.Weights) > 0 {
		b = w.key(b, &f, `"weights":`)
		b = w.floats(b, n.Weights)
	}
	return append(b, '}')
}

func (w *jsonWriter) sampler(b []byte, s *gltf.Sampler) []byte {
	b = append(b, '{')
	f := true
	b = w.common(b, &f, s.Extensions, s.Extras, s.Name)
	if s.MagFilter != gltf.MagUndefined {
		b = w.key(b, &f, `"magFilter":`)
		b = append(b, magFilterCodes[s.MagFilter]...)
	}
	if s.MinFilter != gltf.MinUndefined {
		b = w.key(b, &f, `"minFilter":`)
		b = append(b, minFilterCodes[s.MinFilter]...)
	}
	if s.WrapS != gltf.WrapRepeat {
		b = w.key(b, &f, `"wrapS":`)
		b = append(b, wrapCodes[s.WrapS]...)
	}
	if s.WrapT != gltf.WrapRepeat {
		b = w.key(b, &f, `"wrapT":`)
		b = append(b, wrapCodes[s.WrapT]...)
	}
	return append(b, '}')
}

func (w *jsonWriter) scene(b []byte, s *gltf.Scene) []byte {
	b = append(b, '{')
	f := true
	b = w.common(b, &f, s.Extensions, s.Extras, s.Name)
	b = appendList(w, b, &f, `"nodes":`, s.Nodes, appendInt)
	return append(b, '}')
}

func (w *jsonWriter) texture(b []byte, t *gltf.Texture) []byte {
	b = append(b, '{')
	f := true
	b = w.common(b, &f, t.Extensions, t.Extras, t.Name)
	b = w.optIndex(b, &f, `"sampler":`, t.Sampler)
	b = w.optIndex(b, &f, `"source":`, t.Source)
	return append(b, '}')
}

func (w *jsonWriter) skin(b []byte, s *gltf.Skin) []byte {
	b = append(b, '{')
	f := true
	b = w.common(b, &f, s.Extensions, s.Extras, s.Name)
	b = w.optIndex(b, &f, `"inverseBindMatrices":`, s.InverseBindMatrices)
	b = w.optIndex(b, &f, `"skeleton":`, s.Skeleton)
	b = w.key(b, &f, `"joints":`)
	b = w.ints(b, s.Joints)
	return append(b, '}')
}

// appendJSONFloat appends f as encoding/json writes a float64 (bits 64) or a float32 (bits 32,
// f holding the float32's value): the shortest decimal that reads back as the same value, in
// plain notation unless the magnitude is below 1e-6 or at least 1e21, where it takes an exponent
// without leading zeros ("1e-7", "1e+21"). ok is false for NaN and ±Inf, which JSON cannot hold.
func appendJSONFloat(b []byte, f float64, bits int) ([]byte, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, false
	}
	// Whole numbers well inside the exactly representable range print as their digits; the
	// sign test keeps -0 on the slow path, where it prints as "-0".
	limit := float64(1 << 24)
	if bits == 64 {
		limit = 1e15
	}
	if i := int64(f); float64(i) == f && f > -limit && f < limit && (i != 0 || !math.Signbit(f)) {
		if i >= 0 && i < 1e8 {
			return appendInt(b, int(i)), true
		}
		return strconv.AppendInt(b, i, 10), true
	}
	abs := math.Abs(f)
	format := byte('f')
	// The cutoffs are compared at the value's own precision: a float32 just under 1e21 as a
	// float64 may be float32(1e21) itself.
	if abs != 0 && (bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21)) {
		format = 'e'
	}
	n := len(b)
	b = strconv.AppendFloat(b, f, format, -1, bits)
	if format == 'e' {
		// strconv pads the exponent to two digits ("e-07"); JavaScript and encoding/json don't.
		if e := b[n:]; len(e) >= 4 && e[len(e)-4] == 'e' && e[len(e)-3] == '-' && e[len(e)-2] == '0' {
			e[len(e)-2] = e[len(e)-1]
			b = b[:len(b)-1]
		}
	}
	return b, true
}

// hexDigits are the digits of \u escapes, lower case as encoding/json writes them.
const hexDigits = "0123456789abcdef"

// jsonPlain marks the ASCII bytes that appear in a JSON string as themselves under
// encoding/json's default (HTML-escaping) rules: printable characters other than ", \, <, > and &.
var jsonPlain = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = true
	}
	for _, c := range `"\<>&` {
		t[c] = false
	}
	return t
}()

// appendJSONString appends s as a quoted JSON string escaped as encoding/json escapes it by
// default: ", \ and the control characters \b \f \n \r \t by their short escapes, other control
// characters and < > & as \u00XX, U+2028 and U+2029 as \u2028 and \u2029, and each byte of
// invalid UTF-8 as \ufffd.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0 // s[start:i] is still to be copied
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonPlain[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			// Valid JSON, but not valid JavaScript before ES2019.
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
