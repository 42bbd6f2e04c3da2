//go:build linux

package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// nobody is the unprivileged user who may write the cache directory in TestHostileCacheDirectory.
const nobody = 65534

// asNobody runs a shell command as nobody.
func asNobody(t *testing.T, script string) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("as nobody: %s: %v\n%s", script, err, out)
	}
}

// snapshot describes every file under dir by path, mode, size and content.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, _ := os.Lstat(p)
		sum := ""
		if fi.Mode().IsRegular() {
			data, _ := os.ReadFile(p)
			sum = fmt.Sprintf("%x", sha256.Sum256(data))
		}
		fmt.Fprintf(&b, "%s %v %d %s\n", p, fi.Mode(), fi.Size(), sum)
		return nil
	})
	return b.String()
}

// TestHostileCacheDirectory mounts as root with a cache directory that an unprivileged user may
// write, and lets that user attack it between mounts: a symlinked tmp/ with old files behind
// it (they were deleted), symlinked folders and a symlinked marker (written through), folders
// of their own with crafted entries and an 8 GiB journal, FIFOs (they hung the mount), and
// root's own journal grown to 8 GiB (read whole). Each time the mount comes up, every document
// it serves is what convert writes, nothing outside the directory changes, the daemon's peak
// memory stays within its limit plus 64 MiB, and a lock held on the cache costs one wait.
func TestHostileCacheDirectory(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("needs root to attack as another user")
		}
		t.Skip("needs root to attack as another user")
	}
	src := t.TempDir()
	if err := os.CopyFS(src, os.DirFS(sample)); err != nil {
		t.Fatal(err)
	}
	docs := []string{"Units/Crate.mdl.glb", "Units/Swinger.mdx.gltf", "Units/Crate.mdx.json", "Textures/Crate.blp.png", "Creature/TestBeast/TestBeast.m2.glb"}
	want := map[string][]byte{}
	for _, d := range docs {
		out := filepath.Join(t.TempDir(), filepath.Base(d))
		in := strings.TrimSuffix(d, filepath.Ext(d))
		if code, _, errs := runCLI(t, "convert", "--root", src, filepath.Join(src, in), "-o", out); code != exitOK {
			t.Fatalf("convert %s: %s", d, errs)
		}
		want[d], _ = os.ReadFile(out)
	}
	// What the attacks aim at: a folder of root's beside the cache, with old files in it.
	outside := t.TempDir()
	for _, n := range []string{"old", "secret"} {
		os.WriteFile(filepath.Join(outside, n), []byte("root's own "+n), 0o600)
		old := time.Now().Add(-time.Hour)
		os.Chtimes(filepath.Join(outside, n), old, old)
	}
	before := snapshot(t, outside)
	parent := t.TempDir()
	os.Chmod(parent, 0o755)
	os.Chmod(filepath.Dir(parent), 0o755) // the test's own temporary folder, for nobody to enter
	cache := filepath.Join(parent, "cache")
	os.Mkdir(cache, 0o755)
	os.Chown(cache, nobody, nobody) // the unprivileged user may write it

	mountAndCheck := func(t *testing.T, lock bool) {
		t.Helper()
		mnt := t.TempDir()
		cmd, logs := startDaemon(t, src, mnt, "--cache-dir", cache, "--cache-size", "64MiB")
		if lock {
			// Another process holds the whole lock file: each model waits once, at most.
			if f, err := os.OpenFile(filepath.Join(cache, "state", ".lock"), os.O_RDWR, 0); err == nil {
				lk := unix.Flock_t{Type: unix.F_WRLCK}
				unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk)
				defer f.Close()
			}
		}
		start := time.Now()
		for _, d := range docs {
			got, err := os.ReadFile(filepath.Join(mnt, d))
			if err != nil || !bytes.Equal(got, want[d]) {
				t.Errorf("%s: %d bytes (%v), convert writes %d\n%s", d, len(got), err, len(want[d]), logs)
			}
		}
		took := time.Since(start)
		if took > 20*time.Second {
			t.Errorf("reading %d documents took %v", len(docs), took)
		}
		peak := peakRSS(t, cmd.Process.Pid)
		if peak > 64<<20+memoryHeadroom+64<<20 {
			t.Errorf("peak RSS %d MiB, more than the memory limit (%d MiB) + 64 MiB", peak>>20, (64<<20+memoryHeadroom)>>20)
		}
		t.Logf("%d documents in %v; peak RSS %d MiB (memory limit %d MiB)", len(docs), took.Round(time.Millisecond), peak>>20, (64<<20+memoryHeadroom)>>20)
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		if after := snapshot(t, outside); after != before {
			t.Errorf("the folder outside the cache changed:\nbefore\n%safter\n%s", before, after)
		}
	}
	attacks := []struct {
		name, script string
		root         func(t *testing.T) // done as root, for attacks of the daemon's own user
	}{
		{name: "tmp is a symlink to old files", script: fmt.Sprintf("rm -rf %[1]s/tmp; ln -s %[2]s %[1]s/tmp", cache, outside)},
		{name: "marker and folders are symlinks", script: fmt.Sprintf("cd %[1]s && rm -rf tmp && mv data data.old && ln -s %[2]s data && mv index index.old && ln -s %[2]s index && mv modelfs-cache m.old && ln -s %[2]s/secret modelfs-cache", cache, outside)},
		{name: "folders of the attacker's, crafted entries, a huge journal", script: fmt.Sprintf(
			"cd %[1]s && rm -f data index modelfs-cache && mv m.old modelfs-cache && mkdir data index && mkdir data/ab && head -c 4096 /dev/urandom > data/ab/%[2]s && truncate -s 8G index/tree-0123456789abcdef", cache, strings.Repeat("ab", 32))},
		{name: "FIFOs", script: fmt.Sprintf("cd %[1]s && rm -rf data index && mv data.old data && mv index.old index && rm -f CACHEDIR.TAG && mkfifo CACHEDIR.TAG && mv state state.old && mkfifo state", cache)},
		{name: "the daemon's own journal grown to 8 GiB", script: fmt.Sprintf("cd %[1]s && rm -f state CACHEDIR.TAG && mv state.old state", cache), root: func(t *testing.T) {
			ents, _ := os.ReadDir(filepath.Join(cache, "index"))
			for _, e := range ents {
				os.Truncate(filepath.Join(cache, "index", e.Name()), 8<<30)
			}
		}},
	}
	t.Run("clean", func(t *testing.T) { mountAndCheck(t, false) })
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			asNobody(t, a.script)
			if a.root != nil {
				a.root(t)
			}
			mountAndCheck(t, false)
		})
	}
	t.Run("held lock", func(t *testing.T) {
		os.RemoveAll(filepath.Join(cache, "data")) // cold: every model takes the lock
		mountAndCheck(t, true)
	})
	t.Run("marker removed, a file planted", func(t *testing.T) {
		asNobody(t, fmt.Sprintf("cd %s && rm -f modelfs-cache && touch planted", cache))
		mountAndCheck(t, false)
	})
	// Everything the daemon made is its own, and readable by no one else.
	filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == cache {
			return nil
		}
		fi, _ := os.Lstat(p)
		st := fi.Sys().(*syscall.Stat_t)
		if st.Uid == 0 && fi.Mode().Perm()&0o077 != 0 && filepath.Base(p) != "modelfs-cache" && filepath.Base(p) != "CACHEDIR.TAG" {
			t.Errorf("%s: mode %v, readable by others", p, fi.Mode())
		}
		return nil
	})
}
