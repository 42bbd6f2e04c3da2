package fusefs

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/modelfs/modelfs/internal/mpq/mpqtest"
	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/vfs"
)

// nobody is the unprivileged user the permission tests read as.
const nobody = 65534

// readableBy reports whether uid (with its group) can read the file p, by having cat read it as
// that user.
func readableBy(t *testing.T, uid int, p string) bool {
	t.Helper()
	cmd := exec.Command("/bin/cat", p)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
	return cmd.Run() == nil
}

// openUp lets everyone reach dir: t.TempDir makes its folders for the test's user alone.
func openUp(t *testing.T, dir string) {
	t.Helper()
	for d := dir; d != filepath.Dir(os.TempDir()) && d != "/"; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if d == os.TempDir() {
			break
		}
	}
}

// TestPermissionsAsInSource mounts with allow_other and reads as an unprivileged user: nothing
// is readable through the mount that the user cannot read in SRC, a virtual file included,
// whose source, textures and the folders leading to them all must let the user read.
func TestPermissionsAsInSource(t *testing.T) {
	if os.Geteuid() != 0 {
		skipOrFail(t, "needs root to read as another user")
	}
	crate, err := os.ReadFile(filepath.Join(sampleDir(t), "Units/Crate.mdl"))
	if err != nil {
		t.Fatal(err)
	}
	blp, err := os.ReadFile(filepath.Join(sampleDir(t), "Textures/Crate.blp"))
	if err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	put := func(rel string, data []byte, mode os.FileMode) {
		writeFile(t, filepath.Join(src, rel), data)
		if err := os.Chmod(filepath.Join(src, rel), mode); err != nil {
			t.Fatal(err)
		}
	}
	chmod := func(rel string, mode os.FileMode) {
		if err := os.Chmod(filepath.Join(src, rel), mode); err != nil {
			t.Fatal(err)
		}
	}
	// Each model finds its texture in the folder beside its own (u/ and t/).
	put("open/u/Crate.mdl", crate, 0o644)
	put("open/t/Crate.blp", blp, 0o644)
	put("owntex/u/Crate.mdl", crate, 0o644)
	put("owntex/t/Crate.blp", blp, 0o600) // readable by its owner alone
	put("closed/u/Crate.mdl", crate, 0o644)
	put("closed/t/Crate.blp", blp, 0o644)
	chmod("closed/t", 0o700) // a readable texture in a folder others cannot enter
	put("modes/zero.mdl", crate, 0o000)
	put("modes/write.mdl", crate, 0o200)
	put("modes/x311.mdl", crate, 0o311)
	put("modes/plain.mdl", crate, 0o644)
	put("modes/secret.txt", []byte("secret\n"), 0o600)
	put("hidden/Crate.mdl", crate, 0o644)
	chmod("hidden", 0o000)
	// A model reached through a symlink into a folder others cannot enter, and a texture
	// folder that is a symlink to one.
	put("private/Crate.mdl", crate, 0o644)
	put("private/t/Crate.blp", blp, 0o644)
	chmod("private", 0o700)
	link := func(target, name string) {
		os.MkdirAll(filepath.Dir(filepath.Join(src, name)), 0o755)
		if err := os.Symlink(target, filepath.Join(src, name)); err != nil {
			t.Fatal(err)
		}
	}
	link("../private/Crate.mdl", "linked/Crate.mdl")
	put("viadir/u/Crate.mdl", crate, 0o644)
	link("../private/t", "viadir/t")
	// A texture, and an archive, whose ACL denies nobody what its mode grants; and an archive
	// only its owner reads.
	put("acl/u/Crate.mdl", crate, 0o644)
	put("acl/t/Crate.blp", blp, 0o644)
	pack := mpqtest.Archive{Members: []mpqtest.Member{{Name: "Units\\Crate.mdl", Data: crate}}}.Bytes()
	put("arc/open.mpq", pack, 0o644)
	put("arc/own.mpq", pack, 0o600)
	put("arc/acl.mpq", pack, 0o644)
	if out, err := exec.Command("setfacl", "-m", "u:nobody:---", filepath.Join(src, "acl/t/Crate.blp"), filepath.Join(src, "arc/acl.mpq")).CombinedOutput(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("setfacl: %v %s", err, out)
		}
		t.Logf("no ACLs here (%v %s)", err, out)
		os.RemoveAll(filepath.Join(src, "acl"))
		os.Remove(filepath.Join(src, "arc/acl.mpq"))
	}
	openUp(t, src)

	m := mountT(t, src, vfs.Options{AllowOther: true}) // its mount point is beside src: open to all

	// Modes show as in SRC, 0000 included.
	for _, rel := range []string{"modes/zero.mdl", "modes/write.mdl", "modes/x311.mdl", "hidden", "closed/t"} {
		want, err := os.Lstat(filepath.Join(src, rel))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.Lstat(m.path(rel))
		if err != nil {
			t.Fatal(err)
		}
		if got.Mode() != want.Mode() {
			t.Errorf("%s: mode %v through the mount, %v in SRC", rel, got.Mode(), want.Mode())
		}
	}
	// Passthrough files: readable through the mount exactly when readable in SRC.
	for _, rel := range []string{"open/u/Crate.mdl", "owntex/t/Crate.blp", "closed/t/Crate.blp", "modes/zero.mdl",
		"modes/write.mdl", "modes/x311.mdl", "modes/plain.mdl", "modes/secret.txt", "hidden/Crate.mdl",
		"linked/Crate.mdl", "viadir/t/Crate.blp"} {
		if in, through := readableBy(t, nobody, filepath.Join(src, rel)), readableBy(t, nobody, m.path(rel)); in != through {
			t.Errorf("%s: readable by nobody in SRC %v, through the mount %v", rel, in, through)
		}
	}
	// Virtual files: readable only when the source and everything it was made from is.
	kinds := []translate.Kind{translate.GLTF, translate.GLB, translate.OBJ, translate.MTL, translate.JSON}
	for model, readable := range map[string]bool{
		"open/u/Crate.mdl":   true,
		"modes/plain.mdl":    true, // its texture is missing: made from the model alone
		"owntex/u/Crate.mdl": false,
		"closed/u/Crate.mdl": false,
		"modes/zero.mdl":     false,
		"modes/write.mdl":    false,
		"modes/x311.mdl":     false,
		"hidden/Crate.mdl":   false,
		"linked/Crate.mdl":   false,
		"viadir/u/Crate.mdl": false,
		"acl/u/Crate.mdl":    false,
	} {
		if _, err := os.Lstat(filepath.Join(src, model)); err != nil {
			continue // no ACLs here
		}
		for _, k := range kinds {
			p := m.path(model + "." + string(k))
			if got := readableBy(t, nobody, p); got != readable {
				t.Errorf("%s.%s: readable by nobody %v, want %v", model, k, got, readable)
			}
			if model == "hidden/Crate.mdl" {
				continue
			}
			// The owner reads it all the same (root reads anything: check the bits).
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if others := fi.Mode().Perm()&0o004 != 0; others != readable {
				t.Errorf("%s.%s: mode %v, want others' read bit %v", model, k, fi.Mode(), readable)
			}
		}
	}
	if got := readableBy(t, nobody, m.path("owntex/t/Crate.blp.png")); got {
		t.Error("owntex/t/Crate.blp.png: readable by nobody, as its texture is not")
	}
	if got := readableBy(t, nobody, m.path("open/t/Crate.blp.png")); !got {
		t.Error("open/t/Crate.blp.png: not readable by nobody, as its texture is")
	}
	// An archive's members and their documents: readable as the archive file is, its ACL
	// included.
	for arc, readable := range map[string]bool{"arc/open.mpq": true, "arc/own.mpq": false, "arc/acl.mpq": false} {
		if _, err := os.Lstat(filepath.Join(src, arc)); err != nil {
			continue // no ACLs here
		}
		if in := readableBy(t, nobody, filepath.Join(src, arc)); in != readable {
			t.Fatalf("%s: readable by nobody in SRC %v, want %v", arc, in, readable)
		}
		for _, rel := range []string{"Units/Crate.mdl", "Units/Crate.mdl.glb", "Units/Crate.mdl.json"} {
			p := m.path(arc + "/" + rel)
			if got := readableBy(t, nobody, p); got != readable {
				t.Errorf("%s/%s: readable by nobody %v, want %v", arc, rel, got, readable)
			}
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if others := fi.Mode().Perm()&0o004 != 0; others != readable {
				t.Errorf("%s/%s: mode %v, want others' read bit %v", arc, rel, fi.Mode(), readable)
			}
		}
	}
	// The owner's own view: a texture only the owner reads still shows in the owner's files.
	if fi, err := os.Stat(m.path("owntex/u/Crate.mdl.glb")); err != nil || fi.Mode().Perm() != 0o400 {
		t.Errorf("owntex/u/Crate.mdl.glb: %v %v, want mode 0400", fi.Mode(), err)
	}
}

