package m2

import (
	"encoding/binary"
	"math"
	"testing"
)

// TestCompComponent checks the multiply-and-correct decoding of an M2CompQuat component against
// the division it stands for, for every int16.
func TestCompComponent(t *testing.T) {
	bad := 0
	for v := math.MinInt16; v <= math.MaxInt16; v++ {
		want := float64(int32(v)-32767) / 32767
		if v < 0 {
			want = float64(int32(v)+32768) / 32767
		}
		if got := compComponent(int16(v)); math.Float64bits(got) != math.Float64bits(want) {
			if bad++; bad < 10 {
				t.Errorf("compComponent(%d) = %v, want %v", v, got, want)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of 65536 components differ from the quotient", bad)
	}
}

// refCompQuat is DecodeCompQuat spelled out with divisions, for TestDecodeCompQuats.
func refCompQuat(s [4]int16) [4]float32 {
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

// TestDecodeCompQuats compares the batch decoding with the formula on quaternions that sweep
// every component value, including the all-zero one.
func TestDecodeCompQuats(t *testing.T) {
	var qs [][4]int16
	for v := math.MinInt16; v <= math.MaxInt16; v += 7 {
		x := int16(v)
		qs = append(qs, [4]int16{x, x ^ 0x5555, ^x, x * 3})
	}
	qs = append(qs, [4]int16{32767, -32768, 32767, -32768}, [4]int16{0, 0, 0, 0}, [4]int16{-1, -1, -1, -1})
	src := make([]byte, 8*len(qs))
	for i, q := range qs {
		for c, v := range q {
			binary.LittleEndian.PutUint16(src[8*i+2*c:], uint16(v))
		}
	}
	dst := make([]float32, 4*len(qs))
	decodeCompQuats(dst, src)
	for i, q := range qs {
		want := refCompQuat(q)
		if got := [4]float32(dst[4*i:]); got != want {
			t.Fatalf("quaternion %v: %v, want %v", q, got, want)
		}
		if got := DecodeCompQuat(q); got != want {
			t.Fatalf("DecodeCompQuat(%v) = %v, want %v", q, got, want)
		}
	}
}
