// Package gltfenc writes a scene as glTF 2.0: a self-contained .gltf with data-URI buffers, or a .glb.
package gltfenc

import (
	"errors"

	"github.com/modelfs/modelfs/translate/scene"
)

// Options select the container.
type Options struct {
	Binary bool // write .glb instead of .gltf
}

// Encode writes s as glTF. The same scene always gives the same bytes.
func Encode(s *scene.Scene, opt Options) ([]byte, error) {
	return nil, errors.New("gltfenc: not implemented")
}
