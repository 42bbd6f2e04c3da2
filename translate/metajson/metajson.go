// Package metajson writes a scene's metadata as a stable, greppable JSON document.
package metajson

import (
	"errors"

	"github.com/modelfs/modelfs/translate/scene"
)

// Encode writes the metadata document for s.
func Encode(s *scene.Scene) ([]byte, error) {
	return nil, errors.New("metajson: not implemented")
}
