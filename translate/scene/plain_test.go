package scene

import (
	"encoding/json"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// compact writes a plain value as compact JSON: maps with sorted keys, Objects in order.
func compact(t *testing.T, v any) string {
	t.Helper()
	var b strings.Builder
	var w func(v any)
	w = func(v any) {
		switch x := v.(type) {
		case nil:
			b.WriteString("null")
		case bool:
			b.WriteString(strconv.FormatBool(x))
		case string:
			q, _ := json.Marshal(x)
			b.Write(q)
		case int64:
			b.WriteString(strconv.FormatInt(x, 10))
		case uint64:
			b.WriteString(strconv.FormatUint(x, 10))
		case int32: // an element of an []int32
			b.WriteString(strconv.FormatInt(int64(x), 10))
		case uint32:
			b.WriteString(strconv.FormatUint(uint64(x), 10))
		case float32:
			q, _ := json.Marshal(x)
			b.Write(q)
		case float64:
			q, _ := json.Marshal(x)
			b.Write(q)
		case Object:
			b.WriteByte('{')
			for i, m := range x {
				if i > 0 {
					b.WriteByte(',')
				}
				w(m.Key)
				b.WriteByte(':')
				w(m.Value)
			}
			b.WriteByte('}')
		case map[string]any:
			w(Extras(x))
		case Extras:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			b.WriteByte('{')
			for i, k := range keys {
				if i > 0 {
					b.WriteByte(',')
				}
				w(k)
				b.WriteByte(':')
				w(x[k])
			}
			b.WriteByte('}')
		default:
			rv := reflect.ValueOf(v)
			if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
				t.Fatalf("not plain: %T", v)
			}
			b.WriteByte('[')
			for i := range rv.Len() {
				if i > 0 {
					b.WriteByte(',')
				}
				w(rv.Index(i).Interface())
			}
			b.WriteByte(']')
		}
	}
	w(v)
	return b.String()
}

// Types exercising the struct rules.
type (
	inner struct {
		A int `json:"a"`
		B int
	}
	outer struct {
		inner
		B string `json:"B"` // shadows inner.B
		C *int   `json:"c,omitempty"`
		D []int  `json:"d,omitempty"`
		E int    `json:"-"`
		//lint:ignore SA5008 the name "-" is what is being tested
		F     int `json:"-,"`
		Z     int `json:"z,omitzero"`
		Bytes []byte
		M     map[int8]float32
		skip  int
	}
	conflict struct {
		x1
		x2
	}
	x1 struct{ Same int }
	x2 struct{ Same int }
)

// Plain follows encoding/json's rules for structs, maps and arrays: what it makes, written out,
// is what json.Marshal writes of the value.
func TestPlainMatchesEncodingJSON(t *testing.T) {
	seven := 7
	for _, x := range []any{
		outer{inner: inner{A: 1, B: 2}, B: "b", C: &seven, E: 5, F: 6, Bytes: []byte{1, 2, 3},
			M: map[int8]float32{-3: 0.1, 4: 1e30}, skip: 9},
		conflict{x1{1}, x2{2}},
		map[uint]bool{7: true, 10: false},
		[][3]float32{{1, 2, 3}},
		[3]uint8{1, 2, 3},
		struct{ P *outer }{},
		map[string]any{"deep": []any{map[string]any{"x": []any{"y"}}}},
		"<html> & friends",
		[]int(nil),
	} {
		want, err := json.Marshal(x)
		if err != nil {
			t.Fatal(err)
		}
		p := Plain(x)
		if !IsPlain(p) {
			t.Errorf("%T: Plain made %T, not plain", x, p)
		}
		var a, b any
		if err := json.Unmarshal([]byte(compact(t, p)), &a); err != nil {
			t.Fatalf("%T: %v", x, err)
		}
		_ = json.Unmarshal(want, &b)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%T:\n got %s\nwant %s", x, compact(t, p), want)
		}
	}
	// The order of a struct's fields is kept.
	if got := compact(t, Plain(struct{ Z, A int }{1, 2})); got != `{"Z":1,"A":2}` {
		t.Errorf("field order: %s", got)
	}
}

type cyclic struct{ Next *cyclic }

// What JSON cannot hold becomes null; a cycle ends, deep, in null.
func TestPlainOddities(t *testing.T) {
	loop := &cyclic{}
	loop.Next = loop
	for _, x := range []any{make(chan int), func() {}, complex(1, 2), map[[2]int]int{{1, 2}: 3},
		float32(math.Inf(1)), math.NaN()} {
		if p := Plain(x); p != nil {
			t.Errorf("%T: %v, want nil", x, p)
		}
	}
	if got := compact(t, Plain([]float32{1, float32(math.NaN())})); got != "[1,null]" {
		t.Errorf("NaN in an array: %s", got)
	}
	if !IsPlain(Plain(loop)) {
		t.Error("a cycle made something not plain")
	}
	x := Extras{"a": 1, "b": []int{2}, "c": Extras{"d": int16(3)}}
	s := &Scene{Extras: x}
	s.MakePlain()
	if !IsPlain(s.Extras) || s.Extras["a"] != int64(1) {
		t.Errorf("MakePlain: %#v", s.Extras)
	}
	if _, ok := s.Extras["c"].(Extras); !ok {
		t.Errorf("an Extras inside is %T", s.Extras["c"])
	}
}

func TestIsNull(t *testing.T) {
	for _, v := range []any{nil, []bool(nil), []string(nil), []int32(nil), []int64(nil), []uint32(nil), []uint64(nil),
		[]float32(nil), []float64(nil), []any(nil), Extras(nil), map[string]any(nil)} {
		if !IsNull(v) {
			t.Errorf("IsNull(%#v) = false", v)
		}
	}
	for _, v := range []any{Object(nil), []any{}, Extras{}, "", 0, false, [3]float32{}, []int32{}} {
		if IsNull(v) {
			t.Errorf("IsNull(%#v) = true", v)
		}
	}
}
