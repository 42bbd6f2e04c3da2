package m2

import (
	"encoding/binary"
	"fmt"
	"math"
)

// span is an M2Array: count elements starting at off in some file.
type span struct {
	n, off uint32
}

// buf is one file (the .m2, a .skin or an .anim) read with bounds checks. Reads of fixed
// fields trust their callers to have checked the range (with has or arr); arr checks every
// array against the file size before anything is allocated for it.
type buf struct {
	b    []byte
	name string // the file, for messages
}

func (f *buf) u8(at int) uint8    { return f.b[at] }
func (f *buf) i8(at int) int8     { return int8(f.b[at]) }
func (f *buf) u16(at int) uint16  { return binary.LittleEndian.Uint16(f.b[at:]) }
func (f *buf) i16(at int) int16   { return int16(binary.LittleEndian.Uint16(f.b[at:])) }
func (f *buf) u32(at int) uint32  { return binary.LittleEndian.Uint32(f.b[at:]) }
func (f *buf) i32(at int) int32   { return int32(binary.LittleEndian.Uint32(f.b[at:])) }
func (f *buf) f32(at int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(f.b[at:])) }

// le32f reads the little-endian float at the start of b.
func le32f(b []byte) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b)) }

func (f *buf) vec3(at int) [3]float32 {
	return [3]float32{f.f32(at), f.f32(at + 4), f.f32(at + 8)}
}

// has reports whether n bytes at at lie inside the file.
func (f *buf) has(at, n int) bool {
	return at >= 0 && n >= 0 && at <= len(f.b) && n <= len(f.b)-at
}

// span reads the M2Array header at at (which must be in range).
func (f *buf) span(at int) span { return span{f.u32(at), f.u32(at + 4)} }

// rangeErr describes an array that does not fit in the file.
type rangeErr struct {
	file      string
	what      string
	at        int64 // where the array header is, -1 if unknown
	n, off    uint32
	elem, len int
}

func (e *rangeErr) Error() string {
	return fmt.Sprintf("%s: %d × %d bytes at offset %d run past the end of %s (%d bytes)", e.what, e.n, e.elem, e.off, e.file, e.len)
}

// check reports whether s holds n elements of elem bytes inside the file; an empty array is
// always fine, wherever it points.
func (f *buf) check(s span, elem int, what string, at int) error {
	if s.n == 0 {
		return nil
	}
	end := uint64(s.off) + uint64(s.n)*uint64(elem)
	if elem <= 0 || end > uint64(len(f.b)) {
		return &rangeErr{file: f.name, what: what, at: int64(at), n: s.n, off: s.off, elem: elem, len: len(f.b)}
	}
	return nil
}

// fits is check without the error.
func (f *buf) fits(s span, elem int) bool {
	return s.n == 0 || (elem > 0 && uint64(s.off)+uint64(s.n)*uint64(elem) <= uint64(len(f.b)))
}

// str reads an M2Array<char>: the bytes up to the first NUL.
func (f *buf) str(s span) (string, bool) {
	if !f.fits(s, 1) {
		return "", false
	}
	if s.n == 0 {
		return "", true // an empty array may point anywhere
	}
	b := f.b[s.off : s.off+s.n]
	for i, c := range b {
		if c == 0 {
			b = b[:i]
			break
		}
	}
	return string(b), true
}

// int16s reads an M2Array<int16>.
func (f *buf) int16s(s span) ([]int16, bool) {
	return words16[int16](f, s)
}

// uint16s reads an M2Array<uint16>.
func (f *buf) uint16s(s span) ([]uint16, bool) {
	return words16[uint16](f, s)
}

// words16 reads an M2Array of 16-bit words.
func words16[T ~int16 | ~uint16](f *buf, s span) ([]T, bool) {
	if !f.fits(s, 2) {
		return nil, false
	}
	out := make([]T, s.n)
	if s.n == 0 {
		return out, true
	}
	src := f.b[s.off : uint64(s.off)+2*uint64(s.n)]
	for i := range out {
		w := (*[2]byte)(src[2*i:])
		out[i] = T(uint16(w[0]) | uint16(w[1])<<8)
	}
	return out, true
}

// uint32s reads an M2Array<uint32>.
func (f *buf) uint32s(s span) ([]uint32, bool) {
	if !f.fits(s, 4) {
		return nil, false
	}
	out := make([]uint32, s.n)
	for i := range out {
		out[i] = f.u32(int(s.off) + 4*i)
	}
	return out, true
}

// vec3s reads an M2Array<C3Vector>.
func (f *buf) vec3s(s span) ([][3]float32, bool) {
	if !f.fits(s, 12) {
		return nil, false
	}
	out := make([][3]float32, s.n)
	for i := range out {
		out[i] = f.vec3(int(s.off) + 12*i)
	}
	return out, true
}
