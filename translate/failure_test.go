package translate

import (
	"bytes"
	"encoding/json"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qmuntal/gltf"

	"github.com/modelfs/modelfs/internal/testkit/gltfvalidate"
)

// The documents served in place of those a source could not give say why, each in its kind's
// own form: a glTF the validator passes, an OBJ of comments, a PNG with a tEXt chunk; and the
// same failure always gives the same bytes.
func TestFailureDocument(t *testing.T) {
	const src = "Units/Ünit.mdx"
	err := errors.New(src + ": mdx: offset 8 (0x8): MDX version 1300 is newer than 1200, the newest this modelfs reads, and does not read with that layout (a very long reason that goes on past what Blender keeps of a name): it needs a modelfs that knows version 1300")
	dir := t.TempDir()
	var gltfs []string
	for _, kind := range []Kind{GLTF, GLB, OBJ, MTL, JSON, PNG} {
		b := FailureDocument(kind, src, "mdx", err)
		if !bytes.Equal(b, FailureDocument(kind, src, "mdx", err)) {
			t.Errorf("%s: not deterministic", kind)
		}
		switch kind {
		case GLTF, GLB:
			var doc gltf.Document
			if err := gltf.NewDecoder(bytes.NewReader(b)).Decode(&doc); err != nil {
				t.Fatalf("%s: %v", kind, err)
			}
			if len(doc.Nodes) != 1 || len(doc.Meshes) != 0 {
				t.Fatalf("%s: %d nodes, %d meshes", kind, len(doc.Nodes), len(doc.Meshes))
			}
			name := doc.Nodes[0].Name
			if len(name) > maxNodeName || !strings.HasPrefix(name, "error: mdx: offset 8") || !strings.Contains(string(b), "needs a modelfs that knows version 1300") {
				t.Errorf("%s: node %q; document %s", kind, name, b)
			}
			p := filepath.Join(dir, "failure."+string(kind))
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			gltfs = append(gltfs, p)
		case OBJ, MTL:
			for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
				if !strings.HasPrefix(line, "# ") {
					t.Errorf("%s: line %q is not a comment", kind, line)
				}
			}
			if !strings.Contains(string(b), "version 1300") {
				t.Errorf("%s: %s", kind, b)
			}
		case JSON:
			var doc struct{ Error string }
			if jerr := json.Unmarshal(b, &doc); jerr != nil || doc.Error != err.Error() {
				t.Errorf("json: %s, %v", b, jerr)
			}
		case PNG:
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil || img.Bounds().Dx() != 64 || !IsFailurePNG(b) {
				t.Fatalf("png: %v, %v", err, img)
			}
			if !bytes.Contains(b, []byte("tEXtComment\x00modelfs could not convert Units/\xdcnit.mdx: ")) {
				t.Errorf("png: no tEXt naming the source")
			}
			if r, g, bl, _ := img.At(0, 0).RGBA(); r != 0 || g != 0 || bl != 0 {
				t.Errorf("png: corner %d %d %d, want black", r, g, bl)
			}
			if r, _, bl, _ := img.At(8, 0).RGBA(); r != 0xffff || bl != 0xffff {
				t.Errorf("png: second square not magenta")
			}
		}
	}
	if IsFailurePNG(FailureDocument(GLB, src, "mdx", err)) {
		t.Error("IsFailurePNG of a glTF")
	}
	gltfvalidate.Check(t, gltfs...)
}
