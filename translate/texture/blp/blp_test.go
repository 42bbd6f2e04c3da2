package blp_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"strings"
	"testing"

	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/texture/blp"
	"github.com/modelfs/modelfs/translate/texture/internal/testkit/texfix"
)

// opaque returns a copy of img with every alpha 255.
func opaque(img *image.NRGBA) *image.NRGBA {
	out := *img
	out.Pix = append([]byte(nil), img.Pix...)
	for i := 3; i < len(out.Pix); i += 4 {
		out.Pix[i] = 255
	}
	return &out
}

// sameNRGBA fails t unless got is an *image.NRGBA with want's bounds and pixels.
func sameNRGBA(t *testing.T, got image.Image, want *image.NRGBA) {
	t.Helper()
	g, ok := got.(*image.NRGBA)
	if p, isPal := got.(*image.Paletted); isPal {
		g, ok = image.NewNRGBA(p.Rect), true
		for i, c := range p.Pix { // the palette's colours as they are, under any alpha
			n := p.Palette[c].(color.NRGBA)
			copy(g.Pix[4*i:], []byte{n.R, n.G, n.B, n.A})
		}
	}
	if !ok {
		t.Fatalf("decoded to %T, want *image.NRGBA or *image.Paletted", got)
	}
	if g.Rect != want.Rect {
		t.Fatalf("bounds %v, want %v", g.Rect, want.Rect)
	}
	bad := 0
	for y := range want.Rect.Dy() {
		for x := range want.Rect.Dx() {
			if gc, wc := g.NRGBAAt(x, y), want.NRGBAAt(x, y); gc != wc {
				if bad < 5 {
					t.Errorf("pixel (%d,%d) = %v, want %v", x, y, gc, wc)
				}
				bad++
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d pixels differ", bad)
	}
}

type variant struct {
	name string
	file []byte
	want *image.NRGBA
}

// variants returns a fixture of every non-DXT variant, with the image it must decode to.
func variants() []variant {
	var vs []variant
	for _, version := range []int{1, 2} {
		for _, bits := range []int{0, 1, 4, 8} {
			for _, size := range [][2]int{{16, 8}, {13, 7}, {1, 1}} {
				img := texfix.Pattern(size[0], size[1], bits)
				vs = append(vs, variant{fmt.Sprintf("BLP%d-paletted-a%d-%dx%d", version, bits, size[0], size[1]), texfix.BLPPaletted(version, img, bits), img})
			}
		}
		for _, size := range [][2]int{{32, 16}, {20, 12}, {3, 5}} {
			img := texfix.Blocky(size[0], size[1], false)
			vs = append(vs,
				variant{fmt.Sprintf("BLP%d-JPEG-a8-%dx%d", version, size[0], size[1]), texfix.BLPJPEG(version, img, 8), img},
				variant{fmt.Sprintf("BLP%d-JPEG-a0-%dx%d", version, size[0], size[1]), texfix.BLPJPEG(version, img, 0), opaque(img)})
		}
	}
	img := texfix.Pattern(9, 6, 8)
	vs = append(vs,
		variant{"BLP2-BGRA-a8", texfix.BLPBGRA(img, 8), img},
		variant{"BLP2-BGRA-a0", texfix.BLPBGRA(img, 0), opaque(img)})
	return vs
}

func TestVariants(t *testing.T) {
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			got, err := blp.Decode(v.name, v.file)
			if err != nil {
				t.Fatal(err)
			}
			sameNRGBA(t, got, v.want)
		})
	}
}

// A paletted image is decoded as one while its (colour, alpha) pairs fit a palette, and as
// NRGBA beyond, with the same pixels.
func TestPalettedKind(t *testing.T) {
	for _, tc := range []struct {
		alphas int
		want   string
	}{{1, "*image.Paletted"}, {128, "*image.Paletted"}, {255, "*image.NRGBA"}} {
		img := image.NewNRGBA(image.Rect(0, 0, 40, 20))
		for i := 0; i < len(img.Pix); i += 4 {
			c := byte(60 * (i / 4 % 2))
			copy(img.Pix[i:], []byte{c, 200 - c, 30, byte(255 - i/4%tc.alphas)})
		}
		got, err := blp.Decode("x.blp", texfix.BLPPaletted(1, img, 8))
		if err != nil {
			t.Fatal(err)
		}
		if k := fmt.Sprintf("%T", got); k != tc.want {
			t.Errorf("%d alphas of 2 colours: %s, want %s", tc.alphas, k, tc.want)
		}
		sameNRGBA(t, got, img)
	}
}

