// Command modelfs shows game models as glTF, OBJ and JSON: it converts single files
// (`modelfs convert`), summarises them (`modelfs info`), and mounts whole trees.
package main

import (
	"os"

	_ "github.com/modelfs/modelfs/translate/all" // every source format
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
