// Package bc decodes the block-compressed pixel formats that BLP2 and DDS textures store
// (BC1–BC5, BC7: 4×4 texels per 8- or 16-byte block) into *image.NRGBA. Callers check that the
// source holds BlockBytes(format)·blocks bytes before they call a decoder: these functions index
// without checks of their own.
package bc

import (
	"encoding/binary"
	"image"
	"math"
	"sync"
)

// expand565 returns the 8-bit R, G, B of a 5:6:5 colour, replicating the high bits into the low
// ones so that 0 maps to 0 and the maximum to 255.
func expand565(c uint16) [3]uint8 {
	r, g, b := uint8(c>>11&31), uint8(c>>5&63), uint8(c&31)
	return [3]uint8{r<<3 | r>>2, g<<2 | g>>4, b<<3 | b>>2}
}

// colorBlock decodes the 8-byte colour half of a DXT block into the four RGBA palette entries
// and the 32 bits of indices. In DXT1's three-colour mode (c0 ≤ c1) index 3 is black, transparent
// when transparent is set.
func colorBlock(b []byte, dxt1, transparent bool) (pal [4][4]uint8, bits uint32) {
	c0, c1 := binary.LittleEndian.Uint16(b), binary.LittleEndian.Uint16(b[2:])
	e0, e1 := expand565(c0), expand565(c1)
	for k := range 3 {
		a, z := uint16(e0[k]), uint16(e1[k])
		pal[0][k], pal[1][k] = e0[k], e1[k]
		if c0 > c1 || !dxt1 {
			pal[2][k] = uint8((2*a + z + 1) / 3)
			pal[3][k] = uint8((a + 2*z + 1) / 3)
		} else {
			pal[2][k] = uint8((a + z + 1) / 2)
		}
	}
	pal[0][3], pal[1][3], pal[2][3], pal[3][3] = 255, 255, 255, 255
	if dxt1 && c0 <= c1 && transparent {
		pal[3][3] = 0
	}
	return pal, binary.LittleEndian.Uint32(b[4:])
}

// BC1 (DXT1) fills img from 8-byte blocks; with alpha, index 3 of a three-colour block is
// transparent black.
func BC1(img *image.NRGBA, src []byte, alpha bool) {
	each(img, src, 8, func(b []byte, blk *[16][4]uint8) {
		pal, bits := colorBlock(b, true, alpha)
		for i := range blk {
			blk[i] = pal[bits>>(2*uint(i))&3]
		}
	})
}

// BC2 (DXT3) fills img from 16-byte blocks: 4-bit explicit alpha, then a colour block.
func BC2(img *image.NRGBA, src []byte, alpha bool) {
	each(img, src, 16, func(b []byte, blk *[16][4]uint8) {
		a := binary.LittleEndian.Uint64(b)
		pal, bits := colorBlock(b[8:], false, false)
		for i := range blk {
			blk[i] = pal[bits>>(2*uint(i))&3]
			if alpha {
				blk[i][3] = uint8(a>>(4*uint(i))&15) * 17
			}
		}
	})
}

// BC3 (DXT5) fills img from 16-byte blocks: an alpha block (two end points, 3-bit indices),
// then a colour block.
func BC3(img *image.NRGBA, src []byte, alpha bool) {
	each(img, src, 16, func(b []byte, blk *[16][4]uint8) {
		var a [16]uint8
		if alpha {
			a = channel(b[:8])
		}
		pal, bits := colorBlock(b[8:], false, false)
		for i := range blk {
			blk[i] = pal[bits>>(2*uint(i))&3]
			if alpha {
				blk[i][3] = a[i]
			}
		}
	})
}

