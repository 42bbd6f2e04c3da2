package texture_test

import (
	"encoding/binary"
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelfs/modelfs/internal/testkit/corpus"
	"github.com/modelfs/modelfs/translate/pngenc"
	"github.com/modelfs/modelfs/translate/texture"
	"github.com/modelfs/modelfs/translate/texture/internal/testkit/texfix"
)

// The corpus textures, what they are, and a reference decoder written here from the raw bytes
// (nil where the test relies on Pillow and known pixels instead).
var corpusTextures = []struct {
	path string
	w, h int
	ref  func(data []byte, w, h int) *image.NRGBA
}{
	{"wc3/Textures/SmileyGW.blp", 256, 256, nil},             // BLP1 JPEG, 8-bit alpha
	{"wow/Creature/Rabbit/RabbitSkin.blp", 128, 128, refDXT}, // BLP2 DXT3
	{"blp/format_dxt1a.blp", 16, 16, refDXT},                 // BLP2 DXT1, 1-bit alpha
	{"blp/format_pala8.blp", 128, 64, refPaletted},           // BLP2 paletted, 8-bit alpha
	{"meteor/texture/nm001b01.tga", 256, 256, refTGA32},      // TGA 32-bit, bottom-left
}

// decodeFile reads and decodes the corpus texture at dir/path.
func decodeFile(t *testing.T, dir, path string) ([]byte, *image.NRGBA) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, path))
	if err != nil {
		t.Fatal(err)
	}
	img, err := texture.Decode(path, data)
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := img.(*image.NRGBA); ok {
		return data, m
	}
	m := image.NewNRGBA(img.Bounds()) // a paletted one: its palette's straight colours
	for y := range m.Rect.Dy() {
		for x := range m.Rect.Dx() {
			m.SetNRGBA(x, y, color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA))
		}
	}
	return data, m
}

