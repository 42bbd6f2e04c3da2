package meteor

import (
	"github.com/modelfs/modelfs/translate/meteor/meteortest"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/modelfs/modelfs/internal/testkit/corpus"
	"github.com/modelfs/modelfs/translate"
)

// benchTranslate measures skin + skeleton + frames + action table → glTF, all in memory; the
// bytes counted are the four source files'.
func benchTranslate(b *testing.B, tree fstest.MapFS, skin string, names ...string) {
	size := 0
	for _, n := range names {
		size += len(tree[n].Data)
	}
	src := source(b, tree, skin)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		s, _, err := translate.Decode(src)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := translate.Encode(s, translate.GLTF, translate.EncodeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCorpusP0 translates the corpus's p0.skc with its companions.
func BenchmarkCorpusP0(b *testing.B) {
	dir := filepath.Join(corpus.Dir(b), "meteor", "pmodel")
	tree := fstest.MapFS{}
	names := []string{"p0.skc", "P0.bnc", "p0.amb", "P0.pos"}
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			b.Fatal(err)
		}
		tree["pmodel/"+n] = &fstest.MapFile{Data: data}
	}
	benchTranslate(b, tree, "pmodel/p0.skc", "pmodel/p0.skc", "pmodel/P0.bnc", "pmodel/p0.amb", "pmodel/P0.pos")
}

// BenchmarkFixture translates the fixture character.
func BenchmarkFixture(b *testing.B) {
	benchTranslate(b, meteortest.Tree(), "pmodel/p9.skc", "pmodel/p9.skc", "pmodel/P9.BNC", "pmodel/p9.amb", "pmodel/P9.pos")
}

// BenchmarkParsers measures each corpus file's parser alone.
func BenchmarkParsers(b *testing.B) {
	dir := filepath.Join(corpus.Dir(b), "meteor", "pmodel")
	read := func(n string) []byte {
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			b.Fatal(err)
		}
		return data
	}
	for _, c := range []struct {
		name  string
		parse func(data []byte) error
	}{
		{"p0.skc", func(d []byte) error { _, err := ParseSKC(d, "p0.skc"); return err }},
		{"P0.bnc", func(d []byte) error { _, err := ParseBNC(d, "P0.bnc"); return err }},
		{"p0.amb", func(d []byte) error { _, err := ParseAMB(d, "p0.amb"); return err }},
		{"P0.pos", func(d []byte) error { _, err := ParsePOS(d, "P0.pos"); return err }},
	} {
		data := read(c.name)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if err := c.parse(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
