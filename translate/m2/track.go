package m2

import (
	"encoding/binary"
	"math"

	"github.com/modelfs/modelfs/internal/le"
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
	kVec2                    // C2Vector
)

// size is the number of bytes of one value in the file.
func (k kind) size() int {
	switch k {
	case kVec3:
		return 12
	case kQuat:
		return 16
	case kCompQuat, kRawCompQuat, kVec2:
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
	case kVec2:
		return 2
	}
	return 0
}

// decode decodes the n values at off in f into dst, which holds n × width floats.
func (k kind) decode(dst []float32, f *buf, off, n int) {
	if len(dst) == 0 {
		return // an empty array may point anywhere
	}
	b := f.b
	switch k {
	case kVec3, kQuat, kFloat, kSplineVec3, kSplineFloat, kVec2:
		le.Get(dst, b[off:off+4*len(dst)], 4)
	case kCompQuat:
		decodeCompQuats(dst[:4*n], b[off:off+8*n])
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

// decodeCompQuats decodes the M2CompQuats of src (8 bytes each) into dst (4 floats each), as
// DecodeCompQuat does one: rotations are most of a model's keys, so this loop is kept tight.
func decodeCompQuats(dst []float32, src []byte) {
	for i := 0; i+4 <= len(dst); i += 4 {
		x := binary.LittleEndian.Uint64(src[2*i:])
		a, b, c, d := compComponent(int16(x)), compComponent(int16(x>>16)), compComponent(int16(x>>32)), compComponent(int16(x>>48))
		o := (*[4]float32)(dst[i:])
		var l2 float64
		l2 += a * a
		l2 += b * b
		l2 += c * c
		l2 += d * d
		if l2 == 0 {
			*o = [4]float32{0, 0, 0, 1}
			continue
		}
		inv := 1 / math.Sqrt(l2)
		*o = [4]float32{float32(a * inv), float32(b * inv), float32(c * inv), float32(d * inv)}
	}
}

// inv32767 is the float64 nearest 1/32767.
const inv32767 = 1.0 / 32767

// compComponent is one M2CompQuat component: (s + 32768) / 32767 for a negative s, else
// (s − 32767) / 32767. A division costs more than the rest of a quaternion's decoding; the
// product with the reciprocal, corrected by one fused multiply-add step (the remainder is exact),
// rounds to the same float64 as the quotient for every int16 (TestCompComponent checks all).
func compComponent(s int16) float64 {
	v := int32(s) - 32767
	if s < 0 {
		v = int32(s) + 32768
	}
	x := float64(v)
	q := x * inv32767
	return math.FMA(math.FMA(-q, 32767, x), inv32767, q)
}

// DecodeCompQuat turns an M2CompQuat into a unit quaternion (x, y, z, w). Each component is
// (s + 32768) / 32767 for a negative s and (s − 32767) / 32767 otherwise — the int16 read as an
// unsigned offset from 32767 — and the result is normalised.
func DecodeCompQuat(s [4]int16) [4]float32 {
	var src [8]byte
	for i, v := range s {
		binary.LittleEndian.PutUint16(src[2*i:], uint16(v))
	}
	var q [4]float32
	decodeCompQuats(q[:], src[:])
	return q
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
