//go:build linux

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/vfs"
	"github.com/modelfs/modelfs/vfs/fusefs"
)

// TestMain lets a test run this binary as the modelfs command, in a process of its own (for
// a daemon that a test kills, or a command run under a terminal).
func TestMain(m *testing.M) {
	if os.Getenv("MODELFS_TEST_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// modelfsCmd returns the modelfs command as a process of its own.
func modelfsCmd(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "MODELFS_TEST_MAIN=1")
	return cmd
}

// needFUSE skips the test without FUSE (fails it under CI).
func needFUSE(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/dev/fuse"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no FUSE: %v", err)
		}
		t.Skipf("no FUSE: %v", err)
	}
}

// gameTree copies the sample tree n times over under Units/ (models only; one Textures/).
func gameTree(t *testing.T, n int) string {
	t.Helper()
	src := t.TempDir()
	if err := os.CopyFS(src, os.DirFS(sample)); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		for _, m := range []string{"Crate.mdl", "Crate.mdx", "Swinger.mdl", "Swinger.mdx"} {
			data, err := os.ReadFile(filepath.Join(sample, "Units", m))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(src, "Units", fmt.Sprintf("%03d%s", i, m)), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return src
}

// treeCount counts the models and the textures under root.
func treeCount(t *testing.T, root string) (models, textures int) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil || !d.Type().IsRegular():
		case codec.IsModelName(p):
			models++
		case codec.IsTextureName(p):
			textures++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return models, textures
}

