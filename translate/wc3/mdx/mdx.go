// Package mdx reads and writes the binary Warcraft III model format MDX (version 800) and
// registers it with the translate package.
package mdx

import (
	"bytes"
	"errors"

	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/scene"
	"github.com/modelfs/modelfs/translate/wc3"
)

func init() {
	translate.Register(translate.Format{
		Name:        "mdx",
		Description: "Warcraft III model (binary MDX)",
		Exts:        []string{".mdx"},
		Match:       func(head []byte) bool { return bytes.HasPrefix(head, []byte("MDLX")) },
		Decode: func(src translate.Source) (*scene.Scene, error) {
			m, err := Read(src.Name, src.Data)
			if err != nil {
				return nil, err
			}
			return wc3.Build(m, src, "mdx")
		},
	})
}

// Read decodes an MDX file; name is used in errors.
func Read(name string, data []byte) (*wc3.Model, error) {
	return nil, errors.New("mdx.Read: not implemented")
}

// Encode writes m as an MDX file.
func Encode(m *wc3.Model) ([]byte, error) {
	return nil, errors.New("mdx.Encode: not implemented")
}
