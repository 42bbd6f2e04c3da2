package translate

import (
	"bytes"

	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/gltfenc"
	"github.com/modelfs/modelfs/translate/scene"
)

// Doc is a document as OutputsFunc hands it over: its bytes in pieces laid one after another.
// Every kind but a .glb is one piece. A .glb's embedded images are pieces of their own, the
// very slices the scene's textures held (for a texture file, what the source's TextureFunc
// returned), so that a caller keeping the document can share them with the textures' own
// documents rather than hold a copy of each; its other bytes are pieces of new memory.
type Doc [][]byte

// Len is the document's length.
func (d Doc) Len() int {
	n := 0
	for _, p := range d {
		n += len(p)
	}
	return n
}

// Bytes returns the document in one slice: its one piece, or the pieces joined in new memory.
func (d Doc) Bytes() []byte {
	switch len(d) {
	case 0:
		return nil
	case 1:
		return d[0]
	}
	return bytes.Join(d, nil)
}

// encodeDoc is Encode as a Doc: a .glb's images are left where they are.
func encodeDoc(s *scene.Scene, kind Kind, opt EncodeOptions) (doc Doc, err error) {
	if kind != GLB {
		b, err := Encode(s, kind, opt)
		if err != nil {
			return nil, err
		}
		return Doc{b}, nil
	}
	defer func() {
		if r := recover(); r != nil {
			doc, err = nil, &codec.InternalError{File: s.Source.Path, Stage: "encode", Panic: r}
		}
	}()
	images := map[*byte]int{} // the embedded images, by where their bytes are
	for _, t := range s.Textures {
		if len(t.Image) > 0 {
			images[&t.Image[0]] = len(t.Image)
		}
	}
	isImage := func(p []byte) bool { return len(p) > 0 && images[&p[0]] == len(p) }
	err = gltfenc.EncodeParts(s, gltfenc.Options{Binary: true}, func(parts [][]byte) error {
		start := 0
		for i := 0; i <= len(parts); i++ {
			if i < len(parts) && !isImage(parts[i]) {
				continue
			}
			// The run of scratch parts before the image (or the end) becomes one new piece.
			if run := bytes.Join(parts[start:i], nil); len(run) > 0 {
				doc = append(doc, run)
			}
			if i < len(parts) {
				doc = append(doc, parts[i])
			}
			start = i + 1
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return doc, nil
}
