package mpq

import (
	"errors"
	"fmt"
)

// PKWARE Data Compression Library "implode": a header of two bytes (literal coding, then the
// dictionary size as 4, 5 or 6 bits of distance), then a little-endian bit stream of tokens.
// A 0 bit is a literal; a 1 bit is a copy: a length code, extra length bits, a distance code
// and low distance bits. The length 519 ends the stream.

// Length codes: bit count and code (read least significant bit first), extra bits and base.
var (
	lenBits  = [16]uint8{3, 2, 3, 3, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 7, 7}
	lenCode  = [16]uint8{0x05, 0x03, 0x01, 0x06, 0x0A, 0x02, 0x0C, 0x14, 0x04, 0x18, 0x08, 0x30, 0x10, 0x20, 0x40, 0x00}
	lenExtra = [16]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8}
	lenBase  = [16]uint16{0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 14, 22, 38, 70, 134, 262}
)

// Distance codes: the high 6 bits of a distance.
var (
	distBits = [64]uint8{
		2, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 6, 6,
		6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
		7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
		8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8,
	}
	distCode = [64]uint8{
		0x03, 0x0D, 0x05, 0x19, 0x09, 0x11, 0x01, 0x3E, 0x1E, 0x2E, 0x0E, 0x36, 0x16, 0x26, 0x06, 0x3A,
		0x1A, 0x2A, 0x0A, 0x32, 0x12, 0x22, 0x42, 0x02, 0x7C, 0x3C, 0x5C, 0x1C, 0x6C, 0x2C, 0x4C, 0x0C,
		0x74, 0x34, 0x54, 0x14, 0x64, 0x24, 0x44, 0x04, 0x78, 0x38, 0x58, 0x18, 0x68, 0x28, 0x48, 0x08,
		0xF0, 0x70, 0xB0, 0x30, 0xD0, 0x50, 0x90, 0x10, 0xE0, 0x60, 0xA0, 0x20, 0xC0, 0x40, 0x80, 0x00,
	}
)

// prefixTable maps the next 8 bits of the stream (least significant first) to a symbol and
// its code length, for codes of at most 8 bits.
type prefixTable [256]struct{ sym, bits uint8 }

func makePrefixTable(bits, codes []uint8) *prefixTable {
	var t prefixTable
	for s := range bits {
		for fill := 0; fill < 1<<(8-bits[s]); fill++ {
			t[int(codes[s])|fill<<bits[s]] = struct{ sym, bits uint8 }{uint8(s), bits[s]}
		}
	}
	return &t
}

var (
	lenTable  = makePrefixTable(lenBits[:], lenCode[:])
	distTable = makePrefixTable(distBits[:], distCode[:])
)

// asciiTable maps the next 13 bits to an ASCII-mode literal and its code length.
var asciiTable = func() *[1 << 13]struct {
	sym  byte
	bits uint8
} {
	var t [1 << 13]struct {
		sym  byte
		bits uint8
	}
	for s := range asciiBits {
		n := asciiBits[s]
		code := int(asciiCode[s]) & (1<<n - 1)
		for fill := 0; fill < 1<<(13-n); fill++ {
			t[code|fill<<n] = struct {
				sym  byte
				bits uint8
			}{byte(s), n}
		}
	}
	return &t
}()

// bitReader reads a little-endian bit stream.
type bitReader struct {
	in   []byte
	pos  int
	bits uint32
	n    uint
}

var errShortStream = errors.New("stream ends early")

// need makes at least k bits (k <= 24) available, zero-filling past the end so that a peek near
// the end still works; take reports the error if real bits run out.
func (r *bitReader) need(k uint) {
	for r.n < k {
		var b byte
		if r.pos < len(r.in) {
			b = r.in[r.pos]
		}
		r.pos++
		r.bits |= uint32(b) << r.n
		r.n += 8
	}
}

func (r *bitReader) take(k uint) (uint32, error) {
	r.need(k)
	v := r.bits & (1<<k - 1)
	r.bits >>= k
	r.n -= k
	if r.pos*8-int(r.n) > len(r.in)*8 {
		return 0, errShortStream
	}
	return v, nil
}

func (r *bitReader) decode(t *prefixTable) (uint8, error) {
	r.need(8)
	e := t[r.bits&0xFF]
	if _, err := r.take(uint(e.bits)); err != nil {
		return 0, err
	}
	return e.sym, nil
}

// explode undoes PKWARE implode.
func explode(in []byte, limit int) ([]byte, error) {
	if len(in) < 2 {
		return nil, errShortStream
	}
	if in[0] > 1 {
		return nil, fmt.Errorf("unknown literal coding %d", in[0])
	}
	ascii := in[0] == 1
	dictBits := uint(in[1])
	if dictBits < 4 || dictBits > 6 {
		return nil, fmt.Errorf("dictionary size %d bits is not 4, 5 or 6", dictBits)
	}
	r := &bitReader{in: in[2:]}
	out := make([]byte, 0, limit)
	for {
		flag, err := r.take(1)
		if err != nil {
			return nil, err
		}
		if flag == 0 {
			var lit uint32
			if ascii {
				r.need(13)
				e := asciiTable[r.bits&(1<<13-1)]
				if _, err := r.take(uint(e.bits)); err != nil {
					return nil, err
				}
				lit = uint32(e.sym)
			} else if lit, err = r.take(8); err != nil {
				return nil, err
			}
			if len(out) == limit {
				return nil, errOverrun
			}
			out = append(out, byte(lit))
			continue
		}
		code, err := r.decode(lenTable)
		if err != nil {
			return nil, err
		}
		extra, err := r.take(uint(lenExtra[code]))
		if err != nil {
			return nil, err
		}
		length := int(lenBase[code]) + int(extra) + 2
		if length == 519 {
			return out, nil
		}
		hi, err := r.decode(distTable)
		if err != nil {
			return nil, err
		}
		low := dictBits
		if length == 2 {
			low = 2
		}
		lo, err := r.take(low)
		if err != nil {
			return nil, err
		}
		dist := int(hi)<<low | int(lo) + 1
		if len(out)+length > limit {
			return nil, errOverrun
		}
		for k := 0; k < length; k++ {
			var c byte // the window starts as zeros: a copy from before the start gives zeros
			if dist <= len(out) {
				c = out[len(out)-dist]
			}
			out = append(out, c)
		}
	}
}
