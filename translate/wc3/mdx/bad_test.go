package mdx

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/wc3"
	"github.com/modelfs/modelfs/translate/wc3/wc3test"
)

// allocLimit is how many bytes Read may allocate for an input of n bytes.
func allocLimit(n int) uint64 { return 16*uint64(n) + 64<<10 }

// readMeasured runs Read on data, recovering panics, and returns the error, the bytes
// allocated and the time taken.
func readMeasured(t *testing.T, data []byte) (alloc uint64, took time.Duration, err error) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("Read panicked on %d bytes: %v", len(data), p)
			}
		}()
		_, err = Read("bad.mdx", data)
	}()
	took = time.Since(start)
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, took, err
}

// mustFail checks that Read rejects data with a FormatError at an offset inside the input,
// quickly and without allocating much.
func mustFail(t *testing.T, what string, data []byte) {
	t.Helper()
	alloc, _, err := readMeasured(t, data)
	var fe *codec.FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("%s: got %v, want a *codec.FormatError", what, err)
	}
	if fe.Format != "mdx" || fe.File != "bad.mdx" || fe.Offset < 0 || fe.Offset > int64(len(data)) {
		t.Fatalf("%s: bad error fields: %+v", what, fe)
	}
	if alloc > allocLimit(len(data)) {
		t.Fatalf("%s: allocated %d bytes for %d input bytes", what, alloc, len(data))
	}
}

// mayPass checks that Read does not panic or over-allocate; when it succeeds, the model must
// survive Encode and Read unchanged.
func mayPass(t *testing.T, what string, data []byte) bool {
	t.Helper()
	alloc, _, err := readMeasured(t, data)
	if testing.Verbose() && len(data) > 50000 {
		t.Logf("%s: %d input bytes, %d allocated (%.1fx)", what, len(data), alloc, float64(alloc)/float64(len(data)))
	}
	if alloc > allocLimit(len(data)) {
		t.Fatalf("%s: allocated %d bytes for %d input bytes", what, alloc, len(data))
	}
	if err != nil {
		var fe *codec.FormatError
		if !errors.As(err, &fe) {
			t.Fatalf("%s: error %v is not a *codec.FormatError", what, err)
		}
		return false
	}
	checkStable(t, what, data)
	return true
}

// checkStable asserts the fuzz property: a model Read accepts re-encodes and reads back equal.
func checkStable(t testing.TB, what string, data []byte) {
	t.Helper()
	m, err := Read("x.mdx", data)
	if err != nil {
		return
	}
	b, err := wc3test.MDX(m)
	if err != nil {
		t.Fatalf("%s: Encode of an accepted model: %v", what, err)
	}
	m2, err := Read("x.mdx", b)
	if err != nil {
		t.Fatalf("%s: Read(wc3test.MDX(Read(x))): %v", what, err)
	}
	if !equalModels(m, m2) {
		t.Fatalf("%s: Read(wc3test.MDX(Read(x))) != Read(x)", what)
	}
}

type chunkPos struct {
	tag        string
	start, end int // header start, data end
}

func chunks(b []byte) []chunkPos {
	var cs []chunkPos
	for p := 4; p+8 <= len(b); {
		end := p + 8 + int(binary.LittleEndian.Uint32(b[p+4:]))
		cs = append(cs, chunkPos{string(b[p : p+4]), p, end})
		p = end
	}
	return cs
}

