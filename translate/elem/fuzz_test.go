package elem

import (
	"errors"
	"github.com/modelfs/modelfs/translate/elem/elemtest"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
)

// FuzzDecode runs sniffing, reading, building, validation and every encoder on mutated .elem
// text seeded from the fixtures. Errors must be *codec.FormatError values with a line (or
// the pipeline's unknown-format error for a lost header); a decoded scene must be valid and
// encode to every output kind; nothing may panic.
func FuzzDecode(f *testing.F) {
	for _, name := range fixtures {
		data, err := os.ReadFile(filepath.Join(elemtest.Dir, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, text := range spellings {
		f.Add([]byte(text))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Read("fuzz.elem", data)
		if err != nil {
			var fe *codec.FormatError
			if !errors.As(err, &fe) || fe.Line <= 0 {
				t.Fatalf("Read error without a line: %v", err)
			}
			return
		}
		s, err := Build(file, codec.Source{Name: "fuzz.elem", Data: data})
		if err != nil {
			var fe *codec.FormatError
			if !errors.As(err, &fe) || fe.Line <= 0 {
				t.Fatalf("Build error without a line: %v", err)
			}
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("Build made an invalid scene: %v", err)
		}
		s.MakePlain() // as the pipeline does
		for _, k := range translate.Kinds {
			if _, err := translate.Encode(s, k, translate.EncodeOptions{MTLName: "fuzz.mtl"}); err != nil {
				t.Fatalf("encode %s: %v", k, err)
			}
		}
	})
}
