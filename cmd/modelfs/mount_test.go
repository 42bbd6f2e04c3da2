//go:build linux

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/vfs"
)

// parseMount parses a `modelfs mount` command line into its options.
func parseMount(t *testing.T, args ...string) (vfs.Options, error) {
	t.Helper()
	ctx, err := parse(append([]string{"mount"}, args...), io.Discard, io.Discard)
	if err != nil {
		return vfs.Options{}, err
	}
	c, ok := ctx.Selected().Target.Addr().Interface().(*mountCmd)
	if !ok {
		t.Fatalf("selected %T", ctx.Selected().Target.Interface())
	}
	return c.options()
}

func TestMountFlags(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", "/var/cache/someone")
	opt, err := parseMount(t, "src", "mnt")
	if err != nil {
		t.Fatal(err)
	}
	if opt.CacheBytes != 256<<20 || len(opt.Kinds) != 6 || opt.MaxParallel != 0 || opt.AllowOther || opt.Debug ||
		opt.CacheDir != "/var/cache/someone/modelfs" || opt.DiskCacheBytes != 0 {
		t.Errorf("defaults: %+v", opt)
	}
	if opt, err := parseMount(t, "--cache-dir", "off", "src", "mnt"); err != nil || opt.CacheDir != "" {
		t.Errorf("--cache-dir off: %q, %v", opt.CacheDir, err)
	}
	if opt, err := parseMount(t, "--cache-dir", "/srv/cache", "--disk-cache-size", "64MiB", "src", "mnt"); err != nil || opt.CacheDir != "/srv/cache" || opt.DiskCacheBytes != 64<<20 {
		t.Errorf("--cache-dir /srv/cache --disk-cache-size 64MiB: %q %d, %v", opt.CacheDir, opt.DiskCacheBytes, err)
	}
	opt, err = parseMount(t, "-o", "ro,allow_other", "-o", "debug", "--cache-size", "1G", "--formats", "glb,json", "--parallel", "3", "--option", "geosets=all", "src", "mnt")
	if err != nil {
		t.Fatal(err)
	}
	if !opt.AllowOther || !opt.Debug || opt.CacheBytes != 1<<30 || opt.MaxParallel != 3 || opt.DecoderOptions["geosets"] != "all" ||
		len(opt.Kinds) != 2 || opt.Kinds[0] != translate.GLB || opt.Kinds[1] != translate.JSON {
		t.Errorf("parsed: %+v", opt)
	}
	bad := []struct {
		args []string
		msg  string
	}{
		{[]string{"-o", "rw"}, "read-only"},
		{[]string{"-o", "ro,frobnicate"}, "unknown mount option"},
		{[]string{"--cache-size", "lots"}, "--cache-size"},
		{[]string{"--cache-size", "12XB"}, "unknown unit"},
		{[]string{"--disk-cache-size", "1M"}, "minimum"},
		{[]string{"--disk-cache-size", "much"}, "--disk-cache-size"},
		{[]string{"--formats", "gltf,fbx"}, "unknown kind"},
		{[]string{"--formats", "gltf,gltf"}, "twice"},
		{[]string{"--parallel=-1"}, "between 1 and 256"},
		{[]string{"--parallel", "100000"}, "between 1 and 256"},
		{[]string{"--cache-size", "1"}, "minimum of 16MiB"},
		{[]string{"--cache-size=-1"}, "cannot be negative"},
		{[]string{"--cache-size", "-1"}, "cannot be negative"},
		{[]string{"--memory-limit", "1"}, "minimum of 64MiB"},
		{[]string{"--max-source-size", "1K"}, "between 1MiB and 512MiB"},
		{[]string{"--max-source-size", "1G"}, "between 1MiB and 512MiB"},
		{[]string{"--option", "geosets=few"}, "want all or default"},
		{[]string{"--option", "colour=blue"}, "unknown decoder option"},
	}
	for _, tc := range bad {
		_, err := parseMount(t, append(tc.args, "src", "mnt")...)
		if err == nil || !strings.Contains(err.Error(), tc.msg) || exitCode(err) != exitUsage {
			t.Errorf("%v: %v; want a usage error with %q", tc.args, err, tc.msg)
		}
	}
	if code, _, errs := runCLI(t, "mount", "-o", "rw", "a", "b"); code != exitUsage || !strings.Contains(errs, "read-only") {
		t.Errorf("mount -o rw: exit %d, %q", code, errs)
	}
	if code, _, _ := runCLI(t, "mount", "onlyone"); code != exitUsage {
		t.Errorf("mount with one argument: exit %d", code)
	}
}

