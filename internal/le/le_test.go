package le

import (
	"encoding/binary"
	"math"
	"testing"
)

// TestGetPut checks Get and Put against decoding and encoding value by value, on this host's
// path and on the other one: run on a little-endian host, the big-endian path must reverse
// each scalar's bytes, so that Get reads the big-endian meaning of the bytes and Put writes it.
func TestGetPut(t *testing.T) {
	src := make([]byte, 48)
	for i := range src {
		src[i] = byte(i*37 + 11)
	}
	saved := hostLE
	defer func() { hostLE = saved }()
	for _, host := range []bool{true, false} {
		hostLE = host
		order := binary.ByteOrder(binary.LittleEndian)
		if host != saved {
			order = binary.BigEndian
		}
		u16 := make([]uint16, 24)
		Get(u16, src, 2)
		for i, v := range u16 {
			if want := order.Uint16(src[2*i:]); v != want {
				t.Fatalf("host LE %v: uint16 %d = %#x, want %#x", host, i, v, want)
			}
		}
		v3 := make([][3]float32, 4)
		Get(v3, src, 4)
		for i, v := range v3 {
			for c := range v {
				want := math.Float32frombits(order.Uint32(src[12*i+4*c:]))
				if math.Float32bits(v[c]) != math.Float32bits(want) {
					t.Fatalf("host LE %v: vec3 %d.%d = %v, want %v", host, i, c, v[c], want)
				}
			}
		}
		out := make([]byte, 48)
		Put(out, v3, 4)
		if string(out) != string(src) {
			t.Fatalf("host LE %v: Put(Get(b)) = %x, want %x", host, out, src)
		}
		u32 := make([]uint32, 12)
		Get(u32, src, 4)
		for i, v := range u32 {
			if want := order.Uint32(src[4*i:]); v != want {
				t.Fatalf("host LE %v: uint32 %d = %#x, want %#x", host, i, v, want)
			}
		}
	}
}
