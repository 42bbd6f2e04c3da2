// Package blp decodes Blizzard BLP textures — BLP1 (Warcraft III: JPEG or paletted) and BLP2
// (World of Warcraft: paletted, DXT1/3/5 or plain BGRA) — to an image.Image, reading mip level 0
// only.
//
// Every error is a *translate.FormatError with format "blp". Sizes and offsets are checked
// against the file before anything is allocated, so a hostile file costs little.
package blp

import (
	"encoding/binary"
	"fmt"
	"image"
	"image/color"

	"github.com/modelfs/modelfs/translate/texture/internal/bc"
	"github.com/modelfs/modelfs/translate/texture/internal/texerr"
)

// FormatName is the format named in this package's errors.
const FormatName = "blp"

const (
	blp1HeaderLen = 156 // magic, 6 uint32, mipOffset[16], mipSize[16]
	blp2HeaderLen = 148 // magic, type, 4 bytes, width, height, mipOffset[16], mipSize[16]
	paletteLen    = 256 * 4
)

// Encoding is how a BLP's pixels are stored.
type Encoding int

// The encodings a BLP can hold.
const (
	JPEG     Encoding = iota // BLP1 compression 0, BLP2 type 0
	Paletted                 // 256 BGRA colours, one index a pixel, then an alpha plane
	DXT1                     // BLP2 encoding 2, alpha encoding 0
	DXT3                     // BLP2 encoding 2, alpha encoding 1
	DXT5                     // BLP2 encoding 2, alpha encoding 7
	BGRA                     // BLP2 encoding 3: four bytes a pixel
)

var encodingNames = [...]string{"JPEG", "paletted", "DXT1", "DXT3", "DXT5", "BGRA"}

// String returns the encoding's name.
func (e Encoding) String() string {
	if e >= 0 && int(e) < len(encodingNames) {
		return encodingNames[e]
	}
	return fmt.Sprintf("Encoding(%d)", int(e))
}

// Header is what a BLP header says about the image.
type Header struct {
	Version   int // 1 or 2
	Encoding  Encoding
	AlphaBits int // 0, 1, 4 or 8
	Width     int
	Height    int

	mipOffset, mipSize uint32 // level 0
	dataStart          int    // end of the fixed header (where the palette or JPEG header is)
}

// Notes returns what the BLP file data departs from the format in, where the reader goes on as
// the game does: an alpha depth in a JPEG BLP1 that is not 0, 1, 4 or 8 (read as whether the
// JPEG's alpha is used), an empty shared JPEG header (each level a whole JPEG). Each note names
// the offset. A file DecodeHeader refuses has none.
func Notes(name string, data []byte) []string {
	h, err := DecodeHeader(name, data)
	if err != nil || h.Version != 1 || h.Encoding != JPEG {
		return nil
	}
	var notes []string
	if a := binary.LittleEndian.Uint32(data[8:]); a != 0 && a != 1 && a != 4 && a != 8 {
		notes = append(notes, fmt.Sprintf("offset 8: alpha depth %d of a JPEG BLP1 read as %d (the JPEG's alpha channel is used)", a, h.AlphaBits))
	}
	if hs := h.dataStart; hs+4 <= len(data) && binary.LittleEndian.Uint32(data[hs:]) == 0 {
		notes = append(notes, fmt.Sprintf("offset %d: empty shared JPEG header; each level is read as a whole JPEG", hs))
	}
	return notes
}

