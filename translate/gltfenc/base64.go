package gltfenc

import (
	"encoding/base64"
	"encoding/binary"
)

// pairs maps 12 bits to the two base64 characters that encode them, little-endian in a uint16.
var pairs = func() (t [4096]uint16) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for i := range t {
		t[i] = uint16(alphabet[i>>6]) | uint16(alphabet[i&63])<<8
	}
	return t
}()

// encodeBase64 writes the standard (padded) base64 encoding of src to dst, which must hold
// base64.StdEncoding.EncodedLen(len(src)) bytes. It gives the same bytes as the standard
// library, about twice as fast, by looking up two characters at a time.
func encodeBase64(dst, src []byte) {
	di, si := 0, 0
	// 6 source bytes → 8 characters, reading 8 bytes at a time while that stays in bounds.
	for ; si+8 <= len(src); si, di = si+6, di+8 {
		v := binary.BigEndian.Uint64(src[si:])
		binary.LittleEndian.PutUint64(dst[di:], uint64(pairs[v>>52])|
			uint64(pairs[v>>40&0xfff])<<16|
			uint64(pairs[v>>28&0xfff])<<32|
			uint64(pairs[v>>16&0xfff])<<48)
	}
	base64.StdEncoding.Encode(dst[di:], src[si:])
}
