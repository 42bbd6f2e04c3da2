package dds_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/modelfs/modelfs/internal/testkit/fixtures"
	"github.com/modelfs/modelfs/translate"
	_ "github.com/modelfs/modelfs/translate/all" // the texture formats
	"github.com/modelfs/modelfs/translate/texture/internal/testkit/texfix"
)

// hdFixtures are textures of the size and formats Reforged's HD models carry: 2048² BC1
// (diffuse), BC3 (diffuse with alpha) and BC5 (normal map).
func hdFixtures() map[string][]byte {
	img := texfix.Blocky(2048, 2048, false)
	return map[string][]byte{
		"BC1.dds": fixtures.DDS("DXT1", img),
		"BC3.dds": fixtures.DDS("DXT5", img),
		"BC5.dds": fixtures.DDS("ATI2", img),
	}
}

// BenchmarkHD measures the path a mount's NAME.dds.png takes (decode, then the PNG writer) on
// hdFixtures, in MB of DDS a second. With MODELFS_BENCH_DDS=DIR it first writes the files
// there, for a comparison with other tools.
func BenchmarkHD(b *testing.B) {
	files := hdFixtures()
	if dir := os.Getenv("MODELFS_BENCH_DDS"); dir != "" {
		for name, data := range files {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, name := range []string{"BC1.dds", "BC3.dds", "BC5.dds"} {
		b.Run(name, func(b *testing.B) {
			data := files[name]
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := translate.ConvertTexture(name, data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
