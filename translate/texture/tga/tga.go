// Package tga decodes Truevision TGA images — true-colour (15/16/24/32 bits), colour-mapped and
// greyscale, raw or run-length encoded, with either origin — to an image.Image.
//
// TGA has no magic number, so Decode checks the header thoroughly (Sniff does the same without
// decoding). Every error is a *translate.FormatError with format "tga". Sizes are checked and
// run-length data is walked before any pixel buffer is allocated, so a hostile file costs little.
package tga

import (
	"encoding/binary"
	"image"
	"image/color"

	"github.com/modelfs/modelfs/translate/texture/internal/texerr"
)

// FormatName is the format named in this package's errors.
const FormatName = "tga"

const headerLen = 18

// Header is what a TGA header says about the image.
type Header struct {
	ImageType  int // 1, 2, 3 (colour-mapped, true-colour, greyscale) or 9, 10, 11 (their RLE forms)
	Width      int
	Height     int
	Depth      int  // bits a pixel
	AlphaBits  int  // attribute bits a pixel, from the descriptor
	TopToBot   bool // descriptor bit 5: the first stored row is the top one
	RightToLft bool // descriptor bit 4: each stored row runs right to left

	mapFirst, mapLen, mapDepth int
	mapStart, dataStart        int // offsets of the colour map and the image data
}

// RLE reports whether the image data is run-length encoded.
func (h Header) RLE() bool { return h.ImageType >= 9 }

func (h Header) kind() int { return h.ImageType &^ 8 }

// Sniff reports whether data starts with a plausible TGA header.
func Sniff(data []byte) bool {
	_, err := DecodeHeader("", data)
	return err == nil
}

// DecodeHeader parses and checks the header of the TGA file data, named name in errors.
func DecodeHeader(name string, data []byte) (Header, error) {
	var h Header
	if len(data) < headerLen {
		return h, texerr.Errorf(FormatName, name, int64(len(data)), "header truncated (%d of %d bytes)", len(data), headerLen)
	}
	u16 := func(off int) int { return int(binary.LittleEndian.Uint16(data[off:])) }
	idLen, mapType := int(data[0]), data[1]
	h.ImageType = int(data[2])
	h.mapFirst, h.mapLen, h.mapDepth = u16(3), u16(5), int(data[7])
	h.Width, h.Height, h.Depth = u16(12), u16(14), int(data[16])
	desc := data[17]
	h.AlphaBits = int(desc & 15)
	h.RightToLft = desc&0x10 != 0
	h.TopToBot = desc&0x20 != 0
	if mapType > 1 {
		return h, texerr.Errorf(FormatName, name, 1, "colour-map type %d (want 0 or 1)", mapType)
	}
	switch h.kind() {
	case 1:
		if mapType != 1 {
			return h, texerr.Errorf(FormatName, name, 1, "colour-mapped image without a colour map")
		}
		if h.Depth != 8 && h.Depth != 16 {
			return h, texerr.Errorf(FormatName, name, 16, "colour-mapped image of %d bits a pixel (want 8 or 16)", h.Depth)
		}
	case 2:
		if h.Depth != 15 && h.Depth != 16 && h.Depth != 24 && h.Depth != 32 {
			return h, texerr.Errorf(FormatName, name, 16, "true-colour image of %d bits a pixel (want 15, 16, 24 or 32)", h.Depth)
		}
	case 3:
		if h.Depth != 8 && h.Depth != 16 {
			return h, texerr.Errorf(FormatName, name, 16, "greyscale image of %d bits a pixel (want 8 or 16)", h.Depth)
		}
	default:
		return h, texerr.Errorf(FormatName, name, 2, "image type %d (want 1, 2, 3, 9, 10 or 11)", h.ImageType)
	}
	if h.ImageType > 11 || (h.ImageType > 3 && h.ImageType < 9) {
		return h, texerr.Errorf(FormatName, name, 2, "image type %d (want 1, 2, 3, 9, 10 or 11)", h.ImageType)
	}
	if mapType == 1 {
		switch h.mapDepth {
		case 15, 16, 24, 32:
		default:
			return h, texerr.Errorf(FormatName, name, 7, "colour-map entries of %d bits (want 15, 16, 24 or 32)", h.mapDepth)
		}
	}
	if err := texerr.CheckSize(FormatName, name, 12, uint64(h.Width), uint64(h.Height)); err != nil {
		return h, err
	}
	h.mapStart = headerLen + idLen
	h.dataStart = h.mapStart
	if mapType == 1 {
		h.dataStart += h.mapLen * ((h.mapDepth + 7) / 8)
	}
	if h.dataStart > len(data) {
		return h, texerr.Errorf(FormatName, name, int64(len(data)), "image ID or colour map truncated (needs %d bytes, file has %d)", h.dataStart, len(data))
	}
	return h, nil
}

