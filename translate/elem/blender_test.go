package elem

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelfs/modelfs/internal/corpus"
	"github.com/modelfs/modelfs/internal/gltfvalidate"
	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/metajson/metajsontest"
)

// convertTree writes every fixture's outputs into a fresh directory named as the mount serves
// them (X.elem.gltf, X.elem.glb, X.elem.obj, X.elem.mtl, X.elem.json), with the textures
// beside them, and returns the directory.
func convertTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "textures"), os.DirFS(filepath.Join("testdata", "textures"))); err != nil {
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
	if testing.Short() {
		t.Skip("starting Blender is slow; skipped under -short")
	}
	bin := os.Getenv("MODELFS_BLENDER")
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("blender"); err != nil {
			if os.Getenv("CI") == "true" || os.Getenv("MODELFS_BLENDER_REQUIRED") == "1" {
				t.Fatalf("blender: %v (CI needs Blender: apt-get install blender python3-numpy)", err)
			}
			t.Skip("blender not found")
		}
	}
	dir := convertTree(t)
	script := filepath.Join(corpus.RepoRoot(t), "scripts", "blender", "check.py")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-b", "--factory-startup", "--python-exit-code", "1", "--python", script, "--", dir)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	passed := 0
	for _, line := range strings.Split(strings.TrimRight(buf.String(), "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "FAIL "):
			t.Error(line)
		case strings.HasPrefix(line, "PASS "):
			passed++
			t.Log(line)
		default:
			t.Log(line)
		}
	}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		t.Errorf("blender check failed (exit status %d); output above", exit.ExitCode())
	case err != nil:
		t.Fatalf("running %s: %v", bin, err)
	case passed != 3*len(fixtures):
		t.Errorf("%d files passed, want %d (a .gltf, .glb and .obj per fixture)", passed, 3*len(fixtures))
	}
}
