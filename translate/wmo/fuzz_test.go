package wmo

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/gltfenc"
)

// FuzzDecode decodes a root and its first group from arbitrary bytes, in a tree holding the
// fixture's doodad model: no panic, no scene that fails validation, none the encoder refuses.
func FuzzDecode(f *testing.F) {
	tree := fixtureFS()
	files := fixture().Files("W/H.wmo")
	f.Add(files["W/H.wmo"], files["W/H_000.wmo"])
	f.Add(files["W/H.wmo"], files["W/H_001.wmo"])
	f.Add([]byte("REVM\x04\x00\x00\x00\x11\x00\x00\x00"), []byte{})
	f.Fuzz(func(t *testing.T, root, group []byte) {
		fsys := fstest.MapFS{"W/H.wmo": {Data: root}, "W/H_000.wmo": {Data: group}}
		for name, f := range tree {
			if strings.HasPrefix(name, "World/generic/") {
				fsys[name] = f
			}
		}
		s, err := Decode(codec.Source{Name: "W/H.wmo", Data: root, FS: fsys})
		if err != nil {
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("invalid scene: %v", err)
		}
		s.MakePlain()
		if len(s.Meshes) > 0 {
			if _, err := gltfenc.Encode(s, gltfenc.Options{Binary: true}); err != nil {
				t.Fatalf("encode: %v", err)
			}
		}
	})
}
