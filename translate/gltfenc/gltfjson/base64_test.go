package gltfjson

import (
	"bytes"
	"encoding/base64"
	"math/rand/v2"
	"testing"
)

func TestEncodeBase64(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	check := func(src []byte) {
		t.Helper()
		want := base64.StdEncoding.EncodeToString(src)
		// dst has room past its end, which must stay untouched.
		n := base64.StdEncoding.EncodedLen(len(src))
		buf := bytes.Repeat([]byte{'~'}, n+40)
		encodeBase64(buf[:n], src)
		if string(buf[:n]) != want {
			t.Fatalf("len %d: got %s, want %s", len(src), buf[:n], want)
		}
		if bytes.Count(buf[n:], []byte{'~'}) != 40 {
			t.Fatalf("len %d: wrote past the end", len(src))
		}
	}
	big := make([]byte, 5000)
	for i := range big {
		big[i] = byte(r.Uint32())
	}
	for n := 0; n < 300; n++ {
		check(big[:n])
		check(big[7 : 7+n]) // unaligned start
	}
	for _, n := range []int{1023, 1024, 1025, 4096, 4999} {
		check(big[:n])
		check(big[len(big)-n:])
	}
	// Every byte value in every position of the 24-byte block.
	for v := range 256 {
		for at := range 30 {
			src := make([]byte, 30)
			src[at] = byte(v)
			check(src)
			for i := range src {
				src[i] = ^src[i]
			}
			check(src)
		}
	}
}

func BenchmarkEncodeBase64(b *testing.B) {
	src := make([]byte, 1<<20)
	dst := make([]byte, base64.StdEncoding.EncodedLen(len(src)))
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		encodeBase64(dst, src)
	}
}

func BenchmarkStdBase64(b *testing.B) {
	src := make([]byte, 1<<20)
	dst := make([]byte, base64.StdEncoding.EncodedLen(len(src)))
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		base64.StdEncoding.Encode(dst, src)
	}
}
