// Package elemtest holds the hand-written Elfreina .elem fixtures of the tests and the sample
// tree (files/README.md says what each covers).
package elemtest

import (
	"embed"
	"io/fs"
)

//go:embed files
var files embed.FS

// Dir is the fixtures' folder, relative to this package's parent (translate/elem).
const Dir = "elemtest/files"

// Names lists the .elem fixtures.
var Names = []string{"cube.elem", "skinned.elem", "multimat.elem", "animated.elem"}

// FS returns the fixtures: NAME.elem, and the textures under textures/.
func FS() fs.FS {
	sub, err := fs.Sub(files, "files")
	if err != nil {
		panic(err)
	}
	return sub
}
