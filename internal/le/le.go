// Package le moves arrays of numbers between Go slices and the little-endian bytes model files
// and glTF buffers hold. On little-endian hosts (nearly all) an array is one copy of its bytes,
// several times faster than assembling each value; big-endian hosts copy, then reverse the bytes
// of each scalar.
package le

import "unsafe"

// hostLE is true on hosts that store numbers little-endian.
var hostLE = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// Number is what the arrays are made of: fixed-size values built from scalars of one width
// (2 or 4 bytes).
type Number interface {
	uint16 | uint32 | float32 | [2]float32 | [3]float32 | [4]float32
}

// bytesOf views s as its bytes.
func bytesOf[T Number](s []T) []byte {
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(zero)))
}

// Get fills dst from the little-endian bytes src, which holds at least as many bytes as dst;
// width is the size of the scalars dst's elements are made of.
func Get[T Number](dst []T, src []byte, width int) {
	if len(dst) == 0 {
		return
	}
	b := bytesOf(dst)
	copy(b, src[:len(b)])
	swap(b, width)
}

// Put stores src little-endian into dst, which holds at least as many bytes as src; width is
// the size of the scalars src's elements are made of.
func Put[T Number](dst []byte, src []T, width int) {
	if len(src) == 0 {
		return
	}
	b := bytesOf(src)
	n := copy(dst[:len(b)], b)
	swap(dst[:n], width)
}

// swap reverses the bytes of each width-byte scalar of b on a big-endian host.
func swap(b []byte, width int) {
	if hostLE {
		return
	}
	for i := 0; i+width <= len(b); i += width {
		for j, k := i, i+width-1; j < k; j, k = j+1, k-1 {
			b[j], b[k] = b[k], b[j]
		}
	}
}
