package dds_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/modelfs/modelfs/internal/testkit/corpus"
	"github.com/modelfs/modelfs/internal/testkit/fixtures"
	"github.com/modelfs/modelfs/translate/texture/dds"
	"github.com/modelfs/modelfs/translate/texture/internal/testkit/texfix"
)

func FuzzDecode(f *testing.F) {
	img := texfix.Blocky(12, 8, false)
	for _, fc := range []string{"DXT1", "DXT5", "ATI2"} {
		f.Add(fixtures.DDS(fc, img))
	}
	f.Add(withPixels(dx10(98, 4, 4, false), make([]byte, 16)))
	f.Add(withPixels(dx10(28, 2, 2, true), make([]byte, 6*16)))
	f.Add(withPixels(masked(2, 1, 0x41, 32, [4]uint32{0xff0000, 0xff00, 0xff, 0xff000000}), make([]byte, 8)))
	f.Add(withPixels(fixtures.DDSHeader("q\x00\x00\x00", 1, 1, 1, false), make([]byte, 8)))
	// The corpus's files when the corpus is there; the generated seeds run everywhere.
	if dir := corpus.Optional(f); dir != "" {
		for _, p := range []string{"wc3r/roguelike/map.w3x/SystemGeneric/DDSSymbols/6.dds", "wc3r/roguelike/map.w3x/SystemGeneric/Rama.dds"} {
			if b, err := os.ReadFile(filepath.Join(dir, p)); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		img, err := dds.Decode("fuzz.dds", data)
		texfix.CheckFuzzResult(t, img, err, func() (int, int, bool, error) {
			cfg, err := dds.DecodeConfig("fuzz.dds", data)
			return cfg.Width, cfg.Height, true, err
		})
	})
}
