// Package gltfjsontest holds glTF writers to the reference: the bytes qmuntal/gltf's own encoder
// writes. It is for tests only; it depends on nothing of the project, so the writer's own tests
// can use it too.
package gltfjsontest

import (
	"bytes"
	"testing"

	"github.com/qmuntal/gltf"
)

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
