// Package all registers every archive format and game modelfs reads: import it for its
// effect, as the tree and the command line do.
package all

import (
	_ "github.com/modelfs/modelfs/internal/archive/zipfs" // zip, and Reforged's .w3mod when it is one
	_ "github.com/modelfs/modelfs/internal/mpq"           // MPQ, and the games that load them
)
