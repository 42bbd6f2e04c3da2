package mdl

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/wc3"
	"github.com/modelfs/modelfs/translate/wc3/wc3test"
)

func parseFloatRef(s string) (float32, error) {
	v, err := strconv.ParseFloat(s, 32)
	return float32(v), err
}

func FuzzRead(f *testing.F) {
	seeds := []*wc3.Model{fullModel(), {Version: 800}, wc3test.Reforged(1000), wc3test.Reforged(1100)}
	for _, m := range seeds {
		enc, err := wc3test.MDL(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(enc)
	}
	f.Add([]byte(small))
	f.Add([]byte(strings.Replace(small, "MaterialID 0,", "LevelOfDetail 0,\n\tName \"n\",\n\tTangents 1 { { 1, 0, 0, 1 } }\n\tSkinWeights 1 { { 0, 0, 0, 0, 255, 0, 0, 0 } }\n\tMaterialID 0,", 1) +
		"Materials 1 { Material { Shader \"Shader_HD_DefaultUnit\", Layer { static TextureID 0, } } }\n"))
	f.Add([]byte(""))
	f.Add([]byte("Version { FormatVersion 800 }\nModel \"x\" { Foo { 1 { 2 } } }"))
	if dir, _ := filepath.Abs(filepath.Join("..", "..", "..", "..", "shared", "corpus", "wc3")); dir != "" {
		for _, rel := range []string{"Units/Tunable/TunableShield.mdl", "Doodads/heroglow.mdl"} {
			if data, err := os.ReadFile(filepath.Join(dir, rel)); err == nil {
				f.Add(data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Read("fuzz.mdl", data)
		if err != nil {
			checkFormatErrorNamed(t, err, "fuzz.mdl")
			return
		}
		enc, err := wc3test.MDL(m)
		if err != nil {
			t.Fatalf("Read accepted a model Encode refuses: %v", err)
		}
		m2, err := Read("fuzz.mdl", enc)
		if err != nil {
			t.Fatalf("Read(wc3test.MDL(m)) failed: %v\n%s", err, enc)
		}
		if bytes.Contains(enc, []byte("NaN")) {
			// NaN != NaN defeats DeepEqual; compare the canonical text instead.
			enc2, err := wc3test.MDL(m2)
			if err != nil || !bytes.Equal(enc, enc2) {
				t.Fatalf("NaN model does not round-trip: %v", err)
			}
			return
		}
		if !equalModels(m, m2) {
			t.Fatalf("Read(wc3test.MDL(m)) != m\n%s", enc)
		}
	})
}

func checkFormatErrorNamed(t *testing.T, err error, name string) {
	t.Helper()
	var fe *codec.FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v (%T) is not a *codec.FormatError", err, err)
	}
	if fe.Line <= 0 || fe.File != name || fe.Format != "mdl" {
		t.Fatalf("FormatError without line, file or format: %+v", fe)
	}
}

func BenchmarkRead(b *testing.B) {
	data, err := wc3test.MDL(gridModel(250000))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Read("grid.mdl", data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncode(b *testing.B) {
	m := gridModel(250000)
	data, _ := wc3test.MDL(m)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := wc3test.MDL(m); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadCorpusOrc(b *testing.B) {
	data := readCorpus(b, "Units/hce_orc.mdl")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Read("orc.mdl", data); err != nil {
			b.Fatal(err)
		}
	}
}