func TestCorpus(t *testing.T) {
	dir := corpus.Dir(t)
	for _, c := range corpusTextures {
		t.Run(c.path, func(t *testing.T) {
			data, got := decodeFile(t, dir, c.path)
			if got.Rect != image.Rect(0, 0, c.w, c.h) {
				t.Fatalf("bounds %v, want %dx%d", got.Rect, c.w, c.h)
			}
			if c.ref != nil {
				if d := maxDiff(got, c.ref(data, c.w, c.h), 4); d != 0 {
					t.Fatalf("differs from the reference by up to %d", d)
				}
			}
			if _, err := pngenc.Encode(got); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// SmileyGW is a JPEG BLP: B, G, R, A components. The yellow at its centre, read with an
// independent decoder (Pillow: 249 228 106), proves the channel order.
func TestCorpusJPEGChannelOrder(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(corpus.Dir(t), "wc3/Textures/SmileyGW.blp"))
	if err != nil {
		t.Fatal(err)
	}
	img, err := texture.Decode("SmileyGW.blp", data)
	if err != nil {
		t.Fatal(err)
	}
	got := img.(*image.NRGBA).NRGBAAt(128, 128)
	want := color.NRGBA{250, 229, 107, 255}
	for i, d := range []int{int(got.R) - int(want.R), int(got.G) - int(want.G), int(got.B) - int(want.B), int(got.A) - int(want.A)} {
		if d < -2 || d > 2 {
			t.Fatalf("pixel (128,128) = %v, want %v ±2 (channel %d)", got, want, i)
		}
	}
}

// maxDiff returns the largest channel difference between a and b (same bounds) over the first
// chans channels: 4 for RGBA, 3 for RGB.
func maxDiff(a, b *image.NRGBA, chans int) int {
	return maxDiffWhere(a, b, chans, false)
}

// maxDiffWhere is maxDiff, counting only the pixels opaque in a when opaqueOnly is set.
func maxDiffWhere(a, b *image.NRGBA, chans int, opaqueOnly bool) int {
	d := 0
	for i := range a.Pix {
		if i%4 >= chans || opaqueOnly && a.Pix[i|3] != 255 {
			continue
		}
		d = max(d, int(math.Abs(float64(int(a.Pix[i])-int(b.Pix[i])))))
	}
	return d
}

// mip0 returns level 0's bytes of a BLP2 file.
func mip0(data []byte) []byte {
	off := binary.LittleEndian.Uint32(data[20:])
	size := binary.LittleEndian.Uint32(data[84:])
	return data[off : off+size]
}

// refPaletted decodes a BLP2 paletted image with 8-bit alpha pixel by pixel.
func refPaletted(data []byte, w, h int) *image.NRGBA {
	out := image.NewNRGBA(image.Rect(0, 0, w, h))
	m := mip0(data)
	for y := range h {
		for x := range w {
			e := data[148+4*int(m[y*w+x]):]
			out.SetNRGBA(x, y, color.NRGBA{e[2], e[1], e[0], m[w*h+y*w+x]})
		}
	}
	return out
}

// refDXT decodes a BLP2 DXT1 (1-bit alpha) or DXT3 image pixel by pixel, with floating-point
// interpolation rounded to nearest.
func refDXT(data []byte, w, h int) *image.NRGBA {
	dxt3 := data[10] == 1
	alpha := data[9] != 0
	m := mip0(data)
	size := 8
	if dxt3 {
		size = 16
	}
	out := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			blk := m[((y/4)*((w+3)/4)+x/4)*size:]
			i := (y%4)*4 + x%4
			a := 255.0
			if dxt3 {
				nib := blk[i/2] >> (4 * (i % 2)) & 15
				a = float64(nib) * 255 / 15
				blk = blk[8:]
			}
			c0 := binary.LittleEndian.Uint16(blk)
			c1 := binary.LittleEndian.Uint16(blk[2:])
			ix := binary.LittleEndian.Uint32(blk[4:]) >> (2 * i) & 3
			// End points to 8 bits by bit replication (v·2³ + v/2² for 5 bits), the usual
			// hardware convention; it differs by one from round(v·255/31) for some v.
			rgb := func(c uint16) [3]float64 {
				r, g, b := float64(c>>11), float64(c>>5&63), float64(c&31)
				return [3]float64{r*8 + math.Floor(r/4), g*4 + math.Floor(g/16), b*8 + math.Floor(b/4)}
			}
			e0, e1 := rgb(c0), rgb(c1)
			var px [3]float64
			for k := range 3 {
				switch {
				case ix == 0:
					px[k] = e0[k]
				case ix == 1:
					px[k] = e1[k]
				case c0 > c1 || dxt3:
					f := float64(ix-1) / 3 // 1/3 or 2/3 of the way from c0 to c1
					px[k] = math.Round(e0[k] + (e1[k]-e0[k])*f)
				case ix == 2:
					px[k] = math.Round((e0[k] + e1[k]) / 2)
				default:
					px[k] = 0
					if alpha {
						a = 0
					}
				}
			}
			out.SetNRGBA(x, y, color.NRGBA{uint8(px[0]), uint8(px[1]), uint8(px[2]), uint8(math.Round(a))})
		}
	}
	return out
}

// refTGA32 decodes an uncompressed, bottom-left, 32-bit TGA pixel by pixel.
func refTGA32(data []byte, w, h int) *image.NRGBA {
	out := image.NewNRGBA(image.Rect(0, 0, w, h))
	start := 18 + int(data[0])
	for y := range h {
		for x := range w {
			p := data[start+4*((h-1-y)*w+x):]
			out.SetNRGBA(x, y, color.NRGBA{p[2], p[1], p[0], p[3]})
		}
	}
	return out
}

// TestCorpusAgainstPillow compares every corpus texture with Pillow's decoding (Debian's
// python3-pil), an independent implementation. Where Pillow is known to differ the comparison
// is loosened, each for a stated reason.
func TestCorpusAgainstPillow(t *testing.T) {
	dir := corpus.Dir(t)
	py := texfix.Pillow(t)
	tolerance := map[string]struct {
		chans, tol int
		opaqueOnly bool
		why        string
	}{
		// libjpeg's IDCT and Go's round differently. Pillow 9 reads a JPEG BLP as CMYK and
		// converts to RGB through the fourth (alpha) component as if it were black ink, so only
		// opaque pixels compare, and alpha not at all.
		"wc3/Textures/SmileyGW.blp": {3, 1, true, "IDCT rounding; Pillow darkens by alpha"},
		// Pillow expands 5:6:5 by shifting (31 → 248), not by bit replication (31 → 255).
		"wow/Creature/Rabbit/RabbitSkin.blp": {4, 8, false, "5:6:5 expansion"},
		"blp/format_dxt1a.blp":               {4, 8, false, "5:6:5 expansion"},
		// Pillow 9 takes a paletted BLP's alpha from the palette's pad byte, not the alpha plane.
		"blp/format_pala8.blp":        {3, 0, false, "Pillow's alpha from the palette"},
		"meteor/texture/nm001b01.tga": {4, 0, false, "exact"},
	}
	var paths []string
	for _, c := range corpusTextures {
		paths = append(paths, filepath.Join(dir, c.path))
	}
	refs := texfix.PillowDecode(t, py, paths)
	for i, c := range corpusTextures {
		ref, mode := refs[i].Img, refs[i].Mode
		if ref == nil {
			t.Fatalf("%s: Pillow: %s", c.path, refs[i].Err)
		}
		_, got := decodeFile(t, dir, c.path)
		if got.Rect != ref.Rect {
			t.Errorf("%s: bounds %v, Pillow %v", c.path, got.Rect, ref.Rect)
			continue
		}
		tol := tolerance[c.path]
		d := maxDiffWhere(got, ref, tol.chans, tol.opaqueOnly)
		t.Logf("%s (Pillow mode %s): largest difference %d over %d channels (tolerance %d: %s)", c.path, mode, d, tol.chans, tol.tol, tol.why)
		if d > tol.tol {
			t.Errorf("%s: differs from Pillow by up to %d (tolerance %d)", c.path, d, tol.tol)
		}
		if tol.chans == 4 {
			// Alpha is exact wherever Pillow reads it at all.
			for i := 3; i < len(got.Pix); i += 4 {
				if got.Pix[i] != ref.Pix[i] {
					t.Errorf("%s: alpha of pixel %d is %d, Pillow %d", c.path, i/4, got.Pix[i], ref.Pix[i])
					break
				}
			}
		}
	}
}