// The JPEG variant is the one whose channel order is easy to get wrong: check one block by
// hand, B, G, R, A being stored as components 1..4.
func TestJPEGChannelOrder(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 8, 8))
	for i := 0; i < len(img.Pix); i += 4 {
		copy(img.Pix[i:], []byte{250, 229, 107, 128}) // R, G, B, A
	}
	got, err := blp.Decode("x.blp", texfix.BLPJPEG(1, img, 8))
	if err != nil {
		t.Fatal(err)
	}
	if c := got.(*image.NRGBA).NRGBAAt(3, 4); c != (color.NRGBA{250, 229, 107, 128}) {
		t.Fatalf("got %v, want {250 229 107 128}", c)
	}
	hdr, _ := texfix.JPEG4(img)
	// The stream is what Blizzard writes: four components and no APP14 (0xFFEE) marker.
	if hdr[72] != 0xC0 || hdr[80] != 4 {
		t.Fatalf("fixture is not a 4-component SOF0 stream: % x", hdr[:90])
	}
	for i := 0; i+1 < len(hdr); i++ {
		if hdr[i] == 0xFF && hdr[i+1] == 0xEE {
			t.Fatal("fixture has an APP14 marker")
		}
	}
}

// dxtCase is a hand-made DXT image: its blocks and every pixel it must decode to.
type dxtCase struct {
	name          string
	w, h          int
	depth, encode uint8
	blocks        []byte
	want          [][4]uint8 // row-major
}

func le16(v uint16) []byte { return binary.LittleEndian.AppendUint16(nil, v) }
func le32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

// indices packs 16 2-bit indices, pixel 0 in the low bits.
func indices(ix [16]uint32) []byte {
	var v uint32
	for i, x := range ix {
		v |= x << (2 * i)
	}
	return le32(v)
}

const (
	red   = 0xF800
	green = 0x07E0
	blue  = 0x001F
)

var ramp = [16]uint32{0, 1, 2, 3, 3, 2, 1, 0, 0, 0, 1, 1, 2, 2, 3, 3}

