// Package vfstest holds what the tree core's tests and its front ends' tests share: the bytes
// `modelfs convert` writes for a model, the reference every served document is held to. Tests
// only.
package vfstest

import (
	"io/fs"
	"os"
	"path"
	"testing"

	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
)

// Convert returns what `modelfs convert --root root root/rel -o X.kind` writes for kind: the
// same Source (name relative to the root, companions from the root) and encode options.
func Convert(t testing.TB, root, rel string, kind translate.Kind) ([]byte, error) {
	t.Helper()
	r, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	data, err := fs.ReadFile(codec.RootFS(r), rel)
	if err != nil {
		t.Fatal(err)
	}
	return translate.Translate(codec.Source{Name: rel, Data: data, FS: codec.RootFS(r)}, kind,
		translate.EncodeOptions{MTLName: path.Base(rel) + ".mtl"})
}

// MustConvert is Convert for a model that translates.
func MustConvert(t testing.TB, root, rel string, kind translate.Kind) []byte {
	t.Helper()
	out, err := Convert(t, root, rel, kind)
	if err != nil {
		t.Fatalf("convert %s → %s: %v", rel, kind, err)
	}
	return out
}
