package translate

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"testing"
	"testing/fstest"

	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/scene"
)

// TestRepaint checks each look on single pixels against what the game's blend does.
func TestRepaint(t *testing.T) {
	red := [3]float32{1, 3.0 / 255, 3.0 / 255}
	tests := []struct {
		name     string
		look     scene.Look
		in, want color.NRGBA
	}{
		{"additive bright", scene.Look{Additive: true}, color.NRGBA{255, 128, 0, 255}, color.NRGBA{255, 128, 0, 255}},
		// Drawn blended, colour 255·a/255 = the 64 the additive draw adds.
		{"additive dim", scene.Look{Additive: true}, color.NRGBA{64, 32, 0, 255}, color.NRGBA{255, 128, 0, 64}},
		{"additive black is transparent", scene.Look{Additive: true}, color.NRGBA{0, 0, 0, 255}, color.NRGBA{0, 0, 0, 0}},
		{"additive keeps alpha", scene.Look{Additive: true}, color.NRGBA{255, 255, 255, 128}, color.NRGBA{255, 255, 255, 128}},
		{"over a colour, transparent", scene.Look{Under: &red}, color.NRGBA{200, 190, 150, 0}, color.NRGBA{255, 3, 3, 255}},
		{"over a colour, opaque", scene.Look{Under: &red}, color.NRGBA{200, 190, 150, 255}, color.NRGBA{200, 190, 150, 255}},
		{"over a colour, half", scene.Look{Under: &red}, color.NRGBA{0, 0, 0, 128}, color.NRGBA{127, 1, 1, 255}},
		{"transparency", scene.Look{Mask: true}, color.NRGBA{9, 9, 9, 64}, color.NRGBA{191, 191, 191, 255}},
		{"modulate white keeps", scene.Look{Modulate: true, Scale: 1}, color.NRGBA{255, 255, 255, 255}, color.NRGBA{0, 0, 0, 0}},
		{"modulate grey halves", scene.Look{Modulate: true, Scale: 1}, color.NRGBA{128, 128, 128, 255}, color.NRGBA{0, 0, 0, 127}},
		{"modulate 2x grey keeps", scene.Look{Modulate: true, Scale: 2}, color.NRGBA{128, 128, 128, 255}, color.NRGBA{0, 0, 0, 0}},
		{"no-alpha add ignores alpha", scene.Look{Opaque: true, Additive: true}, color.NRGBA{64, 32, 0, 0}, color.NRGBA{255, 128, 0, 64}},
		{"colour key", scene.Look{ColorKey: &[3]float32{1, 0, 1}}, color.NRGBA{255, 0, 255, 255}, color.NRGBA{255, 0, 255, 0}},
		{"not the colour key", scene.Look{ColorKey: &[3]float32{1, 0, 1}}, color.NRGBA{255, 1, 255, 255}, color.NRGBA{255, 1, 255, 255}},
		{"modulate discarded", scene.Look{Modulate: true, Scale: 1}, color.NRGBA{0, 0, 0, 2}, color.NRGBA{0, 0, 0, 0}},
	}
	for _, tt := range tests {
		px := image.NewNRGBA(image.Rect(0, 0, 1, 1))
		px.SetNRGBA(0, 0, tt.in)
		repaint(px, &tt.look)
		if got := px.NRGBAAt(0, 0); got != tt.want {
			t.Errorf("%s: %v → %v, want %v", tt.name, tt.in, got, tt.want)
		}
	}
}

// TestGlow checks the painted team glow: its colour, opaque at the centre, clear at the edge.
func TestGlow(t *testing.T) {
	img := Glow([3]float32{1, 3.0 / 255, 3.0 / 255})
	c := img.NRGBAAt(glowSize/2, glowSize/2)
	if c.R != 255 || c.G != 3 || c.A < 240 {
		t.Errorf("centre %v", c)
	}
	for _, p := range [][2]int{{0, 0}, {glowSize - 1, 0}, {0, glowSize / 2}, {glowSize - 1, glowSize - 1}} {
		if a := img.NRGBAAt(p[0], p[1]).A; a != 0 {
			t.Errorf("edge %v alpha %d", p, a)
		}
	}
}

// TestPaintHugePNG gives a painted look a PNG whose few bytes declare 30000×30000 pixels: it
// is refused by its header, not decoded (which would allocate gigabytes).
func TestPaintHugePNG(t *testing.T) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewNRGBA(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	// IHDR's data starts at 16: width, height; its CRC follows the 13 bytes of data.
	binary.BigEndian.PutUint32(b[16:], 30000)
	binary.BigEndian.PutUint32(b[20:], 30000)
	binary.BigEndian.PutUint32(b[29:], crc32.ChecksumIEEE(b[12:29]))
	src := codec.Source{Name: "m.mdx", FS: fstest.MapFS{"big.png": {Data: b}}}
	tex := &scene.Texture{Resolved: "big.png", Look: &scene.Look{Additive: true}}
	_, err := imageFiles{}.paint(src, tex)
	if !errors.Is(err, codec.ErrTooLarge) {
		t.Fatalf("got %v, want ErrTooLarge", err)
	}
}