func dxtCases() []dxtCase {
	// 4-colour mode (c0 > c1): red, blue, 2/3 red + 1/3 blue, 1/3 red + 2/3 blue.
	four := [4][4]uint8{{255, 0, 0, 255}, {0, 0, 255, 255}, {170, 0, 85, 255}, {85, 0, 170, 255}}
	// 3-colour mode (c0 ≤ c1), blue then red: half way, then transparent black.
	three := [4][4]uint8{{0, 0, 255, 255}, {255, 0, 0, 255}, {128, 0, 128, 255}, {0, 0, 0, 0}}
	threeOpaque := three
	threeOpaque[3] = [4]uint8{0, 0, 0, 255}
	// DXT3/5 colour blocks always have four colours, whatever the order of c0 and c1.
	fourRev := [4][4]uint8{{0, 0, 255, 255}, {255, 0, 0, 255}, {85, 0, 170, 255}, {170, 0, 85, 255}}
	px := func(pal [4][4]uint8, ix [16]uint32, w, h int) [][4]uint8 {
		var out [][4]uint8
		for y := range h {
			for x := range w {
				out = append(out, pal[ix[4*y+x]])
			}
		}
		return out
	}
	c1 := cat(le16(red), le16(blue), indices(ramp))
	c3 := cat(le16(blue), le16(red), indices(ramp))
	cs := []dxtCase{
		{"DXT1-4colour", 4, 4, 0, 0, c1, px(four, ramp, 4, 4)},
		{"DXT1-3colour-alpha", 4, 4, 1, 0, c3, px(three, ramp, 4, 4)},
		{"DXT1-3colour-noalpha", 4, 4, 0, 0, c3, px(threeOpaque, ramp, 4, 4)},
		{"DXT1-equal-ends-alpha", 4, 4, 1, 0, cat(le16(green), le16(green), indices(ramp)),
			px([4][4]uint8{{0, 255, 0, 255}, {0, 255, 0, 255}, {0, 255, 0, 255}, {0, 0, 0, 0}}, ramp, 4, 4)},
		{"DXT1-2x2", 2, 2, 1, 0, c3, px(three, ramp, 2, 2)},
		{"DXT1-1x1", 1, 1, 1, 0, c3, px(three, ramp, 1, 1)},
	}
	// Bit expansion of 5:6:5: g = 32 → 130, r = 16 → 132, b = 1 → 8.
	cs = append(cs, dxtCase{"DXT1-expand", 1, 1, 0, 0, cat(le16(16<<11|32<<5|1), le16(0), le32(0)), [][4]uint8{{132, 130, 8, 255}}})

	// DXT3: alpha nibbles 0..15 in pixel order.
	var a3 []byte
	for i := 0; i < 16; i += 2 {
		a3 = append(a3, byte(i)|byte(i+1)<<4)
	}
	want3 := px(fourRev, ramp, 4, 4)
	for i := range want3 {
		want3[i][3] = uint8(i * 17)
	}
	cs = append(cs, dxtCase{"DXT3", 4, 4, 8, 1, cat(a3, c3), want3})

	// DXT5: alpha indices 0..7 twice, in both end-point orders.
	var ai uint64
	for i := range 16 {
		ai |= uint64(i%8) << (3 * i)
	}
	aidx := binary.LittleEndian.AppendUint64(nil, ai)[:6]
	eight := []uint8{255, 0, 219, 182, 146, 109, 73, 36}
	six := []uint8{0, 255, 51, 102, 153, 204, 0, 255}
	want8 := px(fourRev, ramp, 4, 4)
	want6 := px(fourRev, ramp, 4, 4)
	for i := range want8 {
		want8[i][3], want6[i][3] = eight[i%8], six[i%8]
	}
	cs = append(cs,
		dxtCase{"DXT5-8alpha", 4, 4, 8, 7, cat([]byte{255, 0}, aidx, c3), want8},
		dxtCase{"DXT5-6alpha", 4, 4, 8, 7, cat([]byte{0, 255}, aidx, c3), want6})

	// Several blocks, clipped at the right and bottom: a 6×5 image is 2×2 blocks.
	var blocks []byte
	colours := []uint16{red, green, blue, red | blue}
	for _, c := range colours {
		blocks = append(blocks, cat(le16(c), le16(0), le32(0))...)
	}
	var want [][4]uint8
	for y := range 5 {
		for x := range 6 {
			c := [][4]uint8{{255, 0, 0, 255}, {0, 255, 0, 255}, {0, 0, 255, 255}, {255, 0, 255, 255}}[(y/4)*2+x/4]
			want = append(want, c)
		}
	}
	cs = append(cs, dxtCase{"DXT1-6x5-blocks", 6, 5, 0, 0, blocks, want})
	return cs
}

func TestDXT(t *testing.T) {
	for _, c := range dxtCases() {
		t.Run(c.name, func(t *testing.T) {
			got, err := blp.Decode(c.name, texfix.BLPDXT(c.w, c.h, c.depth, c.encode, c.blocks))
			if err != nil {
				t.Fatal(err)
			}
			want := image.NewNRGBA(image.Rect(0, 0, c.w, c.h))
			for i, p := range c.want {
				copy(want.Pix[4*i:], p[:])
			}
			sameNRGBA(t, got, want)
		})
	}
}

func TestHeader(t *testing.T) {
	for _, c := range []struct {
		file []byte
		want blp.Header
	}{
		{texfix.BLPDXT(8, 4, 1, 0, make([]byte, 16)), blp.Header{Version: 2, Encoding: blp.DXT1, AlphaBits: 1, Width: 8, Height: 4}},
		{texfix.BLPJPEG(1, texfix.Blocky(8, 8, true), 0), blp.Header{Version: 1, Encoding: blp.JPEG, Width: 8, Height: 8}},
	} {
		h, err := blp.DecodeHeader("x", c.file)
		if err != nil {
			t.Fatal(err)
		}
		if h.Version != c.want.Version || h.Encoding != c.want.Encoding || h.AlphaBits != c.want.AlphaBits || h.Width != c.want.Width || h.Height != c.want.Height {
			t.Errorf("header %+v, want %+v", h, c.want)
		}
	}
}

// put returns a copy of b with v written little-endian at off.
func put(b []byte, off int, v uint32) []byte {
	b = append([]byte(nil), b...)
	binary.LittleEndian.PutUint32(b[off:], v)
	return b
}

