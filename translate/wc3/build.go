package wc3

import (
	"errors"

	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/scene"
)

// Build converts a raw model read from src (as format "mdl" or "mdx") into a scene.
func Build(m *Model, src translate.Source, format string) (*scene.Scene, error) {
	return nil, errors.New("wc3.Build: not implemented")
}
