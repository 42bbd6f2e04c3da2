// Package mdl reads and writes the text Warcraft III model format MDL (FormatVersion 800) and
// registers it with the translate package.
package mdl

import (
	"errors"

	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/scene"
	"github.com/modelfs/modelfs/translate/wc3"
)

func init() {
	translate.Register(translate.Format{
		Name:        "mdl",
		Description: "Warcraft III model (text MDL)",
		Exts:        []string{".mdl"},
		Match:       Looks,
		Decode: func(src translate.Source) (*scene.Scene, error) {
			m, err := Read(src.Name, src.Data)
			if err != nil {
				return nil, err
			}
			return wc3.Build(m, src, "mdl")
		},
	})
}

// Looks reports whether head (the first bytes of a file) looks like an MDL text model.
func Looks(head []byte) bool { return false }

// Read decodes an MDL file; name is used in errors.
func Read(name string, data []byte) (*wc3.Model, error) {
	return nil, errors.New("mdl.Read: not implemented")
}

// Encode writes m as MDL text.
func Encode(m *wc3.Model) ([]byte, error) {
	return nil, errors.New("mdl.Encode: not implemented")
}
