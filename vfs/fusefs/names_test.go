//go:build linux

package fusefs

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/vfs"
	"github.com/modelfs/modelfs/vfs/vfstest"
)

// TestOddNames serves models whose names hold a backslash or bytes that are not UTF-8, a
// texture reference that climbs with ".." and stays inside SRC, and a symlinked texture: every
// virtual file is there, equal to convert's, and what the .gltf names exists in the mount.
func TestOddNames(t *testing.T) {
	src := sampleTree(t)
	crate := mustRead(t, filepath.Join(src, "Units/Crate.mdl"))
	models := []string{`Units/back\slash.mdl`, "Units/bad\xff.mdl", "Deep/sub/Climb.mdl", "Linked/Linked.mdl"}
	writeFile(t, filepath.Join(src, models[0]), crate)
	writeFile(t, filepath.Join(src, models[1]), crate)
	// From Deep/sub, ..\effect\X.blp is Deep/effect/X.blp: inside SRC.
	writeFile(t, filepath.Join(src, models[2]), bytes.Replace(crate, []byte(`Textures\Crate.blp`), []byte(`..\effect\Crate.blp`), 1))
	copyFile(t, filepath.Join(src, "Textures/Crate.blp"), filepath.Join(src, "Deep/effect/Crate.blp"))
	// A texture that is a symlink to one elsewhere in SRC.
	writeFile(t, filepath.Join(src, models[3]), bytes.Replace(crate, []byte(`Textures\Crate.blp`), []byte(`Linked\Skin.blp`), 1))
	if err := os.Symlink("../Textures/Crate.blp", filepath.Join(src, "Linked/Skin.blp")); err != nil {
		t.Fatal(err)
	}
	m := mountT(t, src, vfs.Options{})
	for _, model := range models {
		for _, k := range []translate.Kind{translate.GLTF, translate.GLB, translate.OBJ, translate.MTL, translate.JSON} {
			got, err := os.ReadFile(m.path(model + "." + string(k)))
			if err != nil {
				t.Errorf("%q.%s: %v", model, k, err)
				continue
			}
			if want := vfstest.MustConvert(t, src, model, k); !bytes.Equal(got, want) {
				t.Errorf("%q.%s: %d bytes, convert makes %d", model, k, len(got), len(want))
			}
		}
		doc := mustRead(t, m.path(model+".json"))
		if bytes.Contains(doc, []byte("texture \\\"")) {
			t.Errorf("%q: a texture was not found:\n%s", model, doc)
		}
	}
	// What the .gltf and .mtl of the climbing and the linked model name is in the mount.
	for _, img := range []string{"Deep/effect/Crate.blp.png", "Linked/Skin.blp.png"} {
		if _, err := os.Stat(m.path(img)); err != nil {
			t.Errorf("%s: %v", img, err)
		}
	}
	if g := mustRead(t, m.path("Linked/Linked.mdl.gltf")); !bytes.Contains(g, []byte(`"uri":"Skin.blp.png"`)) {
		t.Errorf("Linked.mdl.gltf does not name Skin.blp.png")
	}
}
