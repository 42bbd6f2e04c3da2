package metajson

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelfs/modelfs/internal/testkit/golden"

	"github.com/modelfs/modelfs/translate/internal/testkit/testscene"
	"github.com/modelfs/modelfs/translate/scene"
)

func TestGolden(t *testing.T) {
	testscene.Run(t, func(t *testing.T, c testscene.Case) {
		c.Scene.MakePlain() // as the pipeline does
		out, err := Encode(c.Scene)
		if err != nil {
			t.Fatal(err)
		}
		golden.Testdata(t, c.Name+".json", out)
		// Determinism: maps in extras are iterated in random order, so repeat.
		for range 10 {
			again, err := Encode(c.Scene)
			if err != nil || !bytes.Equal(out, again) {
				t.Fatalf("second encoding differs (err %v)", err)
			}
		}
	})
}

// decoded is the part of a document the tests read back.
type decoded struct {
	Counts map[string]int
	Bounds *struct{ Min, Max [3]float32 }
	Meshes []struct {
		Name          string
		MaxInfluences int
		Skinned       bool
		UVSets        int
		Material      *int
	}
	Materials []struct {
		AlphaCutoff *float32
	}
	Textures []struct{ Resolved *string }
	Extras   map[string]any
	Warnings []string
}

func decode(t *testing.T, s *scene.Scene) decoded {
	t.Helper()
	s.MakePlain() // as the pipeline does
	out, err := Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	var d decoded
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestContents(t *testing.T) {
	d := decode(t, testscene.Skinned())
	if d.Meshes[0].MaxInfluences != 5 || !d.Meshes[0].Skinned || d.Meshes[0].UVSets != 2 {
		t.Errorf("skinned mesh: %+v", d.Meshes[0])
	}
	if d.Meshes[1].MaxInfluences != 0 || d.Meshes[1].Skinned {
		t.Errorf("unskinned mesh: %+v", d.Meshes[1])
	}
	if d.Materials[0].AlphaCutoff == nil || *d.Materials[0].AlphaCutoff != 0.75 || d.Materials[1].AlphaCutoff != nil {
		t.Error("alphaCutoff should be written for MASK only")
	}
	if d.Textures[0].Resolved != nil || d.Textures[1].Resolved == nil || *d.Textures[1].Resolved != "Textures/Glow.png" {
		t.Error("resolved should be null when unresolved")
	}
	want := map[string]int{"meshes": 2, "vertices": 20, "triangles": 10, "materials": 2, "textures": 2, "nodes": 6,
		"bones": 5, "joints": 5, "skins": 1, "animations": 0, "channels": 0, "keys": 0}
	if !reflect.DeepEqual(d.Counts, want) {
		t.Errorf("counts %v, want %v", d.Counts, want)
	}
	if d.Bounds == nil || d.Bounds.Min != [3]float32{-0.5, -0.5, -0.5} || d.Bounds.Max != [3]float32{0.5, 0.5, 0.5} {
		t.Errorf("bounds %+v", d.Bounds)
	}

	d = decode(t, testscene.Animated())
	if d.Counts["animations"] != 2 || d.Counts["channels"] != 3 || d.Counts["keys"] != 7 {
		t.Errorf("animated counts %v", d.Counts)
	}
	if d.Meshes[1].Material != nil {
		t.Error("a mesh without a material should have material null")
	}
	if d.Bounds.Max != [3]float32{1, 3, 0.5} {
		t.Errorf("bounds %+v", d.Bounds)
	}

	d = decode(t, testscene.Empty())
	if d.Bounds != nil || d.Meshes == nil || d.Warnings == nil || d.Extras == nil {
		t.Errorf("empty scene: lists must be [] and extras {} and bounds null: %+v", d)
	}

	d = decode(t, testscene.WithExtras())
	nested := d.Extras["nested"].(map[string]any)["a"].(map[string]any)
	if nested["nan"] != nil || nested["negInf"] != nil || nested["x"] != 1e-7 {
		t.Errorf("non-finite floats should be null: %v", nested)
	}
	em := d.Extras["particleEmitters2"].([]any)[0].(map[string]any)
	if em["name"] != "Dust" || em["speed"] != nil || em["NoTag"] != true || em["hidden"] != nil {
		t.Errorf("embedded struct fields: %v", em)
	}
	if _, ok := em["translation"].(map[string]any)["Width"]; ok {
		t.Error(`json:"-" field written`)
	}
	if _, ok := em["translation"].(map[string]any)["inTans"]; ok {
		t.Error("omitempty field written")
	}
	if d.Extras["empty"] != nil {
		t.Error("nil slice should be null")
	}
}

func TestWeirdStrings(t *testing.T) {
	out, err := Encode(testscene.Weird())
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Source   struct{ Path, Name string }
		Warnings []string
		Extras   map[string]any
	}
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatal(err)
	}
	if d.Source.Path != "units/we ird/Bad\"Name\uFFFD.mdx" || d.Source.Name != "Bad \"name\"\n\x00\uFFFD" {
		t.Errorf("source %+v", d.Source)
	}
	if d.Warnings[0] != "bad \uFFFD( byte" || d.Warnings[1] != "tab\there" {
		t.Errorf("warnings %q", d.Warnings)
	}
	if d.Extras["k\uFFFDey"] != "v\uFFFDalue\\" {
		t.Errorf("extras %q", d.Extras)
	}
	if !bytes.Contains(out, []byte(`"Bad \"name\"\n\u0000`)) {
		t.Error("control characters not escaped as expected")
	}
}

