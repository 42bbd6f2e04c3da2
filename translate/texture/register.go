package texture

import "github.com/modelfs/modelfs/translate"

// init installs this package's codec in translate (translate.RegisterImages), so that importing
// the package for its side effect makes the mount and `modelfs convert` offer BLP and TGA as PNG.
func init() {
	translate.RegisterImages(translate.ImageCodec{Exts: Extensions(), Decode: Decode, DecodeConfig: DecodeConfig, EncodePNG: EncodePNG, Notes: Notes})
}
