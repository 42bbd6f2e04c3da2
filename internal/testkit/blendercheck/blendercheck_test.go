package blendercheck

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelfs/modelfs/internal/testkit/corpus"
	"github.com/modelfs/modelfs/internal/testkit/fixtures"
	"github.com/modelfs/modelfs/internal/testkit/gltfvalidate"
	_ "github.com/modelfs/modelfs/translate/all"
	"github.com/modelfs/modelfs/translate/wc3/wc3test"
	"github.com/modelfs/modelfs/vfs"
	"github.com/modelfs/modelfs/vfs/fusefs"
)

// mount serves root through modelfs in a temporary directory, unmounted when the test ends.
func mount(t *testing.T, root string) string {
	t.Helper()
	mnt := t.TempDir()
	srv, err := fusefs.Mount(root, mnt, vfs.Options{})
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("mount %s: %v", root, err)
		}
		t.Skipf("mount %s: %v (FUSE unavailable)", root, err)
	}
	t.Cleanup(func() {
		for i := 0; i < 50; i++ {
			if err := srv.Unmount(); err == nil || !errors.Is(err, syscall.EBUSY) {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Errorf("could not unmount %s", mnt)
	})
	return mnt
}

// gltfFiles lists the .gltf and .glb files under dir, but for those of models whose .json is
// an error document: they are expected to fail, as the Blender checker skips them too (a
// Reforged model, say, until modelfs reads one).
func gltfFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".gltf") || strings.HasSuffix(p, ".glb")) {
			if msg := errorDocument(strings.TrimSuffix(p, filepath.Ext(p)) + ".json"); msg != "" {
				t.Logf("skipped %s: its .json is an error document: %s", p, msg)
				return nil
			}
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBlenderImport mounts the sample tree and the corpus, checks every .gltf and .glb read
// through the mount with the Khronos validator, and imports every .gltf, .glb and .obj of the
// mounts in headless Blender, comparing what it built with the .json beside each.
func TestBlenderImport(t *testing.T) {
	bin := Binary(t)
	repo := corpus.RepoRoot(t)
	// Everything is read through the mount, as an artist's Blender would.
	// The Elfreina fixtures are hand-written (no real .elem file is public) and live with their
	// decoder; they are mounted like any game tree.
	dirs := []string{
		mount(t, filepath.Join(repo, "testdata", "sample")),
		mount(t, filepath.Join(repo, "testdata", "defects")), // defects real files carry
		mount(t, filepath.Join(repo, "translate", "elem", "elemtest", "files")),
	}
	if dir := corpus.Optional(t); dir != "" {
		dirs = append(dirs, mount(t, dir))
	}
	var files []string
	for _, d := range dirs {
		files = append(files, gltfFiles(t, d)...)
	}
	if len(files) < 8 {
		t.Fatalf("only %d glTF files in the mounts", len(files))
	}
	gltfvalidate.Check(t, files...)

	r := Run(t, bin, 10*time.Minute, append([]string{"--require-image-data"}, dirs...)...)
	// The creature's skins came in as variants, each mesh showing the skin with one material
	// per variant.
	for _, kind := range []string{".gltf", ".glb"} {
		want := "Creature/TestBeast/TestBeast.m2" + kind + "  "
		if !strings.Contains(r.Output, want) || !strings.Contains(lineWith(r.Output, want), "variants 3/3 on 2/2 mesh(es)") {
			t.Errorf("%s: no line saying Blender imported its 3 skin variants on both meshes", want)
		}
	}
	var exit *exec.ExitError
	switch {
	case errors.As(r.Err, &exit):
		t.Errorf("blender check failed (exit status %d); output above", exit.ExitCode())
	case r.Err != nil:
		t.Fatalf("running %s: %v", bin, r.Err)
	case !strings.Contains(r.Output, "summary: "):
		t.Errorf("blender exited 0 without the checker's summary; output above")
	}
}

// TestBlenderHeavy checks the animation-heavy fixtures (a menu scene of 417 nodes, a unit of
// 148 sequences, a dense mesh), as the mount serves them, with the validator, and imports them
// into Blender, playing every animation.
func TestBlenderHeavy(t *testing.T) {
	bin := Binary(t)
	repo := corpus.RepoRoot(t)
	src := t.TempDir()
	if err := os.MkdirAll(filepath.Join(src, "Textures"), 0o755); err != nil {
		t.Fatal(err)
	}
	crate, err := os.ReadFile(filepath.Join(repo, "testdata", "sample", "Textures", "Crate.blp"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]func() ([]byte, error){
		"Textures/Crate.blp": func() ([]byte, error) { return crate, nil },
		"HeavyMenu.mdx":      func() ([]byte, error) { return wc3test.MDX(fixtures.HeavyMenu()) },
		"HeavyUnit.mdx":      func() ([]byte, error) { return wc3test.MDX(fixtures.HeavyUnit()) },
		"HeavyMesh.mdl":      func() ([]byte, error) { return wc3test.MDL(fixtures.HeavyMesh()) },
	}
	for name, make := range files {
		data, err := make()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, filepath.FromSlash(name)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := mount(t, src)
	// The .glb only: the .gltf holds the same scene, and each import of these takes seconds.
	out := filepath.Join(t.TempDir(), "glb")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"HeavyMenu.mdx", "HeavyUnit.mdx", "HeavyMesh.mdl"} {
		for _, kind := range []string{".glb", ".json"} {
			data, err := os.ReadFile(filepath.Join(dir, name+kind))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(out, name+kind), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	glbs, _ := filepath.Glob(filepath.Join(out, "*.glb"))
	gltfvalidate.Check(t, glbs...)
	r := Run(t, bin, 10*time.Minute, out)
	if r.Err != nil || r.Passed != 3 {
		t.Errorf("blender check: %v, %d of 3 passed; output above", r.Err, r.Passed)
	}
}

// lineWith returns the first line of out containing s, or "".
func lineWith(out, s string) string {
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, s) {
			return line
		}
	}
	return ""
}

// errorDocument returns the "error" of the .json at p when it is an error document, else "".
func errorDocument(p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	var doc struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(b, &doc) != nil {
		return ""
	}
	return doc.Error
}
