package mpq_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ulikunitz/xz/lzma"

	"github.com/modelfs/modelfs/internal/mpq"
	"github.com/modelfs/modelfs/internal/mpq/mpqtest"
)

// content makes n deterministic bytes: text that compresses, with a stretch of noise that
// does not, so that archives hold both compressed and stored sectors.
func content(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	var b bytes.Buffer
	for b.Len() < n {
		if r.IntN(4) == 0 {
			for k := 0; k < 300; k++ {
				b.WriteByte(byte(r.Uint32()))
			}
		} else {
			fmt.Fprintf(&b, "line %d of member %d\n", b.Len(), seed)
		}
	}
	return b.Bytes()[:n]
}

// sizes cover empty, tiny, sector edges and several sectors.
var sizes = []int{0, 1, 100, 4095, 4096, 4097, 20000}

func members(opts mpqtest.Member) []mpqtest.Member {
	var ms []mpqtest.Member
	for i, n := range sizes {
		m := opts
		m.Name = fmt.Sprintf("Dir%d\\Sub\\file%d.bin", i%2, i)
		m.Data = content(uint64(i), n)
		ms = append(ms, m)
	}
	return ms
}

// TestWrittenArchives reads back archives of every format and storage the test writer makes,
// and compares each with what StormLib extracts.
func TestWrittenArchives(t *testing.T) {
	storages := map[string]mpqtest.Member{
		"plain":          {},
		"zlib":           {Zlib: true},
		"zlib-crc":       {Zlib: true, SectorCRC: true},
		"encrypted":      {Encrypt: true},
		"zlib-encrypted": {Zlib: true, Encrypt: true},
		"zlib-fixkey":    {Zlib: true, Encrypt: true, FixKey: true},
		"single":         {SingleUnit: true},
		"single-zlib":    {SingleUnit: true, Zlib: true},
	}
	for format := 1; format <= 4; format++ {
		for _, name := range slices.Sorted(func(yield func(string) bool) {
			for k := range storages {
				if !yield(k) {
					return
				}
			}
		}) {
			for _, listed := range []bool{true, false} {
				label := fmt.Sprintf("v%d-%s", format, name)
				if !listed {
					label += "-nolist"
				}
				t.Run(label, func(t *testing.T) {
					ms := members(storages[name])
					ar := mpqtest.Archive{Format: format, Members: ms, NoListfile: !listed}
					checkWritten(t, ar, ms, listed)
				})
			}
		}
	}
	t.Run("map-prefix", func(t *testing.T) {
		ms := members(mpqtest.Member{Zlib: true})
		checkWritten(t, mpqtest.Archive{Prefix: 512, Members: ms}, ms, true)
	})
	t.Run("user-data", func(t *testing.T) {
		ms := members(mpqtest.Member{Zlib: true})
		checkWritten(t, mpqtest.Archive{Format: 2, UserData: true, Members: ms}, ms, true)
	})
	t.Run("sector-64k", func(t *testing.T) {
		ms := members(mpqtest.Member{Zlib: true})
		checkWritten(t, mpqtest.Archive{SectorShift: 7, Members: ms}, ms, true)
	})
}

func checkWritten(t *testing.T, ar mpqtest.Archive, ms []mpqtest.Member, listed bool) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "test.mpq")
	if err := os.WriteFile(file, ar.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var opts mpq.Options
	if !listed {
		var names []string
		for _, m := range ms {
			names = append(names, m.Name)
		}
		opts.ListFiles = [][]byte{[]byte(strings.Join(names, "\n"))}
	}
	a := openFile(t, file, opts)
	for _, w := range a.Warnings() {
		t.Error("warning:", w)
	}
	for _, m := range ms {
		if m.DeleteMarker {
			continue
		}
		p := strings.ReplaceAll(m.Name, "\\", "/")
		b, err := fs.ReadFile(a, p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if !bytes.Equal(b, m.Data) {
			t.Errorf("%s: read %d bytes, differing from the %d written", p, len(b), len(m.Data))
		}
	}
	// StormLib's view of the same archive, with the names given as a listfile when the
	// archive has none.
	var extra []string
	if !listed {
		lf := filepath.Join(t.TempDir(), "names.txt")
		var names []string
		for _, m := range ms {
			names = append(names, m.Name)
		}
		os.WriteFile(lf, []byte(strings.Join(names, "\r\n")), 0o644)
		extra = []string{"-L", lf}
	}
	sameAsStormLib(t, a, file, extra...)
}

// bzip2 compresses with the bzip2 program (Go has no bzip2 writer).
func bzip2(t *testing.T) func([]byte) []byte {
	path, err := exec.LookPath("bzip2")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("bzip2: %v (CI needs it: apt-get install bzip2)", err)
		}
		t.Skip("bzip2 not found")
	}
	return func(b []byte) []byte {
		cmd := exec.Command(path, "-9", "-c")
		cmd.Stdin = bytes.NewReader(b)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
}

