package wc3_test

import (
	"os"
	"testing"

	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/scene"
	"github.com/modelfs/modelfs/translate/wc3"
	"github.com/modelfs/modelfs/translate/wc3/mdl"
)

// orcPath is a real unit model from the shared corpus, used when present.
const orcPath = "/work/shared/corpus/wc3/Units/hce_orc.mdl"

// BenchmarkBuildOrc measures Build (node tracks cut and baked per sequence included) on a real
// model with many Hermite rotation tracks; it skips when the corpus file is absent.
func BenchmarkBuildOrc(b *testing.B) {
	data, err := os.ReadFile(orcPath)
	if err != nil {
		b.Skipf("corpus model not available: %v", err)
	}
	m, err := mdl.Read("hce_orc.mdl", data)
	if err != nil {
		b.Fatal(err)
	}
	src := translate.Source{Name: "hce_orc.mdl", Data: data}
	var s *scene.Scene
	b.ReportAllocs()
	for b.Loop() {
		if s, err = wc3.Build(m, src, "mdl"); err != nil {
			b.Fatal(err)
		}
	}
	rot := 0
	for _, a := range s.Animations {
		for _, ch := range a.Channels {
			if ch.Path == scene.PathRotation {
				rot += len(ch.Times)
			}
		}
	}
	b.ReportMetric(float64(rot), "rotkeys")
}