func TestCacheDir(t *testing.T) {
	env := func(xdg string) func(string) string {
		return func(k string) string {
			if k == "XDG_CACHE_HOME" {
				return xdg
			}
			return ""
		}
	}
	home := func() (string, error) { return "/home/artist", nil }
	noHome := func() (string, error) { return "", os.ErrNotExist }
	for _, tc := range []struct {
		flag, xdg string
		home      func() (string, error)
		want, err string
	}{
		{"", "", home, "/home/artist/.cache/modelfs", ""},
		{"", "/xdg", home, "/xdg/modelfs", ""},
		{"", "relative/xdg", home, "/home/artist/.cache/modelfs", ""}, // the spec says to ignore it
		{"mine", "/xdg", home, "mine", ""},
		{"OFF", "/xdg", home, "", ""},
		{"", "", noHome, "", "no home directory"},
	} {
		got, err := cacheDir(tc.flag, env(tc.xdg), tc.home)
		if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("cacheDir(%q, XDG %q) = %q, %v; want %q, %q", tc.flag, tc.xdg, got, err, tc.want, tc.err)
		}
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{
		"256MiB": 256 << 20, "512M": 512 << 20, "1G": 1 << 30, "1g": 1 << 30, "100": 100, "64k": 64 << 10,
		"1.5G": 3 << 29, "2MB": 2e6, "1 GiB": 1 << 30, "10B": 10,
	} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1G", "G", "1Q", "1e3"} {
		if got, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) = %d; want an error", in, got)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for the logger and the test to share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// isMounted reports whether dir is a mount point in /proc/self/mountinfo.
