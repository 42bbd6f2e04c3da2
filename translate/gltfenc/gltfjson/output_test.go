package gltfjson

import (
	"bytes"
	"testing"

	"github.com/qmuntal/gltf"
)

// A .gltf written to a writer, its base64 text in pieces, is the .gltf written whole, for
// buffers of every length around the pieces' size.
func TestWriteToInPieces(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 23, 24, base64Piece - 1, base64Piece, base64Piece + 1, 2*base64Piece + 2, 3*base64Piece + 23} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i*7 + i>>9)
		}
		doc := &gltf.Document{Asset: gltf.Asset{Version: "2.0"}, Buffers: []*gltf.Buffer{{ByteLength: n, Data: data}}}
		want, err := Write(doc, false)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := WriteTo(&got, doc, false); err != nil || !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%d bytes: WriteTo wrote %d bytes (%v), Write %d", n, got.Len(), err, len(want))
		}
	}
}
