package archive_test

import (
	"archive/zip"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelfs/modelfs/internal/archive"
	_ "github.com/modelfs/modelfs/internal/archive/all"
)

// zipOf returns a zip archive of name → content.
func zipOf(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for name, body := range files {
		fw, err := w.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write([]byte(body))
	}
	w.Close()
	return buf.Bytes()
}

// Archives of a format without a merge of its own are layered: each name from the last
// archive in load order that has it, every folder listing the names of all.
func TestMergeLayers(t *testing.T) {
	dir := t.TempDir()
	var arcs []archive.Archive
	for i, files := range []map[string]string{
		{"a.txt": "base", "b.txt": "base only"},
		{"a.txt": "patch", "c/d.txt": "patch only"},
	} {
		p := filepath.Join(dir, []string{"base.zip", "patch.zip"}[i])
		if err := os.WriteFile(p, zipOf(t, files), 0o644); err != nil {
			t.Fatal(err)
		}
		a, err := archive.OpenFile(p, archive.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		arcs = append(arcs, a)
	}
	m := archive.Merge(arcs)
	for name, want := range map[string]string{"a.txt": "patch", "b.txt": "base only", "c/d.txt": "patch only"} {
		if b, err := fs.ReadFile(m, name); err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", name, b, err, want)
		}
	}
	if ents, err := fs.ReadDir(m, "."); err != nil || len(ents) != 3 {
		t.Errorf("the merged root lists %d entries (%v), want 3", len(ents), err)
	}
}

// What is no archive fails to open with an error naming it, and leaves no file open.
func TestOpenRefusals(t *testing.T) {
	dir := t.TempDir()
	if _, err := archive.OpenFile(dir, archive.Options{}); err == nil {
		t.Error("a folder opened as an archive")
	}
	if _, err := archive.OpenFile(filepath.Join(dir, "none.zip"), archive.Options{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
	for name, data := range map[string][]byte{
		"empty.zip":     nil,
		"truncated.zip": zipOf(t, map[string]string{"a": "b"})[:30],
		"text.mpq":      []byte("not an archive at all"),
		"text.bin":      []byte("PK but nothing else"),
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, data, 0o644)
		if a, err := archive.OpenFile(p, archive.Options{}); err == nil {
			a.Close()
			t.Errorf("%s opened", name)
		} else if !bytes.Contains([]byte(err.Error()), []byte(name)) {
			t.Errorf("%s: the error does not name the file: %v", name, err)
		}
	}
}