func isMounted(t *testing.T, dir string) bool {
	t.Helper()
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if f := strings.Fields(line); len(f) > 4 && f[4] == dir {
			return true
		}
	}
	return false
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after 10 s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The mount command serves until its stop signal, retries the unmount while the mount is busy,
// and exits 0 after a clean unmount; the served document is what convert writes.
func TestMountCommand(t *testing.T) {
	if _, err := os.Stat("/dev/fuse"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no FUSE: %v", err)
		}
		t.Skipf("no FUSE: %v", err)
	}
	stop := make(chan os.Signal, 1)
	saved := stopSignals
	stopSignals = func() (<-chan os.Signal, func()) { return stop, func() {} }
	t.Cleanup(func() { stopSignals = saved })

	mnt := t.TempDir()
	var stderr syncBuffer
	exit := make(chan int, 1)
	go func() {
		exit <- run([]string{"mount", "--cache-size", "64MiB", "--cache-dir", t.TempDir(), "-o", "ro", sample, mnt}, io.Discard, &stderr)
	}()
	t.Cleanup(func() {
		if isMounted(t, mnt) {
			syscall.Unmount(mnt, syscall.MNT_DETACH)
		}
	})

	// Wait for the "mounted" line, not just for the mount table: until Mount returns, go-fuse has
	// not yet told the kernel that it does not poll, and a file of the mount opened by this
	// process (the one serving it) could then deadlock the Go runtime in epoll_ctl.
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(stderr.String(), "msg=mounted") {
		select {
		case code := <-exit:
			msg := "mount exited early: exit %d: %s"
			if os.Getenv("CI") == "true" {
				t.Fatalf(msg, code, stderr.String())
			}
			t.Skipf(msg, code, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("not mounted after 10 s: %s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}

	got, err := os.ReadFile(filepath.Join(mnt, "Units", "Swinger.mdx.gltf"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "Swinger.mdx.gltf")
	if code, _, errs := runCLI(t, "convert", "--root", sample, filepath.Join(sample, "Units", "Swinger.mdx"), "-o", out); code != exitOK {
		t.Fatalf("convert: exit %d: %s", code, errs)
	}
	if want, _ := os.ReadFile(out); !bytes.Equal(got, want) {
		t.Fatalf("the mount serves %d bytes, convert writes %d", len(got), len(want))
	}

	// SIGUSR1 logs the counters.
	syscall.Kill(os.Getpid(), syscall.SIGUSR1)
	waitFor(t, "the stats line", func() bool { return strings.Contains(stderr.String(), "msg=stats translations=") })

	// Keep the mount busy, ask it to stop, and see it wait and retry.
	busy, err := os.Open(filepath.Join(mnt, "Units", "Crate.mdx"))
	if err != nil {
		t.Fatal(err)
	}
	stop <- syscall.SIGTERM
	waitFor(t, "busy message", func() bool { return strings.Contains(stderr.String(), "busy") })
	if !isMounted(t, mnt) {
		t.Fatal("unmounted while a file was open")
	}
	busy.Close()

	select {
	case code := <-exit:
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("still running 20 s after the stop signal: %s", stderr.String())
	}
	if isMounted(t, mnt) {
		t.Fatal("still mounted after exit")
	}
	logs := stderr.String()
	for _, want := range []string{"msg=mounted", "msg=unmounted"} {
		if strings.Count(logs, want) != 1 {
			t.Errorf("log lacks one %q:\n%s", want, logs)
		}
	}
}

func TestMemoryLimit(t *testing.T) {
	noEnv := func(string) string { return "" }
	cases := []struct {
		flag string
		env  string
		want int64
		err  string
	}{
		{flag: "", want: 64<<20 + memoryHeadroom},
		{flag: "off"},
		{flag: "0"},
		{flag: "1G", want: 1 << 30},
		{flag: "1G", env: "200MiB"}, // the runtime honours GOMEMLIMIT itself
		{flag: "lots", err: "--memory-limit"},
	}
	for _, tc := range cases {
		c := &mountCmd{treeFlags: treeFlags{MemoryLimit: tc.flag}}
		getenv := noEnv
		if tc.env != "" {
			getenv = func(k string) string {
				if k == "GOMEMLIMIT" {
					return tc.env
				}
				return ""
			}
		}
		got, err := c.memoryLimit(64<<20, getenv)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || exitCode(err) != exitUsage {
				t.Errorf("%q: %v; want a usage error with %q", tc.flag, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q (GOMEMLIMIT=%q): %d, %v; want %d", tc.flag, tc.env, got, err, tc.want)
		}
	}
}

// startDaemon runs `modelfs mount ARGS… SRC MNT` as a process of its own and waits for the
// mount; it is unmounted and stopped when the test ends.
func startDaemon(t *testing.T, src, mnt string, args ...string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	needFUSE(t)
	cmd := modelfsCmd(append(append([]string{"mount"}, args...), src, mnt)...)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			syscall.Unmount(mnt, syscall.MNT_DETACH)
		}
	})
	waitFor(t, "the mount", func() bool { return strings.Contains(stderr.String(), "msg=mounted") })
	return cmd, stderr
}

// peakRSS returns the VmHWM of process pid in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmHWM")
	return 0
}

// A 511 MiB sparse model stat'ed in every kind at once is refused by its size, before it is
// read: a clear error, and the daemon's peak memory stays within its limit plus 64 MiB.
func TestHugeSparseSource(t *testing.T) {
	src := t.TempDir()
	if err := os.CopyFS(src, os.DirFS(sample)); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(src, "Units", "Huge.mdx"))
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("MDLXVERS")
	if err := f.Truncate(511 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	mnt := t.TempDir()
	cmd, _ := startDaemon(t, src, mnt, "--cache-dir", "off")
	var wg sync.WaitGroup
	for _, k := range []string{"gltf", "glb", "obj", "mtl", "json"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			os.Stat(filepath.Join(mnt, "Units", "Huge.mdx."+k))
		}()
	}
	wg.Wait()
	doc, err := os.ReadFile(filepath.Join(mnt, "Units", "Huge.mdx.json"))
	if err != nil || !bytes.Contains(doc, []byte("--max-source-size")) {
		t.Errorf("Huge.mdx.json: %v\n%s\nwant an error naming --max-source-size", err, doc)
	}
	if _, err := os.ReadFile(filepath.Join(mnt, "Units", "Huge.mdx.glb")); !errors.Is(err, syscall.EFBIG) {
		t.Errorf("Huge.mdx.glb: %v, want EFBIG", err)
	}
	const limit = 256<<20 + memoryHeadroom // the default memory limit
	if peak := peakRSS(t, cmd.Process.Pid); peak > limit+64<<20 {
		t.Errorf("peak RSS %d MiB, more than the memory limit %d MiB + 64 MiB", peak>>20, limit>>20)
	} else {
		t.Logf("peak RSS %d MiB (memory limit %d MiB)", peak>>20, limit>>20)
	}
}

