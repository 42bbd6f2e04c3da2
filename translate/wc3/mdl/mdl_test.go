package mdl

import (
	"bytes"
	"errors"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/wc3"
	"github.com/modelfs/modelfs/translate/wc3/wc3test"
)

// corpusDir returns <repo>/../shared/corpus/wc3, skipping (or failing when CI=true) when absent.
func corpusDir(t testing.TB) string {
	t.Helper()
	dir, _ := filepath.Abs(filepath.Join("..", "..", "..", "..", "shared", "corpus", "wc3"))
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("corpus missing at %s (CI=true): %v", dir, err)
		}
		t.Skipf("corpus not present at %s; skipping", dir)
	}
	return dir
}

func readCorpus(t testing.TB, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(corpusDir(t), rel))
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skipf("corpus file %s: %v", rel, err)
	}
	return data
}

// equalModels compares ignoring Warnings.
func equalModels(a, b *wc3.Model) bool {
	wa, wb := a.Warnings, b.Warnings
	a.Warnings, b.Warnings = nil, nil
	eq := reflect.DeepEqual(a, b)
	a.Warnings, b.Warnings = wa, wb
	return eq
}

func mustRead(t testing.TB, src string) *wc3.Model {
	t.Helper()
	m, err := Read("test.mdl", []byte(src))
	if err != nil {
		t.Fatalf("Read: %v\n%s", err, src)
	}
	return m
}

func TestCorpus(t *testing.T) {
	tests := []struct {
		file                                          string
		geosets, bones, helpers, attachments, seqs    int
		gseqs                                         []uint32
		events, shapes, geosetAnims, textures, layers int
	}{
		{"Units/Tunable/TunableShield.mdl", 0, 1, 2, 4, 2, []uint32{2533}, 0, 0, 0, 0, 0},
		{"Units/hce_orc.mdl", 2, 21, 17, 9, 12, nil, 10, 2, 2, 2, 3},
		{"Doodads/heroglow.mdl", 1, 1, 0, 0, 0, nil, 0, 0, 0, 1, 1},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			data := readCorpus(t, tc.file)
			m, err := Read(tc.file, data)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range m.Warnings {
				t.Logf("warning: %s", w)
			}
			layers := 0
			for _, mt := range m.Materials {
				layers += len(mt.Layers)
			}
			got := []int{len(m.Geosets), len(m.Bones), len(m.Helpers), len(m.Attachments), len(m.Sequences),
				len(m.Events), len(m.CollisionShapes), len(m.GeosetAnims), len(m.Textures), layers}
			want := []int{tc.geosets, tc.bones, tc.helpers, tc.attachments, tc.seqs, tc.events, tc.shapes,
				tc.geosetAnims, tc.textures, tc.layers}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("counts = %v, want %v", got, want)
			}
			if !reflect.DeepEqual(m.GlobalSequences, tc.gseqs) {
				t.Errorf("global sequences = %v, want %v", m.GlobalSequences, tc.gseqs)
			}
			if m.Version != 800 {
				t.Errorf("version = %d", m.Version)
			}
			enc, err := wc3test.MDL(m)
			if err != nil {
				t.Fatal(err)
			}
			m2, err := Read("re", enc)
			if err != nil {
				t.Fatal(err)
			}
			if !equalModels(m, m2) {
				t.Error("Read(wc3test.MDL(m)) != m")
			}
		})
	}
}

