package gltfenc_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/modelfs/modelfs/internal/testkit/corpus"
	"github.com/modelfs/modelfs/translate"
	_ "github.com/modelfs/modelfs/translate/all" // the source formats, for translate.Decode
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/gltfenc"
)

// cpuTime returns the CPU time the process has used (user and system): on a busy machine
// cpu-ns/op, the CPU time per operation (the collector's included), varies much less than
// ns/op.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCorpus measures gltfenc.Encode alone on a real animated model, GnomePounder.m2 from
// the corpus (11 meshes, 104 bones, 11 animations with about a thousand channels): unlike the
// synthetic grid of BenchmarkEncodeGLB, its JSON (about 260 KB) and its many small objects
// weigh as much as its binary data. The model is decoded once, outside the timing; MB/s are of
// output. It skips without the corpus (fails under CI, like the other corpus tests).
func BenchmarkCorpus(b *testing.B) {
	const tree, name = "wow-classic", "Creature/GnomeSpiderTank/GnomePounder.m2"
	r, err := os.OpenRoot(filepath.Join(corpus.Dir(b), tree))
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	data, err := fs.ReadFile(codec.RootFS(r), name)
	if err != nil {
		b.Fatal(err)
	}
	// No lister: textures are left unresolved, so the benchmark measures the model alone.
	src := codec.Source{Name: name, Data: data, FS: codec.RootFS(r)}
	s, _, err := translate.Decode(src)
	if err != nil {
		b.Fatal(err)
	}
	for _, kind := range []struct {
		name string
		opt  gltfenc.Options
	}{{"GnomePounder.gltf", gltfenc.Options{}}, {"GnomePounder.glb", gltfenc.Options{Binary: true}}} {
		b.Run(kind.name, func(b *testing.B) {
			out, err := gltfenc.Encode(s, kind.opt)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(out)))
			b.ReportAllocs()
			start := cpuTime()
			for b.Loop() {
				if _, err := gltfenc.Encode(s, kind.opt); err != nil {
					b.Fatal(err)
				}
			}
			if cpu := cpuTime() - start; cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			}
		})
	}
}
