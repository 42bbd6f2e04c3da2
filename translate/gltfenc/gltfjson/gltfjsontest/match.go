// Package gltfjsontest holds glTF writers to the reference, the bytes qmuntal/gltf's own
// encoder writes, and gives the awkward strings and numbers their tests feed them. It is for
// tests only; it depends on nothing of the project, so the writer's own tests can use it too.
package gltfjsontest

import (
	"bytes"
	"math"
	"strconv"
	"testing"

	"github.com/qmuntal/gltf"
)

// Awkward holds strings that need every kind of escaping.
var Awkward = []string{
	"", "plain", `quote " and backslash \ `, "<script>&amp;</script>", "tab\tnewline\nreturn\rbs\bff\f",
	"\x00\x01\x1f\x7f", "line\u2028para\u2029", "bad \xff utf8 \xc3", "naïve 日本語 🎉", "data:application/octet-stream;base64,",
}

// AwkwardFloats covers the formatting rules: exponents at both cutoffs, negative zero,
// subnormals, whole numbers past the fast path, float32-rounded values.
var AwkwardFloats = []float64{
	0, math.Copysign(0, -1), 1, -1, 0.5, 0.1, 1.0 / 3, 1e-6, 9.99999e-7, 1e-7, -1e-7, 1.5e-10, 1e20, 1e21,
	-1e21, 123456789012345678, 1e15, 1e15 - 1, -1e15, 1 << 53, 5e-324, math.SmallestNonzeroFloat64 * 7,
	2.2250738585072014e-308, math.MaxFloat64, -math.MaxFloat64, r32(0.1), r32(1e-7), r32(3e38), r32(-1.5e-45),
	float64(float32(16777217)), 0.70710677, 1e100, 1e-100, 12345.678,
}

// r32 widens f to the float64 of its shortest float32 decimal, as the encoder stores float32
// values.
func r32(f float32) float64 {
	v, err := strconv.ParseFloat(strconv.FormatFloat(float64(f), 'e', -1, 32), 64)
	if err != nil || f == 0 {
		return 0
	}
	return v
}

// Reference returns what qmuntal/gltf's encoder writes for doc, as .glb with binary.
func Reference(doc *gltf.Document, binary bool) ([]byte, error) {
	var b bytes.Buffer
	enc := gltf.NewEncoder(&b)
	enc.AsBinary = binary
	err := enc.Encode(doc)
	return b.Bytes(), err
}

// Match requires write to take doc and to give Reference's bytes, in both containers; name
// labels the failure.
func Match(t testing.TB, name string, doc *gltf.Document, write func(*gltf.Document, bool) ([]byte, error)) {
	t.Helper()
	for _, binary := range []bool{false, true} {
		want, err := Reference(doc, binary)
		if err != nil {
			t.Fatalf("%s binary=%v: qmuntal: %v", name, binary, err)
		}
		got, err := write(doc, binary)
		if err != nil {
			t.Fatalf("%s binary=%v: the writer refused the document: %v", name, binary, err)
		}
		if !bytes.Equal(got, want) {
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			t.Fatalf("%s binary=%v: output differs from qmuntal's at byte %d of %d/%d:\nours:    %q\nqmuntal: %q",
				name, binary, i, len(got), len(want), excerpt(got, i), excerpt(want, i))
		}
	}
}

func excerpt(b []byte, at int) []byte {
	return b[max(at-60, 0):min(at+60, len(b))]
}
