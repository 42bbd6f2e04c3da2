package mdx

import (
	"encoding/binary"
	"math"
	"testing"
)

// TestGetLE checks the bulk copy against decoding value by value, and the byte-swapping path
// big-endian hosts take: run on a little-endian host, it must reverse each scalar's bytes, so the
// values read back are the big-endian reading of the file.
func TestGetLE(t *testing.T) {
	src := make([]byte, 48)
	for i := range src {
		src[i] = byte(i*37 + 11)
	}
	for _, le := range []bool{true, false} {
		saved := hostLE
		hostLE = le
		u16 := make([]uint16, 24)
		getLE(u16, src, 2)
		v3 := make([][3]float32, 4)
		getLE(v3, src, 4)
		hostLE = saved
		order := binary.ByteOrder(binary.LittleEndian)
		if le != hostLE {
			order = binary.BigEndian
		}
		for i, v := range u16 {
			if want := order.Uint16(src[2*i:]); v != want {
				t.Fatalf("hostLE=%v: uint16 %d = %#x, want %#x", le, i, v, want)
			}
		}
		for i, v := range v3 {
			for c := range v {
				want := math.Float32frombits(order.Uint32(src[12*i+4*c:]))
				if math.Float32bits(v[c]) != math.Float32bits(want) {
					t.Fatalf("vec3 %d.%d = %v, want %v", i, c, v[c], want)
				}
			}
		}
	}
}
