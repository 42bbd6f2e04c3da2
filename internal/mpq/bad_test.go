package mpq_test

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io/fs"
	"runtime"
	"strings"
	"testing"

	"github.com/modelfs/modelfs/internal/mpq"
	"github.com/modelfs/modelfs/internal/mpq/mpqtest"
)

// bzip2Bomb is 64 MiB of zeros in 79 bytes of bzip2.
var bzip2Bomb, _ = hex.DecodeString("425a68393141592653590e09e2df015f8e4000c0000008200030804d4642a025a90a8097314159265359bc04b5c300a275c000c0000008200020a40836328a884d2a2a2138bb9229c2848500bb83e8")

func zlibBomb() []byte {
	var b bytes.Buffer
	w, _ := zlib.NewWriterLevel(&b, zlib.BestCompression)
	w.Write(make([]byte, 16<<20))
	w.Close()
	return b.Bytes()
}

// sectored lays out stored bytes as one compressed sector with a sector table.
func sectored(sector []byte) []byte {
	out := binary.LittleEndian.AppendUint32(nil, 8)
	out = binary.LittleEndian.AppendUint32(out, uint32(8+len(sector)))
	return append(out, sector...)
}

func goodMembers() []mpqtest.Member {
	return []mpqtest.Member{
		{Name: "Units\\a.txt", Data: content(1, 9000), Zlib: true},
		{Name: "Units\\b.txt", Data: content(2, 5000), Zlib: true, Encrypt: true},
		{Name: "c.txt", Data: content(3, 300), SingleUnit: true, Zlib: true},
	}
}

// TestBadArchives opens archives broken in every way the tables and members can be: each
// gives an error or a partial listing, whose members read or fail cleanly, without a panic
// and without allocating more than a small multiple of the archive.
func TestBadArchives(t *testing.T) {
	good := mpqtest.Archive{Members: goodMembers()}.Bytes()
	hashPos := int(binary.LittleEndian.Uint32(good[16:]))
	blockPos := int(binary.LittleEndian.Uint32(good[20:]))
	cases := map[string][]byte{}
	for _, cut := range []int{0, 4, 16, 31, 32, 100, hashPos, hashPos + 8, blockPos, blockPos + 20, len(good) - 1} {
		cases[fmt.Sprintf("truncated at %d", cut)] = good[:cut]
	}
	patch := func(name string, off int, v uint32) {
		b := bytes.Clone(good)
		binary.LittleEndian.PutUint32(b[off:], v)
		cases[name] = b
	}
	patch("hash table past the end", 16, uint32(len(good)+4096))
	patch("block table past the end", 20, uint32(len(good)+4096))
	patch("hash table of 2^31 entries", 24, 1<<31)
	patch("block table of 2^31 entries", 28, 1<<31)
	patch("sector shift 0xffff", 14, 0xffff|uint32(binary.LittleEndian.Uint16(good[12:]))<<16>>16)
	tamper := func(name string, f func(b []mpqtest.Block), ms ...mpqtest.Member) {
		if ms == nil {
			ms = goodMembers()
		}
		cases[name] = mpqtest.Archive{Members: ms, Tamper: f}.Bytes()
	}
	tamper("sizes of 2^31", func(b []mpqtest.Block) { b[0].FSize = 1 << 31; b[2].FSize = 1 << 31 })
	tamper("stored sizes of 2^31", func(b []mpqtest.Block) { b[0].CSize = 1 << 31 })
	tamper("data past the end", func(b []mpqtest.Block) { b[1].Pos = 1 << 30 })
	tamper("every flag", func(b []mpqtest.Block) {
		for i := range b {
			b[i].Flags = 0xFFFFFFFF
		}
	})
	tamper("unknown compression", nil, mpqtest.Member{Name: "x.txt", Stored: sectored([]byte{0x04, 1, 2, 3}), Size: 4096, Zlib: true})
	tamper("zlib bomb", nil, mpqtest.Member{Name: "x.txt", Stored: sectored(append([]byte{0x02}, zlibBomb()...)), Size: 4096, Zlib: true})
	tamper("bzip2 bomb", nil, mpqtest.Member{Name: "x.txt", Stored: sectored(append([]byte{0x10}, bzip2Bomb...)), Size: 4096, Zlib: true})
	tamper("single-unit zlib bomb of 2^31", nil, mpqtest.Member{Name: "x.txt", Stored: append([]byte{0x02}, zlibBomb()...), Size: 1 << 31, Zlib: true, SingleUnit: true})
	tamper("single-unit bzip2 bomb", nil, mpqtest.Member{Name: "x.txt", Stored: append([]byte{0x10}, bzip2Bomb...), Size: 60 << 20, Zlib: true, SingleUnit: true})
	tamper("sector table out of order", nil, mpqtest.Member{Name: "x.txt", Stored: []byte{20, 0, 0, 0, 8, 0, 0, 0, 1, 2, 3, 4}, Size: 4096, Zlib: true})

	// HET and BET tables that lie, in archives that have nothing else to read.
	put := func(off int, v uint32) func([]byte) {
		return func(b []byte) { binary.LittleEndian.PutUint32(b[off:], v) }
	}
	extended := map[string]mpqtest.Archive{
		"BET entries of 0 bits":        {TamperBET: put(0x0C, 0)},
		"BET count of 2^31":            {TamperBET: put(0x04, 1<<31)},
		"BET field past its entry":     {TamperBET: put(0x10, 1000)},
		"BET field of 65 bits":         {TamperBET: put(0x24, 65)},
		"BET flags past the end":       {TamperBET: put(0x48, 1<<30)},
		"HET slots past the end":       {TamperHET: put(0x08, 1<<30)},
		"HET index of 40 bits":         {TamperHET: put(0x10, 40)},
		"HET name hash of 4 bits":      {TamperHET: put(0x0C, 4)},
		"HET index table past the end": {TamperHET: put(0x1C, 1<<30)},
	}
	for name, ar := range extended {
		ar.Format, ar.Members, ar.HETBET, ar.NoClassic = 4, goodMembers(), true, true
		cases[name] = ar.Bytes()
		// With no other table to read, each must be refused, naming the table.
		_, err := mpq.Open(bytes.NewReader(cases[name]), int64(len(cases[name])), mpq.Options{Name: "bad.mpq"})
		if table := name[:3]; err == nil || !strings.Contains(err.Error(), table+" table") {
			t.Errorf("%s: open gave %v, want an error naming the %s table", name, err, table)
		}
	}

	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			checkBad(t, data)
			runtime.ReadMemStats(&after)
			// Beyond the decoders' own state, 64 times the archive (what one unit may decode to).
			limit := uint64(8<<20 + 64*len(data)) // bzip2's decoder alone takes up to 7 MiB for a block
			if got := after.TotalAlloc - before.TotalAlloc; got > limit {
				t.Errorf("allocated %d bytes for an archive of %d (limit %d)", got, len(data), limit)
			}
		})
	}
}

