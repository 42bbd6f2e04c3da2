package tga_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/modelfs/modelfs/internal/testkit/corpus"
	"github.com/modelfs/modelfs/translate/texture/internal/testkit/texfix"
	"github.com/modelfs/modelfs/translate/texture/tga"
)

func FuzzDecode(f *testing.F) {
	for _, v := range variants() {
		f.Add(v.file)
	}
	// The corpus's TGA when the corpus is there; the generated seeds run everywhere.
	if b, err := os.ReadFile(filepath.Join(corpus.RepoRoot(f), "..", "shared", "corpus", "meteor/texture/nm001b01.tga")); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		img, err := tga.Decode("fuzz.tga", data)
		texfix.CheckFuzzResult(t, img, err, func() (int, int, bool, error) {
			h, err := tga.DecodeHeader("fuzz.tga", data)
			return h.Width, h.Height, true, err
		})
	})
}