// A mount point inside the tree it would show is refused.
func TestMountInsideSource(t *testing.T) {
	src := t.TempDir()
	if err := os.Mkdir(filepath.Join(src, "mnt"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(filepath.Join(src, "mnt"), link); err != nil {
		t.Fatal(err)
	}
	for _, mnt := range []string{src, filepath.Join(src, "mnt"), link} {
		code, _, errs := runCLI(t, "mount", "--cache-dir", "off", src, mnt)
		if code == exitOK || !strings.Contains(errs, "inside the tree") {
			t.Errorf("mount %s %s: exit %d, %q; want a refusal", src, mnt, code, errs)
		}
	}
}

// A mount left stale by a daemon killed with SIGKILL is unmounted by the next mount on that
// point, which says so; with a file open, a second SIGTERM unmounts lazily and the open file
// reads on, and the daemon exits once it is closed.
func TestStaleMountAndForcedStop(t *testing.T) {
	src := t.TempDir()
	if err := os.CopyFS(src, os.DirFS(sample)); err != nil {
		t.Fatal(err)
	}
	mnt := t.TempDir()
	first, _ := startDaemon(t, src, mnt, "--cache-dir", "off")
	first.Process.Kill()
	first.Wait()
	if _, err := os.Stat(filepath.Join(mnt, "Units")); !errors.Is(err, syscall.ENOTCONN) {
		t.Fatalf("after SIGKILL: %v, want ENOTCONN", err)
	}
	second, logs := startDaemon(t, src, mnt, "--cache-dir", "off")
	if !strings.Contains(logs.String(), "unmounted a stale mount") {
		t.Errorf("the new mount does not say it cleared the stale one:\n%s", logs)
	}
	busy, err := os.Open(filepath.Join(mnt, "Units", "Crate.mdl.gltf"))
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	second.Process.Signal(syscall.SIGTERM)
	waitFor(t, "busy message", func() bool { return strings.Contains(logs.String(), "busy") })
	second.Process.Signal(syscall.SIGTERM)
	waitFor(t, "the lazy unmount", func() bool { return !isMounted(t, mnt) })
	if b, err := io.ReadAll(busy); err != nil || len(b) == 0 {
		t.Errorf("reading the open file after the lazy unmount: %d bytes, %v", len(b), err)
	}
	busy.Close()
	exited := make(chan error, 1)
	go func() { exited <- second.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("daemon: %v\n%s", err, logs)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("daemon still running 10 s after its last file was closed:\n%s", logs)
	}
}

// A tree inside its mount point is refused too: the mount would hide it.
func TestMountAboveSource(t *testing.T) {
	mnt := t.TempDir()
	src := filepath.Join(mnt, "game")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI(t, "mount", "--cache-dir", "off", src, mnt); code == exitOK || !strings.Contains(errs, "would hide it") {
		t.Errorf("mount %s %s: exit %d, %q; want a refusal", src, mnt, code, errs)
	}
}

// SIGHUP, which a closing terminal sends, unmounts a foreground mount cleanly, as SIGTERM does,
// while a reader reads on; a background mount has no terminal and goes on serving. Go's default
// for SIGHUP ended the process and left the mount stale: every read after it failed.
func TestHangUp(t *testing.T) {
	src := t.TempDir()
	if err := os.CopyFS(src, os.DirFS(sample)); err != nil {
		t.Fatal(err)
	}
	doc := filepath.Join("Units", "Crate.mdl.gltf")

	mnt := t.TempDir()
	fg, logs := startDaemon(t, src, mnt, "--cache-dir", "off")
	if _, err := os.ReadFile(filepath.Join(mnt, doc)); err != nil {
		t.Fatal(err)
	}
	fg.Process.Signal(syscall.SIGHUP)
	exited := make(chan error, 1)
	go func() { exited <- fg.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("foreground mount after SIGHUP: %v\n%s", err, logs)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("foreground mount still running 20 s after SIGHUP:\n%s", logs)
	}
	if isMounted(t, mnt) {
		t.Error("still mounted after SIGHUP")
	}
	if _, err := os.Stat(mnt); err != nil {
		t.Errorf("the mount point after SIGHUP: %v (a stale mount?)", err)
	}
	if !strings.Contains(logs.String(), "hung up") {
		t.Errorf("the log does not say why it stopped:\n%s", logs)
	}

	needFUSE(t)
	bg := t.TempDir()
	if out, err := modelfsCmd(src, bg, "-o", "ro,cache_dir=off").CombinedOutput(); err != nil {
		t.Fatalf("background mount: %v: %s", err, out)
	}
	t.Cleanup(func() { syscall.Unmount(bg, syscall.MNT_DETACH) })
	pid := daemonOf(t, bg)
	if err := syscall.Kill(pid, syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if _, err := os.ReadFile(filepath.Join(bg, doc)); err != nil {
			t.Fatalf("background mount after SIGHUP: %v", err)
		}
		time.Sleep(25 * time.Millisecond)
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the background mount's exit", func() bool { return syscall.Kill(pid, 0) != nil })
	if isMounted(t, bg) {
		t.Error("the background mount is still mounted after SIGTERM")
	}
}

// daemonOf returns the pid of the process serving the mount at mnt.
func daemonOf(t *testing.T, mnt string) int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if args := strings.Split(string(cmdline), "\x00"); slices.Contains(args, mnt) {
			return pid
		}
	}
	t.Fatalf("no process serves %s", mnt)
	return 0
}
