// Package texfix writes the texture fixtures that the decoders' tests, fuzz targets and
// benchmarks share: BLP1, BLP2 and TGA files of every variant built from images whose pixels
// the tests know, and a minimal baseline JPEG encoder for BLP's four-component B, G, R, A
// streams. It is test support only; nothing in the product imports it.
package texfix

import (
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"math/rand/v2"
)

// Pattern returns a w×h image whose colours vary by pixel and whose alpha takes the values
// representable at alphaBits (0: opaque; 1: 0 or 255; 4: multiples of 17; 8: any). It uses 61
// colours at most, so that it fits a palette.
func Pattern(w, h, alphaBits int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			k := (x*7 + y*13) % 61
			c := color.NRGBA{uint8(k * 4), uint8(255 - k*3), uint8(k * 41), 255}
			switch alphaBits {
			case 1:
				if (x+y)%3 == 0 {
					c.A = 0
				}
			case 4:
				c.A = uint8((x+2*y)%16) * 17
			case 8:
				c.A = uint8(x*37 + y*11)
			}
			img.SetNRGBA(x, y, c)
		}
	}
	return img
}

// Blocky returns a w×h image whose every 8×8 block (aligned at 0,0) has one colour, varying
// from block to block, with alpha varying too unless opaque: the pixels a DC-only JPEG keeps
// exactly.
func Blocky(w, h int, opaque bool) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			bx, by := x/8, y/8
			c := color.NRGBA{uint8(40*bx + 7*by + 3), uint8(200 - 30*by + bx), uint8(17*bx*by + 250), uint8(255 - 60*bx - 9*by)}
			if opaque {
				c.A = 255
			}
			img.SetNRGBA(x, y, c)
		}
	}
	return img
}

// Noise returns a w×h image of pseudo-random pixels (seeded, so the same every run) drawn from
// 256 colours, for benchmarks.
func Noise(w, h int) *image.NRGBA {
	r := rand.New(rand.NewPCG(1, 2))
	var pal [256]color.NRGBA
	for i := range pal {
		pal[i] = color.NRGBA{uint8(r.Uint32()), uint8(r.Uint32()), uint8(r.Uint32()), uint8(r.Uint32())}
	}
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			// Runs of equal pixels, as in real art, so that RLE has something to do.
			img.SetNRGBA(x, y, pal[(x/3+y*5+int(r.Uint32()%3))%256])
		}
	}
	return img
}

// RandomBytes returns n seeded pseudo-random bytes.
func RandomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	b := make([]byte, n)
	for i := range b {
		b[i] = uint8(r.Uint32())
	}
	return b
}

// Mip is one mip level: where it is in the file and how long, as the header will say.
type Mip struct{ Offset, Size uint32 }

// BLP1 describes a BLP1 file to write.
type BLP1 struct {
	Compression uint32 // 0 JPEG, 1 paletted
	AlphaBits   uint32
	Width       uint32
	Height      uint32
	JPEGHeader  []byte     // compression 0
	Palette     [1024]byte // compression 1: B, G, R, pad
	Levels      [][]byte   // level data, 0 first
	Gap         int        // junk bytes between the header (and palette/JPEG header) and level 0
}