// alphaPalette returns the eight alpha values of a DXT5 block with end points a0 and a1.
func alphaPalette(a0, a1 uint8) [8]uint8 {
	p := [8]uint8{a0, a1}
	x, y := uint16(a0), uint16(a1)
	if a0 > a1 {
		for i := uint16(1); i <= 6; i++ {
			p[i+1] = uint8(((7-i)*x + i*y + 3) / 7)
		}
	} else {
		for i := uint16(1); i <= 4; i++ {
			p[i+1] = uint8(((5-i)*x + i*y + 2) / 5)
		}
		p[6], p[7] = 0, 255
	}
	return p
}

// putBlock writes the visible pixels of the 4×4 block blk (row-major) whose top-left corner is
// (bx, by), clipping at the image's right and bottom edges.
func putBlock(pix []byte, stride, w, h, bx, by int, blk *[16][4]uint8) {
	rows, cols := min(4, h-by), min(4, w-bx)
	for y := range rows {
		o := (by+y)*stride + 4*bx
		row := pix[o : o+4*cols : o+4*cols]
		for x := range cols {
			copy(row[4*x:4*x+4], blk[4*y+x][:])
		}
	}
}

// each calls one for every size-byte block of src in raster order, with the 4×4 texels it
// decodes to, and writes them into img.
func each(img *image.NRGBA, src []byte, size int, one func(b []byte, blk *[16][4]uint8)) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	k := 0
	var blk [16][4]uint8
	for by := 0; by < h; by += 4 {
		for bx := 0; bx < w; bx += 4 {
			one(src[k:k+size:k+size], &blk)
			k += size
			putBlock(img.Pix, img.Stride, w, h, bx, by, &blk)
		}
	}
}

// channel decodes an 8-byte BC4 block (the alpha half of a DXT5 block) into 16 values.
func channel(b []byte) (v [16]uint8) {
	p := alphaPalette(b[0], b[1])
	ix := uint64(b[2]) | uint64(b[3])<<8 | uint64(b[4])<<16 | uint64(b[5])<<24 | uint64(b[6])<<32 | uint64(b[7])<<40
	for i := range v {
		v[i] = p[ix>>(3*uint(i))&7]
	}
	return v
}

// BC4 fills img from 8-byte BC4 (ATI1) blocks, one channel each, as opaque grey.
func BC4(img *image.NRGBA, src []byte) {
	each(img, src, 8, func(b []byte, blk *[16][4]uint8) {
		v := channel(b)
		for i := range blk {
			blk[i] = [4]uint8{v[i], v[i], v[i], 255}
		}
	})
}

// BC5 fills img from 16-byte BC5 (ATI2) blocks: red, then green. A BC5 texture is a normal
// map's X and Y; with z, blue is the Z that makes the normal unit length (the channel the game's
// shader computes), else 0.
func BC5(img *image.NRGBA, src []byte, z bool) {
	var zs *[1 << 16]uint8
	if z {
		zs = normalZs()
	}
	each(img, src, 16, func(b []byte, blk *[16][4]uint8) {
		r, g := channel(b[:8]), channel(b[8:])
		for i := range blk {
			blk[i] = [4]uint8{r[i], g[i], 0, 255}
			if z {
				blk[i][2] = zs[int(r[i])<<8|int(g[i])]
			}
		}
	})
}

// normalZs is normalZ of every x and y (at x<<8 | y), made on first use: a 2048² normal map
// asks for four million, and a square root each took a quarter of its decoding.
var normalZs = sync.OnceValue(func() *[1 << 16]uint8 {
	t := new([1 << 16]uint8)
	for i := range t {
		t[i] = normalZ(uint8(i>>8), uint8(i))
	}
	return t
})

// normalZ returns, as an unsigned byte, the Z of the unit normal whose X and Y the unsigned
// bytes x and y hold; 128 (zero) where x² + y² exceeds 1.
func normalZ(x, y uint8) uint8 {
	fx, fy := float64(x)/127.5-1, float64(y)/127.5-1
	d := 1 - fx*fx - fy*fy
	if d <= 0 {
		return 128
	}
	return uint8(math.Round((math.Sqrt(d) + 1) * 127.5))
}
