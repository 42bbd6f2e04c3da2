package blendercheck

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelfs/modelfs/internal/corpus"
	"github.com/modelfs/modelfs/translate"
	_ "github.com/modelfs/modelfs/translate/all"
	"github.com/modelfs/modelfs/translate/metajson"
)

// blender returns the Blender binary, or skips — except under CI (CI=true) or with
// MODELFS_BLENDER_REQUIRED=1, where a missing Blender is a failure.
func blender(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("blendercheck: starting Blender is slow; skipped under -short")
	}
	if b := os.Getenv("MODELFS_BLENDER"); b != "" {
		return b
	}
	b, err := exec.LookPath("blender")
	if err != nil {
		if os.Getenv("MODELFS_BLENDER_REQUIRED") == "1" || os.Getenv("CI") == "true" {
			t.Fatalf("blendercheck: %v (CI needs Blender: apt-get install blender python3-numpy)", err)
		}
		t.Skip("blendercheck: blender not found (apt-get install blender python3-numpy, or scripts/blender/run.sh)")
	}
	return b
}

// translateTree writes, for every model under root, the files the mount serves beside it into
// out: NAME.gltf, NAME.glb, NAME.obj, NAME.mtl and NAME.json, or only the error document as
// NAME.json when the model does not translate. It returns how many models it found.
func translateTree(t *testing.T, root, out string) int {
	t.Helper()
	r, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !translate.IsModelName(d.Name()) {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		n++
		dst := filepath.Join(out, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		data, err := translate.ReadFileIn(r, name)
		if err != nil {
			return err
		}
		s, f, err := translate.Decode(translate.Source{Name: name, Data: data, Open: translate.RootOpener(r)})
		if err != nil {
			format := ""
			if f != nil {
				format = f.Name
			}
			t.Logf("%s does not translate (an error document is checked instead): %v", name, err)
			return os.WriteFile(dst+".json", metajson.EncodeError(name, format, err), 0o644)
		}
		opt := translate.EncodeOptions{MTLName: path.Base(name) + ".mtl"}
		for _, k := range []translate.Kind{translate.GLTF, translate.GLB, translate.OBJ, translate.MTL, translate.JSON} {
			b, err := translate.Encode(s, k, opt)
			if err != nil {
				return err
			}
			if err := os.WriteFile(dst+"."+string(k), b, 0o644); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestBlenderImport(t *testing.T) {
	bin := blender(t)
	repo := corpus.RepoRoot(t)
	out := t.TempDir()
	sample := filepath.Join(out, "sample")
	if translateTree(t, filepath.Join(repo, "testdata", "sample"), sample) == 0 {
		t.Fatal("no models in testdata/sample")
	}
	dirs := []string{sample}
	wc3 := filepath.Join(corpus.Dir(t), "wc3")
	if _, err := os.Stat(wc3); err == nil {
		dirs = append(dirs, filepath.Join(out, "corpus"))
		translateTree(t, wc3, dirs[1])
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	args := append([]string{"-b", "--factory-startup", "--python-exit-code", "1",
		"--python", filepath.Join(repo, "scripts", "blender", "check.py"), "--"}, dirs...)
	cmd := exec.CommandContext(ctx, bin, args...)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	for _, line := range strings.Split(strings.TrimRight(buf.String(), "\n"), "\n") {
		line = strings.ReplaceAll(line, out+string(filepath.Separator), "")
		if strings.HasPrefix(line, "FAIL ") {
			t.Error(line)
		} else {
			t.Log(line)
		}
	}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		t.Errorf("blender check failed (exit status %d); output above", exit.ExitCode())
	case err != nil:
		t.Fatalf("running %s: %v", bin, err)
	case !strings.Contains(buf.String(), "summary: "):
		t.Errorf("blender exited 0 without the checker's summary; output above")
	}
}
