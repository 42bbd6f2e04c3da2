package zipfs_test

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io/fs"
	"runtime"
	"testing"

	"github.com/modelfs/modelfs/internal/archive"
)

// manyMembers is a zip of n empty members in folders of 1,000, as archive/zip writes it.
func manyMembers(b *testing.B, n int) []byte {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for i := range n {
		if _, err := w.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("Units/F%04d/M%07d.mdx", i/1000, i), Method: zip.Store}); err != nil {
			b.Fatal(err)
		}
	}
	w.Close()
	return buf.Bytes()
}

// BenchmarkOpenMany opens a zip of a million members and lists every folder of it, reporting
// the memory the archive holds afterwards per member.
func BenchmarkOpenMany(b *testing.B) {
	data := manyMembers(b, 1000000)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		a, err := archive.Open(bytes.NewReader(data), int64(len(data)), archive.Options{Name: "many.zip"})
		if err != nil {
			b.Fatal(err)
		}
		members := 0
		fs.WalkDir(a, ".", func(_ string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				members++
			}
			return nil
		})
		runtime.GC()
		runtime.ReadMemStats(&after)
		if members != 1000000 {
			b.Fatalf("%d members", members)
		}
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/1e6, "MB-held")
		runtime.KeepAlive(a)
	}
}

// BenchmarkDeepNames opens a zip of two members whose names are 64 KiB of folders in upper
// case, lists its top and finds one in lower case.
func BenchmarkDeepNames(b *testing.B) {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, name := range []string{bytesRepeat("A/", 32768)[:65535], bytesRepeat("B/", 32768)[:65534] + "C"} {
		if _, err := w.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store}); err != nil {
			b.Fatal(err)
		}
	}
	w.Close()
	data := buf.Bytes()
	for b.Loop() {
		a, err := archive.Open(bytes.NewReader(data), int64(len(data)), archive.Options{Name: "deep.zip"})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := fs.ReadDir(a, "."); err != nil {
			b.Fatal(err)
		}
		if _, ok := a.FindFold(bytesRepeat("b/", 32768)[:65534] + "c"); !ok {
			b.Fatal("not found")
		}
	}
}

func bytesRepeat(s string, n int) string { return string(bytes.Repeat([]byte(s), n)) }