// lzmaSector stores a sector as LZMA does in MPQ: 0x12, a filter byte of 0, the LZMA
// properties, the size (8 bytes) and the stream.
func lzmaSector(t *testing.T) func([]byte) []byte {
	return func(b []byte) []byte {
		var buf bytes.Buffer
		w, err := lzma.WriterConfig{Size: int64(len(b)), EOSMarker: false}.NewWriter(&buf)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return append([]byte{0x12, 0x00}, buf.Bytes()...) // the classic header: properties, size
	}
}

// TestWrittenCompressions writes each compression this writer can make, and the combinations
// with sparse coding, in each format, and reads them back (and through StormLib).
func TestWrittenCompressions(t *testing.T) {
	bz := bzip2(t)
	methods := map[string]func([]byte) []byte{
		"zlib":        mpqtest.Zlib,
		"sparse":      mpqtest.Sparse,
		"sparse+zlib": mpqtest.SparseZlib,
		"bzip2":       func(b []byte) []byte { return append([]byte{0x10}, bz(b)...) },
		"sparse+bzip2": func(b []byte) []byte {
			s := mpqtest.Sparse(b)[1:]
			return append([]byte{0x30}, bz(s)...)
		},
		"lzma": lzmaSector(t),
	}
	for _, name := range slices.Sorted(maps.Keys(methods)) {
		for format := 1; format <= 4; format++ {
			if name == "lzma" && format == 1 {
				continue // LZMA came with format 2 (StarCraft II); StormLib's format-1 path asserts on it
			}
			t.Run(fmt.Sprintf("v%d-%s", format, name), func(t *testing.T) {
				var ms []mpqtest.Member
				for i, n := range sizes {
					data := content(uint64(i), n)
					for k := 0; k < len(data); k += 700 { // runs of zeros for the sparse coding
						clear(data[k:min(k+200, len(data))])
					}
					ms = append(ms, mpqtest.Member{Name: fmt.Sprintf("d\\f%d.bin", i), Data: data, Zlib: true, Compress: methods[name], Encrypt: i%2 == 1})
				}
				checkWritten(t, mpqtest.Archive{Format: format, Members: ms}, ms, true)
			})
		}
	}
}

// TestWrittenHETBET reads archives with HET and BET tables, beside the hash and block tables
// and in their place (then they are all there is to read), and compares them with StormLib.
func TestWrittenHETBET(t *testing.T) {
	for format := 3; format <= 4; format++ {
		for _, only := range []bool{false, true} {
			for _, st := range []mpqtest.Member{{}, {Zlib: true, Encrypt: true, FixKey: true}, {SingleUnit: true, Zlib: true}} {
				t.Run(fmt.Sprintf("v%d-only%v-%+v", format, only, st), func(t *testing.T) {
					ms := members(st)
					ms = append(ms, mpqtest.Member{Name: "gone.txt", DeleteMarker: true})
					ar := mpqtest.Archive{Format: format, Members: ms, HETBET: true, NoClassic: only}
					a, err := mpq.Open(bytes.NewReader(ar.Bytes()), int64(len(ar.Bytes())), mpq.Options{Name: "t.mpq"})
					if err != nil {
						t.Fatal(err)
					}
					if fi, err := fs.Stat(a, "gone.txt"); err != nil || fi.Size() != 0 {
						t.Errorf("a deletion marker is not listed as an empty file, as StormLib lists it: %v", err)
					}
					checkWritten(t, ar, ms, true)
				})
			}
		}
	}
}