func TestCorpusDetails(t *testing.T) {
	m, err := Read("TunableShield.mdl", readCorpus(t, "Units/Tunable/TunableShield.mdl"))
	if err != nil {
		t.Fatal(err)
	}
	// Values checked against TunableShield.mdx, the same model in binary form.
	if b := m.Bones[0]; b.Flags != wc3.TypeBone || b.GeosetID != -1 || b.GeosetAnimID != -1 || b.ParentID != -1 {
		t.Errorf("bone = %+v", b)
	}
	if h := m.Helpers[0]; h.Flags != wc3.NodeBillboardedLockZ || h.ObjectID != 1 {
		t.Errorf("BillboardLockZ helper = %+v", h)
	}
	r := m.Helpers[1].Rotation
	if r == nil || r.Interp != wc3.Hermite || r.GlobalSeq != 0 || r.Keys() != 5 || len(r.InTans) != 20 || r.Width != 4 {
		t.Errorf("rotation track = %+v", r)
	}
	if a := m.Attachments[3]; a.AttachmentID != 3 || a.ParentID != 2 || a.Flags != wc3.TypeAttachment ||
		a.Path != `Abilities\Weapons\VengeanceMissile\VengeanceMissile.mdl` {
		t.Errorf("attachment = %+v", a)
	}
	if s := m.Sequences[1]; !s.NonLooping || s.Interval != [2]uint32{40000, 43000} || s.Extent.BoundsRadius != 230.23199462890625 {
		t.Errorf("sequence = %+v", s)
	}

	orc, err := Read("hce_orc.mdl", readCorpus(t, "Units/hce_orc.mdl"))
	if err != nil {
		t.Fatal(err)
	}
	interps := map[wc3.Interp]int{}
	for _, b := range orc.Bones {
		for _, tr := range []*wc3.Track{b.Translation, b.Rotation, b.Scaling} {
			if tr != nil {
				interps[tr.Interp]++
			}
		}
	}
	if interps[wc3.Hermite] == 0 || interps[wc3.Bezier] == 0 {
		t.Errorf("interpolations seen: %v", interps)
	}
	g := orc.Geosets[0]
	if len(g.Vertices) != 411 || len(g.Normals) != 411 || len(g.UVSets) != 1 || len(g.VertexGroups) != 411 ||
		len(g.SeqExtents) != 12 || !reflect.DeepEqual(g.FaceTypes, []uint32{4}) || int(g.FaceCounts[0]) != len(g.Faces) {
		t.Errorf("geoset 0: %d verts, %d uvsets, %d groups, %d seq extents, types %v counts %v faces %d",
			len(g.Vertices), len(g.UVSets), len(g.VertexGroups), len(g.SeqExtents), g.FaceTypes, g.FaceCounts, len(g.Faces))
	}
	if len(g.GroupSizes) != 26 {
		t.Errorf("geoset 0 has %d matrix groups, want 26", len(g.GroupSizes))
	}
	if cs := orc.CollisionShapes[0]; cs.Type != wc3.ShapeSphere || len(cs.Vertices) != 1 || cs.BoundsRadius != 47.595001 {
		t.Errorf("collision shape = %+v", cs)
	}
	if ga := orc.GeosetAnims[1]; ga.GeosetID != 1 || ga.Alpha != 1 || ga.Color != [3]float32{1, 1, 1} || ga.AlphaTrack == nil {
		t.Errorf("geoset anim = %+v", ga)
	}
	if e := orc.Events[0]; e.Frames[0] != 87733 || e.GlobalSeq != -1 || e.Flags != wc3.TypeEvent {
		t.Errorf("event = %+v", e)
	}
	glow, err := Read("heroglow.mdl", readCorpus(t, "Doodads/heroglow.mdl"))
	if err != nil {
		t.Fatal(err)
	}
	if l := glow.Materials[0].Layers[0]; l.FilterMode != wc3.FilterAdditive || l.TextureAnimID != -1 || l.Alpha != 1 {
		t.Errorf("layer = %+v", l)
	}
	if glow.Extent.Max[2] != 1e-4 || glow.Textures[0].ReplaceableID != 2 {
		t.Errorf("extent %v, texture %+v", glow.Extent, glow.Textures[0])
	}
}

func TestRoundTripFull(t *testing.T) {
	m := fullModel()
	enc, err := wc3test.MDL(m)
	if err != nil {
		t.Fatal(err)
	}
	enc2, _ := wc3test.MDL(m)
	if !bytes.Equal(enc, enc2) {
		t.Fatal("Encode is not deterministic")
	}
	got, err := Read("full.mdl", enc)
	if err != nil {
		t.Fatalf("%v\n%s", err, enc)
	}
	if len(got.Warnings) != 0 {
		t.Errorf("warnings: %q", got.Warnings)
	}
	if !equalModels(m, got) {
		diffModels(t, m, got)
		t.Logf("%s", enc)
	}
}

