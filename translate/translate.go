package translate

import (
	"fmt"

	"github.com/modelfs/modelfs/translate/gltfenc"
	"github.com/modelfs/modelfs/translate/metajson"
	"github.com/modelfs/modelfs/translate/objenc"
	"github.com/modelfs/modelfs/translate/scene"
)

// Version identifies the translator's output. Bump it whenever any output byte may change, so
// caches keyed on it are invalidated.
const Version = "5"

// Kind is one output document type.
type Kind string

// Output kinds, named by their file extensions.
const (
	GLTF Kind = "gltf"
	GLB  Kind = "glb"
	OBJ  Kind = "obj"
	MTL  Kind = "mtl"
	JSON Kind = "json"
	PNG  Kind = "png" // the output of a texture, not of a model
)

// Kinds lists every output kind of a model, in a stable order.
var Kinds = []Kind{GLTF, GLB, OBJ, MTL, JSON}

// KindOf returns the output kind named by an extension such as ".gltf" or "png".
func KindOf(ext string) (Kind, bool) {
	if len(ext) > 0 && ext[0] == '.' {
		ext = ext[1:]
	}
	for _, k := range append(Kinds, PNG) {
		if string(k) == ext {
			return k, true
		}
	}
	return "", false
}

// EncodeOptions tune the encoders.
type EncodeOptions struct {
	// MTLName is the file name an OBJ's mtllib line refers to. Empty means no mtllib line.
	MTLName string
	// EmbedImages makes a .gltf carry its images in its buffer instead of referring to them.
	EmbedImages bool
}

// Decode sniffs src, decodes it with the matching format and validates the scene. A panic in
// the decoder is returned as an *InternalError.
func Decode(src Source) (s *scene.Scene, f *Format, err error) {
	head := src.Data
	if len(head) > SniffLen {
		head = head[:SniffLen]
	}
	f, err = Sniff(src.Name, head)
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, &InternalError{File: src.Name, Stage: "decode", Panic: r}
		}
	}()
	src.List = memoList(src.List)
	s, err = f.Decode(src)
	if err != nil {
		return nil, f, err
	}
	if src.List != nil {
		resolveTextures(src, s)
	}
	if err := s.Validate(); err != nil {
		return nil, f, &FormatError{Format: f.Name, File: src.Name, Offset: -1, Msg: "decoded model is inconsistent", Err: err}
	}
	return s, f, nil
}

// memoList wraps a ListFunc so that each directory is listed at most once per translation:
// companion and texture lookups ask for the same folders many times.
func memoList(list ListFunc) ListFunc {
	if list == nil {
		return nil
	}
	type result struct {
		names []string
		err   error
	}
	seen := make(map[string]result)
	return func(dir string) ([]string, error) {
		if r, ok := seen[dir]; ok {
			return r.names, r.err
		}
		names, err := list(dir)
		seen[dir] = result{names, err}
		return names, err
	}
}

// Encode serialises a validated scene as kind.
func Encode(s *scene.Scene, kind Kind, opt EncodeOptions) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, &InternalError{File: s.Source.Path, Stage: "encode", Panic: r}
		}
	}()
	switch kind {
	case GLTF:
		return gltfenc.Encode(s, gltfenc.Options{EmbedImages: opt.EmbedImages})
	case GLB:
		return gltfenc.Encode(s, gltfenc.Options{Binary: true})
	case OBJ:
		return objenc.EncodeOBJ(s, opt.MTLName)
	case MTL:
		return objenc.EncodeMTL(s)
	case JSON:
		return metajson.Encode(s)
	}
	return nil, fmt.Errorf("unknown output kind %q", kind)
}

// Translate decodes src and makes its output of kind (see Output).
func Translate(src Source, kind Kind, opt EncodeOptions) ([]byte, error) {
	s, _, err := Decode(src)
	if err != nil {
		return nil, err
	}
	defer s.Release() // the output is a copy
	return Output(src, s, kind, opt)
}
