package m2

import (
	"encoding/binary"
	"math"
)

// kind is the value type of a track.
type kind uint8

const (
	kNone        kind = iota // M2TrackBase: times only
	kVec3                    // C3Vector
	kQuat                    // C4Quaternion, floats
	kCompQuat                // M2CompQuat, int16 × 4
	kFixed16                 // int16 / 32767
	kFloat                   // float
	kU8                      // uint8
	kU16                     // uint16
	kSplineVec3              // M2SplineKey<C3Vector>: value, in-tangent, out-tangent
	kSplineFloat             // M2SplineKey<float>
	kRawCompQuat             // M2CompQuat as its four int16s (for tests of the decoding)
)

// size is the number of bytes of one value in the file.
func (k kind) size() int {
	switch k {
	case kVec3:
		return 12
	case kQuat:
		return 16
	case kCompQuat, kRawCompQuat:
		return 8
	case kFixed16, kU16:
		return 2
	case kFloat:
		return 4
	case kU8:
		return 1
	case kSplineVec3:
		return 36
	case kSplineFloat:
		return 12
	}
	return 0
}

// width is the number of floats one decoded value takes.
func (k kind) width() int {
	switch k {
	case kVec3:
		return 3
	case kQuat, kCompQuat, kRawCompQuat:
		return 4
	case kFixed16, kFloat, kU8, kU16:
		return 1
	case kSplineVec3:
		return 9
	case kSplineFloat:
		return 3
	}
	return 0
}

// decode decodes the n values at off in f into dst, which holds n × width floats.
func (k kind) decode(dst []float32, f *buf, off, n int) {
	b := f.b
	switch k {
	case kVec3, kQuat, kFloat, kSplineVec3, kSplineFloat:
		src := b[off : off+4*len(dst)]
		for i := range dst {
			dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(src[4*i:]))
		}
	case kCompQuat:
		src := b[off : off+8*n]
		for i := 0; i < n; i++ {
			x := binary.LittleEndian.Uint64(src[8*i:])
			q := DecodeCompQuat([4]int16{int16(x), int16(x >> 16), int16(x >> 32), int16(x >> 48)})
			copy(dst[4*i:4*i+4], q[:])
		}
	case kRawCompQuat:
		for i := range dst {
			dst[i] = float32(f.i16(off + 2*i))
		}
	case kFixed16:
		for i := range dst {
			dst[i] = float32(float64(f.i16(off+2*i)) / 32767)
		}
	case kU16:
		for i := range dst {
			dst[i] = float32(f.u16(off + 2*i))
		}
	case kU8:
		for i := range dst {
			dst[i] = float32(b[off+i])
		}
	}
}

// arena hands out slices carved from large blocks, so that the many small key arrays of a model
// cost a few allocations. Blocks start small and double, so a small model pays little. Each
// slice has its own capacity: appending to it never reaches into its neighbour.
type arena[T any] struct {
	block []T
	next  int
}

const arenaBlock = 1 << 14

func (a *arena[T]) take(n int) []T {
	if n > arenaBlock/4 {
		return make([]T, n)
	}
	if len(a.block) < n {
		a.next = min(max(2*a.next, 256), arenaBlock)
		a.block = make([]T, max(a.next, n))
	}
	s := a.block[:n:n]
	a.block = a.block[n:]
	return s
}

// DecodeCompQuat turns an M2CompQuat into a unit quaternion (x, y, z, w). Each component is
// (s + 32768) / 32767 for a negative s and (s − 32767) / 32767 otherwise — the int16 read as an
// unsigned offset from 32767 — and the result is normalised.
func DecodeCompQuat(s [4]int16) [4]float32 {
	var q [4]float64
	var l2 float64
	for i, v := range s {
		if v < 0 {
			q[i] = float64(int32(v)+32768) / 32767
		} else {
			q[i] = float64(int32(v)-32767) / 32767
		}
		l2 += q[i] * q[i]
	}
	if l2 == 0 {
		return [4]float32{0, 0, 0, 1}
	}
	inv := 1 / math.Sqrt(l2)
	return [4]float32{float32(q[0] * inv), float32(q[1] * inv), float32(q[2] * inv), float32(q[3] * inv)}
}

// EncodeCompQuat is the inverse of DecodeCompQuat for a unit quaternion (up to rounding): the
// test-side writer uses it.
func EncodeCompQuat(q [4]float32) [4]int16 {
	var out [4]int16
	for i, v := range q {
		x := math.Round(float64(v) * 32767)
		x = min(max(x, -32767), 32767)
		if x >= 0 {
			out[i] = int16(int32(x) - 32768) // decodes as (s + 32768) / 32767
		} else {
			out[i] = int16(int32(x) + 32767) // decodes as (s − 32767) / 32767
		}
	}
	return out
}
