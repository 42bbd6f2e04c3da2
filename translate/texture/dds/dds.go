// Package dds decodes the first mip level of DirectDraw Surface textures — the .dds files
// Warcraft III Reforged and later games ship — to an image.Image.
//
// It reads the block-compressed formats BC1–BC5 and BC7 (by FourCC or through the DX10
// header), uncompressed RGB(A), luminance and alpha with bit masks, the 8-bit DXGI formats and
// RGBA half- and single-float. BC5, two-channel normal maps, comes back with the Z that makes
// each normal unit length in blue, which is what a glTF normal texture needs. Float images are
// linear light: they are clamped to [0, 1] and written with the sRGB curve. A cubemap comes back
// as its six faces laid out in a horizontal cross (4×3 faces). Formats outside that — signed BC4
// and BC5, BC6H, volume textures — are refused with an error naming the format.
//
// Every error is a *codec.FormatError with format "dds"; sizes and the length of the data are
// checked before any pixel buffer is allocated.
package dds

import (
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"math"

	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/texture/internal/bc"
	"github.com/modelfs/modelfs/translate/texture/internal/texerr"
)

// FormatName is the format named in this package's errors.
const FormatName = "dds"

// Magic starts every DDS file.
const Magic = "DDS "

const (
	headerLen = 128 // magic and DDS_HEADER
	dx10Len   = 20  // DDS_HEADER_DXT10

	pfAlphaPixels = 0x1
	pfAlpha       = 0x2
	pfFourCC      = 0x4
	pfRGB         = 0x40
	pfYUV         = 0x200
	pfLuminance   = 0x20000

	ddsdMipMapCount = 0x20000 // DDS_HEADER.flags: the mip count is set

	caps2Cubemap = 0x200
	caps2Volume  = 0x200000
	miscCube     = 0x4 // DDS_HEADER_DXT10.miscFlag
	dim3D        = 4   // DDS_HEADER_DXT10.resourceDimension of a volume
)

// Kind is how the pixels of a DDS file are stored.
type Kind int

// The pixel storages Decode reads.
const (
	BC1 Kind = iota + 1
	BC2
	BC3
	BC4
	BC5
	BC7
	Masked  // uncompressed, described by bit masks
	RGBA8   // DXGI R8G8B8A8
	BGRA8   // DXGI B8G8R8A8
	BGRX8   // DXGI B8G8R8X8
	RGBA16F // D3DFMT_A16B16G16R16F, DXGI R16G16B16A16_FLOAT
	RGBA32F // D3DFMT_A32B32G32R32F, DXGI R32G32B32A32_FLOAT
)

var kindNames = map[Kind]string{BC1: "BC1", BC2: "BC2", BC3: "BC3", BC4: "BC4", BC5: "BC5", BC7: "BC7",
	Masked: "uncompressed", RGBA8: "R8G8B8A8", BGRA8: "B8G8R8A8", BGRX8: "B8G8R8X8",
	RGBA16F: "RGBA half-float", RGBA32F: "RGBA float"}

func (k Kind) String() string { return kindNames[k] }

// Header is what a DDS file says about its first image.
type Header struct {
	Width, Height int
	Mips          int    // mip levels stored (at least 1)
	Kind          Kind   // how the pixels are stored
	Format        string // the format as the file names it: a FourCC, "DXGI 98", "32-bit RGB"
	Cubemap       bool   // six faces, laid out as a cross by Decode
	BitCount      int    // Masked: bits a pixel
	Masks         [4]uint32

	dataStart int // offset of the first face's mip 0
	faceLen   int // bytes of one face with all its mips (cubemaps)
}

// Block-compressed formats by FourCC. DXT2 and DXT4 are BC2 and BC3 with premultiplied alpha,
// decoded as if straight.
var fourCCs = map[string]Kind{
	"DXT1": BC1, "DXT2": BC2, "DXT3": BC2, "DXT4": BC3, "DXT5": BC3,
	"ATI1": BC4, "BC4U": BC4, "ATI2": BC5, "BC5U": BC5,
}

// Legacy Direct3D formats stored as a number in the FourCC field.
var d3dFormats = map[uint32]Kind{113: RGBA16F, 116: RGBA32F}

