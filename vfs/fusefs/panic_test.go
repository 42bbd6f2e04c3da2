package fusefs

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelfs/modelfs/internal/mpq/mpqtest"
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/scene"
	"github.com/modelfs/modelfs/vfs"
)

// A model format of the tests alone whose decoder reads a companion through the mount's index
// and then panics: the translation pipeline's own recover.
func init() {
	codec.Register(codec.Format{
		Name: "panictest", Description: "a decoder that panics (tests)", Game: "tests", Exts: []string{".boom"},
		Match: func(head []byte) bool { return bytes.HasPrefix(head, []byte("BOOM")) },
		Decode: func(src codec.Source) (*scene.Scene, error) {
			src.ReadFile("Textures/Crate.blp")
			panic("a decoder panicked (injected by the test)")
		},
	})
}

// TestPanicsRecovered panics inside each path that recovers one: a decoder (in a folder and in
// an archive), the tree's load of a model (OnTranslate runs inside it, holding a translation
// slot), and the load of an archive member. Each costs its own document an error, again and
// again, and the mount goes on answering everything else: no lock, slot or waiter is left
// behind. (A panic in an archive member's load once ended the process.)
func TestPanicsRecovered(t *testing.T) {
	src := sampleTree(t)
	writeFile(t, filepath.Join(src, "Units/Bad.boom"), []byte("BOOM"))
	copyFile(t, filepath.Join(src, "Units/Crate.mdl"), filepath.Join(src, "Units/Fail.mdl"))
	crate, err := os.ReadFile(filepath.Join(src, "Units/Crate.mdx"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(src, "Maps/Map.mpq"), mpqtest.Archive{Members: []mpqtest.Member{
		{Name: "Units\\Fail.mdx", Data: crate, Zlib: true},
		{Name: "Units\\Good.mdx", Data: crate, Zlib: true},
		{Name: "Units\\Bad.boom", Data: []byte("BOOM"), Zlib: true},
	}}.Bytes())
	m := mountT(t, src, vfs.Options{MaxParallel: 2, OnTranslate: func(name string) {
		if strings.HasSuffix(name, "Fail.mdl") || strings.HasSuffix(name, "Fail.mdx") {
			panic("a load panicked (injected by the test)")
		}
	}})
	done := make(chan error, 1)
	go func() { done <- panicsRecovered(m) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the mount stopped answering after a panic")
	}
}

func panicsRecovered(m *mounted) error {
	// More times than there are translation slots: a slot kept by a panic would stop the rest.
	for range 5 {
		// A load that panicked may not panic again: EIO.
		for _, rel := range []string{"Units/Fail.mdl.glb", "Maps/Map.mpq/Units/Fail.mdx.glb"} {
			if _, err := os.ReadFile(m.path(rel)); !errors.Is(err, syscall.EIO) {
				return fmt.Errorf("%s: read gave %v, want EIO", rel, err)
			}
		}
		// A decoder that panics does so on the same bytes again: a document naming the panic.
		for _, rel := range []string{"Units/Bad.boom.gltf", "Maps/Map.mpq/Units/Bad.boom.glb"} {
			if b, err := os.ReadFile(m.path(rel)); err != nil || !bytes.Contains(b, []byte("injected")) {
				return fmt.Errorf("%s: read gave %.200q, %v; want the failure document naming the panic", rel, b, err)
			}
		}
	}
	// The decoder's panic is named in the model's .json.
	if b, err := os.ReadFile(m.path("Units/Bad.boom.json")); err != nil || !bytes.Contains(b, []byte("injected")) {
		return fmt.Errorf("Units/Bad.boom.json = %.200q, %v: want the error document naming the panic", b, err)
	}
	for _, rel := range []string{"Units/Crate.mdl.glb", "Units/Swinger.mdx.gltf", "Textures/Crate.blp.png", "Maps/Map.mpq/Units/Good.mdx.glb"} {
		if b, err := os.ReadFile(m.path(rel)); err != nil || len(b) == 0 {
			return fmt.Errorf("%s after the panics: %d bytes, %v", rel, len(b), err)
		}
	}
	return nil
}
