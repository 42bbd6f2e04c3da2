package dds_test

import (
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelfs/modelfs/internal/testkit/corpus"
	"github.com/modelfs/modelfs/internal/testkit/fixtures"
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/texture/dds"
	"github.com/modelfs/modelfs/translate/texture/internal/testkit/texfix"
)

// withPixels returns a DDS file: header, then data.
func withPixels(h []byte, data ...[]byte) []byte {
	out := append([]byte(nil), h...)
	for _, d := range data {
		out = append(out, d...)
	}
	return out
}

// masked returns the header of an uncompressed w×h file with the given pixel format flags,
// bit count and masks.
func masked(w, h int, flags, bits uint32, masks [4]uint32) []byte {
	b := fixtures.DDSHeader("", w, h, 1, false)
	le := binary.LittleEndian
	le.PutUint32(b[80:], flags)
	le.PutUint32(b[88:], bits)
	for i, m := range masks {
		le.PutUint32(b[92+4*i:], m)
	}
	return b
}

func dx10(f uint32, w, h int, cube bool) []byte {
	return withPixels(fixtures.DDSHeader("DX10", w, h, 1, cube), fixtures.DDSDX10Header(f, cube))
}

func le16s(v ...uint16) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint16(b, x)
	}
	return b
}

// TestPixelFormats decodes one small file of each format stored by pixel, whose pixels are
// known exactly.
func TestPixelFormats(t *testing.T) {
	const rgb, lum, alpha, alphaPx = 0x40, 0x20000, 0x2, 0x1
	cases := []struct {
		name string
		file []byte
		want []color.NRGBA
	}{
		{"BGRA8 masks", withPixels(masked(2, 1, rgb|alphaPx, 32, [4]uint32{0xff0000, 0xff00, 0xff, 0xff000000}),
			[]byte{1, 2, 3, 4, 5, 6, 7, 8}), []color.NRGBA{{3, 2, 1, 4}, {7, 6, 5, 8}}},
		{"RGB8 24-bit", withPixels(masked(1, 2, rgb, 24, [4]uint32{0xff0000, 0xff00, 0xff, 0}),
			[]byte{10, 20, 30, 40, 50, 60}), []color.NRGBA{{30, 20, 10, 255}, {60, 50, 40, 255}}},
		{"RGB565", withPixels(masked(2, 1, rgb, 16, [4]uint32{0xf800, 0x7e0, 0x1f, 0}),
			le16s(0xffff, 0x07e0)), []color.NRGBA{{255, 255, 255, 255}, {0, 255, 0, 255}}},
		{"A1R5G5B5", withPixels(masked(2, 1, rgb|alphaPx, 16, [4]uint32{0x7c00, 0x3e0, 0x1f, 0x8000}),
			le16s(0x7c00, 0x801f)), []color.NRGBA{{255, 0, 0, 0}, {0, 0, 255, 255}}},
		{"L8", withPixels(masked(2, 1, lum, 8, [4]uint32{0xff, 0, 0, 0}), []byte{0, 200}),
			[]color.NRGBA{{0, 0, 0, 255}, {200, 200, 200, 255}}},
		{"A8", withPixels(masked(2, 1, alpha, 8, [4]uint32{0, 0, 0, 0xff}), []byte{0, 200}),
			[]color.NRGBA{{0, 0, 0, 0}, {0, 0, 0, 200}}},
		{"DXGI R8G8B8A8", withPixels(dx10(28, 1, 1, false), []byte{1, 2, 3, 4}), []color.NRGBA{{1, 2, 3, 4}}},
		{"DXGI B8G8R8X8", withPixels(dx10(88, 1, 1, false), []byte{1, 2, 3, 4}), []color.NRGBA{{3, 2, 1, 255}}},
		// Linear 0.5 is sRGB 188; alpha stays linear. Beyond 1 and below 0 clamp; NaN is 0.
		{"half float", withPixels(fixtures.DDSHeader("q\x00\x00\x00", 2, 1, 1, false),
			le16s(0x3800, 0x3c00, 0x0000, 0x3800), le16s(0x7c00, 0xbc00, 0x7e00, 0x3c00)),
			[]color.NRGBA{{188, 255, 0, 128}, {255, 0, 0, 255}}},
		{"DXGI float", withPixels(dx10(2, 1, 1, false), f32s(0.5, 1, 0, 0.5)), []color.NRGBA{{188, 255, 0, 128}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			img, err := dds.Decode(c.name+".dds", c.file)
			if err != nil {
				t.Fatal(err)
			}
			n := img.(*image.NRGBA)
			for i, want := range c.want {
				w := n.Rect.Dx()
				if got := n.NRGBAAt(i%w, i/w); got != want {
					t.Errorf("pixel %d: %v, want %v", i, got, want)
				}
			}
			cfg, err := dds.DecodeConfig(c.name+".dds", c.file)
			if err != nil || cfg.Width != n.Rect.Dx() || cfg.Height != n.Rect.Dy() {
				t.Errorf("DecodeConfig: %v %v", cfg, err)
			}
		})
	}
}

