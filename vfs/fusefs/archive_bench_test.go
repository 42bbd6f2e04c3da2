//go:build linux

package fusefs

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/modelfs/modelfs/internal/mpq/mpqtest"
	"github.com/modelfs/modelfs/vfs"
)

// tailRead opens p, drops its cached pages, reads 4 KiB at off and closes it.
func tailRead(b *testing.B, p string, buf []byte, off int64) time.Duration {
	start := time.Now()
	f, err := os.Open(p)
	if err != nil {
		b.Fatal(err)
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		b.Fatal(err)
	}
	if _, err := f.ReadAt(buf, off); err != nil {
		b.Fatal(err)
	}
	f.Close()
	return time.Since(start)
}

// BenchmarkArchiveTailRead reads the last 4 KiB of a 50 MB compressed archive member through
// the mount, page cache dropped each time, against the same 4 KiB of the extracted file through
// the mount. Target: ratio (member / extracted) ≤ 2.
func BenchmarkArchiveTailRead(b *testing.B) {
	const size = 50 << 20
	data := make([]byte, size)
	for i := range data { // compresses about 3:1, as model data does
		data[i] = byte(i*i>>7) & 0x3F
	}
	src := b.TempDir()
	if err := os.WriteFile(filepath.Join(src, "Big.bin"), data, 0o644); err != nil {
		b.Fatal(err)
	}
	arc := mpqtest.Archive{Members: []mpqtest.Member{{Name: "Big.bin", Data: data, Zlib: true}}}.Bytes()
	if err := os.WriteFile(filepath.Join(src, "Big.mpq"), arc, 0o644); err != nil {
		b.Fatal(err)
	}
	srv := mountB(b, src, vfs.Options{})
	member := filepath.Join(srv.mnt, "Big.mpq", "Big.bin")
	plain := filepath.Join(srv.mnt, "Big.bin")
	buf := make([]byte, 4096)
	off := int64(size - len(buf))
	tailRead(b, member, buf, off) // open the archive once: the mount keeps it
	tailRead(b, plain, buf, off)
	var t [2]time.Duration
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			t[0] += tailRead(b, member, buf, off)
			t[1] += tailRead(b, plain, buf, off)
		} else {
			t[1] += tailRead(b, plain, buf, off)
			t[0] += tailRead(b, member, buf, off)
		}
		i++
	}
	b.ReportMetric(float64(t[0].Microseconds())/float64(i), "member-µs")
	b.ReportMetric(float64(t[1].Microseconds())/float64(i), "extracted-µs")
	b.ReportMetric(t[0].Seconds()/t[1].Seconds(), "ratio")
}
