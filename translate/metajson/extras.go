package metajson

import (
	"fmt"
	"slices"
	"strings"

	"github.com/modelfs/modelfs/translate/scene"
)

// maxDepth bounds the nesting of extras.
const maxDepth = 200

// extras converts an extras map of plain values (scene.Plain); a nil or empty map is an empty
// object.
func extras(x scene.Extras) (value, error) {
	if len(x) == 0 {
		return value{k: kObj}, nil
	}
	return plainValue(x, 0)
}

// plainValue converts a plain value (see scene.Plain) into the document's value, map keys
// sorted; anything else is an error, for extras reach the encoders plain (scene.MakePlain).
func plainValue(v any, depth int) (value, error) {
	if depth > maxDepth {
		return null, fmt.Errorf("metajson: extras nest deeper than %d levels", maxDepth)
	}
	if scene.IsNull(v) {
		return null, nil // as encoding/json writes a nil slice or map
	}
	switch x := v.(type) {
	case nil:
		return null, nil
	case bool:
		return boolean(x), nil
	case string:
		return str(x), nil
	case int64:
		return integer(x), nil
	case uint64:
		return uinteger(x), nil
	case float32:
		return f32(x), nil
	case float64:
		return float(x, 64), nil
	case []bool:
		return arrayOf(x, boolean), nil
	case []string:
		return strs(x), nil
	case []int32:
		return arrayOf(x, func(n int32) value { return integer(int64(n)) }), nil
	case []int64:
		return arrayOf(x, integer), nil
	case []uint32:
		return arrayOf(x, func(n uint32) value { return uinteger(uint64(n)) }), nil
	case []uint64:
		return arrayOf(x, uinteger), nil
	case []float32:
		return f32s(x...), nil
	case [3]float32:
		return f32s(x[:]...), nil
	case []float64:
		return arrayOf(x, func(f float64) value { return float(f, 64) }), nil
	case []any:
		items := make([]value, len(x))
		for i, e := range x {
			it, err := plainValue(e, depth+1)
			if err != nil {
				return null, err
			}
			items[i] = it
		}
		return value{k: kArr, items: items}, nil
	case scene.Object:
		o := newObject(len(x))
		for _, m := range x {
			it, err := plainValue(m.Value, depth+1)
			if err != nil {
				return null, err
			}
			o.add(m.Key, it)
		}
		return o.v, nil
	case scene.Extras:
		return plainMap(x, depth)
	case map[string]any:
		return plainMap(x, depth)
	}
	return null, fmt.Errorf("metajson: extras value of type %T is not plain (scene.MakePlain makes it so)", v)
}

func plainMap(m map[string]any, depth int) (value, error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, strings.Compare)
	o := newObject(len(keys))
	for _, k := range keys {
		it, err := plainValue(m[k], depth+1)
		if err != nil {
			return null, err
		}
		o.add(k, it)
	}
	return o.v, nil
}

// arrayOf converts each element of xs.
func arrayOf[T any](xs []T, conv func(T) value) value {
	items := make([]value, len(xs))
	for i, x := range xs {
		items[i] = conv(x)
	}
	return value{k: kArr, items: items}
}
