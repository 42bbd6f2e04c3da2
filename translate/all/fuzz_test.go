package all_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/modelfs/modelfs/internal/testkit/corpus"
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/internal/testkit/readback"
)

// FuzzTranslate runs the whole pipeline — sniff, decode, build, validate and every encoder — on
// mutated models. Errors are fine; a panic caught by the pipeline (an InternalError) is a bug.
func FuzzTranslate(f *testing.F) {
	root := filepath.Join(corpus.RepoRoot(f), "testdata", "sample")
	paths, _ := filepath.Glob(filepath.Join(root, "*", "*.md?"))
	// The real files join the seeds when they are here; a fresh clone fuzzes from the samples.
	filepath.WalkDir(filepath.Join(corpus.RepoRoot(f), "..", "shared", "corpus", "wc3"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && codec.IsModelName(p) {
			paths = append(paths, p)
		}
		return nil
	})
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(filepath.Ext(p), data)
	}
	f.Fuzz(func(t *testing.T, ext string, data []byte) {
		readback.DecodeAndEncode(t, codec.Source{Name: "fuzz" + ext, Data: data})
	})
}
