package meteor

import (
	"errors"
	"github.com/modelfs/modelfs/translate/meteor/meteortest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/modelfs/modelfs/internal/testkit/corpus"
	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
)

// corpusSeeds returns the corpus files with extension ext (read at run time; none on a fresh
// clone).
func corpusSeeds(f *testing.F, ext string) [][]byte {
	dir := filepath.Join(corpus.RepoRoot(f), "..", "shared", "corpus", "meteor", "pmodel")
	entries, _ := os.ReadDir(dir)
	var out [][]byte
	for _, e := range entries {
		if strings.EqualFold(filepath.Ext(e.Name()), ext) {
			if data, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil {
				out = append(out, data)
			}
		}
	}
	return out
}

// fuzzDecode decodes the fixture character with one file replaced by data. Only a broken .skc may
// give an error (a FormatError, or an UnsupportedError when it no longer sniffs as a skin); a
// companion's faults must give a degraded scene. A panic or an inconsistent scene is a bug.
func fuzzDecode(t *testing.T, files map[string][]byte, name string, data []byte, mayFail bool) {
	tree := fstest.MapFS{}
	for k, v := range files {
		tree[k] = &fstest.MapFile{Data: v}
	}
	tree[name] = &fstest.MapFile{Data: data}
	src := source(t, tree, "pmodel/p9.skc")
	s, _, err := translate.Decode(src)
	var ie *codec.InternalError
	if errors.As(err, &ie) {
		t.Fatalf("decoder panicked: %v", err)
	}
	if err != nil {
		var fe *codec.FormatError
		var ue *codec.UnsupportedError
		if !mayFail || !(errors.As(err, &fe) || errors.As(err, &ue)) {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
}

func FuzzSKC(f *testing.F) {
	files := fixFiles()
	f.Add(files["pmodel/p9.skc"])
	for _, d := range corpusSeeds(f, ".skc") {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := ParseSKC(data, "x.skc"); err != nil {
			var fe *codec.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error of type %T: %v", err, err)
			}
		}
		fuzzDecode(t, files, "pmodel/p9.skc", data, true)
	})
}

func FuzzBNC(f *testing.F) {
	files := fixFiles()
	f.Add(files["pmodel/P9.BNC"])
	for _, d := range corpusSeeds(f, ".bnc") {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if sk, err := ParseBNC(data, "x.bnc"); err == nil {
			for i, p := range sk.Parents {
				if p < -1 || p >= len(sk.Joints) || p == i {
					t.Fatalf("joint %d: parent %d", i, p)
				}
			}
		}
		fuzzDecode(t, files, "pmodel/P9.BNC", data, false)
	})
}

func FuzzAMB(f *testing.F) {
	files := fixFiles()
	f.Add(files["pmodel/p9.amb"])
	f.Add(meteortest.AMBWith(6, 2, 3, 7))
	for _, d := range corpusSeeds(f, ".amb") {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if a, err := ParseAMB(data, "x.amb"); err == nil {
			for r := 0; r < a.Frames; r++ {
				a.FrameNumber(r)
				a.RootPos(r)
				for b := 0; b < a.Bones; b++ {
					a.BoneQuat(r, b)
				}
				for d := 0; d < a.Dummies; d++ {
					a.Dummy(r, d)
				}
			}
		}
		fuzzDecode(t, files, "pmodel/p9.amb", data, false)
	})
}

func FuzzPOS(f *testing.F) {
	files := fixFiles()
	f.Add(files["pmodel/P9.pos"])
	for _, d := range corpusSeeds(f, ".pos") {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ParsePOS(data, "x.pos")
		fuzzDecode(t, files, "pmodel/P9.pos", data, false)
	})
}