// diffModels reports which top-level fields differ.
func diffModels(t *testing.T, want, got *wc3.Model) {
	t.Helper()
	vw, vg := reflect.ValueOf(want).Elem(), reflect.ValueOf(got).Elem()
	for i := 0; i < vw.NumField(); i++ {
		name := vw.Type().Field(i).Name
		if name == "Warnings" {
			continue
		}
		if !reflect.DeepEqual(vw.Field(i).Interface(), vg.Field(i).Interface()) {
			t.Errorf("%s differs:\nwant %+v\ngot  %+v", name, vw.Field(i).Interface(), vg.Field(i).Interface())
		}
	}
}

func TestRoundTripEachInterp(t *testing.T) {
	for _, ip := range []wc3.Interp{wc3.DontInterp, wc3.Linear, wc3.Hermite, wc3.Bezier} {
		for _, gs := range []int32{-1, 0} {
			m := &wc3.Model{Version: 800, Helpers: []wc3.Node{{Name: "h", ParentID: -1,
				Translation: trk(ip, gs, 3, []int32{-5, 0, 100}, 1, 2, 3, 4, 5, 6, 7, 8, 9),
				Rotation:    trk(ip, gs, 4, []int32{0}, 0, 0, 0, 1),
				Scaling:     trk(ip, gs, 3, nil)}},
				GlobalSequences: []uint32{10}}
			m.Helpers[0].Scaling.Values = nil
			enc, err := wc3test.MDL(m)
			if err != nil {
				t.Fatal(err)
			}
			got := mustRead(t, string(enc))
			if !equalModels(m, got) {
				diffModels(t, m, got)
			}
		}
	}
}

// TestSemantics checks hand-written MDL against the values the MDX form holds.
func TestSemantics(t *testing.T) {
	src := `Version { FormatVersion 800, }
Model "M" { NumGeosets 1, BlendTime 150, }
Materials 1 {
	Material {
		Layer {
			FilterMode Blend,
			TextureID 2 { DontInterp, 0: 0, 1000: 1, }
			Alpha 2 { Linear, GlobalSeqId 0, 0: 0, 1000: 1, }
		}
	}
}
Geoset {
	Vertices 3 { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 }, }
	Faces 1 3 { Triangles { { 0, 1, 2 }, } }
	MaterialID 0,
}
GeosetAnim { Color 1 { Linear, 0: { 0.5, 0.25, 1 }, } }
Bone "b" { ObjectId 0, GeosetId 0, GeosetAnimId 0, }
Helper "h" { ObjectId 1, Parent 0, DontInherit { Rotation, Scaling }, BillboardedLockX, }
EventObject "e" { ObjectId 2, EventTrack 1 { GlobalSeqId 3, 25, } }
ParticleEmitter2 "p" { ObjectId 3, static Speed 4, EmissionRate 1 { DontInterp, 0: 5, } }
`
	m := mustRead(t, src)
	l := m.Materials[0].Layers[0]
	if l.TextureID != 0 || l.Alpha != 1 || l.TextureAnimID != -1 || l.FilterMode != wc3.FilterBlend ||
		l.TextureTrack == nil || l.AlphaTrack.GlobalSeq != 0 || l.AlphaTrack.Interp != wc3.Linear {
		t.Errorf("layer = %+v", l)
	}
	g := m.Geosets[0]
	if !reflect.DeepEqual(g.FaceTypes, []uint32{4}) || !reflect.DeepEqual(g.FaceCounts, []uint32{3}) ||
		g.Normals != nil || g.UVSets != nil || g.VertexGroups != nil || g.SeqExtents != nil {
		t.Errorf("geoset = %+v", g)
	}
	ga := m.GeosetAnims[0]
	if ga.Flags != 2 || ga.Color != [3]float32{1, 1, 1} || ga.Alpha != 1 || ga.GeosetID != -1 || ga.ColorTrack.Width != 3 {
		t.Errorf("geoset anim = %+v", ga)
	}
	if h := m.Helpers[0]; h.Flags != wc3.NodeDontInheritRotation|wc3.NodeDontInheritScaling|wc3.NodeBillboardedLockX || h.ParentID != 0 {
		t.Errorf("helper = %+v", h)
	}
	if e := m.Events[0]; e.GlobalSeq != 3 || !reflect.DeepEqual(e.Frames, []uint32{25}) {
		t.Errorf("event = %+v", e)
	}
	if p := m.ParticleEmitters2[0]; p.Flags != wc3.TypeParticleEmitter || p.Speed != 4 || p.EmissionRateTrack == nil {
		t.Errorf("emitter = %+v", p)
	}
	if m.Lights != nil || m.Cameras != nil || m.PivotPoints != nil || m.Sequences != nil {
		t.Error("absent blocks must give nil slices")
	}
}

