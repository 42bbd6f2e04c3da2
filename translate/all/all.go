// Package all registers every source format modelfs reads; import it for its side effects.
package all

import (
	_ "github.com/modelfs/modelfs/translate/wc3/mdl" // Warcraft III text models
	_ "github.com/modelfs/modelfs/translate/wc3/mdx" // Warcraft III binary models
)
