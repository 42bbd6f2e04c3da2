package mdx

import "unsafe"

// hostLE is true on hosts that store numbers little-endian, as MDX does: arrays of numbers are
// then copied straight from the file's bytes instead of decoded one by one (the face and vertex
// arrays of a large model are most of its bytes).
var hostLE = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// number is what the arrays of an MDX file are made of: fixed-size values built from
// little-endian scalars of one width (2 or 4 bytes).
type number interface {
	uint16 | uint32 | float32 | [2]float32 | [3]float32
}

// getLE fills dst from the little-endian bytes src, which holds at least as many bytes as dst;
// width is the size of the scalars dst's elements are made of.
func getLE[T number](dst []T, src []byte, width int) {
	if len(dst) == 0 {
		return
	}
	n := len(dst) * int(unsafe.Sizeof(dst[0]))
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(dst))), n)
	copy(b, src[:n])
	if hostLE {
		return
	}
	for i := 0; i+width <= n; i += width {
		for j, k := i, i+width-1; j < k; j, k = j+1, k-1 {
			b[j], b[k] = b[k], b[j]
		}
	}
}