// DXGI formats of the DX10 header.
var dxgiFormats = map[uint32]Kind{
	2: RGBA32F, 10: RGBA16F,
	27: RGBA8, 28: RGBA8, 29: RGBA8,
	70: BC1, 71: BC1, 72: BC1, 73: BC2, 74: BC2, 75: BC2, 76: BC3, 77: BC3, 78: BC3,
	79: BC4, 80: BC4, 82: BC5, 83: BC5,
	87: BGRA8, 88: BGRX8, 90: BGRA8, 91: BGRA8, 92: BGRX8, 93: BGRX8,
	97: BC7, 98: BC7, 99: BC7,
}

// dxgiRefused names the DXGI formats a user may meet that Decode does not read.
var dxgiRefused = map[uint32]string{
	81: "BC4 SNORM", 84: "BC5 SNORM", 94: "BC6H", 95: "BC6H UF16", 96: "BC6H SF16",
}

// blockBytes is the size of a 4×4 block; 0 for the formats stored by pixel.
func (k Kind) blockBytes() int {
	switch k {
	case BC1, BC4:
		return 8
	case BC2, BC3, BC5, BC7:
		return 16
	}
	return 0
}

// pixelBytes is the size of a pixel of the formats stored by pixel.
func (h *Header) pixelBytes() int {
	switch h.Kind {
	case Masked:
		return h.BitCount / 8
	case RGBA8, BGRA8, BGRX8:
		return 4
	case RGBA16F:
		return 8
	case RGBA32F:
		return 16
	}
	return 0
}

// levelLen is the byte length of a w×h image in h's format.
func (h *Header) levelLen(w, ht int) uint64 {
	if b := h.Kind.blockBytes(); b != 0 {
		return uint64((w+3)/4) * uint64((ht+3)/4) * uint64(b)
	}
	return uint64(w) * uint64(ht) * uint64(h.pixelBytes())
}

func errorf(name string, off int64, format string, a ...any) error {
	return texerr.Errorf(FormatName, name, off, format, a...)
}

