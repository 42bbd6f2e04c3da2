package fusefs

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelfs/modelfs/internal/testkit/corpus"
	_ "github.com/modelfs/modelfs/translate/all" // every source format
	"github.com/modelfs/modelfs/vfs"
)

// sampleDir returns testdata/sample.
func sampleDir(t *testing.T) string {
	return filepath.Join(corpus.RepoRoot(t), "testdata", "sample")
}

// sampleModels lists the shipped sample models as paths relative to the sample root.
var sampleModels = []string{"Units/Crate.mdl", "Units/Crate.mdx", "Units/Swinger.mdl", "Units/Swinger.mdx"}

// skipOrFail skips the test, or fails it under CI, where FUSE must work.
func skipOrFail(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf(format+" (CI must be able to mount)", args...)
	}
	t.Skipf(format, args...)
}

// logRecorder is a slog handler keeping every record for inspection.
type logRecorder struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (h *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (h *logRecorder) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.recs = append(h.recs, r.Clone())
	return nil
}
func (h *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *logRecorder) WithGroup(string) slog.Handler      { return h }

// count returns how many records at level have message msg.
func (h *logRecorder) count(level slog.Level, msg string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, r := range h.recs {
		if r.Level == level && r.Message == msg {
			n++
		}
	}
	return n
}

// mounted is a test mount.
type mounted struct {
	*Server
	dir  string // the mount point
	logs *logRecorder
}

// mountT mounts src for the test and unmounts it when the test ends.
func mountT(t *testing.T, src string, opt vfs.Options) *mounted {
	t.Helper()
	if _, err := os.Stat("/dev/fuse"); err != nil {
		skipOrFail(t, "no FUSE: %v", err)
	}
	logs := &logRecorder{}
	if opt.Logger == nil {
		opt.Logger = slog.New(logs)
	}
	mnt := t.TempDir()
	srv, err := Mount(src, mnt, opt)
	if err != nil {
		skipOrFail(t, "cannot mount: %v", err)
	}
	t.Cleanup(func() {
		deadline := time.Now().Add(10 * time.Second)
		for {
			err := srv.Unmount()
			if err == nil {
				break
			}
			if !errors.Is(err, syscall.EBUSY) || time.Now().After(deadline) {
				t.Errorf("unmount: %v", err)
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		srv.Wait()
	})
	return &mounted{Server: srv, dir: mnt, logs: logs}
}

// path returns the mount path of rel.
func (m *mounted) path(rel string) string { return filepath.Join(m.dir, filepath.FromSlash(rel)) }

// translations returns the translations so far.
func (m *mounted) translations() int64 { return m.Stats().Translations }

// copyFile copies src to dst, creating dst's directory.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dst, data)
}

func writeFile(t *testing.T, dst string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// sampleTextures are the textures of testdata/sample the sample models use.
var sampleTextures = []string{"Textures/Crate.blp", "Textures/Swinger.tga", "ReplaceableTextures/TeamColor/TeamColor00.blp"}

// sampleTree copies the sample models and their textures into a fresh directory and returns it.
func sampleTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, m := range append(slices.Clone(sampleModels), sampleTextures...) {
		copyFile(t, filepath.Join(sampleDir(t), m), filepath.Join(dir, m))
	}
	return dir
}

func sum(b []byte) string { return fmt.Sprintf("%x", sha256.Sum256(b)) }

// eventually polls cond until it returns nil or the deadline passes, then fails with its last error.
func eventually(t *testing.T, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not true after 10 s: %v", what, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// treeHash hashes every entry of dir: names, types, modes, sizes, mtimes, contents, link targets.
func treeHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(h, "%s\x00%v\x00%d\x00%d\x00", rel, fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		switch {
		case fi.Mode().IsRegular():
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			if _, err := io.Copy(h, f); err != nil {
				return err
			}
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			io.WriteString(h, target)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// names returns the names of entries.
func names(ents []os.DirEntry) string {
	var b strings.Builder
	for _, e := range ents {
		b.WriteString(e.Name())
		b.WriteByte('\n')
	}
	return b.String()
}

// bothTiers runs test without a disk tier, and with one in a fresh cache directory: what a
// mount promises holds either way.
func bothTiers(t *testing.T, test func(t *testing.T, opt vfs.Options)) {
	t.Run("memory", func(t *testing.T) { test(t, vfs.Options{}) })
	t.Run("disk", func(t *testing.T) { test(t, vfs.Options{CacheDir: t.TempDir()}) })
}
