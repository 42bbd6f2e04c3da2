package elem

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/elem/elemtest"
	"github.com/modelfs/modelfs/translate/scene"
)

// fixtures lists the hand-written .elem files (elemtest).
var fixtures = elemtest.Names

// source opens the fixture name as the mount would: with a confined opener and lister.
func source(t testing.TB, name string) codec.Source {
	t.Helper()
	r, err := os.OpenRoot(elemtest.Dir)
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
