package texture_test

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelfs/modelfs/internal/testkit/corpus"
	"github.com/modelfs/modelfs/translate/pngenc"
	"github.com/modelfs/modelfs/translate/texture"
	"github.com/modelfs/modelfs/translate/texture/internal/testkit/texfix"
)

// benchFixtures returns a 512×512 source file of every variant.
func benchFixtures() []struct {
	name string
	data []byte
} {
	const n = 512
	noise := texfix.Noise(n, n)
	pat8 := texfix.Pattern(n, n, 8)
	blocks := func(size int) []byte { return texfix.RandomBytes((n/4)*(n/4)*size, 9) }
	return []struct {
		name string
		data []byte
	}{
		{"BLP1-JPEG.blp", texfix.BLPJPEG(1, texfix.Blocky(n, n, false), 8)},
		{"BLP1-paletted-a8.blp", texfix.BLPPaletted(1, pat8, 8)},
		{"BLP2-paletted-a1.blp", texfix.BLPPaletted(2, texfix.Pattern(n, n, 1), 1)},
		{"BLP2-DXT1.blp", texfix.BLPDXT(n, n, 1, 0, blocks(8))},
		{"BLP2-DXT3.blp", texfix.BLPDXT(n, n, 8, 1, blocks(16))},
		{"BLP2-DXT5.blp", texfix.BLPDXT(n, n, 8, 7, blocks(16))},
		{"BLP2-BGRA.blp", texfix.BLPBGRA(noise, 8)},
		{"TGA-24.tga", texfix.TGA{Type: 2, Depth: 24}.Encode(noise)},
		{"TGA-32.tga", texfix.TGA{Type: 2, Depth: 32, AlphaBits: 8}.Encode(noise)},
		{"TGA-32-RLE.tga", texfix.TGA{Type: 10, Depth: 32, AlphaBits: 8}.Encode(noise)},
		{"TGA-mapped.tga", texfix.TGA{Type: 1, Depth: 8, MapDepth: 32, AlphaBits: 8}.Encode(noise)},
		{"TGA-grey.tga", texfix.TGA{Type: 3, Depth: 8}.Encode(noise)},
	}
}

// BenchmarkDecodePNG measures decode + PNG encode in MB of source a second, per variant, on
// generated 512×512 images and on the corpus textures when present.
func BenchmarkDecodePNG(b *testing.B) {
	run := func(b *testing.B, name string, data []byte) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			img, err := texture.Decode(name, data)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := pngenc.Encode(img); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, f := range benchFixtures() {
		b.Run(f.name, func(b *testing.B) { run(b, f.name, f.data) })
	}
	for _, c := range corpusTextures {
		b.Run("corpus/"+filepath.Base(c.path), func(b *testing.B) {
			data, err := os.ReadFile(filepath.Join(corpus.Dir(b), c.path))
			if err != nil {
				b.Fatal(err)
			}
			run(b, c.path, data)
		})
	}
}

// BenchmarkDecode measures decoding alone.
func BenchmarkDecode(b *testing.B) {
	for _, f := range benchFixtures() {
		b.Run(f.name, func(b *testing.B) {
			b.SetBytes(int64(len(f.data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := texture.Decode(f.name, f.data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPNGLevel compares png's compression levels on the decoded corpus textures: time, and
// the PNG's size as a metric (bytes/png). EncodePNG uses BestSpeed.
func BenchmarkPNGLevel(b *testing.B) {
	dir := corpus.Dir(b)
	for _, c := range corpusTextures {
		data, err := os.ReadFile(filepath.Join(dir, c.path))
		if err != nil {
			b.Fatal(err)
		}
		img, err := texture.Decode(c.path, data)
		if err != nil {
			b.Fatal(err)
		}
		for _, lvl := range []struct {
			name string
			l    png.CompressionLevel
		}{{"BestSpeed", png.BestSpeed}, {"Default", png.DefaultCompression}, {"Best", png.BestCompression}} {
			b.Run(filepath.Base(c.path)+"/"+lvl.name, func(b *testing.B) {
				enc := png.Encoder{CompressionLevel: lvl.l}
				var buf bytes.Buffer
				for b.Loop() {
					buf.Reset()
					if err := enc.Encode(&buf, img); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(buf.Len()), "bytes/png")
			})
		}
	}
}
