// Package readback writes scenes as .gltf and .glb through the pipeline and reads them back
// with qmuntal/gltf, for tests that check what the written files say. Tests only.
package readback

import (
	"bytes"
	"errors"
	"testing"

	"github.com/qmuntal/gltf"

	"github.com/modelfs/modelfs/internal/testkit/gltfsample"
	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/scene"
)

// Doc is a document read back from one container.
type Doc struct {
	Kind translate.Kind
	*gltf.Document
}

// Both encodes s as .gltf and as .glb and returns the two documents read back, in that order.
func Both(t testing.TB, s *scene.Scene) []Doc {
	t.Helper()
	var docs []Doc
	for _, kind := range []translate.Kind{translate.GLTF, translate.GLB} {
		out, err := translate.Encode(s, kind, translate.EncodeOptions{})
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		doc := new(gltf.Document)
		if err := gltf.NewDecoder(bytes.NewReader(out)).Decode(doc); err != nil {
			t.Fatalf("%s: read back: %v", kind, err)
		}
		docs = append(docs, Doc{kind, doc})
	}
	return docs
}

// Animations indexes doc's animations by name.
func Animations(doc *gltf.Document) map[string]*gltf.Animation {
	byName := make(map[string]*gltf.Animation, len(doc.Animations))
	for _, a := range doc.Animations {
		byName[a.Name] = a
	}
	return byName
}

// Floats reads a float accessor of doc as gltfsample.Floats does, failing t on error.
func Floats(t testing.TB, doc *gltf.Document, accessor int) []float32 {
	t.Helper()
	v, err := gltfsample.Floats(doc, accessor)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// DecodeAndEncode is the fuzz targets' check: decoding src must not panic, and a scene it
// decodes must encode in every output kind. It returns the decoder's error.
func DecodeAndEncode(t testing.TB, src codec.Source) error {
	t.Helper()
	s, _, err := translate.Decode(src)
	var ie *codec.InternalError
	if errors.As(err, &ie) {
		t.Fatalf("decoder panicked: %v", err)
	}
	if err != nil {
		return err
	}
	for _, k := range translate.Kinds {
		if _, err := translate.Encode(s, k, translate.EncodeOptions{MTLName: "fuzz.mtl"}); err != nil {
			t.Fatalf("encode %s of a valid scene: %v", k, err)
		}
	}
	// The scene is not released: memory reused from input to input would make the coverage
	// of one input depend on those before it, which misleads the fuzzer.
	return nil
}
