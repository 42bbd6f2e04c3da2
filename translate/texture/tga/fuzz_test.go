package tga_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelfs/modelfs/internal/corpus"
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/texture/tga"
)

func FuzzDecode(f *testing.F) {
	for _, v := range variants() {
		f.Add(v.file)
	}
	// The corpus's TGA when the corpus is there; the generated seeds run everywhere.
	if b, err := os.ReadFile(filepath.Join(corpus.RepoRoot(f), "..", "shared", "corpus", "meteor/texture/nm001b01.tga")); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		img, err := tga.Decode("fuzz.tga", data)
		if err != nil {
			var fe *codec.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %T %v is not a FormatError", err, err)
			}
			return
		}
		h, err := tga.DecodeHeader("fuzz.tga", data)
		if err != nil {
			t.Fatalf("Decode succeeded where DecodeHeader fails: %v", err)
		}
		if b := img.Bounds(); b.Dx() != h.Width || b.Dy() != h.Height {
			t.Fatalf("image %v for a %d×%d header", b, h.Width, h.Height)
		}
	})
}
