package translate

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestCompanionFoldsCase(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"pmodel/P0.bnc":       "bones",
		"pmodel/p0.skc":       "skin",
		"Texture/NM001.TGA":   "pixels",
		"pmodel/exact.amb":    "exact",
		"pmodel/EXACT.amb":    "upper",
		"../outside-root.txt": "",
	} {
		p := filepath.Join(dir, "root", filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(filepath.Join(dir, "root"))
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	src := Source{Name: "pmodel/p0.skc", Open: RootOpener(root), List: RootLister(root)}
	for _, tc := range []struct{ ask, found, body string }{
		{"pmodel/p0.bnc", "pmodel/P0.bnc", "bones"},
		{"PMODEL/P0.BNC", "pmodel/P0.bnc", "bones"},
		{"texture/nm001.tga", "Texture/NM001.TGA", "pixels"},
		{"pmodel/exact.amb", "pmodel/exact.amb", "exact"}, // an exact match wins
		{`pmodel\p0.skc`, `pmodel\p0.skc`, "skin"},        // backslashes are separators
	} {
		found, data, err := src.Companion(tc.ask)
		if err != nil || found != tc.found || string(data) != tc.body {
			t.Errorf("Companion(%q) = %q, %q, %v; want %q, %q", tc.ask, found, data, err, tc.found, tc.body)
		}
	}
	for _, bad := range []string{"pmodel/p1.bnc", "../outside-root.txt", "/etc/passwd", "nodir/x"} {
		if _, _, err := src.Companion(bad); err == nil {
			t.Errorf("Companion(%q) succeeded", bad)
		}
	}
	if _, err := RootLister(root)("../"); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("listing outside the root: %v", err)
	}
	if _, _, err := (Source{Name: "x"}).Companion("a"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no opener: %v", err)
	}
}
