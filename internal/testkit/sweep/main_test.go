package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelfs/modelfs/internal/testkit/corpus"
)

// The sweep over the sample and defect trees finds nothing refused; a broken model and texture
// beside them are refused, each in a class that names its format and problem without the
// numbers that differ from file to file.
func TestSweep(t *testing.T) {
	repo := corpus.RepoRoot(t)
	var r report
	for i, dir := range []string{"sample", "defects"} {
		if err := r.sweep(filepath.Join(repo, "testdata", dir), filepath.Join(t.TempDir(), string(rune('a'+i)))); err != nil {
			t.Fatal(err)
		}
	}
	if r.failed() || r.models == 0 || r.modelsOK != r.models || r.texturesOK != r.textures {
		t.Errorf("sample and defects: %+v", r)
	}
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, "a.mdx"), []byte("MDLXVERS\x04\x00\x00\x00\x20\x03\x00\x00MODL\xff\xff\xff\x7f"), 0o644)
	os.WriteFile(filepath.Join(bad, "b.mdx"), []byte("MDLXVERS\x04\x00\x00\x00\x20\x03\x00\x00MODL\xff\xff\xff\x0f"), 0o644)
	os.WriteFile(filepath.Join(bad, "c.blp"), []byte("BLP9"), 0o644)
	r = report{}
	if err := r.sweep(bad, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	r.print(&out, false)
	if len(r.refused) != 2 || len(r.crashed) != 0 || !strings.Contains(out.String(), "    2  mdx: ") {
		t.Errorf("refused %v; report:\n%s", r.refused, out.String())
	}
}