func f32s(v ...float32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// TestCompressed round-trips images through the fixtures' block encoders.
func TestCompressed(t *testing.T) {
	img := texfix.Blocky(19, 10, false) // not a multiple of 4: the edge blocks are clipped
	for _, fc := range []string{"DXT1", "DXT5", "ATI2"} {
		got, err := dds.Decode(fc+".dds", fixtures.DDS(fc, img))
		if err != nil {
			t.Fatal(err)
		}
		n := got.(*image.NRGBA)
		if n.Rect != img.Rect {
			t.Fatalf("%s: bounds %v", fc, n.Rect)
		}
		var sum [4]float64
		for i := range n.Pix {
			sum[i%4] += math.Abs(float64(n.Pix[i]) - float64(img.Pix[i]))
		}
		px := float64(len(n.Pix) / 4)
		t.Logf("%s: mean error per channel %.1f %.1f %.1f %.1f", fc, sum[0]/px, sum[1]/px, sum[2]/px, sum[3]/px)
		chans := map[string]int{"DXT1": 3, "DXT5": 4, "ATI2": 2}[fc]
		for c := range chans {
			if sum[c]/px > 6 { // 5:6:5 truncated by the encoder; Pillow checks the decoding
				t.Errorf("%s: channel %d: mean error %.1f", fc, c, sum[c]/px)
			}
		}
	}
}

// TestNormalZ checks that BC5's blue is the Z of a unit normal.
func TestNormalZ(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 4, 4))
	for i := range 16 {
		img.Pix[4*i], img.Pix[4*i+1] = 128, 128 // (0, 0): Z = 1
	}
	img.Pix[0], img.Pix[1] = 255, 128 // (1, 0): Z = 0
	n, err := dds.Decode("n.dds", fixtures.DDS("ATI2", img))
	if err != nil {
		t.Fatal(err)
	}
	if z := n.(*image.NRGBA).Pix[6]; z < 254 {
		t.Errorf("flat normal: Z %d, want 255", z)
	}
	if z := n.(*image.NRGBA).Pix[2]; z > 130 {
		t.Errorf("sideways normal: Z %d, want 128", z)
	}
}

// TestCubemap lays six solid faces out as a horizontal cross.
func TestCubemap(t *testing.T) {
	faces := []color.NRGBA{{255, 0, 0, 255}, {0, 255, 0, 255}, {0, 0, 255, 255}, {255, 255, 0, 255}, {0, 255, 255, 255}, {255, 0, 255, 255}}
	file := withPixels(dx10(28, 2, 2, true))
	for _, c := range faces {
		for range 4 + 1 { // mip 0 (2×2) and mip 1 (1×1)
			file = append(file, c.R, c.G, c.B, c.A)
		}
	}
	binary.LittleEndian.PutUint32(file[28:], 2)
	img, err := dds.Decode("sky.dds", file)
	if err != nil {
		t.Fatal(err)
	}
	n := img.(*image.NRGBA)
	if n.Rect != image.Rect(0, 0, 8, 6) {
		t.Fatalf("bounds %v", n.Rect)
	}
	cells := []image.Point{{2, 1}, {0, 1}, {1, 0}, {1, 2}, {1, 1}, {3, 1}}
	for f, c := range cells {
		if got := n.NRGBAAt(2*c.X+1, 2*c.Y+1); got != faces[f] {
			t.Errorf("face %d at cell %v: %v, want %v", f, c, got, faces[f])
		}
	}
	if got := n.NRGBAAt(0, 0); got.A != 0 {
		t.Errorf("outside the cross: %v, want transparent", got)
	}
}