// DecodeConfig makes every check Decode makes before it decodes pixels — the header, and that
// the image data (walked packet by packet when run-length encoded) holds every pixel — and
// returns the image's size, without allocating the image. A file it accepts fails Decode only
// when a pixel names a colour-map entry outside the map.
func DecodeConfig(name string, data []byte) (image.Config, error) {
	h, err := DecodeHeader(name, data)
	if err != nil {
		return image.Config{}, err
	}
	if err := h.checkData(name, data); err != nil {
		return image.Config{}, err
	}
	model := color.Model(color.NRGBAModel)
	if h.kind() == 3 && h.Depth == 8 {
		model = color.GrayModel
	}
	return image.Config{ColorModel: model, Width: h.Width, Height: h.Height}, nil
}

// checkData checks that the image data after the header holds every pixel: for run-length
// encoded data, that its packets cover exactly the pixels and lie inside the file.
func (h Header) checkData(name string, data []byte) error {
	bpp := (h.Depth + 7) / 8
	n := h.Width * h.Height
	src := data[h.dataStart:]
	if !h.RLE() {
		if len(src) < n*bpp {
			return texerr.Errorf(FormatName, name, int64(len(data)), "image data truncated (needs %d bytes after offset %d, file has %d)", n*bpp, h.dataStart, len(src))
		}
		return nil
	}
	pos, got := 0, 0
	for got < n {
		if pos >= len(src) {
			return texerr.Errorf(FormatName, name, int64(h.dataStart+pos), "RLE data truncated after %d of %d pixels", got, n)
		}
		c := int(src[pos]&0x7f) + 1
		size := bpp
		if src[pos]&0x80 == 0 {
			size = c * bpp
		}
		if got+c > n {
			return texerr.Errorf(FormatName, name, int64(h.dataStart+pos), "RLE packet of %d pixels runs past the last pixel (%d of %d done)", c, got, n)
		}
		if pos+1+size > len(src) {
			return texerr.Errorf(FormatName, name, int64(h.dataStart+pos), "RLE packet truncated")
		}
		pos += 1 + size
		got += c
	}
	return nil
}

// Decode decodes the TGA file data, named name in errors. An 8-bit greyscale image comes back
// as *image.Gray, anything else as *image.NRGBA (straight alpha).
func Decode(name string, data []byte) (image.Image, error) {
	h, err := DecodeHeader(name, data)
	if err != nil {
		return nil, err
	}
	if err := h.checkData(name, data); err != nil {
		return nil, err
	}
	bpp := (h.Depth + 7) / 8
	n := h.Width * h.Height
	raw := data[h.dataStart:]
	if h.RLE() {
		raw = unRLE(raw, n, bpp)
	}
	raw = raw[:n*bpp]

	if h.kind() == 3 && h.Depth == 8 {
		img := image.NewGray(image.Rect(0, 0, h.Width, h.Height))
		forRows(h, img.Stride, 1, func(src []byte, dst int, step int) {
			for x := 0; x < h.Width; x++ {
				img.Pix[dst+x*step] = src[x]
			}
		}, raw)
		return img, nil
	}

	img := image.NewNRGBA(image.Rect(0, 0, h.Width, h.Height))
	var lut [][4]byte
	var valid []bool
	if h.kind() == 1 {
		lut, valid = colourMap(h, data[h.mapStart:h.dataStart])
	}
	badIndex := -1
	opaque16 := h.AlphaBits == 0
	forRows(h, img.Stride, 4, func(src []byte, dst int, step int) {
		pix := img.Pix
		for x := 0; x < h.Width; x++ {
			o := dst + 4*x*step
			p := pix[o : o+4 : o+4]
			switch {
			case h.kind() == 1:
				i := int(src[x*bpp])
				if bpp == 2 {
					i |= int(src[x*bpp+1]) << 8
				}
				if !valid[i] {
					if badIndex < 0 {
						badIndex = i
					}
					continue
				}
				e := lut[i]
				p[0], p[1], p[2], p[3] = e[0], e[1], e[2], e[3]
			case h.kind() == 3: // 16-bit greyscale: grey, alpha
				p[0], p[1], p[2], p[3] = src[2*x], src[2*x], src[2*x], src[2*x+1]
			case bpp == 4:
				p[0], p[1], p[2], p[3] = src[4*x+2], src[4*x+1], src[4*x], src[4*x+3]
			case bpp == 3:
				p[0], p[1], p[2], p[3] = src[3*x+2], src[3*x+1], src[3*x], 255
			default:
				c := expand555(binary.LittleEndian.Uint16(src[2*x:]), h.Depth == 16 && !opaque16)
				p[0], p[1], p[2], p[3] = c[0], c[1], c[2], c[3]
			}
		}
	}, raw)
	if badIndex >= 0 {
		return nil, texerr.Errorf(FormatName, name, int64(h.mapStart), "pixel uses colour-map index %d outside the map (%d entries from %d)", badIndex, h.mapLen, h.mapFirst)
	}
	if h.kind() == 2 && h.Depth == 32 && h.AlphaBits == 0 {
		forceOpaqueIfClear(img)
	}
	return img, nil
}