// TestOwnersDiffer is a model owned by one user that uses another's texture: the mount reads
// the user database to weigh their modes. Its documents are served, and so is everything
// else afterwards: the first such model once left the tree's lock held, and every lookup
// after it blocked for good.
func TestOwnersDiffer(t *testing.T) {
	if os.Geteuid() != 0 {
		skipOrFail(t, "needs root to give files to another user")
	}
	src := sampleTree(t)
	own := filepath.Join(src, "Units/Own.mdl")
	copyFile(t, filepath.Join(src, "Units/Crate.mdl"), own)
	if err := os.Chown(own, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(own, 0o600); err != nil {
		t.Fatal(err)
	}
	m := mountT(t, src, vfs.Options{AllowOther: true})
	done := make(chan error, 1)
	go func() {
		for _, rel := range []string{"Units/Own.mdl.glb", "Units/Crate.mdl.glb", "Units/Own.mdl.json", "Textures/Crate.blp.png"} {
			fi, err := os.Stat(m.path(rel))
			if err != nil {
				done <- err
				return
			}
			if rel == "Units/Own.mdl.glb" && fi.Mode().Perm() != 0o400 {
				done <- fmt.Errorf("%s: mode %v, want 0400 (its source is 0600)", rel, fi.Mode())
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("stats through the mount still blocked after a minute")
	}
}
