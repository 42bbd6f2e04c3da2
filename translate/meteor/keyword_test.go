package meteor

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestKeywordSet compares keyword lookups with the comparisons they replace: token.is (ASCII
// case only) for find, strings.EqualFold for findFold, on near misses of every kind.
func TestKeywordSet(t *testing.T) {
	words := []string{"source", "start", "end", "loopstart", "effecttype", "link", "targetposefront", "targetposeright", "speed"}
	ks := newKeywordSet(words...)
	r := rand.New(rand.NewPCG(3, 5))
	// Bytes next to letters in ASCII (bit 0x20 apart, or neighbours), and the two runes that
	// fold onto ASCII letters.
	swaps := []string{"@", "[", "`", "{", "^", "_", "~", "\x7f", "\x00", "0", "9", "\xc5", "\xe0", "ſ", "K", "Ｓ", "\u0130", "\u0131"}
	check := func(key string) {
		t.Helper()
		wantFind, wantFold := 0, 0
		for i, w := range words {
			tok := token{text: []byte(key)}
			if tok.is(w) {
				wantFind = i + 1
			}
			if strings.EqualFold(key, w) {
				wantFold = i + 1
			}
		}
		// The key as a slice of a larger buffer (the fast path reads past its end) and alone.
		buf := []byte(key + "XXXXXXXXXXXXXXXXXX")
		for _, b := range [][]byte{buf[:len(key)], []byte(key)} {
			if got := ks.find(b); got != wantFind {
				t.Fatalf("find(%q) = %d, want %d", key, got, wantFind)
			}
			if got := ks.findFold(b, key); got != wantFold {
				t.Fatalf("findFold(%q) = %d, want %d", key, got, wantFold)
			}
		}
	}
	for _, w := range words {
		check(w)
		check(strings.ToUpper(w))
		check(w[1:])
		check(w + "s")
		check(strings.ReplaceAll(w, "s", "ſ"))
		check(strings.ReplaceAll(w, "k", "K"))
	}
	for range 50000 {
		w := []byte(words[r.IntN(len(words))])
		for i := range w {
			if r.IntN(2) == 0 {
				w[i] -= 'a' - 'A'
			}
		}
		key := string(w)
		if r.IntN(3) == 0 {
			i := r.IntN(len(key))
			key = key[:i] + swaps[r.IntN(len(swaps))] + key[i+1:]
		}
		check(key)
	}
}