const small = `// comment
Version {
	FormatVersion 800,
}
Model "Small" {
	BlendTime 150,
}
Geoset {
	Vertices 2 {
		{ 1, 2, 3 },
		{ -1.5e-05, 1e-004, 240.000000 },
	}
	Faces 1 3 {
		Triangles {
			{ 0, 1, 0 },
		}
	}
	MaterialID 0,
	SelectionGroup 0,
}
Bone "b" {
	ObjectId 0,
	BillboardedLockZ,
	GeosetId Multiple,
	GeosetAnimId None,
	Rotation 1 {
		Hermite,
		0: { 0, 0, 0, 1 },
			InTan { 0, 0, 0, 1 },
			OutTan { 0, 0, 0, 1 },
	}
}
`

func TestTolerance(t *testing.T) {
	want := mustRead(t, small)
	if len(want.Warnings) != 0 {
		t.Fatalf("baseline warnings: %q", want.Warnings)
	}
	tests := []struct {
		name     string
		src      string
		warnings int    // expected number of warnings
		warnLike string // a substring of some warning
	}{
		{"CRLF", strings.ReplaceAll(small, "\n", "\r\n"), 0, ""},
		{"BOM", "\xEF\xBB\xBF" + small, 0, ""},
		{"no commas", strings.ReplaceAll(small, ",", " "), 0, ""},
		{"keyword case", strings.Replace(strings.Replace(small, "Bone", "BONE", 1), "ObjectId", "objectid", 1), 0, ""},
		{"BillboardLockZ spelling", strings.Replace(small, "BillboardedLockZ", "BillboardLockZ", 1), 0, ""},
		{"wrong vertex count", strings.Replace(small, "Vertices 2", "Vertices 5", 1), 1, "declares 5"},
		{"huge vertex count", strings.Replace(small, "Vertices 2", "Vertices 2147483647", 1), 1, "declares 2147483647"},
		{"wrong face count", strings.Replace(small, "Faces 1 3", "Faces 1 30", 1), 1, "Faces declares 30"},
		{"wrong key count", strings.Replace(small, "Rotation 1", "Rotation 7", 1), 1, "Rotation declares 7"},
		{"unknown flag", strings.Replace(small, "ObjectId 0,", "ObjectId 0,\n\tSparkly,", 1), 1, "line 23: unknown \"Sparkly\" in Bone"},
		{"unknown property with block", strings.Replace(small, "MaterialID 0,", "Painting 2 { { 1, 2, 3, 4 } { 5, 6, 7, 8 } }\n\tMaterialID 0,", 1), 1, "\"Painting\" in Geoset"},
		{"unknown top-level block", small + "SoundFX \"x\" { Path \"y\", Nested { 1 2 3 } }\n", 1, "unknown block \"SoundFX\""},
		{"unknown static", strings.Replace(small, "BlendTime 150,", "BlendTime 150,\n\tstatic Foo { 1, 2 },", 1), 1, "\"Foo\" in Model"},
		{"comments in odd places", strings.NewReplacer(
			"{ 1, 2, 3 },", "{ 1, // x\n 2, 3 } // y\n,",
			"Hermite,", "Hermite, // interp\n// another\n",
			"Triangles {", "Triangles // t\n{",
		).Replace(small) + "// trailing comment without newline", 0, ""},
		{"Num counts ignored", strings.Replace(small, "BlendTime 150,", "NumGeosets 1,\n\tNumBones 1,\n\tNumFooBars 9,\n\tBlendTime 150,", 1), 0, ""},
		{"tabs and blank lines", strings.ReplaceAll(small, "\n", "\n\n\t "), 0, ""},
		{"integer as float", strings.Replace(small, "BlendTime 150,", "BlendTime 150.000000,", 1), 0, ""},
		{"missing tangent", strings.Replace(small, "OutTan { 0, 0, 0, 1 },", "", 1), 1, "lacks InTan or OutTan"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := mustRead(t, tc.src)
			if len(got.Warnings) != tc.warnings {
				t.Errorf("warnings = %q, want %d", got.Warnings, tc.warnings)
			}
			if tc.warnLike != "" && !strings.Contains(strings.Join(got.Warnings, "\n"), tc.warnLike) {
				t.Errorf("warnings %q lack %q", got.Warnings, tc.warnLike)
			}
			if tc.name == "missing tangent" {
				return // the zero tangent differs from the baseline by design
			}
			if !equalModels(want, got) {
				diffModels(t, want, got)
			}
		})
	}
}

