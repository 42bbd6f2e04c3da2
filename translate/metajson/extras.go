package metajson

import (
	"bytes"
	"encoding"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// maxDepth bounds the nesting of extras, which also stops pointer cycles.
const maxDepth = 200

var errTooDeep = errors.New("metajson: extras nest deeper than 200 levels (a cycle?)")

// converter turns arbitrary extras into values, following encoding/json's rules for struct
// tags (names, "-", omitempty, omitzero, embedded structs) with these differences: map keys are
// always sorted, NaN and infinities become null, and values JSON cannot hold (channels,
// functions, complex numbers, maps with other key types) become null instead of failing.
type converter struct{}

// typeFieldsCache holds typeFields' answers for the life of the process: a type's fields never
// change, and working them out again for every document was a tenth of a small model's
// translation.
var typeFieldsCache sync.Map // reflect.Type → []field

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	numberType        = reflect.TypeFor[json.Number]()
)

// extras converts an Extras-like map; a nil or empty map is an empty object.
func (c *converter) extras(x map[string]any) (value, error) {
	if len(x) == 0 {
		return value{k: kObj}, nil
	}
	return c.convert(reflect.ValueOf(x), 0)
}

func (c *converter) convert(v reflect.Value, depth int) (value, error) {
	if depth > maxDepth {
		return null, errTooDeep
	}
	if !v.IsValid() {
		return null, nil
	}
	t := v.Type()
	if t == numberType {
		if s := v.String(); json.Valid([]byte(s)) && s != "" && (s[0] == '-' || s[0] >= '0' && s[0] <= '9') {
			return value{k: kNum, s: s}, nil
		}
		return null, nil
	}
	if (t.Kind() == reflect.Pointer || t.Kind() == reflect.Interface) && v.IsNil() {
		return null, nil
	}
	if !v.CanInterface() {
		// Unexported values are only reached through exported fields of unexported embedded
		// structs, which reflect allows to read; marshaler methods cannot be called on them.
		return c.plain(v, depth)
	}
	if t.Kind() != reflect.Pointer && v.CanAddr() && reflect.PointerTo(t).Implements(marshalerType) {
		return c.marshaler(v.Addr().Interface().(json.Marshaler), depth)
	}
	if t.Implements(marshalerType) {
		return c.marshaler(v.Interface().(json.Marshaler), depth)
	}
	if t.Kind() != reflect.Pointer && v.CanAddr() && reflect.PointerTo(t).Implements(textMarshalerType) {
		return textValue(v.Addr().Interface().(encoding.TextMarshaler)), nil
	}
	if t.Implements(textMarshalerType) {
		return textValue(v.Interface().(encoding.TextMarshaler)), nil
	}
	return c.plain(v, depth)
}

// plain converts v by its kind alone.
func (c *converter) plain(v reflect.Value, depth int) (value, error) {
	t := v.Type()
	switch t.Kind() {
	case reflect.Bool:
		return boolean(v.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return integer(v.Int()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return uinteger(v.Uint()), nil
	case reflect.Float32:
		return float(v.Float(), 32), nil
	case reflect.Float64:
		return float(v.Float(), 64), nil
	case reflect.String:
		return str(v.String()), nil
	case reflect.Pointer, reflect.Interface:
		return c.convert(v.Elem(), depth+1)
	case reflect.Slice:
		if v.IsNil() {
			return null, nil
		}
		if t.Elem().Kind() == reflect.Uint8 && !t.Elem().Implements(marshalerType) && !t.Elem().Implements(textMarshalerType) {
			return str(base64.StdEncoding.EncodeToString(v.Bytes())), nil
		}
		return c.array(v, depth)
	case reflect.Array:
		return c.array(v, depth)
	case reflect.Map:
		if v.IsNil() {
			return null, nil
		}
		return c.mapValue(v, depth)
	case reflect.Struct:
		return c.structValue(v, depth)
	}
	return null, nil
}

func (c *converter) array(v reflect.Value, depth int) (value, error) {
	if a, ok := numberArray(v); ok {
		return a, nil
	}
	items := make([]value, v.Len())
	for i := range items {
		x, err := c.convert(v.Index(i), depth+1)
		if err != nil {
			return null, err
		}
		items[i] = x
	}
	return value{k: kArr, items: items}, nil
}

func (c *converter) mapValue(v reflect.Value, depth int) (value, error) {
	type entry struct {
		key string
		val reflect.Value
	}
	entries := make([]entry, 0, v.Len())
	it := v.MapRange()
	for it.Next() {
		k, ok := mapKey(it.Key())
		if !ok {
			return null, nil
		}
		entries = append(entries, entry{k, it.Value()})
	}
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.key, b.key) })
	o := newObject(len(entries))
	for _, e := range entries {
		x, err := c.convert(e.val, depth+1)
		if err != nil {
			return null, err
		}
		o.add(e.key, x)
	}
	return o.v, nil
}

// mapKey returns the JSON key of a map key as encoding/json names it.
func mapKey(k reflect.Value) (string, bool) {
	if k.Kind() == reflect.String {
		return k.String(), true
	}
	if k.Type().Implements(textMarshalerType) {
		if k.Kind() == reflect.Pointer && k.IsNil() {
			return "", true
		}
		t, err := k.Interface().(encoding.TextMarshaler).MarshalText()
		return string(t), err == nil
	}
	switch k.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(k.Int(), 10), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(k.Uint(), 10), true
	}
	return "", false
}

func textValue(m encoding.TextMarshaler) value {
	t, err := m.MarshalText()
	if err != nil {
		return null
	}
	return str(string(t))
}