func sample(t testing.TB) []byte {
	b, err := wc3test.MDX(wc3test.Sample())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBadInputTable(t *testing.T) {
	good := sample(t)
	big := func(off int, v uint32) []byte { c := bytes.Clone(good); put32(c, off, v); return c }
	geosEnd := 0
	for _, c := range chunks(good) {
		if c.tag == "GEOS" {
			geosEnd = c.end
		}
	}
	var cases, degrade map[string][]byte
	// bad is a case of the value v at off: refused before the end of the geometry, and after
	// it costing what it damages, the rest of the model kept with a warning.
	bad := func(name string, off int, v uint32) {
		if off >= geosEnd {
			degrade[name] = big(off, v)
		} else {
			cases[name] = big(off, v)
		}
	}
	cases = map[string][]byte{
		"empty":                {},
		"short magic":          []byte("MDL"),
		"wrong magic":          []byte("MDLYVERS\x04\x00\x00\x00\x20\x03\x00\x00"),
		"magic only":           []byte("MDLX"),
		"first chunk not VERS": append([]byte("MDLXMODL\x74\x01\x00\x00"), make([]byte, 372)...),
		"VERS only":            good[:16],
		"VERS too small":       []byte("MDLXVERS\x02\x00\x00\x00\x20\x03"),
		"header cut":           good[:20],
		"VERS size 2^31":       big(8, 1<<31),
		"VERS size max":        big(8, 0xFFFFFFFF),
		"MODL size 2^31":       big(20, 1<<31),
		"MODL size max":        big(20, 0xFFFFFFFF),
		"MODL size small":      big(20, 371),
	}
	// After the geometry, a chunk header whose size cannot be right ends the read, keeping what
	// was read, with a warning: the game shows such files.
	degrade = map[string][]byte{
		"unknown chunk huge": append(bytes.Clone(good), "ABCD\xff\xff\xff\xff"...),
		"trailing 3 bytes":   append(bytes.Clone(good), 1, 2, 3),
	}
	for _, c := range chunks(good) {
		// Chunk sizes past the end, huge, and one byte smaller than the contents.
		into := cases
		if c.start >= geosEnd {
			into = degrade
		}
		into[c.tag+" size 2^31"] = big(c.start+4, 1<<31)
		into[c.tag+" size max"] = big(c.start+4, 0xFFFFFFFF)
		into[c.tag+" size past end"] = big(c.start+4, uint32(len(good)-c.start-7))
		if c.tag != "VERS" && c.tag != "MODL" {
			bad(c.tag+" size minus one", c.start+4, uint32(c.end-c.start-9))
		}
	}
	// Every counted array, track key count and object size inside the fixture.
	for _, tag := range []string{"VRTX", "NRMS", "PTYP", "PCNT", "PVTX", "GNDX", "MTGC", "MATS",
		"UVAS", "UVBS", "LAYS", "KEVT", "KGTR", "KGRT", "KGSC", "KMTF", "KMTA", "KTAT", "KTAR",
		"KTAS", "KGAO", "KGAC", "KLAS", "KLAC", "KLAV", "KATV", "KPEE", "KPEV", "KP2S", "KP2V",
		"KRHA", "KRTX", "KRVS", "KCTR", "KCRL", "KTTR"} {
		i := bytes.Index(good, []byte(tag))
		if i < 0 {
			t.Fatalf("fixture lacks %s", tag)
		}
		bad(tag+" count 2^31", i+4, 1<<31)
		bad(tag+" count max", i+4, 0xFFFFFFFF)
		bad(tag+" count 2^28", i+4, 1<<28)
	}
	for _, c := range chunks(good) {
		switch c.tag {
		case "VERS", "MODL", "SEQS", "GLBS", "TEXS", "PIVT":
			continue
		}
		bad(c.tag+" object size 2^31", c.start+8, 1<<31)
		bad(c.tag+" object size max", c.start+8, 0xFFFFFFFF)
		bad(c.tag+" object size 3", c.start+8, 3)
		bad(c.tag+" object size 0", c.start+8, 0)
	}
	// A track with an unknown interpolation, a collision shape of unknown type, a material
	// without LAYS, a geoset with a misplaced tag.
	i := bytes.Index(good, []byte("KGTR"))
	bad("interpolation 7", i+8, 7)
	clid := bytes.Index(good, []byte("CLID")) + 8
	nodeSize := int(binary.LittleEndian.Uint32(good[clid:]))
	bad("collision type 4", clid+nodeSize, 4)
	bad("no LAYS", bytes.Index(good, []byte("LAYS")), 0x4c4c4c4c)
	bad("no NRMS", bytes.Index(good, []byte("NRMS")), 0x4c4c4c4c)
	bad("no UVBS", bytes.Index(good, []byte("UVBS")), 0x4c4c4c4c)

	for name, data := range cases {
		mustFail(t, name, data)
	}
	for name, data := range degrade {
		m, err := Read("bad.mdx", data)
		if err != nil {
			t.Errorf("%s: %v, want what was read before it, with a warning", name, err)
			continue
		}
		if !slices.ContainsFunc(m.Warnings, func(w string) bool { return strings.Contains(w, "ignored") }) {
			t.Errorf("%s: warnings %q, want one saying the rest is ignored", name, m.Warnings)
		}
	}
}

// A tool's chunk before VERS (an INFO chunk naming the writer) is skipped with a warning.
func TestChunkBeforeVERS(t *testing.T) {
	good := sample(t)
	path := `C:\tools\writer\Footman.mdx`
	info := binary.LittleEndian.AppendUint32([]byte("INFO"), uint32(len(path)))
	info = append(info, path...)
	data := append(append(bytes.Clone(good[:4]), info...), good[4:]...)
	m, err := Read("info.mdx", data)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(m.Warnings, func(w string) bool { return strings.Contains(w, "before VERS skipped") }) {
		t.Errorf("warnings %q", m.Warnings)
	}
}

// TestTruncation cuts the fixture at every byte. Cuts before the end of the geometry must fail
// (except exactly at a top-level chunk boundary after MODL, which leaves a well-formed smaller
// model that must read and re-encode to exactly the prefix); cuts inside a later chunk keep
// what came before it, with a warning.
func TestTruncation(t *testing.T) {
	good := sample(t)
	boundary := map[int]bool{}
	for _, c := range chunks(good) {
		boundary[c.end] = true
	}
	modlEnd := chunks(good)[1].end
	geosEnd := 0
	for _, c := range chunks(good) {
		if c.tag == "GEOS" {
			geosEnd = c.end
		}
	}
	for n := 0; n < len(good); n++ {
		prefix := good[:n:n]
		if n < modlEnd || !boundary[n] && n < geosEnd {
			mustFail(t, fmt.Sprintf("cut at %d", n), prefix)
			continue
		}
		if !boundary[n] {
			// Cut inside a chunk after MODL: the chunks before the cut, with a warning.
			if m, err := Read("prefix.mdx", prefix); err != nil || len(m.Warnings) == 0 {
				t.Fatalf("cut at %d: %v, want what came before, with a warning", n, err)
			}
			continue
		}
		m, err := Read("prefix.mdx", prefix)
		if err != nil {
			t.Fatalf("cut at chunk boundary %d: %v", n, err)
		}
		b, err := wc3test.MDX(m)
		if err != nil || !bytes.Equal(b, prefix) {
			t.Fatalf("cut at chunk boundary %d: re-encoding differs (%v)", n, err)
		}
	}
}

// TestInnerTruncation cuts every chunk's contents at every byte while keeping the chunk
// header consistent, so the damage sits inside objects rather than at the end of the file.
func TestInnerTruncation(t *testing.T) {
	good := sample(t)
	failed, passed := 0, 0
	for _, c := range chunks(good) {
		for cut := c.start + 8; cut < c.end; cut++ {
			d := append(bytes.Clone(good[:cut]), good[c.end:]...)
			put32(d, c.start+4, uint32(cut-c.start-8))
			if mayPass(t, fmt.Sprintf("%s cut at %d", c.tag, cut), d) {
				passed++
			} else {
				failed++
			}
		}
	}
	t.Logf("inner cuts: %d rejected, %d accepted (cuts at object or record boundaries)", failed, passed)
	if failed == 0 {
		t.Fatal("no inner cut was rejected")
	}
}

func TestRandomInput(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	good := sample(t)
	for i := 0; i < 2000; i++ {
		n := rng.Intn(4096)
		d := make([]byte, n)
		rng.Read(d)
		switch i % 3 {
		case 1: // valid magic
			copy(d, "MDLX")
		case 2: // valid magic and version
			copy(d, good[:16])
		}
		mustFail(t, fmt.Sprintf("random %d", i), d)
	}
	// Byte flips in the fixture: anything may happen except panics and blow-ups, and what is
	// accepted must be stable.
	for i := 0; i < 3000; i++ {
		d := bytes.Clone(good)
		for j := 0; j <= i%4; j++ {
			d[rng.Intn(len(d))] ^= byte(1 + rng.Intn(255))
		}
		mayPass(t, fmt.Sprintf("flip %d", i), d)
	}
}

// TestAllocWorstCase feeds valid files made of the smallest records that allocate the most
// (empty tracks that replace each other, empty UV sets, empty geosets) and checks the
// allocation bound on them too.
func TestAllocWorstCase(t *testing.T) {
	base, err := wc3test.MDX(&wc3.Model{Version: 800, Helpers: []wc3.Node{{ParentID: -1}},
		Geosets: []wc3.Geoset{{}}})
	if err != nil {
		t.Fatal(err)
	}
	emptyTrack := []byte("KGTR\x00\x00\x00\x00\x01\x00\x00\x00\xff\xff\xff\xff")
	help := bytes.Index(base, []byte("HELP"))
	d := insert(base, help+8+96, bytes.Repeat(emptyTrack, 5000), help+4, help+8)
	if !mayPass(t, "5000 empty tracks", d) {
		t.Fatal("rejected")
	}
	geos := bytes.Index(d, []byte("GEOS"))
	uvas := bytes.Index(d, []byte("UVAS"))
	e := insert(d, uvas+8, bytes.Repeat([]byte("UVBS\x00\x00\x00\x00"), 10000), geos+4, geos+8)
	put32(e, uvas+4, 10000)
	if !mayPass(t, "10000 empty UV sets", e) {
		t.Fatal("rejected")
	}
	rec := d[geos+8 : geos+8+int(get32(d, geos+8))]
	e = insert(d, geos+8, bytes.Repeat(rec, 2000), geos+4)
	if !mayPass(t, "2000 empty geosets", e) {
		t.Fatal("rejected")
	}
}

// TestReforgedDefects damages each part the Reforged versions add and checks that the reader
// names it: as an error where the geometry cannot be read, as a warning after it.
func TestReforgedDefects(t *testing.T) {
	b, err := wc3test.MDX(wc3test.Reforged(1200))
	if err != nil {
		t.Fatal(err)
	}
	at := func(tag string) int {
		i := bytes.Index(b, []byte(tag))
		if i < 0 {
			t.Fatalf("no %s", tag)
		}
		return i
	}
	lay := at("LAYS") + 8 // the first layer
	cases := []struct {
		name   string
		edit   func(c []byte)
		want   string
		isWarn bool
	}{
		{"layer textures", func(c []byte) { put32(c, lay+56, 1<<28) }, "layer: 268435456 textures", false},
		{"geoset chunk", func(c []byte) { copy(c[at("TANG"):], "XXXX") }, `want "TANG", "SKIN" or "UVAS"`, false},
		{"tangent count", func(c []byte) { put32(c, at("TANG")+4, 1<<28) }, "TANG", false},
		{"skin count", func(c []byte) { put32(c, at("SKIN")+4, 1<<30) }, "SKIN", false},
		{"bind poses", func(c []byte) { put32(c, at("BPOS")+8, 1<<20) }, "BPOS: 1048576 matrices", true},
		{"face effects", func(c []byte) { put32(c, at("FAFX")+4, 339) }, "FAFX", true},
	}
	for _, tc := range cases {
		c := bytes.Clone(b)
		tc.edit(c)
		m, err := Read("r.mdx", c)
		switch {
		case tc.isWarn && err != nil:
			t.Errorf("%s: %v, want a warning", tc.name, err)
		case tc.isWarn && !slices.ContainsFunc(m.Warnings, func(w string) bool { return strings.Contains(w, tc.want) }):
			t.Errorf("%s: warnings %q lack %q", tc.name, m.Warnings, tc.want)
		case !tc.isWarn && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want an error naming %q", tc.name, err, tc.want)
		}
	}
}
