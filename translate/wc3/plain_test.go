package wc3

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/scene"
)

// TestPlainRecords holds the hand-written plain forms equal to scene.Plain, the reflective
// converter that follows encoding/json's rules, on records filled at random: NaNs and
// infinities, nil and empty slices, absent and present tracks.
func TestPlainRecords(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	check := func(name string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got  %#v\n want %#v", name, got, want)
		}
		exactSize(t, name, got)
	}
	for range 300 {
		var (
			sq  Sequence
			ly  Layer
			ta  TextureAnim
			ga  GeosetAnim
			li  Light
			at  Attachment
			pe  ParticleEmitter
			p2  ParticleEmitter2
			rb  RibbonEmitter
			cm  Camera
			ev  EventObject
			cs  CollisionShape
			ext Extent
		)
		for _, p := range []any{&sq, &ly, &ta, &ga, &li, &at, &pe, &p2, &rb, &cm, &ev, &cs, &ext} {
			fill(r, reflect.ValueOf(p).Elem(), 0)
		}
		check("Sequence", sq.plain(), scene.Plain(sq))
		check("Layer", ly.plain(), scene.Plain(ly))
		check("TextureAnim", ta.plain(), scene.Plain(ta))
		check("GeosetAnim", ga.plain(), scene.Plain(ga))
		check("Light", li.plain(), scene.Plain(li))
		check("Attachment", at.plain(), scene.Plain(at))
		exactSize(t, "ParticleEmitter", pe.record(3))
		exactSize(t, "ParticleEmitter2", p2.record(-1))
		exactSize(t, "RibbonEmitter", rb.record(0))
		exactSize(t, "PopcornRecord", (&PopcornRecord{Name: "x"}).record())
		check("Camera", cm.plain(), scene.Plain(cm))
		check("EventObject", ev.plain(), scene.Plain(ev))
		check("CollisionShape", cs.plain(), scene.Plain(cs))
		check("Extent", ext.plain(), scene.Plain(ext))
		check("list", plainList([]Light{li, li}, (*Light).plain), scene.Plain([]Light{li, li}))
		if t.Failed() {
			return
		}
	}
}

// TestBuildExtrasPlain checks that the builder puts only plain values in extras, so that the
// pipeline's MakePlain has nothing to convert.
func TestBuildExtrasPlain(t *testing.T) {
	m := testModel()
	m.Cameras = []Camera{{Name: "Portrait", FieldOfView: 0.9, Rotation: &Track{GlobalSeq: -1, Width: 1, Frames: []int32{0}, Values: []float32{0}}}}
	m.TextureAnims = []TextureAnim{{}}
	s, err := Build(m, codec.Source{Name: "test.mdl"}, "mdl")
	if err != nil {
		t.Fatal(err)
	}
	all := []scene.Extras{s.Extras}
	for i := range s.Nodes {
		all = append(all, s.Nodes[i].Extras)
	}
	for i := range s.Meshes {
		all = append(all, s.Meshes[i].Extras)
	}
	for i := range s.Materials {
		all = append(all, s.Materials[i].Extras)
	}
	for i := range s.Textures {
		all = append(all, s.Textures[i].Extras)
	}
	for i := range s.Animations {
		all = append(all, s.Animations[i].Extras)
	}
	for _, ex := range all {
		for k, v := range ex {
			if !scene.IsPlain(v) {
				t.Errorf("extras %q holds %T, not a plain value", k, v)
			}
		}
	}
}

// fill sets v to random contents: a quarter of pointers nil, slices nil, empty or short,
// floats sometimes NaN or infinite.
func fill(r *rand.Rand, v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int, reflect.Int64:
		v.SetInt(int64(r.IntN(2000)) - 1000)
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint, reflect.Uint64:
		v.SetUint(uint64(r.IntN(300)))
	case reflect.Float32, reflect.Float64:
		f := r.Float64()*200 - 100
		switch r.IntN(12) {
		case 0:
			f = math.NaN()
		case 1:
			f = math.Inf(1 - 2*r.IntN(2))
		case 2:
			f = 0
		}
		v.SetFloat(f)
	case reflect.String:
		v.SetString([]string{"", "Bone", `Textures\a.blp`}[r.IntN(3)])
	case reflect.Pointer:
		if depth > 3 || r.IntN(4) == 0 {
			return
		}
		v.Set(reflect.New(v.Type().Elem()))
		fill(r, v.Elem(), depth+1)
	case reflect.Slice:
		switch n := r.IntN(5); n {
		case 0:
			return
		default:
			v.Set(reflect.MakeSlice(v.Type(), n-1, n-1))
		}
		fallthrough
	case reflect.Array:
		for i := range v.Len() {
			fill(r, v.Index(i), depth+1)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(r, v.Field(i), depth+1)
			}
		}
	}
}

// exactSize checks that every record in v was made with the capacity it fills (newRecord's
// count), so that extras, which live as long as the scene, waste no memory.
func exactSize(t *testing.T, name string, v any) {
	t.Helper()
	switch x := v.(type) {
	case scene.Object:
		if cap(x) != len(x) {
			t.Errorf("%s: a record of %d members was made for %d", name, len(x), cap(x))
		}
		for _, m := range x {
			exactSize(t, name+"."+m.Key, m.Value)
		}
	case []any:
		for _, e := range x {
			exactSize(t, name, e)
		}
	}
}
