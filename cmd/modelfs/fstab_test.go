//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelfs/modelfs/translate"
)

// The fstab form becomes the mount command, in the background unless -f or -d.
func TestFstabArgs(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want []string
	}{
		{[]string{"src", "mnt", "-o", "ro,allow_other"}, []string{"mount", "src", "mnt", "-o", "ro,allow_other", "--background"}},
		{[]string{"src", "mnt", "-f"}, []string{"mount", "src", "mnt"}},
		{[]string{"src", "mnt", "-d", "-s"}, []string{"mount", "src", "mnt", "--debug"}},
		{[]string{"mount", "src", "mnt"}, nil},
		{[]string{"convert", "a", "-o", "b"}, nil},
		{[]string{"--version"}, nil},
		{[]string{"src"}, nil},
	} {
		got, ok := fstabArgs(c.in)
		if ok != (c.want != nil) || !slices.Equal(got, c.want) {
			t.Errorf("%q: %q %v, want %q", c.in, got, ok, c.want)
		}
	}
}

// -o carries every tree flag as key=value, and takes the options mount(8) passes to every file
// system without complaint.
func TestMountOptionsForFstab(t *testing.T) {
	opt, err := parseMount(t, "-o", "ro,allow_other,nonempty,noauto,x-systemd.automount,_netdev,nofail,defaults,cache_size=1G,cache_dir=/srv/cache,disk_cache_size=64MiB,formats=glb+json,parallel=3,archives=off,option=geosets=all,max_source_size=64M,memory_limit=off", "src", "mnt")
	if err != nil {
		t.Fatal(err)
	}
	if !opt.AllowOther || opt.CacheBytes != 1<<30 || opt.CacheDir != "/srv/cache" || opt.DiskCacheBytes != 64<<20 ||
		!slices.Equal(opt.Kinds, []translate.Kind{translate.GLB, translate.JSON}) || opt.MaxParallel != 3 ||
		opt.Archives != "off" || opt.DecoderOptions["geosets"] != "all" || opt.MaxSourceSize != 64<<20 {
		t.Errorf("parsed: %+v", opt)
	}
	for _, bad := range []string{"rw", "cache_size=lots", "parallel=many", "archives=some", "option=geosets", "colour=blue"} {
		if _, err := parseMount(t, "-o", bad, "src", "mnt"); err == nil || exitCode(err) != exitUsage {
			t.Errorf("-o %s: %v; want a usage error", bad, err)
		}
	}
}

