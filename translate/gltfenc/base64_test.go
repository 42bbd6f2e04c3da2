package gltfenc

import (
	"bytes"
	"encoding/base64"
	"math/rand/v2"
	"testing"
)

func TestEncodeBase64(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 200; n++ {
		src := make([]byte, n)
		for i := range src {
			src[i] = byte(r.Uint32())
		}
		want := base64.StdEncoding.EncodeToString(src)
		got := make([]byte, base64.StdEncoding.EncodedLen(n))
		encodeBase64(got, src)
		if !bytes.Equal(got, []byte(want)) {
			t.Fatalf("n=%d: got %s, want %s", n, got, want)
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