// Bytes writes the file.
func (f BLP1) Bytes() []byte {
	b := []byte("BLP1")
	for _, v := range []uint32{f.Compression, f.AlphaBits, f.Width, f.Height, 4, boolU32(len(f.Levels) > 1)} {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	var tail []byte
	if f.Compression == 0 {
		tail = binary.LittleEndian.AppendUint32(tail, uint32(len(f.JPEGHeader)))
		tail = append(tail, f.JPEGHeader...)
	} else {
		tail = append(tail, f.Palette[:]...)
	}
	return appendLevels(b, tail, f.Levels, f.Gap)
}

// BLP2 describes a BLP2 file to write.
type BLP2 struct {
	Type          uint32 // 1 (0 = JPEG)
	Encoding      uint8  // 1 paletted, 2 DXT, 3 BGRA
	AlphaDepth    uint8
	AlphaEncoding uint8 // DXT: 0 DXT1, 1 DXT3, 7 DXT5
	Width         uint32
	Height        uint32
	Palette       [1024]byte
	Levels        [][]byte
	Gap           int
}

// Bytes writes the file.
func (f BLP2) Bytes() []byte {
	b := []byte("BLP2")
	b = binary.LittleEndian.AppendUint32(b, f.Type)
	b = append(b, f.Encoding, f.AlphaDepth, f.AlphaEncoding, uint8(boolU32(len(f.Levels) > 1)))
	b = binary.LittleEndian.AppendUint32(b, f.Width)
	b = binary.LittleEndian.AppendUint32(b, f.Height)
	return appendLevels(b, f.Palette[:], f.Levels, f.Gap)
}

func boolU32(v bool) uint32 {
	if v {
		return 1
	}
	return 0
}

// appendLevels appends the mip table, then tail (palette or JPEG header), gap junk bytes and
// the levels.
func appendLevels(b, tail []byte, levels [][]byte, gap int) []byte {
	start := len(b) + 128 + len(tail) + gap
	var offs, sizes [16]uint32
	at := start
	for i, l := range levels {
		offs[i], sizes[i] = uint32(at), uint32(len(l))
		at += len(l)
	}
	for _, v := range offs {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	for _, v := range sizes {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	b = append(b, tail...)
	for i := range gap {
		b = append(b, byte(0xA5^i))
	}
	for _, l := range levels {
		b = append(b, l...)
	}
	return b
}

// Palettize returns the palette (B, G, R, pad) and the palette-index and packed alpha planes of
// img at alphaBits (the alpha values must be representable there).
func Palettize(img *image.NRGBA, alphaBits int) (pal [1024]byte, level []byte) {
	index := map[[3]uint8]int{}
	w, h := img.Rect.Dx(), img.Rect.Dy()
	n := w * h
	level = make([]byte, n+(n*alphaBits+7)/8)
	for i := range n {
		p := img.Pix[4*i : 4*i+4]
		key := [3]uint8{p[0], p[1], p[2]}
		k, ok := index[key]
		if !ok {
			k = len(index)
			if k == 256 {
				panic("texfix: more than 256 colours")
			}
			index[key] = k
			pal[4*k], pal[4*k+1], pal[4*k+2], pal[4*k+3] = p[2], p[1], p[0], 0x5A // pad: junk
		}
		level[i] = uint8(k)
		a := p[3]
		switch alphaBits {
		case 8:
			level[n+i] = a
		case 4:
			level[n+i/2] |= (a / 17) << (4 * uint(i%2))
		case 1:
			level[n+i/8] |= (a >> 7) << uint(i%8)
		}
	}
	return pal, level
}

// BLPPaletted writes img as a paletted BLP1 or BLP2 with alphaBits of alpha, with one further
// (junk) mip level.
func BLPPaletted(version int, img *image.NRGBA, alphaBits int) []byte {
	pal, level := Palettize(img, alphaBits)
	w, h := uint32(img.Rect.Dx()), uint32(img.Rect.Dy())
	levels := [][]byte{level, RandomBytes(len(level)/4+1, 3)}
	if version == 1 {
		return BLP1{Compression: 1, AlphaBits: uint32(alphaBits), Width: w, Height: h, Palette: pal, Levels: levels, Gap: 5}.Bytes()
	}
	return BLP2{Type: 1, Encoding: 1, AlphaDepth: uint8(alphaBits), AlphaEncoding: 8, Width: w, Height: h, Palette: pal, Levels: levels, Gap: 3}.Bytes()
}

// BLPBGRA writes img as a BLP2 of plain B, G, R, A bytes.
func BLPBGRA(img *image.NRGBA, alphaDepth int) []byte {
	level := make([]byte, len(img.Pix))
	for i := 0; i < len(level); i += 4 {
		level[i], level[i+1], level[i+2], level[i+3] = img.Pix[i+2], img.Pix[i+1], img.Pix[i], img.Pix[i+3]
	}
	return BLP2{Type: 1, Encoding: 3, AlphaDepth: uint8(alphaDepth), Width: uint32(img.Rect.Dx()), Height: uint32(img.Rect.Dy()), Levels: [][]byte{level}}.Bytes()
}

// BLPDXT writes a w×h BLP2 DXT file whose level 0 is blocks; alphaEncoding 0, 1 or 7 picks DXT1,
// DXT3 or DXT5.
func BLPDXT(w, h int, alphaDepth, alphaEncoding uint8, blocks []byte) []byte {
	return BLP2{Type: 1, Encoding: 2, AlphaDepth: alphaDepth, AlphaEncoding: alphaEncoding, Width: uint32(w), Height: uint32(h), Levels: [][]byte{blocks, blocks[:min(len(blocks), 16)]}, Gap: 1}.Bytes()
}

// BLPJPEG writes img as a JPEG BLP1 (version 1) or BLP2 type 0 (version 2), the way Blizzard's
// encoder does: a four-component B, G, R, A baseline JPEG without an APP14 marker, split into a
// shared header (up to and including SOS) and the level's entropy-coded data. Each 8×8 block
// of img must have one colour (see Blocky); alphaBits goes in the header.
func BLPJPEG(version int, img *image.NRGBA, alphaBits int) []byte {
	hdr, scan := JPEG4(img)
	w, h := uint32(img.Rect.Dx()), uint32(img.Rect.Dy())
	if version == 1 {
		return BLP1{Compression: 0, AlphaBits: uint32(alphaBits), Width: w, Height: h, JPEGHeader: hdr, Levels: [][]byte{scan}, Gap: 2}.Bytes()
	}
	// BLP2 type 0: the JPEG header size and header take the palette's place.
	f := BLP2{Type: 0, Encoding: 1, AlphaDepth: uint8(alphaBits), Width: w, Height: h}
	b := []byte("BLP2")
	b = binary.LittleEndian.AppendUint32(b, f.Type)
	b = append(b, f.Encoding, f.AlphaDepth, 0, 0)
	b = binary.LittleEndian.AppendUint32(b, w)
	b = binary.LittleEndian.AppendUint32(b, h)
	tail := binary.LittleEndian.AppendUint32(nil, uint32(len(hdr)))
	tail = append(tail, hdr...)
	return appendLevels(b, tail, [][]byte{scan}, 0)
}

// JPEG4 encodes img as a baseline JPEG of four full-resolution components holding B, G, R, A,
// with no APP14 marker, returning the header (SOI to the end of SOS) and the entropy-coded data
// with EOI. Every block is coded by its DC coefficient alone (all quantizers 1), which DC-only
// decoding reproduces exactly: the value of a block is that of its top-left pixel.
func JPEG4(img *image.NRGBA) (header, scan []byte) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	if w > 65535 || h > 65535 {
		panic(fmt.Sprintf("texfix: %d×%d too large for JPEG", w, h))
	}
	b := []byte{0xFF, 0xD8}
	// DQT: table 0, all ones.
	b = append(b, 0xFF, 0xDB, 0, 67, 0)
	for range 64 {
		b = append(b, 1)
	}
	// SOF0: 8-bit, h, w, 4 components 1..4 at 1×1 sampling, table 0.
	b = append(b, 0xFF, 0xC0, 0, 8+3*4, 8, byte(h>>8), byte(h), byte(w>>8), byte(w), 4)
	for c := byte(1); c <= 4; c++ {
		b = append(b, c, 0x11, 0)
	}
	// DHT: DC table 0 with the 12 categories as 4-bit codes; AC table 0 with EOB as "0".
	b = append(b, 0xFF, 0xC4, 0, 2+17+12+17+1, 0x00)
	var counts [16]byte
	counts[3] = 12
	b = append(b, counts[:]...)
	for s := range byte(12) {
		b = append(b, s)
	}
	counts = [16]byte{0: 1}
	b = append(b, 0x10)
	b = append(b, counts[:]...)
	b = append(b, 0x00)
	// SOS: 4 components, tables 0/0, spectral 0..63.
	b = append(b, 0xFF, 0xDA, 0, 6+2*4, 4)
	for c := byte(1); c <= 4; c++ {
		b = append(b, c, 0x00)
	}
	b = append(b, 0, 63, 0)
	header = b

	var bw bitWriter
	var pred [4]int
	for by := 0; by < (h+7)/8; by++ {
		for bx := 0; bx < (w+7)/8; bx++ {
			p := img.NRGBAAt(bx*8, by*8)
			for c, v := range [4]uint8{p.B, p.G, p.R, p.A} {
				dc := 8 * (int(v) - 128)
				diff := dc - pred[c]
				pred[c] = dc
				s, bits := category(diff)
				bw.write(uint32(s), 4)
				bw.write(bits, s)
				bw.write(0, 1) // EOB
			}
		}
	}
	scan = append(bw.flush(), 0xFF, 0xD9)
	return header, scan
}

// category returns the JPEG magnitude category of v and its additional bits.
func category(v int) (int, uint32) {
	a := v
	if a < 0 {
		a = -a
	}
	s := 0
	for a>>s != 0 {
		s++
	}
	if v < 0 {
		v += 1<<s - 1
	}
	return s, uint32(v)
}

type bitWriter struct {
	out  []byte
	acc  uint32
	nacc int
}

func (w *bitWriter) write(bits uint32, n int) {
	for i := n - 1; i >= 0; i-- {
		w.acc = w.acc<<1 | bits>>uint(i)&1
		w.nacc++
		if w.nacc == 8 {
			w.emit(byte(w.acc))
		}
	}
}

func (w *bitWriter) emit(c byte) {
	w.out = append(w.out, c)
	if c == 0xFF {
		w.out = append(w.out, 0)
	}
	w.acc, w.nacc = 0, 0
}

func (w *bitWriter) flush() []byte {
	if w.nacc > 0 {
		pad := 8 - w.nacc
		w.write(1<<uint(pad)-1, pad)
	}
	return w.out
}

// TGA describes a TGA file to write from an image.
type TGA struct {
	Type        int  // 1, 2, 3, 9, 10, 11
	Depth       int  // bits a pixel: true-colour 16, 24, 32; colour-mapped 8; greyscale 8 or 16
	MapDepth    int  // colour-map entry bits: 24 or 32
	MapFirst    int  // first colour-map index
	AlphaBits   int  // descriptor bits 0–3
	TopToBot    bool // descriptor bit 5
	RightToLeft bool // descriptor bit 4
	ID          []byte
}

// Encode writes img; for colour-mapped types img must have at most 256-MapFirst colours, for
// greyscale ones R is taken as grey.
func (t TGA) Encode(img *image.NRGBA) []byte {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	kind := t.Type &^ 8
	bpp := (t.Depth + 7) / 8
	var cmap []byte
	var lut map[color.NRGBA]int
	if kind == 1 {
		lut = map[color.NRGBA]int{}
		for y := range h {
			for x := range w {
				c := img.NRGBAAt(x, y)
				if _, ok := lut[c]; !ok {
					lut[c] = len(lut)
					if t.MapDepth == 24 {
						cmap = append(cmap, c.B, c.G, c.R)
					} else {
						cmap = append(cmap, c.B, c.G, c.R, c.A)
					}
				}
			}
		}
	}
	// Stored pixels in storage order.
	px := make([][]byte, 0, w*h)
	for r := range h {
		y := h - 1 - r
		if t.TopToBot {
			y = r
		}
		for i := range w {
			x := i
			if t.RightToLeft {
				x = w - 1 - i
			}
			c := img.NRGBAAt(x, y)
			var p []byte
			switch {
			case kind == 1:
				p = []byte{byte(lut[c] + t.MapFirst)}
			case kind == 3 && bpp == 1:
				p = []byte{c.R}
			case kind == 3:
				p = []byte{c.R, c.A}
			case bpp == 4:
				p = []byte{c.B, c.G, c.R, c.A}
			case bpp == 3:
				p = []byte{c.B, c.G, c.R}
			default:
				v := uint16(c.R>>3)<<10 | uint16(c.G>>3)<<5 | uint16(c.B>>3)
				if c.A >= 128 {
					v |= 0x8000
				}
				p = binary.LittleEndian.AppendUint16(nil, v)
			}
			px = append(px, p)
		}
	}
	b := []byte{byte(len(t.ID)), boolByte(kind == 1), byte(t.Type)}
	mapLen := 0
	if kind == 1 {
		mapLen = len(lut)
	}
	b = binary.LittleEndian.AppendUint16(b, uint16(t.MapFirst))
	b = binary.LittleEndian.AppendUint16(b, uint16(mapLen))
	b = append(b, byte(t.MapDepth*int(boolByte(kind == 1))))
	b = append(b, 0, 0, 0, 0) // x, y origin
	b = binary.LittleEndian.AppendUint16(b, uint16(w))
	b = binary.LittleEndian.AppendUint16(b, uint16(h))
	desc := byte(t.AlphaBits & 15)
	if t.RightToLeft {
		desc |= 0x10
	}
	if t.TopToBot {
		desc |= 0x20
	}
	b = append(b, byte(t.Depth), desc)
	b = append(b, t.ID...)
	b = append(b, cmap...)
	if t.Type < 9 {
		for _, p := range px {
			b = append(b, p...)
		}
		return b
	}
	// RLE: runs of equal pixels as run packets, the rest as raw packets, never longer than 128;
	// packets cross rows, as many writers do.
	for i := 0; i < len(px); {
		j := i + 1
		for j < len(px) && j-i < 128 && string(px[j]) == string(px[i]) {
			j++
		}
		if j-i >= 2 {
			b = append(b, 0x80|byte(j-i-1))
			b = append(b, px[i]...)
			i = j
			continue
		}
		j = i + 1
		for j < len(px) && j-i < 128 && (j+1 >= len(px) || string(px[j]) != string(px[j+1])) {
			j++
		}
		b = append(b, byte(j-i-1))
		for _, p := range px[i:j] {
			b = append(b, p...)
		}
		i = j
	}
	return b
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}