func TestAppendString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", `""`},
		{"plain", `"plain"`},
		{`q"b\`, `"q\"b\\"`},
		{"\n\r\t\x00\x1f\x7f", `"\n\r\t\u0000\u001f` + "\x7f\""},
		{"é – 日本", `"é – 日本"`},
		{"a\xffb\xc3", "\"a\uFFFDb\uFFFD\""},
		{"<&>", `"<&>"`},
	} {
		if got := string(appendString(nil, tc.in)); got != tc.want {
			t.Errorf("appendString(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestLayout(t *testing.T) {
	long := make([]float32, 30)
	for i := range long {
		long[i] = float32(i)
	}
	v := value{k: kObj, keys: []string{"short", "long", "nested", "empty", "strs"}, items: []value{
		f32s(1, 2.5, -3),
		f32s(long...),
		{k: kArr, items: []value{f32s(1, 2, 3), f32s(4, 5, 6)}},
		{k: kArr},
		strs([]string{"a", "b"}),
	}}
	got := string(write(nil, &v, 0))
	want := `{
  "short": [1, 2.5, -3],
  "long": [
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
    12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
    24, 25, 26, 27, 28, 29
  ],
  "nested": [
    [1, 2, 3],
    [4, 5, 6]
  ],
  "empty": [],
  "strs": [
    "a",
    "b"
  ]
}`
	if got != want {
		t.Errorf("layout:\n%s\nwant:\n%s", got, want)
	}
}

// The error document's bytes; metajsontest checks its fields and schema for awkward inputs.
func TestEncodeError(t *testing.T) {
	golden.Testdata(t, "error.json", EncodeError("units/a.mdx", "mdx", errors.New("units/a.mdx: mdx: offset 12 (0xc): bad chunk")))
}

func TestNilScene(t *testing.T) {
	if _, err := Encode(nil); err == nil {
		t.Error("no error")
	}
}

// BenchmarkEncode encodes a scene whose extras hold 200 tracks of 500 keys (1.3 MB of JSON).
func BenchmarkEncode(b *testing.B) {
	s := testscene.WithExtras()
	tracks := make([]testscene.Track, 200)
	for i := range tracks {
		tr := &tracks[i]
		tr.Interp, tr.GlobalSeq = 1, -1
		for k := 0; k < 500; k++ {
			tr.Frames = append(tr.Frames, int32(k*33))
			tr.Values = append(tr.Values, float32(k)*0.37, float32(i)/3, -float32(k))
		}
	}
	s.Extras["tracks"] = tracks
	s.MakePlain()
	out, _ := Encode(s)
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Encode(s); err != nil {
			b.Fatal(err)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "abc", "\x00\xff\"\\", "日本\u2028", "\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := appendString(nil, s)
		var back string
		if err := json.Unmarshal(b, &back); err != nil || !utf8.Valid(b) {
			t.Fatalf("%q -> %s: %v", s, b, err)
		}
		if utf8.ValidString(s) && back != s {
			t.Fatalf("%q read back as %q", s, back)
		}
	})
}

// Extras that are not plain are refused, not guessed at.
func TestExtrasNotPlain(t *testing.T) {
	s := testscene.Empty()
	for _, v := range []any{struct{ A int }{1}, []int{1}, map[int]int{1: 2}} {
		s.Extras = scene.Extras{"x": v}
		if _, err := Encode(s); err == nil || !strings.Contains(err.Error(), "not plain") {
			t.Errorf("%T: %v", v, err)
		}
	}
}

// Each plain form is written as encoding/json writes the same value, nil slices as null.
func TestPlainForms(t *testing.T) {
	for _, v := range []any{[]int32{1, -2, 2147483647}, []int32(nil), []uint32{0, 4294967295}, []uint32(nil),
		[3]float32{1, 2.5, -0.125}, []int64{-1}, []uint64{7}, []float32{0.1}, []bool{true}, []string{"a"}} {
		got, err := plainValue(v, 0)
		if err != nil {
			t.Errorf("%T: %v", v, err)
			continue
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, write(nil, &got, 0)); err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(v)
		if compact.String() != string(want) {
			t.Errorf("%T %v: %s, want %s", v, v, compact.String(), want)
		}
	}
}
