package davfs

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelfs/modelfs/internal/testkit/corpus"
	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/vfs"
)

// need returns the path of the program name, or skips the test (fails it under CI, which
// installs every client: .ci/run).
func need(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s not installed: %v", name, err)
		}
		t.Skipf("%s not installed", name)
	}
	return p
}

func runTool(t *testing.T, stdin string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(os.Environ(), "RCLONE_CONFIG=/dev/null", "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}

// rclone (its webdav backend) copies the served sample tree and corpus: every file it gets
// has the size the listing gave and the bytes convert writes (a source: its own bytes); the
// source trees are unchanged afterwards.
func TestRclone(t *testing.T) {
	rclone := need(t, "rclone")
	trees := map[string]string{"sample": sampleTree(t)}
	if dir := corpus.Optional(t); dir != "" {
		trees["corpus"] = dir
	}
	for name, src := range trees {
		t.Run(name, func(t *testing.T) {
			before := snapshot(t, src)
			srv := serve(t, src, vfs.Options{CacheDir: t.TempDir()})
			remote := ":webdav,url='" + srv.URL + "/':"
			listing := runTool(t, "", rclone, "lsl", remote)
			sizes := map[string]int64{}
			for _, line := range strings.Split(strings.TrimSpace(listing), "\n") {
				f := strings.Fields(line)
				if len(f) < 4 {
					continue
				}
				n, err := strconv.ParseInt(f[0], 10, 64)
				if err != nil {
					continue
				}
				sizes[strings.Join(f[3:], " ")] = n
			}
			dst := t.TempDir()
			runTool(t, "", rclone, "copy", remote, dst)
			oracle := newOracle(t, src)
			files := 0
			err := filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				rel := filepath.ToSlash(must(filepath.Rel(dst, p)))
				got, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				if size, ok := sizes[rel]; !ok || size != int64(len(got)) {
					t.Errorf("%s: listed as %d bytes (listed: %v), copied %d", rel, size, ok, len(got))
				}
				if want := oracle.bytes(rel); !bytes.Equal(got, want) {
					t.Errorf("%s: %d bytes differ from the %d expected", rel, len(got), len(want))
				}
				files++
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if files != len(sizes) || files < 10 {
				t.Errorf("copied %d files, listed %d", files, len(sizes))
			}
			if after := snapshot(t, src); after != before {
				t.Error("the source tree changed")
			}
		})
	}
}

// oracle says what a served file must hold: a file of SRC its own bytes, a document what
// convert writes, an archive's entries what a tree without a front end (and without a cache)
// gives.
type oracle struct {
	t    *testing.T
	src  string
	fs   *fileSystem
	tree *vfs.Tree
}

func newOracle(t *testing.T, src string) *oracle {
	tree, err := vfs.Open(src, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tree.Close)
	shown, err := tree.Shown("")
	if err != nil {
		t.Fatal(err)
	}
	return &oracle{t: t, src: src, fs: &fileSystem{shown: shown}, tree: tree}
}

func (o *oracle) bytes(rel string) []byte {
	if data, err := os.ReadFile(filepath.Join(o.src, filepath.FromSlash(rel))); err == nil {
		return data
	}
	if srcName, kind, ok := o.tree.Virtual(path.Base(rel)); ok {
		src := path.Join(path.Dir(rel), srcName)
		if fi, err := os.Stat(filepath.Join(o.src, filepath.FromSlash(src))); err == nil && fi.Mode().IsRegular() {
			return translated(o.t, o.src, src, kind)
		}
	}
	it, err := o.fs.resolve(context.Background(), rel)
	if err != nil {
		o.t.Errorf("%s: %v", rel, err)
		return nil
	}
	f, err := open(context.Background(), it)
	if err != nil {
		it.Release()
		o.t.Errorf("%s: %v", rel, err)
		return nil
	}
	defer f.Close()
	var b bytes.Buffer
	if _, err := f.WriteTo(&b); err != nil {
		o.t.Errorf("%s: %v", rel, err)
	}
	return b.Bytes()
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// cadaver lists a folder with the documents' exact sizes and gets a document byte for byte;
// its put, delete, mkcol and move are refused.
func TestCadaver(t *testing.T) {
	cadaver := need(t, "cadaver")
	src := sampleTree(t)
	before := snapshot(t, src)
	srv := serve(t, src, vfs.Options{})
	want := translated(t, src, "Units/Crate.mdx", translate.GLTF)
	got := filepath.Join(t.TempDir(), "got.gltf")
	local := filepath.Join(t.TempDir(), "local.mdl")
	os.WriteFile(local, []byte("Model {}"), 0o644)
	out := runTool(t, strings.Join([]string{
		"ls /Units/",
		"get /Units/Crate.mdx.gltf " + got,
		"put " + local + " /Units/New.mdl",
		"delete /Units/Crate.mdl",
		"mkcol /NewFolder",
		"move /Units/Crate.mdl /Units/Moved.mdl",
		"quit",
	}, "\n")+"\n", cadaver, srv.URL+"/")
	if !regexp.MustCompile(`Crate\.mdx\.gltf\s+` + strconv.Itoa(len(want)) + `\s`).MatchString(out) {
		t.Errorf("cadaver ls lacks Crate.mdx.gltf with %d bytes:\n%s", len(want), out)
	}
	if b, err := os.ReadFile(got); err != nil || !bytes.Equal(b, want) {
		t.Errorf("cadaver get: %d bytes, %v; want %d", len(b), err, len(want))
	}
	if n := strings.Count(out, "403"); n < 4 {
		t.Errorf("cadaver's four writes should each be refused (403), got %d refusals:\n%s", n, out)
	}
	if after := snapshot(t, src); after != before {
		t.Error("the source tree changed")
	}
}

// curl's PROPFIND, GET and ranged GET agree with each other and with convert.
func TestCurl(t *testing.T) {
	curl := need(t, "curl")
	src := sampleTree(t)
	srv := serve(t, src, vfs.Options{})
	want := translated(t, src, "Units/Swinger.mdl", translate.GLB)
	url := srv.URL + "/Units/Swinger.mdl.glb"
	list := runTool(t, "", curl, "-sf", "-X", "PROPFIND", "-H", "Depth: 1", srv.URL+"/Units/")
	if !strings.Contains(list, "<D:href>/Units/Swinger.mdl.glb</D:href>") || !strings.Contains(list, "<D:getcontentlength>"+strconv.Itoa(len(want))+"</D:getcontentlength>") {
		t.Errorf("PROPFIND lacks Swinger.mdl.glb of %d bytes:\n%s", len(want), list)
	}
	dir := t.TempDir()
	whole, part := filepath.Join(dir, "whole"), filepath.Join(dir, "part")
	runTool(t, "", curl, "-sf", "-o", whole, url)
	runTool(t, "", curl, "-sf", "-r", "100-1099", "-o", part, url)
	if b, _ := os.ReadFile(whole); !bytes.Equal(b, want) {
		t.Errorf("GET: %d bytes, want %d", len(b), len(want))
	}
	if b, _ := os.ReadFile(part); !bytes.Equal(b, want[100:1100]) {
		t.Errorf("ranged GET: %d bytes", len(b))
	}
	code := runTool(t, "", curl, "-s", "-o", "/dev/null", "-w", "%{http_code}", "-T", whole, srv.URL+"/Units/Up.glb")
	if code != "403" {
		t.Errorf("curl -T: %s, want 403", code)
	}
}
