package scene

import (
	"encoding/base64"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Object is a JSON object whose members keep their order: a decoder's record written as its
// fields come, as encoding/json writes a struct.
type Object []Member

// Member is one member of an Object.
type Member struct {
	Key   string
	Value any
}

// Plain values are what extras hold once a scene leaves the pipeline (MakePlain), and all the
// encoders write, without reflection:
//
//	nil, bool, string, int64, uint64, float32, float64 (finite: NaN and infinities become nil)
//	[]bool, []string, []int32, []int64, []uint32, []uint64, []float32, []float64, []any (not nil:
//	a nil slice is nil), [3]float32 (finite: a vector, held without a slice's header)
//	Object, and Extras or map[string]any (written with their keys sorted)
//
// Plain turns any value into one: structs into Objects following encoding/json's rules for
// struct tags (names, "-", omitempty, omitzero, embedded structs), maps with string keys into
// maps of plain values, with integer keys into Objects sorted by key, byte slices into base64
// strings, and what JSON cannot hold (channels, functions, complex
// numbers, maps with other keys) into nil. It is the one place extras meet reflection.
func Plain(v any) any {
	return plain(reflect.ValueOf(v), 0)
}

// IsNull reports whether v is written as JSON null: nil, or a nil slice or map of a plain type.
// (An Object is always an object, even when nil.)
func IsNull(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case []bool:
		return x == nil
	case []string:
		return x == nil
	case []int32:
		return x == nil
	case []int64:
		return x == nil
	case []uint32:
		return x == nil
	case []uint64:
		return x == nil
	case []float32:
		return x == nil
	case []float64:
		return x == nil
	case []any:
		return x == nil
	case Extras:
		return x == nil
	case map[string]any:
		return x == nil
	}
	return false
}

// MakePlain turns every extras value of s into its Plain form, in place, unless the decoder
// says they are (PlainExtras).
func (s *Scene) MakePlain() {
	if s.PlainExtras {
		return
	}
	plainExtras(s.Extras)
	for i := range s.Nodes {
		plainExtras(s.Nodes[i].Extras)
	}
	for i := range s.Meshes {
		plainExtras(s.Meshes[i].Extras)
	}
	for i := range s.Materials {
		plainExtras(s.Materials[i].Extras)
	}
	for i := range s.Textures {
		plainExtras(s.Textures[i].Extras)
	}
	for i := range s.Animations {
		plainExtras(s.Animations[i].Extras)
	}
	for i := range s.Shapes {
		plainExtras(s.Shapes[i].Extras)
	}
}

func plainExtras(x Extras) {
	for k, v := range x {
		if !isPlain(v, 0) {
			x[k] = Plain(v)
		}
	}
}

// IsPlain reports whether v is a plain value (see Plain) throughout.
func IsPlain(v any) bool { return isPlain(v, 0) }

func isPlain(v any, depth int) bool {
	if depth > maxPlainDepth {
		return false
	}
	switch x := v.(type) {
	case nil, bool, string, int64, uint64:
		return true
	case []bool:
		return x != nil // a nil slice is written null: Plain makes it nil
	case []string:
		return x != nil
	case []int32:
		return x != nil
	case []int64:
		return x != nil
	case []uint32:
		return x != nil
	case []uint64:
		return x != nil
	case float32:
		return finite(float64(x))
	case float64:
		return finite(x)
	case []float32:
		return x != nil && !slices.ContainsFunc(x, func(f float32) bool { return !finite(float64(f)) })
	case [3]float32:
		return finite(float64(x[0])) && finite(float64(x[1])) && finite(float64(x[2]))
	case []float64:
		return x != nil && !slices.ContainsFunc(x, func(f float64) bool { return !finite(f) })
	case []any:
		return x != nil && !slices.ContainsFunc(x, func(e any) bool { return !isPlain(e, depth+1) })
	case Object:
		return !slices.ContainsFunc(x, func(m Member) bool { return !isPlain(m.Value, depth+1) })
	case Extras:
		for _, e := range x {
			if !isPlain(e, depth+1) {
				return false
			}
		}
		return true
	case map[string]any:
		return isPlain(Extras(x), depth)
	}
	return false
}

// maxPlainDepth bounds the nesting of extras, which also stops pointer cycles: what lies
// deeper becomes nil.
const maxPlainDepth = 200

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