// badInputs returns hostile and broken files, each of which must fail with a FormatError.
func badInputs() map[string][]byte {
	pal1 := texfix.BLPPaletted(1, texfix.Pattern(16, 8, 8), 8)
	pal2 := texfix.BLPPaletted(2, texfix.Pattern(16, 8, 4), 4)
	jpg := texfix.BLPJPEG(1, texfix.Blocky(32, 16, false), 8)
	dxt := texfix.BLPDXT(8, 8, 8, 7, texfix.RandomBytes(64, 1))
	bad := map[string][]byte{
		"empty":                           {},
		"magic only":                      []byte("BLP2"),
		"BLP3":                            append([]byte("BLP3"), make([]byte, 200)...),
		"BLP1 compression 5":              put(pal1, 4, 5),
		"BLP1 alpha 3":                    put(pal1, 8, 3),
		"BLP1 width 0":                    put(pal1, 12, 0),
		"BLP1 width huge":                 put(pal1, 12, 1<<31),
		"BLP1 8192x16384":                 put(put(pal1, 12, 8192), 16, 16384),
		"BLP1 width 4096 (short)":         put(pal1, 12, 4096),
		"BLP1 mip offset past end":        put(pal1, 28, uint32(len(pal1))),
		"BLP1 mip offset huge":            put(pal1, 28, 0xFFFFFFF0),
		"BLP1 mip size past end":          put(pal1, 28+64, uint32(len(pal1))),
		"BLP1 mip size huge":              put(pal1, 28+64, 0xFFFFFFFF),
		"BLP1 mip size short":             put(pal1, 28+64, 100),
		"BLP1 mip offset in header":       put(pal1, 28, 4),
		"BLP1 palette short":              pal1[:156+600],
		"BLP2 type 7":                     put(pal2, 4, 7),
		"BLP2 encoding 9":                 append(append(append([]byte(nil), pal2[:8]...), 9), pal2[9:]...),
		"BLP2 alpha depth 2":              append(append(append([]byte(nil), pal2[:9]...), 2), pal2[10:]...),
		"BLP2 height huge":                put(pal2, 16, 0xFFFFFFFF),
		"BLP2 mip past end":               put(pal2, 20, uint32(len(pal2)-10)),
		"BLP2 palette short":              pal2[:148+1000],
		"DXT alpha encoding 3":            append(append(append([]byte(nil), dxt[:10]...), 3), dxt[11:]...),
		"DXT 4096x4096 tiny data":         put(put(dxt, 12, 4096), 16, 4096),
		"DXT mip short":                   put(dxt, 20+64, 63),
		"JPEG header size huge":           put(jpg, 156, 0xFFFFFFFF),
		"JPEG header size past end":       put(jpg, 156, uint32(len(jpg))),
		"JPEG header size 0":              put(jpg, 156, 0),
		"JPEG mip past end":               put(jpg, 28+64, uint32(len(jpg))),
		"JPEG truncated scan":             put(jpg, 28+64, 10),
		"JPEG not SOI":                    put(jpg, 160, 0x12345678),
		"JPEG no header, level not SOI":   texfix.BLP1{Compression: 0, Width: 8, Height: 8, Levels: [][]byte{{1, 2, 3, 4}}}.Bytes(),
		"JPEG no header, level of 1 byte": texfix.BLP1{Compression: 0, Width: 8, Height: 8, Levels: [][]byte{{0xff}}}.Bytes(),
	}
	// A JPEG whose SOF claims 8192×8192 with a few bytes of scan data.
	hdr, _ := texfix.JPEG4(texfix.Blocky(8, 8, true))
	big := append([]byte(nil), hdr...)
	sof := 76 // SOF0's height and width
	big[sof], big[sof+1], big[sof+2], big[sof+3] = 0x20, 0, 0x20, 0
	bad["JPEG SOF 8192x8192"] = texfix.BLP1{Compression: 0, AlphaBits: 8, Width: 8, Height: 8, JPEGHeader: big, Levels: [][]byte{make([]byte, 64)}}.Bytes()
	big2 := append([]byte(nil), big...)
	big2[sof], big2[sof+2] = 0xFF, 0xFF
	bad["JPEG SOF 65280x65280"] = texfix.BLP1{Compression: 0, AlphaBits: 8, Width: 8, Height: 8, JPEGHeader: big2, Levels: [][]byte{make([]byte, 64)}}.Bytes()
	// Truncations at many lengths of the small fixtures, up to the end of level 0 (the later
	// levels are never read).
	for name, f := range map[string][]byte{"paletted": pal1, "jpeg": jpg, "dxt": dxt} {
		end := binary.LittleEndian.Uint32(f[20:]) + binary.LittleEndian.Uint32(f[20+64:])
		if string(f[:4]) == "BLP1" {
			end = binary.LittleEndian.Uint32(f[28:]) + binary.LittleEndian.Uint32(f[28+64:])
		}
		for n := 0; n < int(end); n += 1 + n/50 {
			bad[fmt.Sprintf("%s truncated at %d", name, n)] = f[:n]
		}
	}
	return bad
}

