//go:build linux

package fusefs

import (
	"fmt"
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

// BenchmarkArchiveListing is `ls -l` of a folder of n models inside an archive, against the
// same models as plain files, both through one mount: cold (a new mount and cache directory:
// every model translated for its sizes) and after a remount on the same cache directory
// (nothing translated). Target: ratio (archive / plain) near 1 at 1,000 and 10,000 models.
func BenchmarkArchiveListing(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			src := listTree(b, n)
			var ms []mpqtest.Member
			ents, err := os.ReadDir(filepath.Join(src, "Units"))
			if err != nil {
				b.Fatal(err)
			}
			for _, e := range ents {
				data, err := os.ReadFile(filepath.Join(src, "Units", e.Name()))
				if err != nil {
					b.Fatal(err)
				}
				ms = append(ms, mpqtest.Member{Name: "Units\\" + e.Name(), Data: data, Zlib: true})
			}
			arc := mpqtest.Archive{Members: ms}.Bytes()
			if err := os.WriteFile(filepath.Join(src, "Models.mpq"), arc, 0o644); err != nil {
				b.Fatal(err)
			}
			var cold, warm [2]time.Duration
			i := 0
			for b.Loop() {
				cacheDir := b.TempDir()
				for round, t := range []*[2]time.Duration{&cold, &warm} {
					srv := mountB(b, src, vfs.Options{CacheDir: cacheDir})
					plain := filepath.Join(srv.MountPoint(), "Units")
					member := filepath.Join(srv.MountPoint(), "Models.mpq", "Units")
					order := []string{plain, member}
					if i%2 == 1 {
						order = []string{member, plain}
					}
					for _, dir := range order {
						t0 := time.Now()
						lsl(b, dir)
						k := 0
						if dir == member {
							k = 1
						}
						t[k] += time.Since(t0)
					}
					if round == 1 && srv.Stats().Translations != 0 {
						b.Errorf("%d translations after a remount on the same cache directory", srv.Stats().Translations)
					}
					unmountB(b, srv.Unmount, srv.Wait)
				}
				i++
			}
			b.ReportMetric(cold[0].Seconds()/float64(i), "cold-plain-s")
			b.ReportMetric(cold[1].Seconds()/float64(i), "cold-archive-s")
			b.ReportMetric(cold[1].Seconds()/cold[0].Seconds(), "cold-ratio")
			b.ReportMetric(warm[0].Seconds()/float64(i), "warm-plain-s")
			b.ReportMetric(warm[1].Seconds()/float64(i), "warm-archive-s")
			b.ReportMetric(warm[1].Seconds()/warm[0].Seconds(), "warm-ratio")
		})
	}
}