// checkMounted reads every virtual document under mnt and compares it with convert's output
// for the tree at src; it returns how many it checked.
func checkMounted(t *testing.T, src, mnt string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(mnt, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, _ := filepath.Rel(mnt, p)
		kind, ok := translate.KindOf(filepath.Ext(rel))
		if !ok || kind == translate.PNG {
			return nil
		}
		got, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out := filepath.Join(t.TempDir(), filepath.Base(rel))
		model := strings.TrimSuffix(rel, filepath.Ext(rel))
		if code, _, errs := runCLI(t, "convert", "--root", src, filepath.Join(src, model), "-o", out); code != exitOK {
			return fmt.Errorf("convert %s: %s", model, errs)
		}
		want, _ := os.ReadFile(out)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the mount serves %d bytes, convert writes %d", rel, len(got), len(want))
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Acceptance: the daemon killed 20 times while it writes the cache directory, then a remount
// on it serves every file exactly as convert writes it.
func TestKilledDaemonLeavesASoundCache(t *testing.T) {
	needFUSE(t)
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("a killed mount is unmounted with umount(2), which needs root")
		}
		t.Skip("a killed mount is unmounted with umount(2), which needs root")
	}
	src := gameTree(t, 40)
	dir := t.TempDir()
	mnt := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 20 {
		cmd := modelfsCmd("mount", "--cache-dir", dir, "--disk-cache-size", "4MiB", src, mnt)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the mount", func() bool { return isMounted(t, mnt) })
		readers := make(chan struct{})
		go func() { // read the models in a different order each round, until the daemon dies
			defer close(readers)
			ents, _ := os.ReadDir(filepath.Join(mnt, "Units"))
			rng := rand.New(rand.NewPCG(uint64(round), 5))
			for _, i := range rng.Perm(len(ents)) {
				if _, err := os.ReadFile(filepath.Join(mnt, "Units", ents[i].Name())); errors.Is(err, syscall.ENOTCONN) {
					return
				}
			}
		}()
		time.Sleep(time.Duration(20+rng.IntN(300)) * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()
		if err := syscall.Unmount(mnt, syscall.MNT_DETACH); err != nil {
			t.Fatalf("round %d: unmounting the killed mount: %v", round, err)
		}
		<-readers
	}
	m, err := fusefs.Mount(src, mnt, vfs.Options{CacheDir: dir, DiskCacheBytes: 4 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Unmount() })
	models, _ := treeCount(t, src)
	if n := checkMounted(t, src, mnt); n != models*5 {
		t.Errorf("checked %d documents; want %d", n, models*5)
	}
	st := m.Stats()
	if st.Reused == 0 || st.Disk.Corrupt != 0 {
		t.Errorf("after 20 kills: %d versions reused, %d damaged entries (want some, and none)", st.Reused, st.Disk.Corrupt)
	}
	t.Logf("after 20 kills: %d versions reused, %d translated, %d entries on disk", st.Reused, st.Translations, st.Disk.Entries)
}

// warm fills the cache; a mount then translates nothing; stats reports it; clear empties it.
func TestCacheCommands(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	models, textures := treeCount(t, sample)
	n := models + textures
	code, out, errs := runCLI(t, "cache", "warm", "--cache-dir", dir, "--progress", "none", sample)
	if code != exitOK || !strings.Contains(out, fmt.Sprintf("%d models and textures", n)) || !strings.Contains(out, "0 failed") {
		t.Fatalf("warm: exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = runCLI(t, "cache", "warm", "--cache-dir", dir, "--progress", "none", sample)
	if code != exitOK || !strings.Contains(out, fmt.Sprintf("0 translated, %d already in the cache", n)) {
		t.Errorf("a second warm: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "cache", "stats", "--cache-dir", dir)
	if code != exitOK || !strings.Contains(out, fmt.Sprintf(" %d entries", n)) {
		t.Errorf("stats: exit %d\n%s", code, out)
	}

	if _, err := os.Stat("/dev/fuse"); err == nil {
		mnt := t.TempDir()
		translations := 0
		m, err := fusefs.Mount(sample, mnt, vfs.Options{CacheDir: dir, OnTranslate: func(string) { translations++ }})
		if err != nil {
			t.Fatal(err)
		}
		abs, _ := filepath.Abs(sample)
		checkMounted(t, abs, mnt)
		if err := m.Unmount(); err != nil {
			t.Fatal(err)
		}
		if translations != 0 {
			t.Errorf("after warm, the mount translated %d times; want 0", translations)
		}
		code, out, _ = runCLI(t, "cache", "stats", "--cache-dir", dir)
		if !strings.Contains(out, "last mount of "+abs) || !strings.Contains(out, fmt.Sprintf("%d models and textures taken from the cache, 0 translated", n)) {
			t.Errorf("stats after a mount: exit %d\n%s", code, out)
		}
	}

	code, out, _ = runCLI(t, "cache", "clear", "--cache-dir", dir)
	if code != exitOK || !strings.Contains(out, fmt.Sprintf("removed %d entries", n)) {
		t.Errorf("clear: exit %d\n%s", code, out)
	}
	if _, out, _ = runCLI(t, "cache", "stats", "--cache-dir", dir); !strings.Contains(out, "0 entries") {
		t.Errorf("stats after clear:\n%s", out)
	}
	// A folder of other things is neither used nor cleared.
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "thesis.tex"), nil, 0o644)
	if code, _, errs := runCLI(t, "cache", "clear", "--cache-dir", other); code == exitOK || !strings.Contains(errs, "not a modelfs cache directory") {
		t.Errorf("clear of another folder: exit %d, %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(other, "thesis.tex")); err != nil {
		t.Error("clear removed someone's file")
	}
	// A warm with failures names them and exits 1.
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, "Broken.mdx"), []byte("MDLXbroken"), 0o644)
	code, out, _ = runCLI(t, "cache", "warm", "--cache-dir", dir, "--progress", "none", bad)
	if code != exitFailure || !strings.Contains(out, "Broken.mdx: ") || !strings.Contains(out, "1 failed") {
		t.Errorf("warm of a broken model: exit %d\n%s", code, out)
	}
}

// On a terminal, warm draws a progress bar.
func TestWarmProgressBar(t *testing.T) {
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("no script(1) to give the command a terminal")
	}
	dir := filepath.Join(t.TempDir(), "cache")
	tree := gameTree(t, 20)
	cmdline := fmt.Sprintf("MODELFS_TEST_MAIN=1 %q cache warm --cache-dir %q %q", os.Args[0], dir, tree)
	out, err := exec.Command(script, "-qec", cmdline, "/dev/null").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	models, textures := treeCount(t, tree)
	if !strings.Contains(string(out), "translating") || !strings.Contains(string(out), "%") || !strings.Contains(string(out), fmt.Sprintf("%d models and textures", models+textures)) {
		t.Errorf("no progress bar on a terminal:\n%q", out)
	}
	// Not on a terminal: no bar, the summary only.
	plain, err := modelfsCmd("cache", "warm", "--cache-dir", dir, tree).CombinedOutput()
	if err != nil || strings.Contains(string(plain), "translating") {
		t.Errorf("not on a terminal: %v\n%q", err, plain)
	}
}
