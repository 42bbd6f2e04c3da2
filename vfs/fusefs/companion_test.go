package fusefs

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/scene"
	"github.com/modelfs/modelfs/vfs"
	"github.com/modelfs/modelfs/vfs/vfstest"
)

// A test format whose models name one companion file (as a texture would be): "VFT1\nPATH\n". Its
// scene carries the companion's content, so the .json shows which version was read.
func init() {
	codec.Register(codec.Format{
		Name:        "vfstest",
		Description: "vfs test model",
		Exts:        []string{".vft"},
		Match:       func(head []byte) bool { return bytes.HasPrefix(head, []byte("VFT1\n")) },
		Decode: func(src codec.Source) (*scene.Scene, error) {
			lines := strings.Split(string(src.Data), "\n")
			if len(lines) < 2 || src.FS == nil {
				return nil, &codec.FormatError{Format: "vfstest", File: src.Name, Offset: -1, Msg: "no companion"}
			}
			data, err := src.ReadFile(lines[1])
			if err != nil {
				return nil, &codec.FormatError{Format: "vfstest", File: src.Name, Offset: -1, Msg: "companion", Err: err}
			}
			return &scene.Scene{
				Source: scene.Source{Path: src.Name, Format: "vfstest"},
				Extras: scene.Extras{"companion": string(data)},
			}, nil
		},
	})
}

// A changed companion is a new key: the model is translated again. Recording the companions does
// not cost a second translation.
func TestCompanionChange(t *testing.T) { bothTiers(t, testCompanionChange) }

func testCompanionChange(t *testing.T, opt vfs.Options) {
	src := t.TempDir()
	writeFile(t, filepath.Join(src, "Models/x.vft"), []byte("VFT1\nTextures/skin.txt\n"))
	writeFile(t, filepath.Join(src, "Textures/skin.txt"), []byte("first"))
	m := mountT(t, src, opt)

	want := vfstest.MustConvert(t, src, "Models/x.vft", translate.JSON)
	if !bytes.Contains(want, []byte("first")) {
		t.Fatalf("test format does not show its companion:\n%s", want)
	}
	for range 3 {
		got, err := os.ReadFile(m.path("Models/x.vft.json"))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("x.vft.json: %v\n%s", err, got)
		}
	}
	if n := m.translations(); n != 1 {
		t.Fatalf("%d translations; want 1", n)
	}

	writeFile(t, filepath.Join(src, "Textures/skin.txt"), []byte("second, longer"))
	later := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(src, "Textures/skin.txt"), later, later)
	want = vfstest.MustConvert(t, src, "Models/x.vft", translate.JSON)
	eventually(t, "changed companion seen", func() error {
		got, err := os.ReadFile(m.path("Models/x.vft.json"))
		if err != nil {
			return err
		}
		if !bytes.Equal(got, want) {
			return fmt.Errorf("got\n%s", got)
		}
		return nil
	})
	if n := m.translations(); n != 2 {
		t.Fatalf("%d translations; want 2", n)
	}
	fi, err := os.Stat(m.path("Models/x.vft.json"))
	if err != nil || !fi.ModTime().Equal(later) {
		t.Errorf("mtime %v (%v); want the companion's %v", fi.ModTime(), err, later)
	}
}
