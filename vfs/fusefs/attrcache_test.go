//go:build linux

package fusefs

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/modelfs/modelfs/internal/mpq/mpqtest"
	"github.com/modelfs/modelfs/vfs"
)

// Every attribute the kernel is given for a file carries its true size, whatever asked for it:
// a stat answered from the kernel's cache alone (AT_STATX_DONT_SYNC) gives the size a read
// finds, after a cold listing (READDIRPLUS) as after a cold lookup by name, in a folder and in
// an archive. A lookup that gave a stand-in size with attribute timeout 0 could be shown to a
// stat racing with it.
func TestCachedAttrsExact(t *testing.T) {
	src := t.TempDir()
	if err := os.CopyFS(src, os.DirFS(sampleDir(t))); err != nil {
		t.Fatal(err)
	}
	crate, err := os.ReadFile(filepath.Join(src, "Units", "Crate.mdx"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(src, "Units", "Pack.mpq"), mpqtest.Archive{Members: []mpqtest.Member{
		{Name: "Units\\Crate.mdx", Data: crate, Zlib: true},
	}}.Bytes())
	// Textures first: a model's translation makes its texture's sizes known, and the listing
	// of a folder is checked cold.
	dirs := []string{"Textures", "Units", "Units/Pack.mpq/Units"}

	// The names to check, from a mount of their own.
	names := map[string][]string{}
	listing := mountT(t, src, vfs.Options{})
	for _, dir := range dirs {
		ents, err := os.ReadDir(listing.path(dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if e.Type().IsRegular() {
				names[dir] = append(names[dir], e.Name())
			}
		}
	}
	for _, want := range []string{"Textures/Swinger.tga.png", "Units/Crate.mdx.gltf", "Units/Pack.mpq/Units/Crate.mdx.glb"} {
		if !slices.Contains(names[path.Dir(want)], path.Base(want)) {
			t.Fatalf("%s is not listed: %q", want, names[path.Dir(want)])
		}
	}
	for _, list := range []bool{true, false} {
		// With a disk tier, as a mount has by default: lookups start read-ahead there.
		m := mountT(t, src, vfs.Options{CacheDir: t.TempDir()})
		for _, dir := range dirs {
			if list {
				if _, err := os.ReadDir(m.path(dir)); err != nil {
					t.Fatal(err)
				}
			}
			for _, name := range names[dir] {
				p := m.path(path.Join(dir, name))
				var st unix.Statx_t
				if err := unix.Statx(unix.AT_FDCWD, p, unix.AT_STATX_DONT_SYNC, unix.STATX_SIZE, &st); err != nil {
					t.Errorf("statx %s: %v", p, err)
					continue
				}
				b, err := os.ReadFile(p)
				if err != nil {
					continue // a document that cannot be made (its size 0) is no concern here
				}
				if st.Size != uint64(len(b)) {
					t.Errorf("listed first %v: %s/%s: the kernel's cached size is %d; a read finds %d bytes", list, dir, name, st.Size, len(b))
				}
			}
		}
	}
}
