package pngenc

import (
	"bytes"
	"hash/adler32"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"runtime"
	"testing"
)

// images returns one image of each kind the writer plans differently, of w×h pixels.
func images(w, h int, seed uint64) map[string]image.Image {
	r := rand.New(rand.NewPCG(seed, 1))
	out := map[string]image.Image{}
	pal := color.Palette{}
	for i := range 200 {
		pal = append(pal, color.NRGBA{uint8(i), uint8(255 - i), uint8(i * 7), uint8(max(0, 255-3*i))})
	}
	p := image.NewPaletted(image.Rect(0, 0, w, h), pal)
	for i := range p.Pix {
		p.Pix[i] = uint8(r.IntN(len(pal)))
	}
	out["paletted"] = p
	g := image.NewGray(image.Rect(0, 0, w, h))
	for i := range g.Pix {
		g.Pix[i] = uint8(i/w + r.IntN(4))
	}
	out["gray"] = g
	for _, kind := range []string{"rgba", "rgb", "grey-nrgba", "grey-alpha"} {
		m := image.NewNRGBA(image.Rect(0, 0, w, h))
		for y := range h {
			for x := range w {
				c := color.NRGBA{uint8(x + r.IntN(8)), uint8(y * 3), uint8(x ^ y), uint8(r.IntN(256))}
				switch kind {
				case "rgb":
					c.A = 255
				case "grey-nrgba":
					c.G, c.B, c.A = c.R, c.R, 255
				case "grey-alpha":
					c.G, c.B = c.R, c.R
				}
				m.SetNRGBA(x, y, c)
			}
		}
		out[kind] = m
	}
	// A sub-image: its rows do not start at the buffer's.
	if w > 4 && h > 5 {
		out["sub-rgba"] = out["rgba"].(*image.NRGBA).SubImage(image.Rect(3, 2, w-1, h-3))
	}
	out["cmyk"] = image.NewCMYK(image.Rect(0, 0, w, h))
	return out
}

func nrgbaAt(img image.Image, x, y int) color.NRGBA {
	return color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
}

// Every kind of image reads back with image/png as exactly its pixels, with the colour type
// the writer picks for it; the bytes do not depend on the number of cores.
func TestRoundTrip(t *testing.T) {
	wantCT := map[string]byte{"paletted": ctPalette, "gray": ctGray, "rgba": ctRGBA, "rgb": ctRGB,
		"grey-nrgba": ctGray, "grey-alpha": ctGrayAlpha, "sub-rgba": ctRGBA, "cmyk": ctGray}
	for _, size := range [][2]int{{1, 1}, {7, 5}, {300, 2000}} { // the last in several pieces
		for name, img := range images(size[0], size[1], uint64(size[1])) {
			b, err := Encode(img)
			if err != nil {
				t.Fatal(err)
			}
			if size[0] > 1 && b[25] != wantCT[name] {
				t.Errorf("%s: colour type %d, want %d", name, b[25], wantCT[name])
			}
			back, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("%s %v: %v", name, size, err)
			}
			ib := img.Bounds()
			if back.Bounds().Dx() != ib.Dx() || back.Bounds().Dy() != ib.Dy() {
				t.Fatalf("%s: bounds %v", name, back.Bounds())
			}
			bad := 0
			for y := range ib.Dy() {
				for x := range ib.Dx() {
					if nrgbaAt(back, x, y) != nrgbaAt(img, ib.Min.X+x, ib.Min.Y+y) {
						bad++
					}
				}
			}
			if bad > 0 {
				t.Errorf("%s %v: %d pixels differ", name, size, bad)
			}
			old := runtime.GOMAXPROCS(1)
			one, _ := Encode(img)
			runtime.GOMAXPROCS(old)
			if !bytes.Equal(one, b) {
				t.Errorf("%s %v: the bytes depend on the number of cores", name, size)
			}
		}
	}
}

func TestAdlerCombine(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		a, b := make([]byte, r.IntN(200000)), make([]byte, r.IntN(200000))
		for i := range a {
			a[i] = uint8(r.Uint32())
		}
		for i := range b {
			b[i] = 255 - uint8(r.IntN(3))
		}
		want := adler32.Checksum(append(append([]byte{}, a...), b...))
		if got := adlerCombine(adler32.Checksum(a), adler32.Checksum(b), int64(len(b))); got != want {
			t.Fatalf("len %d + %d: %08x, want %08x", len(a), len(b), got, want)
		}
	}
}

func TestEmpty(t *testing.T) {
	if _, err := Encode(image.NewNRGBA(image.Rect(0, 0, 0, 4))); err == nil {
		t.Error("an empty image encoded")
	}
}
