package all_test

import (
	"bytes"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"testing"

	"github.com/modelfs/modelfs/internal/testkit/corpus"
	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
)

// TestConcurrentTranslations translates the sample tree's and the corpus's models from several
// goroutines at once, each in its own order, and checks every output against the one made
// alone. Decoders and encoders reuse pooled memory — parser keys, scene arrays released after
// each output, glTF document objects, scratch buffers — and no two translations may share any
// of it. (Run under -race in CI.)
func TestConcurrentTranslations(t *testing.T) {
	models := sampleModels(t)
	if dir := corpus.Optional(t); dir != "" {
		for _, sub := range []string{"wc3", "wow", "wow-classic", "meteor"} {
			models = append(models, modelsUnder(t, filepath.Join(dir, sub))...)
		}
	}
	type job struct {
		name string
		src  codec.Source
		kind translate.Kind
		want []byte
	}
	var jobs []job
	for _, m := range models {
		src := load(t, m)
		for _, kind := range []translate.Kind{translate.GLTF, translate.GLB, translate.OBJ, translate.JSON} {
			want, err := translate.Translate(src, kind, translate.EncodeOptions{MTLName: "m.mtl"})
			if err != nil {
				continue // a model that fails (a sample of bad input) fails alike below
			}
			jobs = append(jobs, job{m.name + "." + string(kind), src, kind, want})
		}
	}
	const workers = 4
	var wg sync.WaitGroup
	for w := range workers {
		order := rand.New(rand.NewPCG(uint64(w), 1)).Perm(len(jobs))
		wg.Go(func() {
			for _, i := range order {
				j := &jobs[i]
				got, err := translate.Translate(j.src, j.kind, translate.EncodeOptions{MTLName: "m.mtl"})
				if err != nil {
					t.Errorf("%s: %v", j.name, err)
				} else if !bytes.Equal(got, j.want) {
					t.Errorf("%s: translated alongside others, the output differs from the one made alone", j.name)
				}
			}
		})
	}
	wg.Wait()
	t.Logf("%d outputs of %d models, %d goroutines", len(jobs), len(models), workers)
}