// DecodeHeader parses and checks the header of the BLP file data, named name in errors.
func DecodeHeader(name string, data []byte) (Header, error) {
	var h Header
	if len(data) < 4 || string(data[:3]) != "BLP" || (data[3] != '1' && data[3] != '2') {
		return h, texerr.Errorf(FormatName, name, 0, "not a BLP1 or BLP2 file")
	}
	u32 := func(off int) uint32 { return binary.LittleEndian.Uint32(data[off:]) }
	var w, hgt uint32
	var mipBase int
	if data[3] == '1' {
		h.Version = 1
		if len(data) < blp1HeaderLen {
			return h, texerr.Errorf(FormatName, name, int64(len(data)), "BLP1 header truncated (%d of %d bytes)", len(data), blp1HeaderLen)
		}
		switch c := u32(4); c {
		case 0:
			h.Encoding = JPEG
		case 1:
			h.Encoding = Paletted
		default:
			return h, texerr.Errorf(FormatName, name, 4, "unknown BLP1 compression %d", c)
		}
		a := u32(8)
		switch {
		case h.Encoding == JPEG:
			// A JPEG's alpha is its fourth channel: the depth only says whether it is used,
			// and files the game shows carry 5, 6, 7, 9, 10 there.
			h.AlphaBits = 0
			if a != 0 {
				h.AlphaBits = 8
			}
		case a != 0 && a != 1 && a != 4 && a != 8:
			return h, texerr.Errorf(FormatName, name, 8, "alpha depth %d (want 0, 1, 4 or 8)", a)
		default:
			h.AlphaBits = int(a)
		}
		w, hgt = u32(12), u32(16)
		mipBase = 28
		h.dataStart = blp1HeaderLen
	} else {
		h.Version = 2
		if len(data) < blp2HeaderLen {
			return h, texerr.Errorf(FormatName, name, int64(len(data)), "BLP2 header truncated (%d of %d bytes)", len(data), blp2HeaderLen)
		}
		typ, enc, depth, alphaEnc := u32(4), data[8], data[9], data[10]
		if depth != 0 && depth != 1 && depth != 4 && depth != 8 {
			return h, texerr.Errorf(FormatName, name, 9, "alpha depth %d (want 0, 1, 4 or 8)", depth)
		}
		h.AlphaBits = int(depth)
		switch {
		case typ == 0:
			h.Encoding = JPEG
		case typ != 1:
			return h, texerr.Errorf(FormatName, name, 4, "unknown BLP2 type %d", typ)
		case enc == 1:
			h.Encoding = Paletted
		case enc == 2 && alphaEnc == 0:
			h.Encoding = DXT1
		case enc == 2 && alphaEnc == 1:
			h.Encoding = DXT3
		case enc == 2 && alphaEnc == 7:
			h.Encoding = DXT5
		case enc == 2:
			return h, texerr.Errorf(FormatName, name, 10, "unknown DXT alpha encoding %d", alphaEnc)
		case enc == 3:
			h.Encoding = BGRA
		default:
			return h, texerr.Errorf(FormatName, name, 8, "unknown BLP2 encoding %d", enc)
		}
		w, hgt = u32(12), u32(16)
		mipBase = 20
		h.dataStart = blp2HeaderLen
	}
	if err := texerr.CheckSize(FormatName, name, 12, uint64(w), uint64(hgt)); err != nil {
		return h, err
	}
	h.Width, h.Height = int(w), int(hgt)
	h.mipOffset, h.mipSize = u32(mipBase), u32(mipBase+64)
	return h, nil
}

// Decode decodes mip level 0 of the BLP file data, named name in errors. A paletted image whose
// colours with their alpha number at most 256 comes back as *image.Paletted, a quarter of the
// memory, which a PNG stores as it is; the other paletted, DXT and BGRA images as *image.NRGBA
// (straight alpha; opaque when the header declares no alpha), JPEG ones as *image.NRGBA too.
func Decode(name string, data []byte) (image.Image, error) {
	h, err := DecodeHeader(name, data)
	if err != nil {
		return nil, err
	}
	if h.Encoding == JPEG {
		j, err := checkJPEG(name, data, h)
		if err != nil {
			return nil, err
		}
		return decodeJPEG(name, h, j)
	}
	mip, err := h.checkPixels(name, data)
	if err != nil {
		return nil, err
	}
	if h.Encoding == Paletted {
		pal := data[h.dataStart : h.dataStart+paletteLen]
		if p := asPaletted(h, pal, mip); p != nil {
			return p, nil
		}
	}
	img := image.NewNRGBA(image.Rect(0, 0, h.Width, h.Height))
	switch h.Encoding {
	case Paletted:
		decodePaletted(img, data[h.dataStart:h.dataStart+paletteLen], mip, h.AlphaBits)
	case BGRA:
		decodeBGRA(img, mip, h.AlphaBits)
	case DXT1:
		bc.BC1(img, mip, h.AlphaBits != 0)
	case DXT3:
		bc.BC2(img, mip, h.AlphaBits != 0)
	case DXT5:
		bc.BC3(img, mip, h.AlphaBits != 0)
	}
	return img, nil
}

// DecodeConfig makes every check Decode makes before it decodes pixels — the header, the
// palette, where mip level 0 lies and how long it is, the JPEG stream's own header — and
// returns the image's size, without allocating the image. A file it accepts fails Decode only
// inside the JPEG entropy-coded data.
func DecodeConfig(name string, data []byte) (image.Config, error) {
	h, err := DecodeHeader(name, data)
	if err != nil {
		return image.Config{}, err
	}
	if h.Encoding == JPEG {
		_, err = checkJPEG(name, data, h)
	} else {
		_, err = h.checkPixels(name, data)
	}
	if err != nil {
		return image.Config{}, err
	}
	// A paletted image may decode to an image.Paletted, whose palette Decode alone knows; its
	// colours are NRGBA all the same.
	return image.Config{ColorModel: color.NRGBAModel, Width: h.Width, Height: h.Height}, nil
}

// checkPixels checks that the palette (for a paletted image) and mip level 0 of a non-JPEG
// image lie inside data, and returns the level's bytes.
func (h Header) checkPixels(name string, data []byte) ([]byte, error) {
	if h.dataStart+paletteLen > len(data) {
		return nil, texerr.Errorf(FormatName, name, int64(len(data)), "palette truncated (file ends at %d, palette at %d..%d)", len(data), h.dataStart, h.dataStart+paletteLen)
	}
	return h.level0(name, data, h.levelBytes())
}