// DecodeHeader parses and checks the header of the DDS file data, named name in errors, and
// that the data holds the pixels Decode reads.
func DecodeHeader(name string, data []byte) (Header, error) {
	var h Header
	if len(data) < 4 || string(data[:4]) != Magic {
		return h, texerr.Wrap(FormatName, name, 0, codec.ErrUnknownFormat, "not a DDS file: starts with %q, want %q", data[:min(4, len(data))], Magic)
	}
	if len(data) < headerLen {
		return h, errorf(name, int64(len(data)), "header truncated (%d of %d bytes)", len(data), headerLen)
	}
	u32 := func(off int) uint32 { return binary.LittleEndian.Uint32(data[off:]) }
	if sz := u32(4); sz != 124 {
		return h, errorf(name, 4, "header size %d, want 124", sz)
	}
	ht, w := u32(12), u32(16)
	depth, mips := u32(24), u32(28)
	pfFlags, fourCC, bitCount := u32(80), data[84:88], u32(88)
	caps2 := u32(112)
	if err := texerr.CheckSize(FormatName, name, 12, uint64(w), uint64(ht)); err != nil {
		return h, err
	}
	h.Width, h.Height = int(w), int(ht)
	h.Mips = 1
	if u32(8)&ddsdMipMapCount != 0 {
		h.Mips = max(1, int(min(mips, 32)))
	}
	h.Cubemap = caps2&caps2Cubemap != 0
	if caps2&caps2Volume != 0 && depth > 1 {
		return h, errorf(name, 112, "a volume texture (%d slices) is not an image", depth)
	}
	h.dataStart = headerLen
	switch {
	case pfFlags&pfFourCC != 0 && string(fourCC) == "DX10":
		if len(data) < headerLen+dx10Len {
			return h, errorf(name, int64(len(data)), "DX10 header truncated (%d of %d bytes)", len(data), headerLen+dx10Len)
		}
		f, dim, misc := u32(128), u32(132), u32(136)
		h.Format = fmt.Sprintf("DXGI %d", f)
		if s, ok := dxgiRefused[f]; ok {
			return h, errorf(name, 128, "pixel format %s (DXGI %d) is not supported", s, f)
		}
		k, ok := dxgiFormats[f]
		if !ok {
			return h, errorf(name, 128, "pixel format DXGI %d is not supported", f)
		}
		if dim == dim3D {
			return h, errorf(name, 132, "a volume texture is not an image")
		}
		h.Kind = k
		h.Cubemap = h.Cubemap || misc&miscCube != 0
		h.dataStart += dx10Len
	case pfFlags&pfFourCC != 0:
		h.Format = fmt.Sprintf("%q", fourCC)
		if k, ok := fourCCs[string(fourCC)]; ok {
			h.Kind = k
		} else if k, ok := d3dFormats[binary.LittleEndian.Uint32(fourCC)]; ok {
			h.Kind = k
			h.Format = fmt.Sprintf("D3DFMT %d", binary.LittleEndian.Uint32(fourCC))
		} else {
			return h, errorf(name, 84, "pixel format %s is not supported", printable(fourCC))
		}
	case pfFlags&(pfRGB|pfLuminance|pfAlpha|pfYUV) != 0 && pfFlags&pfYUV == 0:
		if bitCount != 8 && bitCount != 16 && bitCount != 24 && bitCount != 32 {
			return h, errorf(name, 88, "uncompressed image of %d bits a pixel (want 8, 16, 24 or 32)", bitCount)
		}
		h.Kind, h.BitCount = Masked, int(bitCount)
		h.Format = fmt.Sprintf("%d-bit uncompressed", bitCount)
		for i := range 4 {
			h.Masks[i] = u32(92 + 4*i)
		}
		if pfFlags&(pfAlphaPixels|pfAlpha) == 0 {
			h.Masks[3] = 0
		}
		if pfFlags&pfRGB == 0 { // luminance and/or alpha: R holds luminance, copied to G and B
			h.Masks[1], h.Masks[2] = h.Masks[0], h.Masks[0]
		}
	default:
		return h, errorf(name, 80, "pixel format flags %#x name no format this reader knows", pfFlags)
	}

	// Where the pixels are, and that they are all there.
	level := h.levelLen(h.Width, h.Height)
	avail := uint64(len(data) - h.dataStart)
	if level > avail {
		return h, errorf(name, int64(h.dataStart), "%s image of %d×%d needs %d bytes, only %d are left",
			h.Kind, h.Width, h.Height, level, avail)
	}
	if h.Cubemap {
		var face uint64
		w, ht := h.Width, h.Height
		for range h.Mips {
			face += h.levelLen(w, ht)
			w, ht = max(1, w/2), max(1, ht/2)
		}
		// A file may stop after mip 0 of its last face; every face's first mip must be there.
		if 5*face+level > avail {
			return h, errorf(name, int64(h.dataStart), "cubemap of six %d×%d faces needs %d bytes, only %d are left",
				h.Width, h.Height, 5*face+level, avail)
		}
		if err := texerr.CheckSize(FormatName, name, 12, 4*uint64(h.Width), 3*uint64(h.Height)); err != nil {
			return h, err
		}
		h.faceLen = int(face)
	}
	return h, nil
}

// printable quotes a FourCC, or gives its number when it is not text.
func printable(b []byte) string {
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			return fmt.Sprintf("%d", binary.LittleEndian.Uint32(b))
		}
	}
	return fmt.Sprintf("%q", b)
}

// DecodeConfig makes every check Decode makes and returns the image's size.
func DecodeConfig(name string, data []byte) (image.Config, error) {
	h, err := DecodeHeader(name, data)
	if err != nil {
		return image.Config{}, err
	}
	w, ht := h.Width, h.Height
	if h.Cubemap {
		w, ht = 4*w, 3*ht
	}
	return image.Config{ColorModel: color.NRGBAModel, Width: w, Height: ht}, nil
}

// Decode decodes the first mip level of the DDS file data, named name in errors, to an
// *image.NRGBA; a cubemap's six faces come back laid out as a cross.
func Decode(name string, data []byte) (image.Image, error) {
	h, err := DecodeHeader(name, data)
	if err != nil {
		return nil, err
	}
	if !h.Cubemap {
		img := image.NewNRGBA(image.Rect(0, 0, h.Width, h.Height))
		h.decode(img, data[h.dataStart:])
		return img, nil
	}
	// Faces are stored +X, −X, +Y, −Y, +Z, −Z; the cross puts +Y above and −Y below +Z, with
	// −X, +Z, +X, −Z in the middle row.
	img := image.NewNRGBA(image.Rect(0, 0, 4*h.Width, 3*h.Height))
	cells := [6]image.Point{{2, 1}, {0, 1}, {1, 0}, {1, 2}, {1, 1}, {3, 1}}
	face := image.NewNRGBA(image.Rect(0, 0, h.Width, h.Height))
	for f, c := range cells {
		h.decode(face, data[h.dataStart+f*h.faceLen:])
		for y := range h.Height {
			o := (c.Y*h.Height+y)*img.Stride + 4*c.X*h.Width
			copy(img.Pix[o:o+4*h.Width], face.Pix[y*face.Stride:])
		}
	}
	return img, nil
}

