package mpq_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/modelfs/modelfs/internal/mpq"
	"github.com/modelfs/modelfs/internal/mpq/mpqtest"
	"github.com/modelfs/modelfs/internal/testkit/stormlib"
)

// mapBytes makes a Warcraft III map: the map's 512-byte header ("HM3W", four zero bytes),
// then the archive at prefix.
func mapBytes(ar mpqtest.Archive, prefix int) []byte {
	ar.Prefix = prefix
	b := ar.Bytes()
	copy(b, "HM3W\x00\x00\x00\x00")
	return b
}

// TestProtectedMaps reads maps protected the ways real ones are — headers that lie about
// their version and size, decoy headers, fake user data, tables whose counts lie, flags the
// game ignores, members with no name — and compares every listing and member with StormLib's.
func TestProtectedMaps(t *testing.T) {
	ms := members(mpqtest.Member{Zlib: true})
	put := func(b []byte, off int, v uint32) { binary.LittleEndian.PutUint32(b[off:], v) }
	cases := map[string][]byte{}

	b := mapBytes(mpqtest.Archive{Format: 2, Members: ms}, 512)
	binary.LittleEndian.PutUint16(b[512+12:], 7) // version 8
	put(b, 512+4, 0x1234)                        // header size
	put(b, 512+8, 0xDEADBEEF)                    // archive size
	cases["bogus version and sizes"] = b

	b = mapBytes(mpqtest.Archive{Members: ms}, 1024)
	copy(b[512:], "MPQ\x1a")
	put(b, 512+4, 0x20)
	put(b, 512+16, 0x7FFFFFF0) // tables past the end: a decoy
	put(b, 512+20, 0x7FFFFFF0)
	cases["decoy header, archive at 1024"] = b

	b = mapBytes(mpqtest.Archive{Members: ms}, 1024)
	copy(b[512:], "MPQ\x1b")
	put(b, 512+8, 4096) // user data naming a header that is not there
	cases["fake user data"] = b

	b = mapBytes(mpqtest.Archive{Members: ms}, 512)
	put(b, 512+28, 0x319601|0x70000000) // a block count far past the end, high bits set
	cases["block count that lies"] = b

	cases["single-unit flag on sectors"] = mapBytes(mpqtest.Archive{Members: ms, Tamper: func(bs []mpqtest.Block) {
		for i := range bs {
			bs[i].Flags |= 0x01000000
		}
	}}, 512)

	cases["no listfile"] = mapBytes(mpqtest.Archive{Members: ms, NoListfile: true}, 512)

	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "map.w3x")
			if err := os.WriteFile(file, data, 0o644); err != nil {
				t.Fatal(err)
			}
			a, err := mpq.Open(bytes.NewReader(data), int64(len(data)), mpq.Options{Name: "map.w3x"})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range a.Warnings() {
				t.Log("warning:", w)
			}
			got := a.Members()
			slices.Sort(got)
			if _, err := stormlib.Try(t, ".", "-l", "-n", file); err != nil {
				// StormLib 9.22 takes the decoy for the header (its later versions skip
				// decoys whose tables lie past the end, as this reader does): the members
				// written are the reference.
				t.Logf("StormLib cannot open it: %v", err)
				for _, m := range ms {
					p := string(bytes.ReplaceAll([]byte(m.Name), []byte("\\"), []byte("/")))
					if b, err := fs.ReadFile(a, p); err != nil || !bytes.Equal(b, m.Data) {
						t.Errorf("%s: %v", p, err)
					}
				}
				return
			}
			sameAsStormLib(t, a, file, "-n") // -n: no system listfiles
		})
	}
}

// TestUnnamedMembers checks the names of members no name reaches: File%08d by block, the
// extension sniffed from the first bytes, as StormLib lists them.
func TestUnnamedMembers(t *testing.T) {
	ms := []mpqtest.Member{
		{Name: "a.txt", Data: content(1, 5000), Zlib: true},
		{Name: "b.blp", Data: append([]byte("BLP2\x01\x00\x00\x00"), content(2, 200)...), Zlib: true},
		{Name: "c.mdx", Data: append([]byte("MDLX"), content(3, 50)...)},
		{Name: "d.bin", Data: []byte("short")},
		{Name: "e.wav", Data: append([]byte("RIFF"), content(4, 100)...), Encrypt: true, Zlib: true},
	}
	data := mpqtest.Archive{Members: ms, NoListfile: true}.Bytes()
	file := filepath.Join(t.TempDir(), "x.mpq")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	a := openFile(t, file, mpq.Options{})
	got, want := a.Members(), stormlib.List(t, file, "-n")
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("members differ from smpq -l:\n got %q\nwant %q", got, want)
	}
	for i, m := range ms {
		name := fmt.Sprintf("File%08d", i)
		var found string
		for _, g := range got {
			if len(g) > len(name) && g[:len(name)] == name {
				found = g
			}
		}
		if b, err := fs.ReadFile(a, found); err != nil || !bytes.Equal(b, m.Data) {
			t.Errorf("%s (%s): %v", found, m.Name, err)
		}
	}
}
