package meteor

import (
	"io/fs"
	"testing"

	"github.com/modelfs/modelfs/translate/codec"
)

// source returns a codec.Source reading name and its companions from fsys.
func source(t testing.TB, fsys fs.FS, name string) codec.Source {
	t.Helper()
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		t.Fatal(err)
	}
	return codec.Source{Name: name, Data: data, FS: fsys}
}
