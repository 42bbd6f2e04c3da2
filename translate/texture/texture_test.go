package texture_test

import (
	"bytes"
	"errors"
	"image"
	"image/png"
	"slices"
	"testing"

	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/pngenc"
	"github.com/modelfs/modelfs/translate/texture"
	"github.com/modelfs/modelfs/translate/texture/internal/testkit/texfix"
)

func TestDecodeDispatch(t *testing.T) {
	img := texfix.Pattern(6, 5, 8)
	blp2 := texfix.BLPPaletted(2, img, 8)
	tga := texfix.TGA{Type: 2, Depth: 32, AlphaBits: 8}.Encode(img)
	footer := append(append([]byte(nil), tga...), make([]byte, 8)...)
	footer = append(footer, "TRUEVISION-XFILE.\x00"...)
	for _, c := range []struct {
		name string
		data []byte
		ok   bool
	}{
		{"a.blp", blp2, true},
		{`Textures\A.BLP`, blp2, true},
		{"misnamed.tga", blp2, true}, // magic wins
		{"a.tga", tga, true},
		{"A.TGA", tga, true},
		{"no-extension", footer, true}, // TGA 2.0 footer
		{"a.tga.bak", tga, false},
		{"a.blp", tga, false}, // .blp without magic: the BLP decoder says why
		{"a.png", []byte("\x89PNG\r\n\x1a\n"), false},
	} {
		got, err := texture.Decode(c.name, c.data)
		if !c.ok {
			var fe *codec.FormatError
			if !errors.As(err, &fe) || fe.File != c.name {
				t.Errorf("%s: got %v, want a FormatError", c.name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got.Bounds() != img.Bounds() {
			t.Errorf("%s: bounds %v", c.name, got.Bounds())
		}
	}
	_, err := texture.Decode("a.png", []byte("\x89PNG"))
	if !errors.Is(err, codec.ErrUnknownFormat) {
		t.Errorf("unknown data: %v, want ErrUnknownFormat", err)
	}
}

func TestHandles(t *testing.T) {
	if got := texture.Extensions(); !slices.Equal(got, []string{".blp", ".dds", ".tga"}) {
		t.Errorf("Extensions() = %v", got)
	}
	for name, want := range map[string]bool{"a.blp": true, `T\B.BLP`: true, "x.Tga": true, "HD.DDS": true, "a.jpg": false, "blp": false, "a.blp.png": false} {
		if texture.Handles(name) != want {
			t.Errorf("Handles(%q) = %v", name, !want)
		}
	}
	if texture.MaxPixels != 8192*8192 {
		t.Errorf("MaxPixels = %d", texture.MaxPixels)
	}
}

func TestEncodePNG(t *testing.T) {
	for _, img := range []image.Image{texfix.Pattern(33, 17, 8), texfix.Pattern(8, 8, 0), image.NewGray(image.Rect(0, 0, 3, 3))} {
		a, err := pngenc.Encode(img)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := pngenc.Encode(img)
		if !bytes.Equal(a, b) {
			t.Fatal("EncodePNG is not deterministic")
		}
		back, err := png.Decode(bytes.NewReader(a))
		if err != nil {
			t.Fatal(err)
		}
		bnds := img.Bounds()
		for y := bnds.Min.Y; y < bnds.Max.Y; y++ {
			for x := bnds.Min.X; x < bnds.Max.X; x++ {
				r0, g0, b0, a0 := img.At(x, y).RGBA()
				r1, g1, b1, a1 := back.At(x, y).RGBA()
				if r0 != r1 || g0 != g1 || b0 != b1 || a0 != a1 {
					t.Fatalf("%T pixel (%d,%d) changed through PNG", img, x, y)
				}
			}
		}
	}
	// An opaque NRGBA image is written as RGB: colour type 2 in IHDR.
	p, _ := pngenc.Encode(texfix.Pattern(4, 4, 0))
	if p[25] != 2 {
		t.Errorf("opaque image has PNG colour type %d, want 2 (RGB)", p[25])
	}
}

func TestRegistered(t *testing.T) {
	if !codec.IsTextureName(`Textures\SmileyGW.BLP`) || !codec.IsTextureName("a.tga") || codec.IsTextureName("a.png") {
		t.Fatal("the codec is not registered with translate for .blp and .tga")
	}
	p, err := translate.ConvertTexture("a.tga", texfix.TGA{Type: 2, Depth: 24}.Encode(texfix.Pattern(3, 2, 0)))
	if err != nil || !bytes.HasPrefix(p, []byte("\x89PNG")) {
		t.Fatalf("ConvertTexture: %v", err)
	}
}