// TestRefusals gives every malformed or unsupported file a FormatError naming what is wrong.
func TestRefusals(t *testing.T) {
	ok := fixtures.DDS("DXT1", texfix.Pattern(8, 8, 0))
	set := func(off int, v uint32) []byte {
		b := append([]byte(nil), ok...)
		binary.LittleEndian.PutUint32(b[off:], v)
		return b
	}
	huge := set(12, 1<<20)
	binary.LittleEndian.PutUint32(huge[16:], 1<<20)
	volume := set(112, 0x200000)
	binary.LittleEndian.PutUint32(volume[24:], 4)
	bad := map[string][]byte{
		"empty.dds":       {},
		"magic.dds":       []byte("DDX " + strings.Repeat("\x00", 200)),
		"short.dds":       ok[:100],
		"headersize.dds":  set(4, 100),
		"zero.dds":        set(16, 0),
		"huge.dds":        huge,
		"truncated.dds":   ok[:len(ok)-1],
		"fourcc.dds":      withPixels(fixtures.DDSHeader("ABCD", 4, 4, 1, false), make([]byte, 64)),
		"numeric.dds":     withPixels(fixtures.DDSHeader("\x01\x00\x00\x00", 4, 4, 1, false), make([]byte, 64)),
		"bc6h.dds":        withPixels(dx10(95, 4, 4, false), make([]byte, 16)),
		"bc5snorm.dds":    withPixels(dx10(84, 4, 4, false), make([]byte, 16)),
		"dxgi.dds":        withPixels(dx10(600, 4, 4, false), make([]byte, 16)),
		"dx10short.dds":   fixtures.DDSHeader("DX10", 4, 4, 1, false),
		"volume.dds":      volume,
		"cubeshort.dds":   withPixels(dx10(71, 4, 4, true), make([]byte, 8*5)),
		"noformat.dds":    set(80, 0),
		"bits.dds":        withPixels(masked(1, 1, 0x40, 12, [4]uint32{1, 2, 4, 0}), make([]byte, 8)),
		"volume-dx10.dds": withPixels(fixtures.DDSHeader("DX10", 4, 4, 1, false), []byte{71, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}, make([]byte, 8)),
	}
	texfix.CheckRefusals(t, dds.FormatName, bad, func(name string, data []byte) error {
		_, err := dds.Decode(name, data)
		if err == nil {
			return nil
		}
		if _, cerr := dds.DecodeConfig(name, data); cerr == nil {
			t.Errorf("%s: DecodeConfig accepts what Decode refuses", name)
		}
		return err
	})
	for name, want := range map[string]string{"bc6h.dds": "BC6H", "bc5snorm.dds": "BC5 SNORM", "fourcc.dds": `"ABCD"`, "volume.dds": "volume"} {
		if _, err := dds.Decode(name, bad[name]); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want it to name %s", name, err, want)
		}
	}
	if _, err := dds.Decode("huge.dds", huge); !errors.Is(err, codec.ErrTooLarge) {
		t.Errorf("huge: %v, want ErrTooLarge", err)
	}
}

// TestCorpus decodes every DDS file of the corpus, and checks with Pillow below.
func TestCorpus(t *testing.T) {
	for _, p := range corpusDDS(t) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := dds.Decode(filepath.Base(p), data); err != nil {
			t.Errorf("%v", err)
		}
	}
}

func corpusDDS(t testing.TB) []string {
	return corpus.Files(t, "wc3r", ".dds")
}