// decode fills img, of h's size, from src, which DecodeHeader has checked holds the level.
func (h *Header) decode(img *image.NRGBA, src []byte) {
	switch h.Kind {
	case BC1:
		bc.BC1(img, src, true)
	case BC2:
		bc.BC2(img, src, true)
	case BC3:
		bc.BC3(img, src, true)
	case BC4:
		bc.BC4(img, src)
	case BC5:
		bc.BC5(img, src, true)
	case BC7:
		bc.BC7(img, src)
	default:
		h.decodePixels(img, src)
	}
}

// decodePixels fills img from formats stored a pixel at a time.
func (h *Header) decodePixels(img *image.NRGBA, src []byte) {
	n := h.pixelBytes()
	var shift, width [4]uint
	for i, m := range h.Masks {
		shift[i], width[i] = maskShape(m)
	}
	for y := range h.Height {
		row := src[y*h.Width*n:]
		out := img.Pix[y*img.Stride : y*img.Stride+4*h.Width]
		for x := range h.Width {
			p, o := row[x*n:x*n+n], out[4*x:4*x+4:4*x+4]
			switch h.Kind {
			case RGBA8:
				copy(o, p)
			case BGRA8, BGRX8:
				o[0], o[1], o[2], o[3] = p[2], p[1], p[0], p[3]
				if h.Kind == BGRX8 {
					o[3] = 255
				}
			case RGBA16F:
				for c := range 4 {
					o[c] = floatByte(float64(half(binary.LittleEndian.Uint16(p[2*c:]))), c < 3)
				}
			case RGBA32F:
				for c := range 4 {
					o[c] = floatByte(float64(math.Float32frombits(binary.LittleEndian.Uint32(p[4*c:]))), c < 3)
				}
			case Masked:
				var v uint32
				for i := range n {
					v |= uint32(p[i]) << (8 * i)
				}
				for c := range 4 {
					if h.Masks[c] == 0 {
						o[c] = 0
						if c == 3 {
							o[c] = 255
						}
						continue
					}
					o[c] = scale(v&h.Masks[c]>>shift[c], width[c])
				}
			}
		}
	}
}

// maskShape returns where a channel mask starts and how many bits wide it is.
func maskShape(m uint32) (shift, width uint) {
	if m == 0 {
		return 0, 0
	}
	for m&1 == 0 {
		m >>= 1
		shift++
	}
	for m&1 == 1 {
		m >>= 1
		width++
	}
	return shift, width
}

// scale widens a width-bit channel value to 8 bits, rounding.
func scale(v uint32, width uint) uint8 {
	if width >= 8 {
		return uint8(v >> (width - 8))
	}
	maxV := uint32(1)<<width - 1
	return uint8((v*255 + maxV/2) / maxV)
}

// floatByte turns a linear float channel into a byte: colour with the sRGB curve, alpha as is.
func floatByte(v float64, colour bool) uint8 {
	if !(v > 0) { // and NaN
		return 0
	}
	v = min(v, 1)
	if colour {
		if v <= 0.0031308 {
			v *= 12.92
		} else {
			v = 1.055*math.Pow(v, 1/2.4) - 0.055
		}
	}
	return uint8(math.Round(v * 255))
}

// half converts an IEEE 754 binary16 value.
func half(b uint16) float32 {
	sign := uint32(b>>15) << 31
	exp, frac := uint32(b>>10&0x1f), uint32(b&0x3ff)
	switch {
	case exp == 0x1f: // infinity, NaN
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	case exp != 0:
		return math.Float32frombits(sign | (exp+112)<<23 | frac<<13)
	case frac == 0:
		return math.Float32frombits(sign)
	}
	f := float32(frac) / 1024 / 16384 // subnormal: frac·2⁻²⁴
	if sign != 0 {
		return -f
	}
	return f
}