func TestJunkAllocation(t *testing.T) {
	data := []byte(small + strings.Repeat("Junk 1 Foo Bar { 2 } Baz,\n", 400000))
	alloc, d, err := readMeasured(data)
	if err != nil {
		t.Fatal(err)
	}
	if alloc > uint64(len(data)) {
		t.Errorf("allocated %d bytes for %d input bytes", alloc, len(data))
	}
	t.Logf("%d bytes of junk: alloc %d B, %v", len(data), alloc, d)
}

func TestWarningsCapped(t *testing.T) {
	src := small + strings.Repeat("Junk 1\n", 10000)
	m := mustRead(t, src)
	if len(m.Warnings) != maxWarnings+1 || !strings.Contains(m.Warnings[maxWarnings], "more warnings") {
		t.Errorf("got %d warnings, last %q", len(m.Warnings), m.Warnings[len(m.Warnings)-1])
	}
}

// checkFormatError asserts err is a *codec.FormatError with a line number.
func checkFormatError(t *testing.T, err error) {
	t.Helper()
	var fe *codec.FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v (%T) is not a *codec.FormatError", err, err)
	}
	if fe.Line <= 0 || fe.Format != "mdl" || fe.File != "bad.mdl" {
		t.Errorf("FormatError %+v lacks line, format or file", fe)
	}
}

// readMeasured reads data and returns the error, the bytes allocated and the time taken.
func readMeasured(data []byte) (alloc uint64, d time.Duration, err error) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	_, err = Read("bad.mdl", data)
	d = time.Since(start)
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, d, err
}

func TestBadInput(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	random := make([]byte, 1<<16)
	rng.Read(random)
	idpo := append([]byte("IDPO\x06\x00\x00\x00"), random[:512]...)
	bigDigits := bytes.Repeat([]byte("7"), 100<<20)
	tests := []struct {
		name string
		data []byte
		line int // expected line, or 0 for any
	}{
		{"empty", nil, 1},
		{"only comments", []byte("// nothing\n// here\n"), 0},
		{"unbalanced open", []byte("Version {\n\tFormatVersion 800,\n}\nModel \"x\" {\n\tBlendTime 150,\n"), 0},
		{"unbalanced close", []byte("Version {\n\tFormatVersion 800,\n}\n}\n"), 4},
		{"huge count truncated", []byte("Version { FormatVersion 800 }\nGeoset {\n\tVertices 2147483647 {\n\t\t{ 1, 2, 3 },\n"), 0},
		{"count overflow", []byte("Version { FormatVersion 800 }\nGeoset {\n\tVertices 99999999999 {\n"), 3},
		{"four-vertex face", []byte("Version { FormatVersion 800 }\nGeoset {\n\tFaces 1 4 {\n\t\tTriangles {\n\t\t\t{ 0, 1, 2, 3 },\n\t\t}\n\t}\n}\n"), 4},
		{"index too large", []byte("Version { FormatVersion 800 }\nGeoset {\n\tFaces 1 3 {\n\t\tTriangles {\n\t\t\t{ 0, 1, 65536 },\n\t\t}\n\t}\n}\n"), 5},
		{"non-UTF-8", []byte("Version {\n\tFormatVersion 800,\n}\nModel \xff\xfe {\n}\n"), 4},
		{"control byte", []byte("Version {\n\tFormatVersion 800,\x01\n}\n"), 2},
		{"random bytes", random, 0},
		{"quake IDPO", idpo, 1},
		{"malformed number", []byte("Version {\n\tFormatVersion 8x0,\n}\n"), 2},
		{"malformed float", []byte("Version { FormatVersion 800 }\nModel \"m\" {\n\tBoundsRadius 1.2.3,\n}\n"), 3},
		{"wrong arity", []byte("Version { FormatVersion 800 }\nModel \"m\" {\n\tMinimumExtent { 1, 2 },\n}\n"), 3},
		{"wrong arity in track", []byte("Version { FormatVersion 800 }\nBone \"b\" {\n\tTranslation 1 {\n\t\tLinear,\n\t\t0: { 1, 2 },\n\t}\n}\n"), 5},
		{"vertex group too large", []byte("Version { FormatVersion 800 }\nGeoset {\n\tVertexGroup { 0, 256 }\n}\n"), 3},
		{"unterminated string", []byte("Version { FormatVersion 800 }\nModel \"abc\n}\n"), 2},
		{"number where name expected", []byte("Version { FormatVersion 800 }\nBone \"b\" {\n\tObjectId Foo,\n}\n"), 3},
		{"100 MB line of digits", append([]byte("Version {\n\tFormatVersion "), bigDigits...), 2},
		{"100 MB of digits alone", bigDigits, 1},
		{"10 MB of junk words", bytes.Repeat([]byte("junk "), 2<<20), 1},
		{"10 MB of junk blocks", bytes.Repeat([]byte("Foo \"x\" { a b { 1 } }\n"), 500000), 0},
		{"10 MB of quoted strings on one line", bytes.Repeat([]byte("\"ab\" "), 2<<20), 1},
		{"plain text", []byte("hello world, this is not a model\n"), 0},
		{"plain words", []byte("hello world\nfoo bar\n"), 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			alloc, d, err := readMeasured(tc.data)
			if err == nil {
				t.Fatal("no error")
			}
			checkFormatError(t, err)
			var fe *codec.FormatError
			errors.As(err, &fe)
			if tc.line != 0 && fe.Line != tc.line {
				t.Errorf("line %d, want %d: %v", fe.Line, tc.line, err)
			}
			if limit := uint64(4*len(tc.data) + 64<<10); alloc > limit {
				t.Errorf("allocated %d bytes for %d input bytes", alloc, len(tc.data))
			}
			t.Logf("%v (alloc %d B, %v)", err, alloc, d)
		})
	}
}

