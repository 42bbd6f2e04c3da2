package m2_test

import (
	"path"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/gltfenc"
	"github.com/modelfs/modelfs/translate/m2"
	"github.com/modelfs/modelfs/translate/m2/m2test"
)

// benchSource is a model with its companions in memory, and its size: the .m2 and the
// companions it reads.
func benchSource(files m2test.Files, name string) (codec.Source, int64) {
	src := files.Source(name)
	n := int64(0)
	for _, b := range files {
		n += int64(len(b))
	}
	return src, n
}

// cpuTime returns the CPU time the process has used (user and system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchTranslate measures decode + encode in MB of source (model and companions) per second.
// Besides the wall-clock MB/s it reports cpu-MB/s, the throughput per second of CPU time the
// process used, which a busy machine disturbs much less.
func benchTranslate(b *testing.B, src codec.Source, size int64, kind translate.Kind) {
	b.Helper()
	if _, err := translate.Translate(src, kind, translate.EncodeOptions{}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		if _, err := translate.Translate(src, kind, translate.EncodeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	if cpu := cpuTime() - start; cpu > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/1e6/cpu.Seconds(), "cpu-MB/s")
	}
}

// BenchmarkCorpus translates each real model (with its skin) to .gltf and .glb.
func BenchmarkCorpus(b *testing.B) {
	for _, c := range corpusModels(b) {
		src := load(b, c)
		files := m2test.Files{path.Base(c.name): src.Data}
		base := m2test.Bases(c.name)
		if _, skin, err := src.Companion(path.Join(path.Dir(c.name), base+"00.skin")); err == nil {
			files[base+"00.skin"] = skin
		}
		s, n := benchSource(files, path.Base(c.name))
		for _, kind := range []translate.Kind{translate.GLTF, translate.GLB} {
			b.Run(filepath.Base(c.name)+"-"+string(kind), func(b *testing.B) { benchTranslate(b, s, n, kind) })
		}
	}
}

// BenchmarkLarge translates the large fixture (65,535 vertices, 64 bones, 24 sequences with a
// key every 33 ms on every bone; 7 MB) as v256 and as v264 with its skin, and the same model
// without its animation keys (geometry only; 4 MB).
func BenchmarkLarge(b *testing.B) {
	static := func() *m2.Model {
		m := m2test.Large()
		for i := range m.Bones {
			m.Bones[i].Translation, m.Bones[i].Rotation = m2.Track{}, m2.Track{}
		}
		return m
	}
	for _, v := range []struct {
		name    string
		model   func() *m2.Model
		version uint32
		l       m2.Layout
	}{{"v256", m2test.Large, 256, m2.LayoutClassic}, {"v264", m2test.Large, 264, m2.LayoutWrath},
		{"static-v264", static, 264, m2.LayoutWrath}} {
		files, err := m2test.Write(v.model(), "TestLarge", v.version, v.l, nil)
		if err != nil {
			b.Fatal(err)
		}
		s, n := benchSource(files, "TestLarge.m2")
		for _, kind := range []translate.Kind{translate.GLTF, translate.GLB} {
			b.Run(v.name+"-"+string(kind), func(b *testing.B) { benchTranslate(b, s, n, kind) })
		}
	}
}

// BenchmarkStages splits the v264 large fixture's translation into its stages.
func BenchmarkStages(b *testing.B) {
	files, err := m2test.Write(m2test.Large(), "TestLarge", 264, m2.LayoutWrath, nil)
	if err != nil {
		b.Fatal(err)
	}
	src, n := benchSource(files, "TestLarge.m2")
	m, err := m2.Read(src.Name, src.Data, src.Companion, m2.Options{})
	if err != nil {
		b.Fatal(err)
	}
	s, err := m2.Build(m, src.Name, m2.Options{})
	if err != nil {
		b.Fatal(err)
	}
	s.MakePlain() // as the pipeline does
	for _, st := range []struct {
		name string
		run  func() error
	}{
		{"read", func() error { _, err := m2.Read(src.Name, src.Data, src.Companion, m2.Options{}); return err }},
		{"build", func() error { _, err := m2.Build(m, src.Name, m2.Options{}); return err }},
		{"validate", s.Validate},
		{"gltf", func() error { _, err := gltfenc.Encode(s, gltfenc.Options{}); return err }},
		{"glb", func() error { _, err := gltfenc.Encode(s, gltfenc.Options{Binary: true}); return err }},
	} {
		b.Run(st.name, func(b *testing.B) {
			b.SetBytes(n)
			start := cpuTime()
			for b.Loop() {
				if err := st.run(); err != nil {
					b.Fatal(err)
				}
			}
			if cpu := cpuTime() - start; cpu > 0 {
				b.ReportMetric(float64(n)*float64(b.N)/1e6/cpu.Seconds(), "cpu-MB/s")
			}
		})
	}
}