func TestBadInput(t *testing.T) {
	texfix.CheckRefusals(t, "blp", badInputs(), func(name string, data []byte) error {
		_, err := blp.Decode(name, data)
		return err
	})
}

func TestTooLargeWrapsErrTooLarge(t *testing.T) {
	data := put(texfix.BLPDXT(8, 8, 0, 0, make([]byte, 32)), 12, 1<<20)
	_, err := blp.Decode("x", data)
	if !errors.Is(err, codec.ErrTooLarge) {
		t.Fatalf("got %v, want ErrTooLarge", err)
	}
}

// DecodeConfig accepts what Decode decodes, with its size, and refuses what Decode refuses with
// the same error, except inside the JPEG entropy-coded data, which it does not read.
func TestDecodeConfig(t *testing.T) {
	for _, v := range variants() {
		cfg, err := blp.DecodeConfig(v.name, v.file)
		if err != nil || cfg.Width != v.want.Rect.Dx() || cfg.Height != v.want.Rect.Dy() {
			t.Errorf("%s: DecodeConfig = %+v, %v", v.name, cfg, err)
		}
	}
	for name, data := range badInputs() {
		_, want := blp.Decode(name, data)
		_, err := blp.DecodeConfig(name, data)
		if err == nil {
			if !strings.HasPrefix(name, "jpeg truncated") && name != "JPEG truncated scan" {
				t.Errorf("%s: DecodeConfig accepts what Decode refuses (%v)", name, want)
			}
			continue
		}
		if err.Error() != want.Error() {
			t.Errorf("%s: DecodeConfig says %q, Decode %q", name, err, want)
		}
	}
}

// JPEG BLP1 files the game shows: alpha depths other than 0, 1, 4 and 8 (the alpha is the
// JPEG's fourth channel; the depth says only whether it is used), and an empty shared JPEG
// header with each level a whole JPEG.
func TestJPEGBLP1AsTheGameShows(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 8, 8))
	for i := 0; i < len(img.Pix); i += 4 {
		copy(img.Pix[i:], []byte{250, 229, 107, 128})
	}
	for _, depth := range []uint32{5, 6, 7, 9, 10} {
		f := texfix.BLPJPEG(1, img, 8)
		binary.LittleEndian.PutUint32(f[8:], depth)
		got, err := blp.Decode("odd.blp", f)
		if err != nil {
			t.Errorf("alpha depth %d: %v", depth, err)
			continue
		}
		if c := got.(*image.NRGBA).NRGBAAt(3, 4); c != (color.NRGBA{250, 229, 107, 128}) {
			t.Errorf("alpha depth %d: %v, want the alpha kept", depth, c)
		}
	}
	hdr, scan := texfix.JPEG4(img)
	whole := append(append([]byte{}, hdr...), scan...)
	f := texfix.BLP1{Compression: 0, AlphaBits: 8, Width: 8, Height: 8, JPEGHeader: nil, Levels: [][]byte{whole}}.Bytes()
	got, err := blp.Decode("noheader.blp", f)
	if err != nil {
		t.Fatalf("empty shared header: %v", err)
	}
	if c := got.(*image.NRGBA).NRGBAAt(3, 4); c != (color.NRGBA{250, 229, 107, 128}) {
		t.Errorf("empty shared header: %v", c)
	}
	// Each is noted, with its offset; a file as the format has it has no note.
	odd := texfix.BLPJPEG(1, img, 8)
	binary.LittleEndian.PutUint32(odd[8:], 9)
	for _, c := range []struct {
		data []byte
		want string
	}{{odd, "offset 8: alpha depth 9"}, {f, "empty shared JPEG header"}, {texfix.BLPJPEG(1, img, 8), ""}} {
		notes := blp.Notes("x.blp", c.data)
		if c.want == "" && len(notes) != 0 || c.want != "" && (len(notes) != 1 || !strings.Contains(notes[0], c.want)) {
			t.Errorf("notes %q, want one saying %q", notes, c.want)
		}
	}
}
