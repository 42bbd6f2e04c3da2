package gltfenc

import "testing"

// benchGrid is the benchmark scene: a 500×500 grid, 250,000 vertices.
var benchGrid = gridScene(500)

func benchmarkEncode(b *testing.B, binary bool) {
	s := benchGrid
	b.SetBytes(int64(plannedSize(s, Options{Binary: binary})))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Encode(s, Options{Binary: binary}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeGLTF measures the .gltf path (base64 data URI); MB/s are of binary payload.
func BenchmarkEncodeGLTF(b *testing.B) { benchmarkEncode(b, false) }

// BenchmarkEncodeGLB measures the .glb path.
func BenchmarkEncodeGLB(b *testing.B) { benchmarkEncode(b, true) }
