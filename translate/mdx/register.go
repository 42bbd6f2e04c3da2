package mdx

import (
	"bytes"

	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/scene"
)

func init() {
	translate.Register(translate.Format{
		Name:        "mdx",
		Description: "Warcraft III model (binary MDX)",
		Exts:        []string{".mdx"},
		Match:       func(head []byte) bool { return bytes.HasPrefix(head, []byte("MDLX")) },
		Decode: func(src translate.Source) (*scene.Scene, error) {
			m, err := ReadMDX(src.Name, src.Data)
			if err != nil {
				return nil, err
			}
			return Build(m, src, "mdx")
		},
	})
	translate.Register(translate.Format{
		Name:        "mdl",
		Description: "Warcraft III model (text MDL)",
		Exts:        []string{".mdl"},
		Match:       LooksLikeMDL,
		Decode: func(src translate.Source) (*scene.Scene, error) {
			m, err := ReadMDL(src.Name, src.Data)
			if err != nil {
				return nil, err
			}
			return Build(m, src, "mdl")
		},
	})
}