func plain(v reflect.Value, depth int) any {
	if depth > maxPlainDepth || !v.IsValid() {
		return nil
	}
	t := v.Type()
	switch t.Kind() {
	case reflect.Bool:
		return v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint()
	case reflect.Float32:
		if f := v.Float(); finite(f) {
			return float32(f)
		}
		return nil
	case reflect.Float64:
		if f := v.Float(); finite(f) {
			return f
		}
		return nil
	case reflect.String:
		return v.String()
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return plain(v.Elem(), depth+1)
	case reflect.Slice:
		if v.IsNil() {
			return nil
		}
		if t.Elem().Kind() == reflect.Uint8 {
			return base64.StdEncoding.EncodeToString(v.Bytes())
		}
		return plainArray(v, depth)
	case reflect.Array:
		if t.Len() == 3 && t.Elem().Kind() == reflect.Float32 {
			return Vec3(&[3]float32{float32(v.Index(0).Float()), float32(v.Index(1).Float()), float32(v.Index(2).Float())})
		}
		return plainArray(v, depth)
	case reflect.Map:
		if v.IsNil() {
			return nil
		}
		return plainMap(v, depth)
	case reflect.Struct:
		return plainStruct(v, depth)
	}
	return nil
}

// plainArray converts an array or slice: numbers and booleans into one typed slice (NaN and
// infinities make it an []any holding nil for them), anything else element by element.
func plainArray(v reflect.Value, depth int) any {
	n := v.Len()
	switch v.Type().Elem().Kind() {
	case reflect.Bool:
		out := make([]bool, n)
		for i := range out {
			out[i] = v.Index(i).Bool()
		}
		return out
	case reflect.String:
		out := make([]string, n)
		for i := range out {
			out[i] = v.Index(i).String()
		}
		return out
	case reflect.Int32:
		out := make([]int32, n)
		for i := range out {
			out[i] = int32(v.Index(i).Int())
		}
		return out
	case reflect.Uint32:
		out := make([]uint32, n)
		for i := range out {
			out[i] = uint32(v.Index(i).Uint())
		}
		return out
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int64:
		out := make([]int64, n)
		for i := range out {
			out[i] = v.Index(i).Int()
		}
		return out
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint64, reflect.Uintptr:
		out := make([]uint64, n)
		for i := range out {
			out[i] = v.Index(i).Uint()
		}
		return out
	case reflect.Float32:
		out := make([]float32, n)
		for i := range out {
			f := v.Index(i).Float()
			if !finite(f) {
				return plainAny(v, depth)
			}
			out[i] = float32(f)
		}
		return out
	case reflect.Float64:
		out := make([]float64, n)
		for i := range out {
			f := v.Index(i).Float()
			if !finite(f) {
				return plainAny(v, depth)
			}
			out[i] = f
		}
		return out
	}
	return plainAny(v, depth)
}

func plainAny(v reflect.Value, depth int) []any {
	out := make([]any, v.Len())
	for i := range out {
		out[i] = plain(v.Index(i), depth+1)
	}
	return out
}

// plainMap converts a map: one with string keys into a map of plain values (Extras when it was
// Extras, else map[string]any; written with its keys sorted), one with integer keys into an
// Object sorted by key as encoding/json names them, one whose keys JSON cannot name into nil.
func plainMap(v reflect.Value, depth int) any {
	if v.Type().Key().Kind() == reflect.String {
		m := make(map[string]any, v.Len())
		it := v.MapRange()
		for it.Next() {
			m[it.Key().String()] = plain(it.Value(), depth+1)
		}
		if v.Type() == reflect.TypeFor[Extras]() {
			return Extras(m)
		}
		return m
	}
	o := make(Object, 0, v.Len())
	it := v.MapRange()
	for it.Next() {
		k := it.Key()
		var key string
		switch k.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			key = strconv.FormatInt(k.Int(), 10)
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			key = strconv.FormatUint(k.Uint(), 10)
		default:
			return nil
		}
		o = append(o, Member{key, plain(it.Value(), depth+1)})
	}
	slices.SortFunc(o, func(a, b Member) int { return strings.Compare(a.Key, b.Key) })
	return o
}

func plainStruct(v reflect.Value, depth int) Object {
	fs := typeFields(v.Type())
	o := make(Object, 0, len(fs))
outer:
	for i := range fs {
		f := &fs[i]
		fv := v
		for _, ix := range f.index {
			if fv.Kind() == reflect.Pointer {
				if fv.IsNil() {
					continue outer
				}
				fv = fv.Elem()
			}
			fv = fv.Field(ix)
		}
		if f.omitEmpty && isEmpty(fv) || f.omitZero && fv.IsZero() {
			continue
		}
		o = append(o, Member{f.name, plain(fv, depth+1)})
	}
	return o
}

