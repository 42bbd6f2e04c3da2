// Package corpus locates the real game files that tests check the decoders against. They live
// outside the repository (in ../shared/corpus beside the checkout) because they are game assets
// under their owners' copyright; a fresh clone has none, so tests skip — except under CI
// (CI=true), where a missing corpus is a failure.
package corpus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// RepoRoot returns the repository root: the nearest directory above the working directory
// that holds go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("corpus: no go.mod above the working directory")
		}
		dir = parent
	}
}

// Dir returns the corpus directory, or skips the test (fails it under CI) when it is absent.
func Dir(t testing.TB) string {
	t.Helper()
	dir := Optional(t)
	if dir == "" {
		t.Skip("corpus: not found; skipping checks against real game files")
	}
	return dir
}

// Optional returns the corpus directory, or "" when it is absent (a failure under CI), without
// skipping: for tests that check the project's own files too, which must run whatever the corpus.
func Optional(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(RepoRoot(t), "..", "shared", "corpus")
	if env := os.Getenv("MODELFS_CORPUS"); env != "" {
		dir = env
	}
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("corpus: %v (CI must have the shared corpus)", err)
		}
		t.Logf("corpus: %s not found; checking the project's own files only", dir)
		return ""
	}
	return dir
}

// Files returns the corpus files under sub whose extension is one of exts (lower case, with
// the dot), sorted; it skips or fails like Dir.
func Files(t testing.TB, sub string, exts ...string) []string {
	t.Helper()
	root := filepath.Join(Dir(t), sub)
	var out []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		e := strings.ToLower(filepath.Ext(p))
		for _, x := range exts {
			if e == x {
				out = append(out, p)
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
