// Package objenc writes a scene's rest pose as Wavefront OBJ with an MTL material library.
package objenc

import (
	"errors"

	"github.com/modelfs/modelfs/translate/scene"
)

// EncodeOBJ writes the scene's meshes in their rest pose; mtlName, if not empty, is written as
// the mtllib the OBJ refers to.
func EncodeOBJ(s *scene.Scene, mtlName string) ([]byte, error) {
	return nil, errors.New("objenc: not implemented")
}

// EncodeMTL writes the scene's materials as an MTL library.
func EncodeMTL(s *scene.Scene) ([]byte, error) {
	return nil, errors.New("objenc: not implemented")
}