func TestTruncated(t *testing.T) {
	full, err := wc3test.MDL(fullModel())
	if err != nil {
		t.Fatal(err)
	}
	fails := 0
	for n := 0; n < len(full); n += 7 {
		m, err := Read("bad.mdl", full[:n])
		if err != nil {
			checkFormatError(t, err)
			fails++
			continue
		}
		if _, err := wc3test.MDL(m); err != nil {
			t.Fatalf("truncated at %d: read ok but Encode failed: %v", n, err)
		}
	}
	if fails == 0 {
		t.Error("no truncation failed")
	}
	// Truncations inside the big geometry lists must fail, with bounded allocation.
	grid, _ := wc3test.MDL(gridModel(1))
	for _, frac := range []int{3, 5, 7} {
		cut := grid[:len(grid)*frac/10]
		alloc, _, err := readMeasured(cut)
		if err == nil {
			t.Fatalf("grid cut at %d/10 read without error", frac)
		}
		checkFormatError(t, err)
		if alloc > uint64(4*len(cut)) {
			t.Errorf("cut grid: allocated %d bytes for %d input bytes", alloc, len(cut))
		}
	}
}

func TestLooks(t *testing.T) {
	tests := []struct {
		name string
		head string
		want bool
	}{
		{"small", small, true},
		{"CRLF", strings.ReplaceAll(small, "\n", "\r\n"), true},
		{"BOM", "\xEF\xBB\xBF" + small, true},
		{"lowercase", "version {\n formatversion 800\n}", true},
		{"only FormatVersion", "Foo { FORMATVERSION 800 }", true},
		{"Version brace on next line", "// c\nVersion\n{\n", true},
		{"comment mentions version", "// Version { FormatVersion 800 }\nModel \"x\" {}", false},
		{"string mentions version", "Model \"Version {\" {}", false},
		{"Version without brace", "Version 3\n", false},
		{"empty", "", false},
		{"quake IDPO", "IDPO\x06\x00\x00\x00\x01\x00", false},
		{"half-life IDST", "IDST\x0a\x00\x00\x00Version {", false},
		{"MDX", "MDLXVERS\x04\x00\x00\x00\x20\x03\x00\x00", false},
		{"binary garbage", "\x00\x01\x02\x03Version {", false},
		{"json", `{"version": 800}`, false},
		{"obj", "# obj\nv 1 2 3\nf 1 2 3\n", false},
	}
	for _, tc := range tests {
		if got := Looks([]byte(tc.head)); got != tc.want {
			t.Errorf("%s: Looks = %v, want %v", tc.name, got, tc.want)
		}
	}
	if Looks(append(bytes.Repeat([]byte("// pad\n"), 600), "Version {"...)) {
		t.Error("Looks must only examine the first 4 KiB")
	}
}

