package metajson

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// kind is the JSON type of a value.
type kind uint8

const (
	kNull kind = iota
	kBool
	kNum
	kStr
	kArr
	kObj
)

// value is one JSON value, built in memory so that the writer can choose a layout per array.
// Objects keep their keys in insertion order.
type value struct {
	k     kind
	s     string  // number text, string, "true" or "false"
	items []value // array elements, or object values
	keys  []string
}

var null = value{k: kNull}

func boolean(b bool) value {
	if b {
		return value{k: kBool, s: "true"}
	}
	return value{k: kBool, s: "false"}
}

func str(s string) value { return value{k: kStr, s: s} }

func integer(i int64) value { return value{k: kNum, s: strconv.FormatInt(i, 10)} }

func uinteger(u uint64) value { return value{k: kNum, s: strconv.FormatUint(u, 10)} }

// float writes f in the shortest form that reads back as the same float of the given size
// (32 or 64); NaN and infinities, which JSON cannot hold, become null.
func float(f float64, bits int) value {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return null
	}
	if f == 0 {
		return value{k: kNum, s: "0"}
	}
	return value{k: kNum, s: strconv.FormatFloat(f, 'g', -1, bits)}
}

func f32(f float32) value { return float(float64(f), 32) }

func f32s(fs ...float32) value {
	items := make([]value, len(fs))
	for i, f := range fs {
		items[i] = f32(f)
	}
	return value{k: kArr, items: items}
}

func ints(is []int) value {
	items := make([]value, len(is))
	for i, x := range is {
		items[i] = integer(int64(x))
	}
	return value{k: kArr, items: items}
}

func strs(ss []string) value {
	items := make([]value, len(ss))
	for i, s := range ss {
		items[i] = str(s)
	}
	return value{k: kArr, items: items}
}

// index is an index into another list, or null when negative.
func index(i int) value {
	if i < 0 {
		return null
	}
	return integer(int64(i))
}

// object builds an object value key by key.
type object struct{ v value }

func newObject(n int) *object {
	return &object{v: value{k: kObj, keys: make([]string, 0, n), items: make([]value, 0, n)}}
}

func (o *object) add(key string, v value) {
	o.v.keys = append(o.v.keys, key)
	o.v.items = append(o.v.items, v)
}

// Layout of arrays: an array of numbers, booleans and nulls is written on one line when it has
// at most inlineMax elements (vectors, colours, quaternions, matrices) and otherwise wrapped
// perLine elements to a line (key frames: 12 holds whole 3- and 4-wide values); any other
// array has one element per line.
const (
	inlineMax = 16
	perLine   = 12
)

func scalarArray(v *value) bool {
	for i := range v.items {
		if k := v.items[i].k; k != kNum && k != kBool && k != kNull {
			return false
		}
	}
	return true
}

func newline(b []byte, depth int) []byte {
	b = append(b, '\n')
	for i := 0; i < depth; i++ {
		b = append(b, ' ', ' ')
	}
	return b
}

// write appends v at nesting depth (2 spaces of indent per level).
func write(b []byte, v *value, depth int) []byte {
	switch v.k {
	case kNull:
		return append(b, "null"...)
	case kBool, kNum:
		return append(b, v.s...)
	case kStr:
		return appendString(b, v.s)
	case kArr:
		if len(v.items) == 0 {
			return append(b, '[', ']')
		}
		b = append(b, '[')
		if scalarArray(v) {
			if len(v.items) <= inlineMax {
				for i := range v.items {
					if i > 0 {
						b = append(b, ',', ' ')
					}
					b = write(b, &v.items[i], depth)
				}
				return append(b, ']')
			}
			for i := range v.items {
				switch {
				case i%perLine == 0:
					if i > 0 {
						b = append(b, ',')
					}
					b = newline(b, depth+1)
				default:
					b = append(b, ',', ' ')
				}
				b = write(b, &v.items[i], depth+1)
			}
		} else {
			for i := range v.items {
				if i > 0 {
					b = append(b, ',')
				}
				b = newline(b, depth+1)
				b = write(b, &v.items[i], depth+1)
			}
		}
		b = newline(b, depth)
		return append(b, ']')
	case kObj:
		if len(v.items) == 0 {
			return append(b, '{', '}')
		}
		b = append(b, '{')
		for i := range v.items {
			if i > 0 {
				b = append(b, ',')
			}
			b = newline(b, depth+1)
			b = appendString(b, v.keys[i])
			b = append(b, ':', ' ')
			b = write(b, &v.items[i], depth+1)
		}
		b = newline(b, depth)
		return append(b, '}')
	}
	return append(b, "null"...)
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string: quotes, backslashes and control characters escaped,
// each byte of invalid UTF-8 replaced by U+FFFD, everything else as is (so that grep finds
// names as they read).
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c >= 0x20:
				b = append(b, c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\t':
				b = append(b, '\\', 't')
			case c == '\r':
				b = append(b, '\\', 'r')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, "\uFFFD"...)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
}
