package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelfs/modelfs/internal/testkit/corpus"
	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/vfs"
	"github.com/modelfs/modelfs/vfs/fusefs"
)

// outputs maps every file under dir (slash-separated, relative) to its content.
func outputs(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// failureDocument reports whether b, the document rel, is one saying why its source failed.
func failureDocument(rel string, b []byte) bool {
	if strings.HasSuffix(rel, ".png") {
		return translate.IsFailurePNG(b)
	}
	return bytes.Contains(b, []byte("error"))
}

// convert -r writes every document of the sample tree and the corpus (archives included) with
// the mount's names and bytes, leaves the sources out, and a second run writes nothing.
func TestConvertTree(t *testing.T) {
	if _, err := os.Stat("/dev/fuse"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no FUSE: %v", err)
		}
		t.Skipf("no FUSE: %v", err)
	}
	trees := map[string]string{"sample": sample}
	if dir := corpus.Optional(t); dir != "" {
		trees["corpus"] = dir
	}
	for name, src := range trees {
		t.Run(name, func(t *testing.T) {
			out, cache := t.TempDir(), t.TempDir()
			// Models the mount cannot translate are failures of convert -r too (exit 1).
			code, stdout, errs := runCLI(t, "convert", "-r", "--cache-dir", cache, "--progress", "lines", src, out)
			if code != exitOK && code != exitFailure {
				t.Fatalf("convert -r: exit %d: %s%s", code, stdout, errs)
			}
			got := outputs(t, out)
			mnt := t.TempDir()
			srv, err := fusefs.Mount(src, mnt, vfs.Options{CacheDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { srv.Unmount() })
			docs, failed := 0, 0
			filepath.WalkDir(mnt, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				rel, _ := filepath.Rel(mnt, p)
				rel = filepath.ToSlash(rel)
				// A document: no such file in SRC, and its source beside it in the mount.
				if _, err := os.Lstat(filepath.Join(src, rel)); err == nil {
					return nil
				}
				if fi, err := os.Stat(strings.TrimSuffix(p, filepath.Ext(p))); err != nil || !fi.Mode().IsRegular() {
					return nil
				}
				want, err := os.ReadFile(p)
				// A document that says why its source failed (see translate.FailureDocument)
				// is a failure of convert -r, which names it and writes nothing.
				shown := err == nil && strings.Contains(stdout+errs, "failed: "+rel+": ")
				if errors.Is(err, syscall.EIO) || shown {
					failed++
					if _, ok := got[rel]; ok || !strings.Contains(stdout+errs, rel) {
						t.Errorf("%s fails in the mount; convert -r wrote it (%v) or did not name it failed", rel, ok)
					}
					if shown && !failureDocument(rel, want) {
						t.Errorf("%s: convert -r names it failed, and the mount serves %d bytes that do not say why", rel, len(want))
					}
					return nil
				}
				docs++
				if err != nil {
					t.Errorf("%s: %v", rel, err)
					return nil
				}
				if b, ok := got[rel]; !ok || !bytes.Equal(b, want) {
					t.Errorf("%s: convert -r wrote %d bytes (%v), the mount serves %d", rel, len(b), ok, len(want))
				}
				return nil
			})
			if docs != len(got) || docs < 10 {
				t.Errorf("convert -r wrote %d files, the mount shows %d documents", len(got), docs)
			}
			if (failed == 0) != (code == exitOK) {
				t.Errorf("convert -r exit %d with %d documents failing in the mount", code, failed)
			}
			first := code
			before := snapshotTimes(t, out)
			code, stdout, errs = runCLI(t, "convert", "-r", "--cache-dir", cache, "--progress", "lines", src, out)
			if code != first || !strings.Contains(stdout, " 0 written") {
				t.Errorf("second run: exit %d: %s%s", code, stdout, errs)
			}
			if after := snapshotTimes(t, out); after != before {
				t.Error("the second run changed the outputs")
			}
		})
	}
}

// snapshotTimes describes every file under dir by name, size, time and inode.
func snapshotTimes(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil {
			fmt.Fprintln(&b, p, fi.ModTime().UnixNano(), fi.Size(), fi.Sys().(*syscall.Stat_t).Ino)
		}
		return err
	})
	return b.String()
}

// A failing model is reported, its .json holds the error document, and the exit status says so.
func TestConvertTreeFailure(t *testing.T) {
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "Broken.mdx"), []byte("MDLXVERS\x04\x00\x00\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	code, stdout, _ := runCLI(t, "convert", "-r", "--cache-dir", "off", "--progress", "lines", src, out)
	if code == exitOK || !strings.Contains(stdout, "Broken.mdx.gltf") || !strings.Contains(stdout, "failed") {
		t.Errorf("exit %d: %s", code, stdout)
	}
	if b, err := os.ReadFile(filepath.Join(out, "Broken.mdx.json")); err != nil || !bytes.Contains(b, []byte(`"error"`)) {
		t.Errorf("error document: %q, %v", b, err)
	}
	if code, _, errs := runCLI(t, "convert", "-r", src, filepath.Join(src, "out")); code != exitUsage {
		t.Errorf("an output folder inside the tree: exit %d: %s", code, errs)
	}
}

// On a terminal, convert -r draws a progress bar (run under script(1), which gives it one).
func TestConvertTreeProgressBar(t *testing.T) {
	scriptPath, err := exec.LookPath("script")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("script(1) not installed")
		}
		t.Skip("script(1) not installed")
	}
	bin := filepath.Join(t.TempDir(), "modelfs")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out := t.TempDir()
	cmd := exec.Command(scriptPath, "-qefc", bin+" convert -r --cache-dir off "+sample+" "+out, "/dev/null")
	cmd.Env = append(os.Environ(), "TERM=xterm")
	done := make(chan struct{})
	var tty []byte
	go func() { tty, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatal("convert -r under script did not finish in 2 minutes")
	}
	if err != nil {
		t.Fatalf("%v: %s", err, tty)
	}
	if !bytes.Contains(tty, []byte("converting")) || !bytes.Contains(tty, []byte("files")) || bytes.Contains(tty, []byte("converted ")) {
		t.Errorf("no progress bar on a terminal:\n%q", tty)
	}
}
