package translate

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"sync"

	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/pngenc"
	"github.com/modelfs/modelfs/translate/scene"
)

// glowSize is the side of a painted glow, in pixels: a soft round blob needs no more.
const glowSize = 64

// paint returns the PNG of texture t's Look, painting it once per translation (the memo holds
// it under the look and the file).
func (memo imageFiles) paint(src codec.Source, t *scene.Texture) ([]byte, error) {
	key := "\x00" + t.Look.Key() + "\x00" + t.Resolved
	if f := memo[key]; f != nil && f.made {
		return f.png, f.madeErr
	}
	f := &imageFile{made: true}
	f.png, f.madeErr = memo.painted(src, t)
	if memo != nil {
		memo[key] = f
	}
	return f.png, f.madeErr
}

func (memo imageFiles) painted(src codec.Source, t *scene.Texture) ([]byte, error) {
	l := t.Look
	if l.Glow != nil {
		return glowPNG(*l.Glow)
	}
	var data []byte
	var err error
	if f := memo[t.Resolved]; f != nil {
		data, err = f.data, f.readErr
	} else {
		data, err = src.ReadFile(t.Resolved)
	}
	if err != nil {
		return nil, err
	}
	var img image.Image
	if mime := imageMIME(t.Resolved); mime != "" {
		// A PNG or JPEG says its size first: a few bytes can ask for gigabytes.
		cfg, _, cerr := image.DecodeConfig(bytes.NewReader(data))
		switch {
		case cerr != nil:
			err = &codec.FormatError{Format: mime, File: t.Resolved, Offset: -1, Msg: "unreadable image", Err: cerr}
		case cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width > codec.MaxImageSide || cfg.Height > codec.MaxImageSide ||
			cfg.Width*cfg.Height > codec.MaxImagePixels:
			err = &codec.FormatError{Format: mime, File: t.Resolved, Offset: -1, Err: codec.ErrTooLarge,
				Msg: fmt.Sprintf("image of %d×%d pixels (at most %d a side and %d in all)", cfg.Width, cfg.Height, codec.MaxImageSide, codec.MaxImagePixels)}
		default:
			img, _, err = image.Decode(bytes.NewReader(data))
			if err != nil {
				err = &codec.FormatError{Format: mime, File: t.Resolved, Offset: -1, Msg: "unreadable image", Err: err}
			}
		}
	} else {
		img, err = decodeTexture(t.Resolved, data)
	}
	if err != nil {
		return nil, err
	}
	var px *image.NRGBA
	switch m := img.(type) {
	case *image.NRGBA:
		px = &image.NRGBA{Pix: bytes.Clone(m.Pix), Stride: m.Stride, Rect: m.Rect}
	case *image.Paletted:
		px = unpalette(m)
	default:
		px = image.NewNRGBA(img.Bounds())
		draw.Draw(px, px.Rect, img, img.Bounds().Min, draw.Src)
	}
	repaint(px, l)
	return pngenc.Encode(px)
}

// unpalette returns m's pixels as NRGBA, each its palette entry's straight colour: drawing
// would premultiply, losing the colour under alpha 0 that an opaque look shows.
func unpalette(m *image.Paletted) *image.NRGBA {
	var lut [256]color.NRGBA
	for i, c := range m.Palette {
		if i < len(lut) {
			lut[i] = color.NRGBAModel.Convert(c).(color.NRGBA)
		}
	}
	b := m.Rect
	px := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	for y := range b.Dy() {
		src := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):][:b.Dx()]
		dst := px.Pix[y*px.Stride:][:4*b.Dx()]
		for x, c := range src {
			e := lut[c]
			d := dst[4*x : 4*x+4 : 4*x+4]
			d[0], d[1], d[2], d[3] = e.R, e.G, e.B, e.A
		}
	}
	return px
}

// repaint changes px in place as l says (all but Glow).
func repaint(px *image.NRGBA, l *scene.Look) {
	var under [3]float64
	if l.Under != nil {
		for k := range 3 {
			under[k] = float64(min(max(l.Under[k], 0), 1)) * 255
		}
	}
	scale := float64(max(l.Scale, 1))
	var key [3]float64
	if l.ColorKey != nil {
		for k := range 3 {
			key[k] = math.Round(float64(min(max(l.ColorKey[k], 0), 1)) * 255)
		}
	}
	w, h := px.Rect.Dx(), px.Rect.Dy()
	for y := range h {
		row := px.Pix[y*px.Stride : y*px.Stride+4*w]
		for x := 0; x < len(row); x += 4 {
			p := row[x : x+4 : x+4]
			r, g, b, a := float64(p[0]), float64(p[1]), float64(p[2]), float64(p[3])
			if l.Opaque {
				a = 255
			}
			if l.ColorKey != nil && r == key[0] && g == key[1] && b == key[2] {
				a = 0
			}
			br := max(r, g, b)
			switch {
			case l.Additive:
				na := br * a / 255
				if br > 0 {
					r, g, b = r*255/br, g*255/br, b*255/br
				}
				a = na
			case l.Modulate:
				na := 255 - scale*br
				if a < 0.02*255 {
					na = 0 // the game discards these
				}
				r, g, b, a = 0, 0, 0, max(na, 0)
			case l.Mask:
				r, g, b, a = 255-a, 255-a, 255-a, 255
			case l.Under != nil:
				s := a / 255
				r, g, b, a = r*s+under[0]*(1-s), g*s+under[1]*(1-s), b*s+under[2]*(1-s), 255
			}
			p[0], p[1], p[2], p[3] = byte8(r), byte8(g), byte8(b), byte8(a)
		}
	}
}

func byte8(v float64) uint8 { return uint8(min(max(math.Round(v), 0), 255)) }

// glows holds the PNG of each glow colour painted so far, up to maxGlows of them: the pictures
// depend on the colour alone, and models ask for the same 24 player colours.
var glows struct {
	sync.Mutex
	png map[[3]float32][]byte
}

const maxGlows = 64

// glowPNG returns the PNG of Glow(c), painting it once per process.
func glowPNG(c [3]float32) ([]byte, error) {
	if b, ok := cachedGlow(c); ok {
		return b, nil
	}
	b, err := pngenc.Encode(Glow(c))
	if err != nil {
		return nil, err
	}
	keepGlow(c, b)
	return b, nil
}

func cachedGlow(c [3]float32) ([]byte, bool) {
	glows.Lock()
	defer glows.Unlock()
	b, ok := glows.png[c]
	return b, ok
}

func keepGlow(c [3]float32, b []byte) {
	glows.Lock()
	defer glows.Unlock()
	if glows.png == nil {
		glows.png = map[[3]float32][]byte{}
	}
	if len(glows.png) < maxGlows {
		glows.png[c] = b
	}
}

// Glow paints a round glow of colour c (sRGB fractions): opaque at the centre, fading to
// transparent at the edge as the square of the distance. It stands in for the game's team glow
// picture, which the game keeps in its own archives.
func Glow(c [3]float32) *image.NRGBA {
	px := image.NewNRGBA(image.Rect(0, 0, glowSize, glowSize))
	mid := float64(glowSize-1) / 2
	for y := range glowSize {
		for x := range glowSize {
			d := math.Hypot(float64(x)-mid, float64(y)-mid) / (mid + 0.5)
			a := max(1-d, 0)
			p := px.Pix[y*px.Stride+4*x:]
			p[0], p[1], p[2], p[3] = byte8(float64(c[0])*255), byte8(float64(c[1])*255), byte8(float64(c[2])*255), byte8(a*a*255)
		}
	}
	return px
}
