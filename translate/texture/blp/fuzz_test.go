package blp_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/modelfs/modelfs/internal/testkit/corpus"
	"github.com/modelfs/modelfs/translate/texture/blp"
	"github.com/modelfs/modelfs/translate/texture/internal/testkit/texfix"
)

// corpusSeeds returns the corpus's BLP files when the corpus is there, and nothing otherwise
// (the fuzz target must run its generated seeds everywhere).
func corpusSeeds(f *testing.F) [][]byte {
	dir := filepath.Join(corpus.RepoRoot(f), "..", "shared", "corpus")
	var out [][]byte
	for _, p := range []string{"wc3/Textures/SmileyGW.blp", "wow/Creature/Rabbit/RabbitSkin.blp", "blp/format_dxt1a.blp", "blp/format_pala8.blp"} {
		if b, err := os.ReadFile(filepath.Join(dir, p)); err == nil {
			out = append(out, b)
		}
	}
	return out
}

func FuzzDecode(f *testing.F) {
	for _, v := range variants() {
		f.Add(v.file)
	}
	for _, c := range dxtCases() {
		f.Add(texfix.BLPDXT(c.w, c.h, c.depth, c.encode, c.blocks))
	}
	for _, b := range corpusSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		img, err := blp.Decode("fuzz.blp", data)
		texfix.CheckFuzzResult(t, img, err, func() (int, int, bool, error) {
			h, err := blp.DecodeHeader("fuzz.blp", data)
			return h.Width, h.Height, h.Encoding != blp.JPEG, err
		})
	})
}
