package tga_test

import (
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"strings"
	"testing"

	"github.com/modelfs/modelfs/translate/texture/internal/testkit/texfix"
	"github.com/modelfs/modelfs/translate/texture/tga"
)

// variant is a TGA fixture and the image it must decode to.
type variant struct {
	name string
	file []byte
	want image.Image
}

// withAlpha returns a copy of img whose alpha is mapped through f.
func withAlpha(img *image.NRGBA, f func(a uint8) uint8) *image.NRGBA {
	out := *img
	out.Pix = append([]byte(nil), img.Pix...)
	for i := 3; i < len(out.Pix); i += 4 {
		out.Pix[i] = f(out.Pix[i])
	}
	return &out
}

// quantize555 returns img as a 5:5:5 TGA stores it: each channel's top five bits, replicated.
func quantize555(img *image.NRGBA, alpha bool) *image.NRGBA {
	out := withAlpha(img, func(a uint8) uint8 {
		if !alpha || a >= 128 {
			return 255
		}
		return 0
	})
	for i, v := range out.Pix {
		if i%4 != 3 {
			out.Pix[i] = v&0xF8 | v>>5
		}
	}
	return out
}

func grey(img *image.NRGBA) *image.Gray {
	g := image.NewGray(img.Rect)
	for i := range g.Pix {
		g.Pix[i] = img.Pix[4*i]
	}
	return g
}

func greyAlpha(img *image.NRGBA) *image.NRGBA {
	out := withAlpha(img, func(a uint8) uint8 { return a })
	for i := 0; i < len(out.Pix); i += 4 {
		out.Pix[i+1], out.Pix[i+2] = out.Pix[i], out.Pix[i]
	}
	return out
}

func variants() []variant {
	var vs []variant
	img := texfix.Pattern(13, 7, 8)
	op := withAlpha(img, func(uint8) uint8 { return 255 })
	for _, orient := range []struct {
		name     string
		top, rtl bool
	}{{"bottom-left", false, false}, {"top-left", true, false}, {"bottom-right", false, true}, {"top-right", true, true}} {
		for _, rle := range []int{0, 8} {
			kind := map[int]string{0: "raw", 8: "rle"}[rle]
			add := func(name string, enc texfix.TGA, want image.Image) {
				enc.TopToBot, enc.RightToLeft = orient.top, orient.rtl
				enc.Type |= rle
				vs = append(vs, variant{fmt.Sprintf("%s-%s-%s", name, kind, orient.name), enc.Encode(img), want})
			}
			add("truecolour32", texfix.TGA{Type: 2, Depth: 32, AlphaBits: 8}, img)
			add("truecolour24", texfix.TGA{Type: 2, Depth: 24}, op)
			add("truecolour16-alpha", texfix.TGA{Type: 2, Depth: 16, AlphaBits: 1}, quantize555(img, true))
			add("truecolour16", texfix.TGA{Type: 2, Depth: 16}, quantize555(img, false))
			add("truecolour15", texfix.TGA{Type: 2, Depth: 15}, quantize555(img, false))
			add("mapped-32", texfix.TGA{Type: 1, Depth: 8, MapDepth: 32, MapFirst: 3, AlphaBits: 8}, img)
			add("mapped-24", texfix.TGA{Type: 1, Depth: 8, MapDepth: 24, ID: []byte("id!")}, op)
			add("grey8", texfix.TGA{Type: 3, Depth: 8}, grey(img))
			add("grey16", texfix.TGA{Type: 3, Depth: 16, AlphaBits: 8}, greyAlpha(img))
		}
	}
	// 32 bits but no attribute bits declared and the fourth byte all zero: no alpha at all.
	clear := withAlpha(img, func(uint8) uint8 { return 0 })
	vs = append(vs, variant{"truecolour32-clear-alpha", texfix.TGA{Type: 2, Depth: 32}.Encode(clear), op})
	// A long run: 300 equal pixels in one row crossing packets.
	flat := image.NewNRGBA(image.Rect(0, 0, 300, 2))
	for i := 0; i < len(flat.Pix); i += 4 {
		copy(flat.Pix[i:], []byte{1, 2, 3, 4})
	}
	vs = append(vs, variant{"rle-long-runs", texfix.TGA{Type: 10, Depth: 32, AlphaBits: 8}.Encode(flat), flat})
	return vs
}

func TestVariants(t *testing.T) {
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			got, err := tga.Decode(v.name+".tga", v.file)
			if err != nil {
				t.Fatal(err)
			}
			same(t, got, v.want)
		})
	}
}

func same(t *testing.T, got, want image.Image) {
	t.Helper()
	if fmt.Sprintf("%T", got) != fmt.Sprintf("%T", want) {
		t.Fatalf("decoded to %T, want %T", got, want)
	}
	if got.Bounds() != want.Bounds() {
		t.Fatalf("bounds %v, want %v", got.Bounds(), want.Bounds())
	}
	bad := 0
	b := want.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			g := color.NRGBAModel.Convert(got.At(x, y))
			w := color.NRGBAModel.Convert(want.At(x, y))
			if g != w {
				if bad < 5 {
					t.Errorf("pixel (%d,%d) = %v, want %v", x, y, g, w)
				}
				bad++
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d pixels differ", bad)
	}
}

