package bc

import (
	"encoding/binary"
	"image"
)

// bc7Mode is the layout of one of BC7's eight block modes.
type bc7Mode struct {
	subsets    int // 1–3 colour subsets, each with two end points
	partBits   int // bits of the partition number
	rotBits    int // bits of the channel rotation (modes 4, 5)
	selBit     int // 1 when a bit picks which index set colour uses (mode 4)
	colorBits  int // bits per colour channel of an end point
	alphaBits  int // bits of an end point's alpha; 0 for opaque
	pBits      int // 0; 1 for a p-bit per end point; 2 for one shared per subset
	indexBits  int // bits per texel of the first index set
	index2Bits int // bits per texel of the second set (modes 4, 5); 0 for none
}

var bc7Modes = [8]bc7Mode{
	{3, 4, 0, 0, 4, 0, 1, 3, 0},
	{2, 6, 0, 0, 6, 0, 2, 3, 0},
	{3, 6, 0, 0, 5, 0, 0, 2, 0},
	{2, 6, 0, 0, 7, 0, 1, 2, 0},
	{1, 0, 2, 1, 5, 6, 0, 2, 3},
	{1, 0, 2, 0, 7, 8, 0, 2, 2},
	{1, 0, 0, 0, 7, 7, 1, 4, 0},
	{2, 6, 0, 0, 5, 5, 1, 2, 0},
}

// The partitions of a block's 16 texels into subsets, from the BC7 format specification:
// bit i of bc7Part2[p] is texel i's subset; bits 2i, 2i+1 of bc7Part3[p] likewise.
var bc7Part2 = [64]uint16{
	0xcccc, 0x8888, 0xeeee, 0xecc8, 0xc880, 0xfeec, 0xfec8, 0xec80,
	0xc800, 0xffec, 0xfe80, 0xe800, 0xffe8, 0xff00, 0xfff0, 0xf000,
	0xf710, 0x008e, 0x7100, 0x08ce, 0x008c, 0x7310, 0x3100, 0x8cce,
	0x088c, 0x3110, 0x6666, 0x366c, 0x17e8, 0x0ff0, 0x718e, 0x399c,
	0xaaaa, 0xf0f0, 0x5a5a, 0x33cc, 0x3c3c, 0x55aa, 0x9696, 0xa55a,
	0x73ce, 0x13c8, 0x324c, 0x3bdc, 0x6996, 0xc33c, 0x9966, 0x0660,
	0x0272, 0x04e4, 0x4e40, 0x2720, 0xc936, 0x936c, 0x39c6, 0x639c,
	0x9336, 0x9cc6, 0x817e, 0xe718, 0xccf0, 0x0fcc, 0x7744, 0xee22,
}

var bc7Part3 = [64]uint32{
	0xaa685050, 0x6a5a5040, 0x5a5a4200, 0x5450a0a8, 0xa5a50000, 0xa0a05050, 0x5555a0a0, 0x5a5a5050,
	0xaa550000, 0xaa555500, 0xaaaa5500, 0x90909090, 0x94949494, 0xa4a4a4a4, 0xa9a59450, 0x2a0a4250,
	0xa5945040, 0x0a425054, 0xa5a5a500, 0x55a0a0a0, 0xa8a85454, 0x6a6a4040, 0xa4a45000, 0x1a1a0500,
	0x0050a4a4, 0xaaa59090, 0x14696914, 0x69691400, 0xa08585a0, 0xaa821414, 0x50a4a450, 0x6a5a0200,
	0xa9a58000, 0x5090a0a8, 0xa8a09050, 0x24242424, 0x00aa5500, 0x24924924, 0x24499224, 0x50a50a50,
	0x500aa550, 0xaaaa4444, 0x66660000, 0xa5a0a5a0, 0x50a050a0, 0x69286928, 0x44aaaa44, 0x66666600,
	0xaa444444, 0x54a854a8, 0x95809580, 0x96969600, 0xa85454a8, 0x80959580, 0xaa141414, 0x96960000,
	0xaaaa1414, 0xa05050a0, 0xa0a5a5a0, 0x96000000, 0x40804080, 0xa9a8a9a8, 0xaaaaaa44, 0x2a4a5254,
}

// The anchor texel of each subset after the first (whose anchor is texel 0): its index is
// stored with one bit less, the top bit being 0.
var (
	bc7Anchor2 = [64]uint8{
		15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
		15, 2, 8, 2, 2, 8, 8, 15, 2, 8, 2, 2, 8, 8, 2, 2,
		15, 15, 6, 8, 2, 8, 15, 15, 2, 8, 2, 2, 2, 15, 15, 6,
		6, 2, 6, 8, 15, 15, 2, 2, 15, 15, 15, 15, 15, 2, 2, 15,
	}
	bc7Anchor3a = [64]uint8{
		3, 3, 15, 15, 8, 3, 15, 15, 8, 8, 6, 6, 6, 5, 3, 3,
		3, 3, 8, 15, 3, 3, 6, 10, 5, 8, 8, 6, 8, 5, 15, 15,
		8, 15, 3, 5, 6, 10, 8, 15, 15, 3, 15, 5, 15, 15, 15, 15,
		3, 15, 5, 5, 5, 8, 5, 10, 5, 10, 8, 13, 15, 12, 3, 3,
	}
	bc7Anchor3b = [64]uint8{
		15, 8, 8, 3, 15, 15, 3, 8, 15, 15, 15, 15, 15, 15, 15, 8,
		15, 8, 15, 3, 15, 8, 15, 8, 3, 15, 6, 10, 15, 15, 10, 8,
		15, 3, 15, 10, 10, 8, 9, 10, 6, 15, 8, 15, 3, 6, 6, 8,
		15, 3, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 3, 15, 15, 8,
	}
)

