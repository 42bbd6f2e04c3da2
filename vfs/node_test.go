package vfs

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Resolve finds what WebDAV and convert -r ask for as the mount shows it: folders, sources,
// documents (whatever the case of an archive member), and nothing for names outside the tree.
func TestResolve(t *testing.T) {
	tree, err := Open(sampleTree(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	s, err := tree.Shown("")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		path string
		dir  bool
		kind Kind
		err  error
	}{
		{path: "/", dir: true},
		{path: "Units", dir: true},
		{path: "/Units/Crate.mdx"},
		{path: "Units/Crate.mdx.glb", kind: "glb"},
		{path: "Textures/Crate.blp.png", kind: "png"},
		{path: "Units/Crate.mdx.fbx", err: fs.ErrNotExist},
		{path: "Units/None.mdx.gltf", err: fs.ErrNotExist},
		{path: "../etc/passwd", err: fs.ErrNotExist},
		{path: "Units/Crate.mdx/x", err: nil}, // ENOTDIR, checked below
	} {
		n, err := s.Resolve(tc.path, false)
		if strings.HasSuffix(tc.path, "/x") {
			if err == nil {
				n.Release()
				t.Errorf("%s: resolved through a file", tc.path)
			}
			continue
		}
		if tc.err != nil {
			if !errors.Is(err, tc.err) {
				t.Errorf("%s: %v, want %v", tc.path, err, tc.err)
			}
			if n != nil {
				n.Release()
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.path, err)
			continue
		}
		a, err := n.Stat(ctx, false)
		if err != nil || n.IsDir() != tc.dir || a.Mode.IsDir() != tc.dir || n.kind != tc.kind || a.Tag == "" {
			t.Errorf("%s: dir %v, kind %q, %+v, %v", tc.path, n.IsDir(), n.kind, a, err)
		}
		if tc.kind != "" {
			doc, _, err := n.Made(ctx)
			if err != nil || doc.Size() != a.Size {
				t.Errorf("%s: %d bytes made, stat says %d (%v)", tc.path, doc.Size(), a.Size, err)
			}
		}
		n.Release()
	}
}

// FuzzResolve resolves any path: an error or a node inside the tree, never a panic.
func FuzzResolve(f *testing.F) {
	for _, p := range []string{"/", "Units/Crate.mdx.glb", "../x", "Units/../../x", "Units//Crate.mdx", "Textures/Crate.blp.png/x", "\x00"} {
		f.Add(p)
	}
	// A tree with a model, a folder, and a link leading out of it.
	dir := f.TempDir()
	os.MkdirAll(filepath.Join(dir, "Units"), 0o755)
	os.WriteFile(filepath.Join(dir, "Units", "Crate.mdl"), []byte("Version {\n\tFormatVersion 800,\n}\n"), 0o644)
	os.Symlink("/etc", filepath.Join(dir, "out"))
	tree, err := Open(dir, Options{})
	if err != nil {
		f.Fatal(err)
	}
	defer tree.Close()
	s, err := tree.Shown("")
	if err != nil {
		f.Fatal(err)
	}
	if n, err := s.Resolve("out/passwd", false); err == nil {
		n.Release()
		f.Fatal("a link leading out of the tree was followed")
	}
	f.Fuzz(func(t *testing.T, p string) {
		n, err := s.Resolve(p, len(p)%2 == 0)
		if err != nil {
			return
		}
		defer n.Release()
		if strings.HasPrefix(n.rel, "..") || strings.HasPrefix(n.rel, "/") {
			t.Errorf("%q resolved to %q, outside the tree", p, n.rel)
		}
		if n.IsDir() {
			n.Entries()
		}
	})
}