// An fstab line of type fuse.modelfs mounts with mount(8) — through mount.fuse3, which runs
// `modelfs SRC MNT -o OPTIONS`, which puts itself in the background once the mount answers —
// and unmounts with umount(8); a bad SRC fails the mount with the reason and a non-zero status.
// mount(8) looks for the program in a fixed PATH: the test links it into /usr/local/bin (root).
// With MODELFS_TEST_ETC_FSTAB=1 (set by .ci/run on its fresh machine) the line goes into
// /etc/fstab itself and mounts with `mount MNT`; otherwise into a file of its own, `mount -T FILE
// MNT`, the same path through mount(8).
func TestFstab(t *testing.T) {
	need := func(ok bool, why string) {
		if ok {
			return
		}
		if os.Getenv("CI") == "true" {
			t.Fatal(why)
		}
		t.Skip(why)
	}
	_, err := os.Stat("/dev/fuse")
	need(err == nil, "no /dev/fuse")
	need(os.Geteuid() == 0, "mount(8) with an fstab file needs root")
	_, err = exec.LookPath("mount.fuse3")
	if err != nil {
		_, err = os.Stat("/sbin/mount.fuse3")
	}
	need(err == nil, "mount.fuse3 not installed (Debian package fuse3)")
	link := "/usr/local/bin/modelfs"
	if _, err := os.Lstat(link); err == nil {
		need(false, link+" exists: not replacing it")
	}
	bin := filepath.Join(t.TempDir(), "modelfs")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if err := os.Symlink(bin, link); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(link) })

	src, err := filepath.Abs(sample)
	if err != nil {
		t.Fatal(err)
	}
	mnt := t.TempDir()
	fstab := newFstab(t)
	line := src + " " + mnt + " fuse.modelfs ro,noauto,allow_other,nonempty,cache_dir=" + t.TempDir() + ",formats=gltf+json 0 0\n"
	if out, err := exec.Command("mount", fstab.args(t, line, mnt)...).CombinedOutput(); err != nil {
		t.Fatalf("mount %s: %v\n%s", line, err, out)
	}
	mounted := true
	t.Cleanup(func() {
		if mounted {
			exec.Command("umount", "-l", mnt).Run()
		}
	})
	// mount(8) returned: the mount answers already.
	names, err := os.ReadDir(filepath.Join(mnt, "Units"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range names {
		got = append(got, n.Name())
	}
	if !slices.Contains(got, "Crate.mdx.gltf") || !slices.Contains(got, "Crate.mdx.json") || slices.Contains(got, "Crate.mdx.glb") {
		t.Errorf("listing with formats=gltf+json: %v", got)
	}
	if b, err := os.ReadFile(filepath.Join(mnt, "Units", "Crate.mdx.gltf")); err != nil || len(b) == 0 {
		t.Errorf("read: %d bytes, %v", len(b), err)
	}
	if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
		t.Fatalf("umount: %v\n%s", err, out)
	}
	mounted = false
	if isMounted(t, mnt) {
		t.Error("still mounted after umount")
	}

	// A bad SRC: the background start fails with the reason.
	out, err := exec.Command("mount", fstab.args(t, "/nonexistent/tree "+mnt+" fuse.modelfs ro,noauto 0 0\n", mnt)...).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "/nonexistent/tree") {
		t.Errorf("mount of a bad SRC: %v\n%s", err, out)
	}
	if isMounted(t, mnt) {
		exec.Command("umount", "-l", mnt).Run()
		t.Error("a bad SRC got mounted")
	}
}

// etcFstabEnv, set to 1 (by .ci/run, on a fresh machine), lets TestFstab put its line into
// /etc/fstab itself: a backup is written beside it first, and the file is replaced by rename.
const etcFstabEnv = "MODELFS_TEST_ETC_FSTAB"

// testFstab is the fstab a test's lines go into: /etc/fstab when etcFstabEnv allows, restored
// when the test ends, else a file of the test's own.
type testFstab struct {
	path string
	orig []byte // /etc/fstab as it was; nil when there was none
	own  bool   // path is the test's own file, given to mount -T
}

// newFstab returns the fstab the test writes to.
func newFstab(t *testing.T) *testFstab {
	if os.Getenv(etcFstabEnv) != "1" {
		return &testFstab{path: filepath.Join(t.TempDir(), "fstab"), own: true}
	}
	f := &testFstab{path: "/etc/fstab"}
	orig, err := os.ReadFile(f.path)
	switch {
	case err == nil:
		f.orig = append([]byte{}, orig...) // there, perhaps empty: restored as such
		if err := os.WriteFile(f.path+".modelfs-test", orig, 0o644); err != nil {
			t.Fatal(err)
		}
	case !os.IsNotExist(err):
		t.Fatal(err)
	}
	t.Cleanup(func() {
		var err error
		if f.orig == nil {
			err = os.Remove(f.path)
		} else {
			err = replaceFile(f.path, f.orig)
		}
		if err != nil {
			t.Errorf("restoring /etc/fstab (its backup: /etc/fstab.modelfs-test): %v", err)
			return
		}
		os.Remove(f.path + ".modelfs-test")
	})
	return f
}

// replaceFile writes data to a new file beside path and renames it over path, so that a
// reader sees the old content or the new, never a part.
func replaceFile(path string, data []byte) error {
	tmp := path + ".modelfs-new"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// args puts line in the fstab (in place of the test's earlier one) and returns mount(8)'s
// arguments that mount mnt from it.
func (f *testFstab) args(t *testing.T, line, mnt string) []string {
	t.Helper()
	content := slices.Clone(f.orig)
	if len(content) > 0 && content[len(content)-1] != '\n' {
		content = append(content, '\n')
	}
	content = append(content, line...)
	if err := replaceFile(f.path, content); err != nil {
		t.Fatal(err)
	}
	if f.own {
		return []string{"-T", f.path, mnt}
	}
	return []string{mnt}
}
