// Package all registers every source format modelfs reads; import it for its side effects.
package all

import (
	_ "github.com/modelfs/modelfs/translate/elem"    // Elfreina extension models (.elem)
	_ "github.com/modelfs/modelfs/translate/m2"      // World of Warcraft models (.m2, MD20)
	_ "github.com/modelfs/modelfs/translate/meteor"  // Meteor Blade characters (.skc)
	_ "github.com/modelfs/modelfs/translate/texture" // BLP and TGA textures, offered as PNG
	_ "github.com/modelfs/modelfs/translate/wc3/mdl" // Warcraft III text models
	_ "github.com/modelfs/modelfs/translate/wc3/mdx" // Warcraft III binary models
	_ "github.com/modelfs/modelfs/translate/wmo"     // World of Warcraft world objects (.wmo, version 17)
)
