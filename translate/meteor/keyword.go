package meteor

import (
	"encoding/binary"
	"strings"
)

// A .pos names thousands of keys, each compared with a few keywords ignoring case. A keywordSet
// compares a key with every keyword of its length in two word compares: the key's bytes, with
// bit 0x20 set, equal a lower-case keyword's exactly when the key is that keyword in any ASCII
// case (setting 0x20 maps A–Z onto a–z and no other byte onto a letter).

// maxKeyword is the longest keyword a keywordSet holds.
const maxKeyword = 16

// keyword is a lower-case keyword as two little-endian words, and its number in its set.
type keyword struct {
	lo, hi uint64
	id     int
}

// keywordSet is a set of lower-case ASCII keywords, numbered from 1 in the order given ("" leaves
// a number unused).
type keywordSet struct {
	words []string
	byLen [maxKeyword + 1][]keyword
}

func newKeywordSet(words ...string) *keywordSet {
	ks := &keywordSet{words: words}
	for i, w := range words {
		if w == "" {
			continue // a gap in the numbering
		}
		if len(w) > maxKeyword || strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") != "" {
			panic("meteor: keyword " + w + " is not a short lower-case word")
		}
		lo, hi := foldKey([]byte(w))
		ks.byLen[len(w)] = append(ks.byLen[len(w)], keyword{lo, hi, i + 1})
	}
	return ks
}

// foldKey returns b (at most maxKeyword bytes) as two little-endian words, each byte with bit
// 0x20 set, zero past the end of b.
func foldKey(b []byte) (lo, hi uint64) {
	const set = 0x2020202020202020
	n := len(b)
	if cap(b) >= 16 {
		// Read whole words past the end of b (within its capacity), then clear what is not b.
		ext := b[:16]
		lo = binary.LittleEndian.Uint64(ext) | set
		hi = binary.LittleEndian.Uint64(ext[8:]) | set
		switch {
		case n < 8:
			lo &= 1<<(8*n) - 1
			hi = 0
		case n < 16:
			hi &= 1<<(8*(n-8)) - 1
		}
		return lo, hi
	}
	for i := n - 1; i >= 0; i-- {
		if i >= 8 {
			hi = hi<<8 | uint64(b[i]|0x20)
		} else {
			lo = lo<<8 | uint64(b[i]|0x20)
		}
	}
	return lo, hi
}

// find returns the number of the keyword b is, ignoring ASCII case, or 0.
func (ks *keywordSet) find(b []byte) int {
	if len(b) > maxKeyword {
		return 0
	}
	cands := ks.byLen[len(b)]
	if len(cands) == 0 {
		return 0
	}
	lo, hi := foldKey(b)
	for _, k := range cands {
		if k.lo == lo && k.hi == hi {
			return k.id
		}
	}
	return 0
}

// findFold is find with strings.EqualFold's notion of case: beyond ASCII, ſ and the Kelvin sign
// fold onto s and k, so a key with non-ASCII bytes (s is b as a string) takes the long way.
func (ks *keywordSet) findFold(b []byte, s string) int {
	if isASCII(b) {
		return ks.find(b)
	}
	for i, w := range ks.words {
		if w != "" && strings.EqualFold(s, w) {
			return i + 1
		}
	}
	return 0
}
