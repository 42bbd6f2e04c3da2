package mpq_test

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io/fs"
	"runtime"
	"strings"
	"testing"

	"github.com/modelfs/modelfs/internal/mpq"
	"github.com/modelfs/modelfs/internal/mpq/mpqtest"
)

// badAdler zlib-compresses a sector and spoils the stream's Adler-32: what a map's listfile
// sector was seen to hold, which the game and StormLib read.
func badAdler(sector []byte) []byte {
	var b bytes.Buffer
	b.WriteByte(0x02) // zlib
	w := zlib.NewWriter(&b)
	w.Write(sector)
	w.Close()
	out := b.Bytes()
	out[len(out)-1] ^= 0xff
	return out
}

// A zlib sector whose checksum alone is wrong is taken, with a note: a member, and the
// listfile, whose names all come through.
func TestZlibChecksumTolerated(t *testing.T) {
	data := bytes.Repeat([]byte("a model's bytes "), 2000) // several sectors
	var list strings.Builder
	for i := range 395 {
		fmt.Fprintf(&list, "Units\\Unit%03d.mdx\r\n", i)
	}
	members := []mpqtest.Member{
		{Name: "(listfile)", Data: []byte(list.String()), Zlib: true, Compress: badAdler},
		{Name: "Units\\Bad.mdx", Data: data, Zlib: true, Compress: badAdler},
	}
	for i := range 395 {
		members = append(members, mpqtest.Member{Name: fmt.Sprintf("Units\\Unit%03d.mdx", i), Data: []byte{byte(i)}})
	}
	// Bad.mdx is not in the listfile: name it through another list.
	arc := mpqtest.Archive{NoListfile: true, Members: members}.Bytes()
	var notes []error
	a, err := mpq.Open(bytes.NewReader(arc), int64(len(arc)), mpq.Options{Name: "in.w3x", Warn: func(err error) { notes = append(notes, err) },
		ListFiles: [][]byte{[]byte("Units\\Bad.mdx")}})
	if err != nil {
		t.Fatal(err)
	}
	ents, err := fs.ReadDir(a, "Units")
	if err != nil || len(ents) != 396 {
		t.Fatalf("%d members listed (%v), want the 395 of the listfile and Bad.mdx", len(ents), err)
	}
	if len(a.Warnings()) == 0 || !strings.Contains(fmt.Sprint(a.Warnings()), "checksum") {
		t.Errorf("the listfile's bad checksum is not among the warnings: %v", a.Warnings())
	}
	for range 2 {
		got, err := fs.ReadFile(a, "Units/Bad.mdx")
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("Bad.mdx: %d bytes, %v", len(got), err)
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0].Error(), "Bad.mdx") {
		t.Errorf("notes %v, want one naming Bad.mdx", notes)
	}
	// A checksum is no excuse for a stream that does not come out at the sector's size.
	short := func(sector []byte) []byte { return badAdler(sector[:len(sector)/2]) }
	arc = mpqtest.Archive{Members: []mpqtest.Member{{Name: "x.mdx", Data: data, Zlib: true, Compress: short}}}.Bytes()
	a, err = mpq.Open(bytes.NewReader(arc), int64(len(arc)), mpq.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fs.ReadFile(a, "x.mdx"); err == nil {
		t.Error("a short sector with a bad checksum was taken")
	}
}

// A listfile of a million names in a small archive costs memory for what the archive holds,
// not for the names: they are read up to a bound, with a warning. Opening it allocates about
// what a listfile of a tenth of the names does.
func TestHugeListfile(t *testing.T) {
	open := func(names int) (uint64, *mpq.Archive) {
		var list bytes.Buffer
		for i := range 10 {
			fmt.Fprintf(&list, "Units\\Real%d.mdx\n", i)
		}
		for i := range names {
			fmt.Fprintf(&list, "Nothing\\Here\\name%07d.blp\n", i)
		}
		members := []mpqtest.Member{{Name: "(listfile)", Data: list.Bytes(), Zlib: true}}
		for i := range 10 {
			members = append(members, mpqtest.Member{Name: fmt.Sprintf("Units\\Real%d.mdx", i), Data: []byte("x")})
		}
		arc := mpqtest.Archive{NoListfile: true, Members: members}.Bytes()
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		a, err := mpq.Open(bytes.NewReader(arc), int64(len(arc)), mpq.Options{Name: "big.mpq"})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if ents, err := fs.ReadDir(a, "Units"); err != nil || len(ents) != 10 {
			t.Errorf("%d names: %d members, %v", names, len(ents), err)
		}
		return after.TotalAlloc - before.TotalAlloc, a
	}
	small, _ := open(100000)
	big, a := open(1000000)
	t.Logf("opening allocated %d MiB for a listfile of 100,000 names, %d MiB for 1,000,000", small>>20, big>>20)
	if big > 2*small {
		t.Errorf("a listfile ten times longer cost %.1f times the memory", float64(big)/float64(small))
	}
	if !strings.Contains(fmt.Sprint(a.Warnings()), "not read") {
		t.Errorf("no warning says the listfile was cut: %v", a.Warnings())
	}
}

// A member whose name holds a NUL is shown with a substitute that looks up too.
func TestNulInName(t *testing.T) {
	arc := mpqtest.Archive{Members: []mpqtest.Member{{Name: "Units\\a\x00b.txt", Data: []byte("member")}}}.Bytes()
	a, err := mpq.Open(bytes.NewReader(arc), int64(len(arc)), mpq.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ents, err := fs.ReadDir(a, "Units")
	if err != nil || len(ents) != 1 || ents[0].Name() != "a\u2400b.txt" {
		t.Fatalf("listing %v, %v", ents, err)
	}
	if b, err := fs.ReadFile(a, "Units/"+ents[0].Name()); err != nil || string(b) != "member" {
		t.Errorf("read by the name shown: %q, %v", b, err)
	}
	if _, err := fs.Stat(a, "Units/a\u2400B.TXT"); err != nil {
		t.Errorf("looked up ignoring case: %v", err)
	}
}

// A member whose name is not UTF-8 (a map made under a Windows code page) is shown, each byte
// as its Latin-1 character, and reads by that name; StormLib lists it too.
func TestNameNotUTF8(t *testing.T) {
	arc := mpqtest.Archive{Members: []mpqtest.Member{{Name: "Units\\P\xe9on.mdx", Data: []byte("member")}}}.Bytes()
	a, err := mpq.Open(bytes.NewReader(arc), int64(len(arc)), mpq.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ents, err := fs.ReadDir(a, "Units")
	if err != nil || len(ents) != 1 || ents[0].Name() != "Péon.mdx" {
		t.Fatalf("listing %v, %v; warnings %v", ents, err, a.Warnings())
	}
	if b, err := fs.ReadFile(a, "Units/Péon.mdx"); err != nil || string(b) != "member" {
		t.Errorf("read by the name shown: %q, %v", b, err)
	}
}