func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}

// field is one serialised struct field.
type field struct {
	name      string
	index     []int
	tagged    bool
	omitEmpty bool
	omitZero  bool
}

// fieldsCache holds typeFields' answers for the life of the process: a type's fields never
// change.
var fieldsCache sync.Map // reflect.Type → []field

// typeFields lists the serialised fields of struct type t in declaration order, with embedded
// structs' fields promoted and name conflicts resolved as encoding/json does: the shallowest
// field wins, a tagged one among equals wins, and otherwise all of them are dropped.
func typeFields(t reflect.Type) []field {
	if fs, ok := fieldsCache.Load(t); ok {
		return fs.([]field)
	}
	type level struct {
		t     reflect.Type
		index []int
	}
	type candidate struct {
		field
		depth int
	}
	var all []candidate
	next := []level{{t, nil}}
	visited := map[reflect.Type]bool{}
	for depth := 0; len(next) > 0; depth++ {
		cur := next
		next = nil
		for _, lv := range cur {
			if visited[lv.t] {
				continue
			}
			visited[lv.t] = true
			for i := 0; i < lv.t.NumField(); i++ {
				sf := lv.t.Field(i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if sf.Anonymous {
					if !sf.IsExported() && ft.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				index := append(slices.Clone(lv.index), i)
				if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
					next = append(next, level{ft, index})
					continue
				}
				f := field{name: name, index: index, tagged: name != ""}
				if name == "" {
					f.name = sf.Name
				}
				for _, o := range strings.Split(opts, ",") {
					switch o {
					case "omitempty":
						f.omitEmpty = true
					case "omitzero":
						f.omitZero = true
					}
				}
				all = append(all, candidate{f, depth})
			}
		}
	}
	// Resolve conflicts by name.
	byName := map[string][]int{}
	for i, cd := range all {
		byName[cd.name] = append(byName[cd.name], i)
	}
	var fs []field
	for i, cd := range all {
		group := byName[cd.name]
		if len(group) == 1 {
			fs = append(fs, cd.field)
			continue
		}
		minDepth := all[group[0]].depth
		for _, j := range group {
			minDepth = min(minDepth, all[j].depth)
		}
		var best []int
		for _, j := range group {
			if all[j].depth == minDepth {
				best = append(best, j)
			}
		}
		winner := -1
		if len(best) == 1 {
			winner = best[0]
		} else {
			for _, j := range best {
				if all[j].tagged {
					if winner >= 0 {
						winner = -1
						break
					}
					winner = j
				}
			}
		}
		if winner == i {
			fs = append(fs, cd.field)
		}
	}
	slices.SortStableFunc(fs, func(a, b field) int { return slices.Compare(a.index, b.index) })
	fieldsCache.Store(t, fs)
	return fs
}

// Float returns f as a plain value: f, or nil when it is NaN or infinite.
func Float(f float32) any {
	if !finite(float64(f)) {
		return nil
	}
	return f
}

// Floats returns v as a plain value, sharing its memory: nil for a nil slice, and an []any
// holding nil for each NaN or infinity when v has any.
func Floats(v []float32) any {
	if v == nil {
		return nil
	}
	for _, f := range v {
		if !finite(float64(f)) {
			out := make([]any, len(v))
			for i, f := range v {
				out[i] = Float(f)
			}
			return out
		}
	}
	return v
}

// Vec3 returns v as a plain value: a [3]float32, or an []any holding nil for each NaN or
// infinity when v has any.
func Vec3(v *[3]float32) any {
	if finite(float64(v[0])) && finite(float64(v[1])) && finite(float64(v[2])) {
		return *v
	}
	return Floats(v[:])
}

// Int32s returns v as a plain value, sharing its memory: nil for a nil slice.
func Int32s(v []int32) any {
	if v == nil {
		return nil
	}
	return v
}

// Uint32s returns v as a plain value, sharing its memory: nil for a nil slice.
func Uint32s(v []uint32) any {
	if v == nil {
		return nil
	}
	return v
}

// Ints returns v as a plain []int64 (nil for a nil slice).
func Ints[T ~int8 | ~int16 | ~int32 | ~int | ~int64](v []T) any {
	if v == nil {
		return nil
	}
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return out
}

// Uints returns v as a plain []uint64 (nil for a nil slice).
func Uints[T ~uint8 | ~uint16 | ~uint32 | ~uint | ~uint64](v []T) any {
	if v == nil {
		return nil
	}
	out := make([]uint64, len(v))
	for i, x := range v {
		out[i] = uint64(x)
	}
	return out
}