func TestEncodeErrors(t *testing.T) {
	bad := []func(m *wc3.Model){
		func(m *wc3.Model) { m.Name = `a"b` },
		func(m *wc3.Model) { m.Geosets[0].FaceTypes[0] = 5 },
		func(m *wc3.Model) { m.Geosets[0].FaceCounts[0] = 5 },
		func(m *wc3.Model) { m.Geosets[0].GroupSizes[0] = 7 },
		func(m *wc3.Model) { m.Bones[1].Translation.Values = m.Bones[1].Translation.Values[:2] },
		func(m *wc3.Model) { m.Bones[1].Translation.Width = 4 },
		func(m *wc3.Model) { m.Bones[1].Translation.InTans = nil },
		func(m *wc3.Model) { m.Bones[1].Rotation.Interp = 9 },
	}
	for i, f := range bad {
		m := fullModel()
		f(m)
		if _, err := wc3test.MDL(m); err == nil {
			t.Errorf("case %d: Encode accepted an inexpressible model", i)
		}
	}
	if _, err := wc3test.MDL(nil); err == nil {
		t.Error("wc3test.MDL(nil) succeeded")
	}
}

func TestParseFloat32(t *testing.T) {
	for _, s := range []string{"0", "-0", "1", "150", "240.000000", "0.5", "-1.5e-05", "1e-004", "3.4028235e+38",
		"1e39", "-77.08765410471244", "0.1", "16777217", "1234567.8", ".5", "5.", "+3", "0.0000000001",
		"0.00000000001", "9999999", "16777215", "16777216", "1.0000001", "0.30000001"} {
		got, ok := parseFloat32([]byte(s))
		want, err := parseFloatRef(s)
		if !ok || (err == nil && got != want) {
			t.Errorf("parseFloat32(%q) = %v, %v; want %v", s, got, ok, want)
		}
	}
	for _, s := range []string{"", "-", "1x", "1..2", "0x10", "1_0", "--1", "e5"} {
		if _, ok := parseFloat32([]byte(s)); ok {
			t.Errorf("parseFloat32(%q) accepted", s)
		}
	}
	if v, ok := parseFloat32([]byte("-1.#INF")); !ok || v > -1e38 {
		t.Errorf("-1.#INF = %v", v)
	}
	if v, ok := parseFloat32([]byte("1.#QNAN")); !ok || v == v {
		t.Errorf("1.#QNAN = %v", v)
	}
}

// TestParseFloat32Random compares the fast path with strconv on many short decimals.
func TestParseFloat32Random(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for i := 0; i < 200000; i++ {
		digits := rng.Intn(18) + 1
		var b []byte
		if rng.Intn(2) == 0 {
			b = append(b, '-')
		}
		dot := rng.Intn(digits + 1)
		for d := 0; d < digits; d++ {
			if d == dot {
				b = append(b, '.')
			}
			b = append(b, byte('0'+rng.Intn(10)))
		}
		if rng.Intn(3) == 0 {
			b = append(b, 'e')
			b = strconv.AppendInt(b, int64(rng.Intn(90)-45), 10)
		}
		got, ok := parseFloat32(b)
		want, err := parseFloatRef(string(b))
		if !ok || math.Float32bits(got) != math.Float32bits(want) && err == nil {
			t.Fatalf("parseFloat32(%q) = %v; want %v (%v)", b, got, want, err)
		}
	}
	// Shortest forms of random float32 bit patterns, as Encode writes them.
	for i := 0; i < 200000; i++ {
		v := math.Float32frombits(rng.Uint32())
		if v != v || math.IsInf(float64(v), 0) {
			continue
		}
		s := strconv.FormatFloat(float64(v), 'g', -1, 32)
		got, ok := parseFloat32([]byte(s))
		if !ok || math.Float32bits(got) != math.Float32bits(v) {
			t.Fatalf("parseFloat32(%q) = %v, want %v", s, got, v)
		}
	}
}

