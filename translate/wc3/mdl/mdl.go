// Package mdl reads and writes the text Warcraft III model format MDL (FormatVersion 800) and
// registers it with the translate package.
//
// Read is a tolerant, allocation-lean tokenizer and recursive-descent parser that fills the
// format-neutral wc3.Model exactly as the MDX reader fills it for the same model; Encode writes
// a wc3.Model back as conventional MDL text. Looks sniffs MDL content.
package mdl

import (
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/scene"
	"github.com/modelfs/modelfs/translate/wc3"
)

func init() {
	codec.Register(codec.Format{
		Name:        "mdl",
		Game:        "Warcraft III",
		Description: "Warcraft III model (text MDL)",
		Exts:        []string{".mdl"},
		Match:       Looks,
		Decode: func(src codec.Source) (*scene.Scene, error) {
			m, err := Read(src.Name, src.Data)
			if err != nil {
				return nil, err
			}
			return wc3.Build(m, src, "mdl")
		},
	})
}