// forRows calls row for each stored row of raw (bpp bytes a pixel) with the row's bytes, the
// offset of the row's first stored pixel in the output (stride bytes a row, outBpp a pixel), and
// the step (+1 or -1) from one stored pixel to the next in output pixels.
func forRows(h Header, stride, outBpp int, row func(src []byte, dst, step int), raw []byte) {
	bpp := (h.Depth + 7) / 8
	rowLen := h.Width * bpp
	for r := 0; r < h.Height; r++ {
		y := h.Height - 1 - r
		if h.TopToBot {
			y = r
		}
		dst, step := y*stride, 1
		if h.RightToLft {
			dst, step = y*stride+(h.Width-1)*outBpp, -1
		}
		row(raw[r*rowLen:(r+1)*rowLen], dst, step)
	}
}

// expand555 returns the RGBA of an A1R5G5B5 pixel; the top bit is alpha when alpha is set.
func expand555(v uint16, alpha bool) [4]byte {
	r, g, b := byte(v>>10&31), byte(v>>5&31), byte(v&31)
	a := byte(255)
	if alpha && v&0x8000 == 0 {
		a = 0
	}
	return [4]byte{r<<3 | r>>2, g<<3 | g>>2, b<<3 | b>>2, a}
}

// colourMap returns the colour map as RGBA entries indexed by pixel value, and which pixel
// values the map covers.
func colourMap(h Header, m []byte) ([][4]byte, []bool) {
	size := 256
	if h.Depth == 16 {
		size = 65536
	}
	lut := make([][4]byte, size)
	valid := make([]bool, size)
	eb := (h.mapDepth + 7) / 8
	for k := 0; k < h.mapLen; k++ {
		i := h.mapFirst + k
		if i >= size {
			break
		}
		e := m[k*eb : (k+1)*eb]
		switch eb {
		case 4:
			lut[i] = [4]byte{e[2], e[1], e[0], e[3]}
		case 3:
			lut[i] = [4]byte{e[2], e[1], e[0], 255}
		default:
			lut[i] = expand555(binary.LittleEndian.Uint16(e), h.mapDepth == 16 && h.AlphaBits > 0)
		}
		valid[i] = true
	}
	return lut, valid
}

// forceOpaqueIfClear makes img opaque when every alpha byte is 0: a 32-bit TGA whose descriptor
// declares no attribute bits and whose fourth byte is all zero stores no alpha at all.
func forceOpaqueIfClear(img *image.NRGBA) {
	for i := 3; i < len(img.Pix); i += 4 {
		if img.Pix[i] != 0 {
			return
		}
	}
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 255
	}
}

// unRLE expands the run-length encoded image data src, already checked by checkData, into n
// pixels of bpp bytes.
func unRLE(src []byte, n, bpp int) []byte {
	out := make([]byte, n*bpp)
	o := 0
	for pos := 0; o < len(out); {
		c := int(src[pos]&0x7f) + 1
		if src[pos]&0x80 == 0 {
			o += copy(out[o:], src[pos+1:pos+1+c*bpp])
			pos += 1 + c*bpp
			continue
		}
		px := src[pos+1 : pos+1+bpp]
		for range c {
			o += copy(out[o:], px)
		}
		pos += 1 + bpp
	}
	return out
}