func TestSniff(t *testing.T) {
	if !tga.Sniff(texfix.TGA{Type: 2, Depth: 24}.Encode(texfix.Pattern(2, 2, 0))) {
		t.Error("a TGA header was not recognised")
	}
	for _, b := range [][]byte{nil, []byte("BLP2 and then some more bytes"), make([]byte, 18), []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR\x00\x00")} {
		if tga.Sniff(b) {
			t.Errorf("%q taken for a TGA", b)
		}
	}
}

// set returns a copy of b with b[off] = v.
func set(b []byte, off int, v byte) []byte {
	b = append([]byte(nil), b...)
	b[off] = v
	return b
}

func set16(b []byte, off int, v uint16) []byte {
	b = append([]byte(nil), b...)
	binary.LittleEndian.PutUint16(b[off:], v)
	return b
}

func badInputs() map[string][]byte {
	img := texfix.Pattern(16, 8, 8)
	raw := texfix.TGA{Type: 2, Depth: 32, AlphaBits: 8}.Encode(img)
	rle := texfix.TGA{Type: 10, Depth: 24}.Encode(img)
	mapped := texfix.TGA{Type: 9, Depth: 8, MapDepth: 24}.Encode(img)
	bad := map[string][]byte{
		"empty":                   nil,
		"short header":            raw[:17],
		"type 0":                  set(raw, 2, 0),
		"type 4":                  set(raw, 2, 4),
		"type 32":                 set(raw, 2, 32),
		"colour-map type 2":       set(raw, 1, 2),
		"depth 31":                set(raw, 16, 31),
		"width 0":                 set16(raw, 12, 0),
		"65535x65535":             set16(set16(raw, 12, 0xFFFF), 14, 0xFFFF),
		"20000 wide":              set16(raw, 12, 20000),
		"8192x8192 raw (short)":   set16(set16(raw, 12, 8192), 14, 8192),
		"8192x8192 rle (short)":   set16(set16(rle, 12, 8192), 14, 8192),
		"mapped without map":      set(mapped, 1, 0),
		"map depth 12":            set(mapped, 7, 12),
		"map longer than file":    set16(mapped, 5, 60000),
		"map short (index out)":   set16(mapped, 5, 2),
		"map first moves indices": set16(mapped, 3, 250),
		"mapped depth 24":         set(mapped, 16, 24),
		"id past end":             set(raw[:40], 0, 255),
		"raw data short":          raw[:len(raw)-1],
		"rle run overruns":        append(set16(set(raw[:18], 2, 10), 14, 7), append([]byte{0xFF, 1, 2, 3, 4}, make([]byte, 600)...)...),
		"rle raw overruns":        append(set16(set(raw[:18], 2, 10), 14, 7), append([]byte{0x7F}, make([]byte, 128*4)...)...),
	}
	// An RLE image of 16×8 = 128 pixels whose second packet crosses the end.
	over := set(raw[:18], 2, 10)
	over = append(over, 0x80|99, 1, 2, 3, 4, 0x80|99, 1, 2, 3, 4)
	bad["rle packet past last pixel"] = over
	for name, f := range map[string][]byte{"raw": raw, "rle": rle, "mapped": mapped} {
		for n := 0; n < len(f); n += 1 + n/40 {
			bad[fmt.Sprintf("%s truncated at %d", name, n)] = f[:n]
		}
	}
	return bad
}

func TestBadInput(t *testing.T) {
	texfix.CheckRefusals(t, "tga", badInputs(), func(name string, data []byte) error {
		_, err := tga.Decode(name, data)
		return err
	})
}

// DecodeConfig accepts what Decode decodes, with its size, and refuses what Decode refuses with
// the same error, except a pixel naming a colour-map entry outside the map.
func TestDecodeConfig(t *testing.T) {
	for _, v := range variants() {
		cfg, err := tga.DecodeConfig(v.name, v.file)
		if err != nil || cfg.Width != v.want.Bounds().Dx() || cfg.Height != v.want.Bounds().Dy() {
			t.Errorf("%s: DecodeConfig = %+v, %v", v.name, cfg, err)
		}
	}
	for name, data := range badInputs() {
		_, want := tga.Decode(name, data)
		_, err := tga.DecodeConfig(name, data)
		if err == nil {
			if !strings.Contains(want.Error(), "outside the map") {
				t.Errorf("%s: DecodeConfig accepts what Decode refuses (%v)", name, want)
			}
			continue
		}
		if err.Error() != want.Error() {
			t.Errorf("%s: DecodeConfig says %q, Decode %q", name, err, want)
		}
	}
}
