package elem

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/scene"
)

// fixtures lists the hand-written .elem files in testdata.
var fixtures = []string{"cube.elem", "skinned.elem", "multimat.elem", "animated.elem"}

// source opens name under testdata as the mount would: with a confined opener and lister.
func source(t testing.TB, name string) codec.Source {
	t.Helper()
	r, err := os.OpenRoot("testdata")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	data, err := fs.ReadFile(codec.RootFS(r), name)
	if err != nil {
		t.Fatal(err)
	}
	return codec.Source{Name: filepath.ToSlash(name), Data: data, FS: codec.RootFS(r)}
}

// decode runs the registered pipeline (sniff, decode, validate) on a fixture.
// decodeOwn decodes the fixture name with this package's decoder alone: its extras as the
// decoder made them, before the pipeline makes them plain.
func decodeOwn(t testing.TB, name string) *scene.Scene {
	t.Helper()
	s, err := Decode(source(t, name))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

func decode(t testing.TB, name string) *scene.Scene {
	t.Helper()
	s, f, err := translate.Decode(source(t, name))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if f.Name != FormatName {
		t.Fatalf("%s sniffed as %s", name, f.Name)
	}
	return s
}
