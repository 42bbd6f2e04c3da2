package m2_test

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelfs/modelfs/internal/testkit/corpus"
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/internal/testkit/readback"
)

// FuzzDecode runs the whole pipeline on mutated models with a mutated skin and .anim file as
// their companions: errors are fine, a panic (caught as an InternalError) or an encoder
// failure on a scene that validated is a bug. Seeds: every fixture in every version, and the
// corpus models when they are here.
func FuzzDecode(f *testing.F) {
	for _, fx := range fixtures(f) {
		var skin, anim []byte
		for n, b := range fx.files {
			switch path.Ext(n) {
			case ".skin":
				skin = b
			case ".anim":
				anim = b
			}
		}
		f.Add(fx.files[fx.model], skin, anim)
	}
	// The real files join the seeds when they are here; a fresh clone fuzzes from the fixtures.
	root := filepath.Join(corpus.RepoRoot(f), "..", "shared", "corpus")
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.EqualFold(filepath.Ext(p), ".m2") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		skin, _ := os.ReadFile(strings.TrimSuffix(p, filepath.Ext(p)) + "00.skin")
		f.Add(data, skin, []byte(nil))
		return nil
	})
	f.Fuzz(func(t *testing.T, data, skin, anim []byte) {
		open := byExt{".skin": skin, ".anim": anim}
		start := time.Now()
		defer func() {
			if d := time.Since(start); d > 5*time.Second {
				t.Fatalf("slow input: %v", d)
			}
		}()
		readback.DecodeAndEncode(t, codec.Source{Name: "fuzz.m2", Data: data, FS: open}) // TestReusedSceneMemory checks reuse
	})
}

// byExt is a tree in which every file of an extension holds the same bytes.
type byExt map[string][]byte

func (b byExt) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

func (b byExt) ReadFile(name string) ([]byte, error) {
	if data, ok := b[path.Ext(name)]; ok {
		return data, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}