// levelBytes returns how many bytes mip level 0 of a non-JPEG image needs.
func (h Header) levelBytes() int {
	n := h.Width * h.Height
	bw, bh := (h.Width+3)/4, (h.Height+3)/4
	switch h.Encoding {
	case Paletted:
		return n + (n*h.AlphaBits+7)/8
	case DXT1:
		return bw * bh * 8
	case DXT3, DXT5:
		return bw * bh * 16
	default: // BGRA
		return n * 4
	}
}

// level0 returns the bytes of mip level 0, checked to lie inside data and to hold at least need
// bytes.
func (h Header) level0(name string, data []byte, need int) ([]byte, error) {
	off, size := uint64(h.mipOffset), uint64(h.mipSize)
	mipAt := int64(20)
	if h.Version == 1 {
		mipAt = 28
	}
	if off < uint64(h.dataStart) || off+size > uint64(len(data)) {
		return nil, texerr.Errorf(FormatName, name, mipAt, "mip level 0 at %d..%d lies outside the data (%d..%d)", off, off+size, h.dataStart, len(data))
	}
	if size < uint64(need) {
		return nil, texerr.Errorf(FormatName, name, mipAt+64, "mip level 0 holds %d bytes; a %d×%d %s image needs %d", size, h.Width, h.Height, h.Encoding, need)
	}
	return data[off : off+size], nil
}

// asPaletted returns the paletted image of w×h palette indices followed by an alpha plane, its
// palette each (colour, alpha) pair the pixels use in the order they first appear (the file's
// palette itself when there is no alpha); nil when there are more than 256 pairs.
func asPaletted(h Header, pal, mip []byte) *image.Paletted {
	n := h.Width * h.Height
	img := &image.Paletted{Pix: make([]byte, n), Stride: h.Width, Rect: image.Rect(0, 0, h.Width, h.Height)}
	idx, alpha := mip[:n], mip[n:]
	if h.AlphaBits == 0 {
		copy(img.Pix, idx)
		img.Palette = make(color.Palette, 256)
		for i := range img.Palette {
			img.Palette[i] = color.NRGBA{pal[4*i+2], pal[4*i+1], pal[4*i], 255}
		}
		return img
	}
	var slot [256 * 256]uint16 // (index, alpha) → its palette entry + 1
	for i, c := range idx {
		a := alphaAt(alpha, h.AlphaBits, i)
		k := int(c)<<8 | int(a)
		e := slot[k]
		if e == 0 {
			if len(img.Palette) == 256 {
				return nil
			}
			img.Palette = append(img.Palette, color.NRGBA{pal[4*int(c)+2], pal[4*int(c)+1], pal[4*int(c)], a})
			e = uint16(len(img.Palette))
			slot[k] = e
		}
		img.Pix[i] = byte(e - 1)
	}
	return img
}

// decodePaletted fills img from w×h palette indices followed by an alpha plane of alphaBits
// bits a pixel (bit 0 / low nibble first).
func decodePaletted(img *image.NRGBA, pal, mip []byte, alphaBits int) {
	n := img.Rect.Dx() * img.Rect.Dy()
	var lut [256][4]byte
	for i := range lut {
		lut[i] = [4]byte{pal[4*i+2], pal[4*i+1], pal[4*i], 255}
	}
	idx, alpha := mip[:n], mip[n:]
	pix := img.Pix[:4*n]
	for i, c := range idx {
		p := pix[4*i : 4*i+4 : 4*i+4]
		e := &lut[c]
		p[0], p[1], p[2], p[3] = e[0], e[1], e[2], e[3]
	}
	if alphaBits != 0 {
		for i := range n {
			pix[4*i+3] = alphaAt(alpha, alphaBits, i)
		}
	}
}

// alphaAt is pixel i's alpha in an alpha plane of bits (8, 4 or 1) a pixel, the low nibble or
// bit first, scaled to 0–255.
func alphaAt(alpha []byte, bits, i int) byte {
	switch bits {
	case 8:
		return alpha[i]
	case 4:
		return (alpha[i>>1] >> (4 * uint(i&1)) & 0xf) * 17
	}
	return -(alpha[i>>3] >> uint(i&7) & 1) // 0 or 255
}

// decodeBGRA fills img from four bytes a pixel, B, G, R, A.
func decodeBGRA(img *image.NRGBA, mip []byte, alphaBits int) {
	pix := img.Pix
	src := mip[:len(pix)]
	for i := 0; i+3 < len(pix); i += 4 {
		s := src[i : i+4 : i+4]
		d := pix[i : i+4 : i+4]
		d[0], d[1], d[2], d[3] = s[2], s[1], s[0], s[3]
		if alphaBits == 0 {
			d[3] = 255
		}
	}
}