// checkBad opens data and reads every member, reporting what fails.
func checkBad(t testing.TB, data []byte) {
	a, err := mpq.Open(bytes.NewReader(data), int64(len(data)), mpq.Options{Name: "bad.mpq"})
	if err != nil {
		t.Logf("open: %v", err)
		return
	}
	for _, w := range a.Warnings() {
		t.Logf("warning: %v", w)
	}
	for _, m := range a.Members() {
		if _, err := fs.ReadFile(a, m); err != nil {
			t.Logf("%s: %v", m, err)
		}
	}
	a.Summary()
}

// FuzzArchive opens archives made by the test writer (small ones, with 512-byte sectors: the
// fuzzer minimises what it finds, slowly for big inputs) and reads every member.
func FuzzArchive(f *testing.F) {
	small := []mpqtest.Member{
		{Name: "Units\\a.txt", Data: content(1, 1200), Zlib: true},
		{Name: "Units\\b.txt", Data: content(2, 700), Zlib: true, Encrypt: true, FixKey: true},
		{Name: "c.txt", Data: content(3, 100), SingleUnit: true, Zlib: true},
		{Name: "d.txt", Data: content(4, 600), Encrypt: true},
		{Name: "e.txt", Data: content(5, 900), Zlib: true, SectorCRC: true},
	}
	f.Add(mpqtest.Archive{TinySectors: true, Members: small}.Bytes())
	f.Add(mpqtest.Archive{Format: 2, TinySectors: true, Members: small, NoListfile: true}.Bytes())
	f.Add(mpqtest.Archive{Format: 4, Prefix: 512, Members: small}.Bytes())
	f.Add(mpqtest.Archive{UserData: true, Members: small[2:3]}.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		checkBad(t, data)
	})
}
