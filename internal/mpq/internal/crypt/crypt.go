// Package crypt holds MPQ's hash and cipher, shared by the reader and the test-side writer.
package crypt

import (
	"encoding/binary"
	"math/bits"
)

var le = binary.LittleEndian

// MPQ's hash and cipher share one table of 0x500 words, made from a fixed seed. The hash
// picks a row of 0x100 words by its purpose (table index, two name checks, file key).

// Purposes of a hash.
const (
	Index = 0 // the start slot in the hash table
	NameA = 1 // first name check stored in a hash entry
	NameB = 2 // second name check
	Key   = 3 // encryption keys
)

var cryptTable = func() (t [0x500]uint32) {
	seed := uint32(0x00100001)
	for i := 0; i < 0x100; i++ {
		for j := i; j < 0x500; j += 0x100 {
			seed = (seed*125 + 3) % 0x2AAAAB
			hi := (seed & 0xFFFF) << 16
			seed = (seed*125 + 3) % 0x2AAAAB
			t[j] = hi | seed&0xFFFF
		}
	}
	return t
}()

// Hash hashes a member name the way the archive's tables do: ASCII case folded to upper
// and '/' taken as '\'.
func Hash(s string, kind uint32) uint32 {
	s1, s2 := uint32(0x7FED7FED), uint32(0xEEEEEEEE)
	for i := 0; i < len(s); i++ {
		c := uint32(s[i])
		switch {
		case c >= 'a' && c <= 'z':
			c -= 'a' - 'A'
		case c == '/':
			c = '\\'
		}
		s1 = cryptTable[kind<<8+c] ^ (s1 + s2)
		s2 = c + s1 + s2 + s2<<5 + 3
	}
	return s1
}

// Decrypt deciphers whole little-endian words of b in place; a tail shorter than a word is
// stored in the clear.
func Decrypt(b []byte, key uint32) {
	seed := uint32(0xEEEEEEEE)
	for i := 0; i+4 <= len(b); i += 4 {
		seed += cryptTable[0x400+key&0xFF]
		w := le.Uint32(b[i:]) ^ (key + seed)
		key = (^key<<0x15 + 0x11111111) | key>>0x0B
		seed = w + seed + seed<<5 + 3
		le.PutUint32(b[i:], w)
	}
}

// Encrypt is Decrypt's inverse; the test-side writer uses it.
func Encrypt(b []byte, key uint32) {
	seed := uint32(0xEEEEEEEE)
	for i := 0; i+4 <= len(b); i += 4 {
		seed += cryptTable[0x400+key&0xFF]
		w := le.Uint32(b[i:])
		c := w ^ (key + seed)
		key = (^key<<0x15 + 0x11111111) | key>>0x0B
		seed = w + seed + seed<<5 + 3
		le.PutUint32(b[i:], c)
	}
}

// FileKey is the key of an encrypted member: the hash of its base name, adjusted by its
// position and size when the block says so.
func FileKey(name string, pos uint64, size uint32, fixKey bool) uint32 {
	base := name
	for i := len(name) - 1; i >= 0; i-- {
		if name[i] == '\\' || name[i] == '/' {
			base = name[i+1:]
			break
		}
	}
	k := Hash(base, Key)
	if fixKey {
		k = (k + uint32(pos)) ^ size
	}
	return k
}

// GuessKey recovers the key of a compressed member whose name is unknown from its sector
// offset table, whose first word is known: the table's own size. The second word must then
// be a plausible next offset. It returns the member's key (the table's is one less).
func GuessKey(enc []byte, first, maxSecond uint32) (uint32, bool) {
	if len(enc) < 8 {
		return 0, false
	}
	e0 := le.Uint32(enc)
	for lo := uint32(0); lo < 0x100; lo++ {
		seed := 0xEEEEEEEE + cryptTable[0x400+lo]
		key := (e0 ^ first) - seed
		if key&0xFF != lo {
			continue
		}
		var two [8]byte
		copy(two[:], enc[:8])
		Decrypt(two[:], key)
		if second := le.Uint32(two[4:]); second > first && second <= maxSecond {
			return key + 1, true
		}
	}
	return 0, false
}

// Jenkins64 is the 64-bit name hash of HET tables: Bob Jenkins' hashlittle2 (lookup3) of the
// name in lower case with '\\' for '/', seeded with 2 and 1, the second result in the high
// half.
func Jenkins64(name string) uint64 {
	k := make([]byte, len(name))
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		case c == '/':
			c = '\\'
		}
		k[i] = c
	}
	a := 0xdeadbeef + uint32(len(k)) + 2
	b, c := a, a+1
	for len(k) > 12 {
		a += le.Uint32(k)
		b += le.Uint32(k[4:])
		c += le.Uint32(k[8:])
		a, b, c = mix(a, b, c)
		k = k[12:]
	}
	if len(k) == 0 {
		return uint64(b)<<32 | uint64(c)
	}
	var tail [12]byte
	copy(tail[:], k)
	a += le.Uint32(tail[:])
	b += le.Uint32(tail[4:])
	c += le.Uint32(tail[8:])
	_, b, c = final(a, b, c)
	return uint64(b)<<32 | uint64(c)
}

func mix(a, b, c uint32) (uint32, uint32, uint32) {
	a -= c
	a ^= bits.RotateLeft32(c, 4)
	c += b
	b -= a
	b ^= bits.RotateLeft32(a, 6)
	a += c
	c -= b
	c ^= bits.RotateLeft32(b, 8)
	b += a
	a -= c
	a ^= bits.RotateLeft32(c, 16)
	c += b
	b -= a
	b ^= bits.RotateLeft32(a, 19)
	a += c
	c -= b
	c ^= bits.RotateLeft32(b, 4)
	b += a
	return a, b, c
}

func final(a, b, c uint32) (uint32, uint32, uint32) {
	c ^= b
	c -= bits.RotateLeft32(b, 14)
	a ^= c
	a -= bits.RotateLeft32(c, 11)
	b ^= a
	b -= bits.RotateLeft32(a, 25)
	c ^= b
	c -= bits.RotateLeft32(b, 16)
	a ^= c
	a -= bits.RotateLeft32(c, 4)
	b ^= a
	b -= bits.RotateLeft32(a, 14)
	c ^= b
	c -= bits.RotateLeft32(b, 24)
	return a, b, c
}
