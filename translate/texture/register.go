package texture

import "github.com/modelfs/modelfs/translate/codec"

// init registers BLP, DDS and TGA with the codec registry, so that importing the package for its
// side effect makes the mount and `modelfs convert` offer them as PNG.
func init() {
	codec.Register(codec.Format{
		Name: FormatName, Description: "texture (BLP1, BLP2, DDS, TGA)", Exts: Extensions(),
		DecodeImage: Decode, DecodeConfig: DecodeConfig, Notes: Notes,
	})
}