func TestReadRegistered(t *testing.T) {
	found := false
	for _, f := range codec.Formats() {
		if f.Name == "mdl" {
			found = f.Match([]byte(small)) && len(f.Exts) == 1 && f.Exts[0] == ".mdl"
		}
	}
	if !found {
		t.Error("mdl format not registered or not matching")
	}
}

// Every keyword has a spelling no other keyword shares, and keyword finds it in any case.
func TestKeywordTable(t *testing.T) {
	for k := kwUnknown + 1; k <= kwStatic; k++ {
		name := keywordNames[k]
		if name == "" {
			t.Fatalf("keyword %d has no spelling", k)
		}
		for _, s := range []string{name, strings.ToUpper(name), strings.ToLower(name)} {
			if got := keyword([]byte(s)); got != k {
				t.Errorf("keyword(%q) = %d, want %d", s, got, k)
			}
		}
	}
	if len(keywordNames) != int(kwStatic)+1 {
		t.Errorf("%d spellings for %d keywords", len(keywordNames), kwStatic)
	}
	for _, s := range []string{"", "Bones", "Versions", strings.Repeat("a", 30)} {
		if k := keyword([]byte(s)); k != kwUnknown {
			t.Errorf("keyword(%q) = %d, want unknown", s, k)
		}
	}
}

// Every top-level keyword is read by file: none falls to its safety net.
func TestTopLevelBlocksRead(t *testing.T) {
	for k := kwVersion; k <= kwCollisionShape; k++ {
		src := "Version { FormatVersion 800, }\n" + keywordNames[k] + " {\n}\n"
		m, err := Read("x.mdl", []byte(src))
		if err != nil {
			continue // a block that needs content may refuse an empty body; it was read
		}
		for _, w := range m.Warnings {
			if strings.Contains(w, "unknown block") {
				t.Errorf("%s: %s", keywordNames[k], w)
			}
		}
	}
}

// TestReforged reads the Reforged fields the MDL reader knows: the material's shader name and
// the geoset's level of detail, name, tangents and skin weights (flat, and braced per vertex).
func TestReforged(t *testing.T) {
	src := strings.NewReplacer(
		"FormatVersion 800,", "FormatVersion 1000,",
		"MaterialID 0,", `MaterialID 0,
	LevelOfDetail 0,
	Name "Body",
	Tangents 2 {
		{ 1, 0, 0, 1 },
		{ 0, 1, 0, -1 },
	}
	SkinWeights 2 {
		0, 1, 0, 0, 200, 55, 0, 0,
		{ 3, 0, 0, 0, 255, 0, 0, 0 },
	}`,
	).Replace(small) + `Materials 1 {
	Material {
		Shader "Shader_HD_DefaultUnit",
		Layer {
			FilterMode None,
			static TextureID 0,
		}
	}
}
`
	m := mustRead(t, src)
	if len(m.Warnings) != 0 {
		t.Errorf("warnings %q", m.Warnings)
	}
	g := m.Geosets[0]
	if g.LOD != 0 || g.Name != "Body" || !reflect.DeepEqual(g.Tangents, [][4]float32{{1, 0, 0, 1}, {0, 1, 0, -1}}) ||
		!reflect.DeepEqual(g.Skin, []uint8{0, 1, 0, 0, 200, 55, 0, 0, 3, 0, 0, 0, 255, 0, 0, 0}) {
		t.Errorf("geoset %+v", g)
	}
	if m.Version != 1000 || len(m.Materials) != 1 || m.Materials[0].Shader != "Shader_HD_DefaultUnit" {
		t.Errorf("version %d, materials %+v", m.Version, m.Materials)
	}
	for _, bad := range []string{"SkinWeights 1 { 1, 2, 3 }", "SkinWeights 1 { { 1, 2, 3, 4, 5, 6, 7, 300 } }", "SkinWeights 1 { { 1, Foo } }"} {
		if _, err := Read("bad.mdl", []byte(strings.Replace(small, "MaterialID 0,", bad+"\n\tMaterialID 0,", 1))); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}