// bc7Weights are the interpolation weights (of 64) for 2-, 3- and 4-bit indices.
var bc7Weights = [5][]uint16{
	2: {0, 21, 43, 64},
	3: {0, 9, 18, 27, 37, 46, 55, 64},
	4: {0, 4, 9, 13, 17, 21, 26, 30, 34, 38, 43, 47, 51, 55, 60, 64},
}

// bits reads a 128-bit block least significant bit first.
type bits struct {
	lo, hi uint64
	n      uint // bits consumed
}

func (b *bits) read(k int) uint8 {
	if k == 0 {
		return 0
	}
	var v uint64
	switch {
	case b.n >= 64:
		v = b.hi >> (b.n - 64)
	case b.n+uint(k) <= 64:
		v = b.lo >> b.n
	default:
		v = b.lo>>b.n | b.hi<<(64-b.n)
	}
	b.n += uint(k)
	return uint8(v & (1<<uint(k) - 1))
}

// BC7 fills img from 16-byte BC7 blocks. A block of the reserved mode (a zero first byte)
// decodes to transparent black, as the specification asks.
func BC7(img *image.NRGBA, src []byte) {
	each(img, src, 16, bc7Block)
}

func bc7Block(blk []byte, out *[16][4]uint8) {
	b := bits{lo: binary.LittleEndian.Uint64(blk), hi: binary.LittleEndian.Uint64(blk[8:])}
	mode := 0
	for mode < 8 && b.read(1) == 0 {
		mode++
	}
	if mode == 8 {
		*out = [16][4]uint8{}
		return
	}
	m := &bc7Modes[mode]
	part := int(b.read(m.partBits))
	rot := b.read(m.rotBits)
	sel := b.read(m.selBit)

	// End points: every red, then every green, blue and alpha, then the p-bits.
	var ep [6][4]uint8
	n := 2 * m.subsets
	for c := range 3 {
		for e := range n {
			ep[e][c] = b.read(m.colorBits)
		}
	}
	for e := range n {
		ep[e][3] = b.read(m.alphaBits)
	}
	cb, ab := m.colorBits, m.alphaBits
	if m.pBits != 0 {
		var p [6]uint8
		if m.pBits == 1 {
			for e := range n {
				p[e] = b.read(1)
			}
		} else {
			for s := range m.subsets {
				p[2*s] = b.read(1)
				p[2*s+1] = p[2*s]
			}
		}
		for e := range n {
			for c := range 3 {
				ep[e][c] = ep[e][c]<<1 | p[e]
			}
			if ab != 0 {
				ep[e][3] = ep[e][3]<<1 | p[e]
			}
		}
		cb++
		if ab != 0 {
			ab++
		}
	}
	for e := range n {
		for c := range 3 {
			ep[e][c] = expand(ep[e][c], cb)
		}
		if ab != 0 {
			ep[e][3] = expand(ep[e][3], ab)
		} else {
			ep[e][3] = 255
		}
	}

	// Which subset each texel is in, and which texels are anchors.
	var subset [16]uint8
	var anchor [16]bool
	anchor[0] = true
	switch m.subsets {
	case 2:
		for i := range subset {
			subset[i] = uint8(bc7Part2[part] >> i & 1)
		}
		anchor[bc7Anchor2[part]] = true
	case 3:
		for i := range subset {
			subset[i] = uint8(bc7Part3[part] >> (2 * i) & 3)
		}
		anchor[bc7Anchor3a[part]] = true
		anchor[bc7Anchor3b[part]] = true
	}
	var ix, ix2 [16]uint8
	for i := range ix {
		k := m.indexBits
		if anchor[i] {
			k--
		}
		ix[i] = b.read(k)
	}
	if m.index2Bits != 0 {
		for i := range ix2 {
			k := m.index2Bits
			if i == 0 {
				k--
			}
			ix2[i] = b.read(k)
		}
	}

	cw, aw := bc7Weights[m.indexBits], bc7Weights[m.indexBits]
	ci, ai := &ix, &ix
	if m.index2Bits != 0 {
		aw, ai = bc7Weights[m.index2Bits], &ix2
		if sel == 1 {
			cw, aw = aw, cw
			ci, ai = ai, ci
		}
	}
	for i := range out {
		e0, e1 := &ep[2*subset[i]], &ep[2*subset[i]+1]
		wc, wa := cw[ci[i]], aw[ai[i]]
		px := &out[i]
		for c := range 3 {
			px[c] = lerp(e0[c], e1[c], wc)
		}
		px[3] = lerp(e0[3], e1[3], wa)
		if rot != 0 {
			px[rot-1], px[3] = px[3], px[rot-1]
		}
	}
}

// expand widens a k-bit end point channel to 8 bits, replicating its top bits into the bottom.
func expand(v uint8, k int) uint8 {
	if k >= 8 {
		return v
	}
	v <<= 8 - k
	return v | v>>k
}

func lerp(a, b uint8, w uint16) uint8 {
	return uint8(((64-w)*uint16(a) + w*uint16(b) + 32) >> 6)
}
