package mdx

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/modelfs/modelfs/translate/wc3"
	"github.com/modelfs/modelfs/translate/wc3/wc3test"
)

// FuzzRead checks that Read never panics and that whatever it accepts survives Encode and Read
// unchanged. Seeds: the hand-built models (the Reforged versions with every chunk and field they
// add) and, when present, the corpus files.
func FuzzRead(f *testing.F) {
	for _, m := range []*wc3.Model{wc3test.Sample(), wc3test.GridModel(16), {Version: 800},
		wc3test.Reforged(1000), wc3test.Reforged(1100), wc3test.Reforged(1200)} {
		b, err := wc3test.MDX(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	if dir := corpusDirOrEmpty(); dir != "" {
		for _, rel := range []string{"SmileyGW_004.mdx", "Units/Tunable/TunableShield.mdx"} {
			if b, err := os.ReadFile(filepath.Join(dir, rel)); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkStable(t, "fuzz", data)
	})
}

// corpusDirOrEmpty is corpusDir without skipping: "" when the corpus is absent.
func corpusDirOrEmpty() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			c := filepath.Join(dir, "..", "shared", "corpus", "wc3")
			if _, err := os.Stat(c); err == nil {
				return c
			}
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