// marshaler re-reads a json.Marshaler's output, so that it gets the document's layout and key
// order; invalid output becomes null.
func (c *converter) marshaler(m json.Marshaler, depth int) (value, error) {
	raw, err := m.MarshalJSON()
	if err != nil || !json.Valid(raw) {
		return null, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	v, err := readValue(d, depth)
	if err != nil {
		if errors.Is(err, errTooDeep) {
			return null, err
		}
		return null, nil
	}
	return v, nil
}

func readValue(d *json.Decoder, depth int) (value, error) {
	if depth > maxDepth {
		return null, errTooDeep
	}
	tok, err := d.Token()
	if err != nil {
		return null, err
	}
	switch t := tok.(type) {
	case nil:
		return null, nil
	case bool:
		return boolean(t), nil
	case json.Number:
		return value{k: kNum, s: t.String()}, nil
	case string:
		return str(t), nil
	case json.Delim:
		switch t {
		case '[':
			v := value{k: kArr}
			for d.More() {
				x, err := readValue(d, depth+1)
				if err != nil {
					return null, err
				}
				v.items = append(v.items, x)
			}
			_, err := d.Token()
			return v, err
		case '{':
			o := newObject(4)
			for d.More() {
				kt, err := d.Token()
				if err != nil {
					return null, err
				}
				k, _ := kt.(string)
				x, err := readValue(d, depth+1)
				if err != nil {
					return null, err
				}
				o.add(k, x)
			}
			_, err := d.Token()
			return o.v, err
		}
	}
	return null, io.ErrUnexpectedEOF
}

// field is one serialised struct field.
type field struct {
	name      string
	index     []int
	tagged    bool
	omitEmpty bool
	omitZero  bool
}

func (c *converter) structValue(v reflect.Value, depth int) (value, error) {
	fs := c.typeFields(v.Type())
	o := newObject(len(fs))
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
		if f.omitEmpty && isEmpty(fv) || f.omitZero && isZero(fv) {
			continue
		}
		x, err := c.convert(fv, depth+1)
		if err != nil {
			return null, err
		}
		o.add(f.name, x)
	}
	return o.v, nil
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

func isZero(v reflect.Value) bool {
	if !v.CanInterface() {
		return v.IsZero()
	}
	if z, ok := v.Interface().(interface{ IsZero() bool }); ok {
		if (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && v.IsNil() {
			return true
		}
		return z.IsZero()
	}
	return v.IsZero()
}

// typeFields lists the serialised fields of struct type t in declaration order, with embedded
// structs' fields promoted and name conflicts resolved as encoding/json does: the shallowest
// field wins, a tagged one among equals wins, and otherwise all of them are dropped.
func (c *converter) typeFields(t reflect.Type) []field {
	if fs, ok := typeFieldsCache.Load(t); ok {
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
	typeFieldsCache.Store(t, fs)
	return fs
}

// numberArray converts an array or slice of plain booleans or numbers (types without methods)
// in one go, formatting all elements into one string; ok is false for other element types.
func numberArray(v reflect.Value) (a value, ok bool) {
	et := v.Type().Elem()
	if et.NumMethod() != 0 || reflect.PointerTo(et).NumMethod() != 0 {
		return null, false
	}
	var format func(b []byte, e reflect.Value) ([]byte, bool)
	switch et.Kind() {
	case reflect.Bool:
		format = func(b []byte, e reflect.Value) ([]byte, bool) { return strconv.AppendBool(b, e.Bool()), true }
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		format = func(b []byte, e reflect.Value) ([]byte, bool) { return strconv.AppendInt(b, e.Int(), 10), true }
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		format = func(b []byte, e reflect.Value) ([]byte, bool) { return strconv.AppendUint(b, e.Uint(), 10), true }
	case reflect.Float32, reflect.Float64:
		bits := 64
		if et.Kind() == reflect.Float32 {
			bits = 32
		}
		format = func(b []byte, e reflect.Value) ([]byte, bool) {
			f := e.Float()
			switch {
			case math.IsNaN(f) || math.IsInf(f, 0):
				return b, false
			case f == 0:
				return append(b, '0'), true
			}
			return strconv.AppendFloat(b, f, 'g', -1, bits), true
		}
	default:
		return null, false
	}
	n := v.Len()
	items := make([]value, n)
	ends := make([]int, n)
	buf := make([]byte, 0, 8*n)
	for i := 0; i < n; i++ {
		var fin bool
		buf, fin = format(buf, v.Index(i))
		if !fin {
			ends[i] = -1 - len(buf) // null; the sign marks it, the rest keeps the position
			continue
		}
		ends[i] = len(buf)
	}
	all := string(buf)
	k := kNum
	if et.Kind() == reflect.Bool {
		k = kBool
	}
	start := 0
	for i, e := range ends {
		if e < 0 {
			items[i] = null
			start = -1 - e
			continue
		}
		items[i] = value{k: k, s: all[start:e]}
		start = e
	}
	return value{k: kArr, items: items}, true
}

// ExtrasJSON writes x, an extras value of any type, as compact JSON by the rules the metadata
// document follows: map keys sorted, NaN and infinities (which JSON cannot hold) as null, and
// values JSON has no form for as null too. The glTF writer falls back on it for extras that
// encoding/json refuses.
func ExtrasJSON(x any) (json.RawMessage, error) {
	v, err := (&converter{}).convert(reflect.ValueOf(x), 0)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Compact(&out, write(nil, &v, 0)); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
