package elem

import (
	"errors"
	"github.com/modelfs/modelfs/translate/elem/elemtest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelfs/modelfs/internal/testkit/blendercheck"
	"github.com/modelfs/modelfs/internal/testkit/gltfvalidate"
	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/metajson/metajsontest"
)

// convertTree writes every fixture's outputs into a fresh directory named as the mount serves
// them (X.elem.gltf, X.elem.glb, X.elem.obj, X.elem.mtl, X.elem.json), with the textures
// beside them, and returns the directory.
func convertTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "textures"), os.DirFS(filepath.Join(elemtest.Dir, "textures"))); err != nil {
		t.Fatal(err)
	}
	for _, name := range fixtures {
		src := source(t, name)
		for _, kind := range translate.Kinds {
			out, err := translate.Translate(src, kind, translate.EncodeOptions{MTLName: name + ".mtl"})
			if err != nil {
				t.Fatalf("%s → %s: %v", name, kind, err)
			}
			if kind == translate.JSON {
				if err := metajsontest.Validate(out); err != nil {
					t.Errorf("%s.json does not match the schema: %v", name, err)
				}
			}
			if err := os.WriteFile(filepath.Join(dir, name+"."+string(kind)), out, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// TestValidator runs the Khronos glTF Validator over every fixture's .gltf and .glb: no errors.
func TestValidator(t *testing.T) {
	dir := convertTree(t)
	var paths []string
	for _, name := range fixtures {
		paths = append(paths, filepath.Join(dir, name+".gltf"), filepath.Join(dir, name+".glb"))
	}
	gltfvalidate.Check(t, paths...)
}

// TestBlenderImport imports every fixture's .gltf, .glb and .obj in headless Blender with
// scripts/blender/check.py, which compares meshes, vertices, triangles, bones, nodes,
// animations and rest-pose bounds with the .json beside each. It skips without Blender, except
// under CI=true or MODELFS_BLENDER_REQUIRED=1, and under -short.
func TestBlenderImport(t *testing.T) {
	bin := blendercheck.Binary(t)
	dir := convertTree(t)
	r := blendercheck.Run(t, bin, 5*time.Minute, dir)
	var exit *exec.ExitError
	switch {
	case errors.As(r.Err, &exit):
		t.Errorf("blender check failed (exit status %d); output above", exit.ExitCode())
	case r.Err != nil:
		t.Fatalf("running %s: %v", bin, r.Err)
	case r.Passed != 3*len(fixtures):
		t.Errorf("%d files passed, want %d (a .gltf, .glb and .obj per fixture)", r.Passed, 3*len(fixtures))
	}
}
