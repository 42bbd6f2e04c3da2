package gltfsample

import (
	"fmt"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
)

// Floats reads a FLOAT accessor (SCALAR, VEC3 or VEC4), or a normalised signed integer one
// (rotations may be written so), of a decoded glTF document as one flat slice, ready for
// Sample: the input (times) and output (values) of an animation sampler.
func Floats(doc *gltf.Document, accessor int) ([]float32, error) {
	if accessor < 0 || accessor >= len(doc.Accessors) {
		return nil, fmt.Errorf("gltfsample: accessor %d of %d", accessor, len(doc.Accessors))
	}
	data, err := modeler.ReadAccessor(doc, doc.Accessors[accessor], nil)
	if err != nil {
		return nil, err
	}
	switch v := data.(type) {
	case []float32:
		return v, nil
	case [][3]float32:
		out := make([]float32, 0, 3*len(v))
		for _, x := range v {
			out = append(out, x[:]...)
		}
		return out, nil
	case [][4]float32:
		out := make([]float32, 0, 4*len(v))
		for _, x := range v {
			out = append(out, x[:]...)
		}
		return out, nil
	case [][4]int16:
		if !doc.Accessors[accessor].Normalized {
			break
		}
		out := make([]float32, 0, 4*len(v))
		for _, x := range v {
			for _, c := range x {
				out = append(out, max(float32(c)/32767, -1)) // the spec's decoding
			}
		}
		return out, nil
	case [][4]int8:
		if !doc.Accessors[accessor].Normalized {
			break
		}
		out := make([]float32, 0, 4*len(v))
		for _, x := range v {
			for _, c := range x {
				out = append(out, max(float32(c)/127, -1))
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("gltfsample: accessor %d holds %T, not floats", accessor, data)
}
