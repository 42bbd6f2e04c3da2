package mdx

import (
	"testing"

	"github.com/modelfs/modelfs/translate/wc3/wc3test"
)

// BenchmarkRead decodes a 250,000-vertex grid model (about 8.5 MB).
func BenchmarkRead(b *testing.B) {
	data, err := wc3test.MDX(wc3test.GridModel(250000))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read("grid.mdx", data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncode encodes the same 250,000-vertex grid model.
func BenchmarkEncode(b *testing.B) {
	m := wc3test.GridModel(250000)
	data, err := wc3test.MDX(m)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := wc3test.MDX(m); err != nil {
			b.Fatal(err)
		}
	}
}
