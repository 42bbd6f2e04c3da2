package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
)

const sample = "../../testdata/sample"

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestUsage(t *testing.T) {
	tests := []struct {
		args     []string
		code     int
		inStderr string
		inStdout string
	}{
		{[]string{"--help"}, exitOK, "", "convert"},
		{[]string{"convert", "--help"}, exitOK, "", "--root"},
		{[]string{}, exitUsage, "expected", ""},
		{[]string{"convert", "x.mdx"}, exitUsage, "give the output file with -o", ""},
		{[]string{"bogus"}, exitUsage, "unexpected argument", ""},
		{[]string{"convert", filepath.Join(sample, "Units/Crate.mdx"), "-o", filepath.Join(t.TempDir(), "x.fbx")}, exitUsage, "cannot tell the output kind", ""},
		{[]string{"convert", "/no/such/file.mdx", "-o", "x.gltf"}, exitIO, "no such file", ""},
		{[]string{"convert", "--option", "hair=1", filepath.Join(sample, "Units/Crate.mdx"), "-o", filepath.Join(t.TempDir(), "x.gltf")}, exitUsage, "unknown decoder option", ""},
		{[]string{"convert", "--option", "geosets=few", filepath.Join(sample, "Units/Crate.mdx"), "-o", filepath.Join(t.TempDir(), "x.gltf")}, exitUsage, "want all or default", ""},
		{[]string{"convert", "--option", "geosets=all", filepath.Join(sample, "Units/Crate.mdx"), "-o", filepath.Join(t.TempDir(), "x.gltf")}, exitOK, "", ""},
		{[]string{"convert", filepath.Join(sample, "Units/Crate.mdx"), "--root", filepath.Join(sample, "Units/Sub"), "-o", "x.gltf"}, exitUsage, "not inside the root", ""},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errs := runCLI(t, tc.args...)
			if code != tc.code || !strings.Contains(errs, tc.inStderr) || !strings.Contains(out, tc.inStdout) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d with %q / %q", code, out, errs, tc.code, tc.inStdout, tc.inStderr)
			}
		})
	}
}

func TestConvertWritesEveryKind(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(sample, "Units/Swinger.mdx")
	for _, k := range []string{"gltf", "glb", "obj", "json"} {
		out := filepath.Join(dir, "Swinger.mdx."+k)
		if code, _, errs := runCLI(t, "convert", "--root", sample, in, "-o", out); code != exitOK {
			t.Fatalf("convert → %s: exit %d: %s", k, code, errs)
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		// The file holds exactly what the pipeline produces for the model named by its path
		// under the root (what the mount will serve).
		data, _ := os.ReadFile(in)
		kind, _ := translate.KindOf(k)
		root, err := os.OpenRoot(sample)
		if err != nil {
			t.Fatal(err)
		}
		defer root.Close()
		src := codec.Source{Name: "Units/Swinger.mdx", Data: data, FS: codec.RootFS(root)}
		want, err := translate.Translate(src, kind,
			translate.EncodeOptions{MTLName: "Swinger.mdx.mtl"})
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s output differs from translate.Translate (%v)", k, err)
		}
	}
	obj, _ := os.ReadFile(filepath.Join(dir, "Swinger.mdx.obj"))
	if !bytes.Contains(obj, []byte("mtllib Swinger.mdx.mtl")) {
		t.Error("obj does not reference its mtl")
	}
	if _, err := os.Stat(filepath.Join(dir, "Swinger.mdx.mtl")); err != nil {
		t.Errorf("mtl not written beside the obj: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*tmp*")); len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

func TestConvertBadModel(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "Broken.mdx")
	data, err := os.ReadFile(filepath.Join(sample, "Units/Swinger.mdx"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "Broken.gltf")
	code, _, errs := runCLI(t, "convert", bad, "-o", out)
	if code != exitFailure {
		t.Fatalf("exit %d; want %d", code, exitFailure)
	}
	if lines := strings.Count(strings.TrimSpace(errs), "\n"); lines != 0 || !strings.Contains(errs, "Broken.mdx") || !strings.Contains(errs, "mdx") {
		t.Fatalf("stderr %q: want one line naming the file and the format", errs)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatal("a failed convert left an output file")
	}
}

func TestInfo(t *testing.T) {
	code, out, errs := runCLI(t, "info", filepath.Join(sample, "Units/Swinger.mdl"))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"Swinger.mdl", "Warcraft III model (text MDL)", "version 800", "Stand", "Attack", "meshes 2"} {
		if !strings.Contains(out, want) {
			t.Errorf("info output lacks %q:\n%s", want, out)
		}
	}
}

func TestConvertTexture(t *testing.T) {
	out := filepath.Join(t.TempDir(), "Crate.blp.png")
	if code, _, errs := runCLI(t, "convert", filepath.Join(sample, "Textures/Crate.blp"), "-o", out); code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	got, err := os.ReadFile(out)
	if err != nil || !bytes.HasPrefix(got, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("not a PNG (%v)", err)
	}
	bad := filepath.Join(t.TempDir(), "Bad.blp")
	if err := os.WriteFile(bad, []byte("BLP2junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI(t, "convert", bad, "-o", out+".2.png"); code != exitFailure || !strings.Contains(errs, "Bad.blp") {
		t.Fatalf("exit %d, stderr %q; want a one-line failure naming the file", code, errs)
	}
}

func TestConvertWritesImages(t *testing.T) {
	out := t.TempDir()
	gltfPath := filepath.Join(out, "Units", "Crate.mdx.gltf")
	if err := os.MkdirAll(filepath.Dir(gltfPath), 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI(t, "convert", "--root", sample, filepath.Join(sample, "Units/Crate.mdx"), "-o", gltfPath); code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	doc, _ := os.ReadFile(gltfPath)
	if !bytes.Contains(doc, []byte(`"uri":"../Textures/Crate.blp.png"`)) {
		t.Fatalf("the .gltf does not refer to ../Textures/Crate.blp.png")
	}
	png, err := os.ReadFile(filepath.Join(out, "Textures", "Crate.blp.png"))
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("image not written where the .gltf refers to it: %v", err)
	}
	// --embed-textures: a self-contained .gltf, nothing written beside it.
	alone := filepath.Join(t.TempDir(), "Crate.mdx.gltf")
	if code, _, errs := runCLI(t, "convert", "--embed-textures", "--root", sample, filepath.Join(sample, "Units/Crate.mdx"), "-o", alone); code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	doc, _ = os.ReadFile(alone)
	if bytes.Contains(doc, []byte(`Crate.blp.png"`)) || !bytes.Contains(doc, []byte(`"mimeType":"image/png"`)) {
		t.Fatal("--embed-textures did not embed the image")
	}
	if ents, _ := os.ReadDir(filepath.Dir(alone)); len(ents) != 1 {
		t.Fatalf("--embed-textures wrote %d files", len(ents))
	}
}

// convert takes file names as the file system has them: a backslash is part of a name, and
// bytes that are not UTF-8 are kept, in the model's name and the output's.
func TestConvertOddNames(t *testing.T) {
	dir := t.TempDir()
	crate, err := os.ReadFile(filepath.Join(sample, "Units/Crate.mdl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{`back\slash.mdl`, "bad\xff.mdl"} {
		in := filepath.Join(dir, name)
		if err := os.WriteFile(in, crate, 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, name+".glb")
		if code, _, errs := runCLI(t, "convert", in, "-o", out); code != exitOK {
			t.Errorf("convert %q: exit %d: %s", name, code, errs)
			continue
		}
		if _, err := os.Stat(out); err != nil {
			t.Errorf("convert %q: %v", name, err)
		}
	}
}

// The help texts name every format, extension and decoder option the registry holds, and
// every kind of virtual file.
func TestHelpTextsCurrent(t *testing.T) {
	help := func(args ...string) string {
		code, out, errs := runCLI(t, append(args, "--help")...)
		if code != exitOK {
			t.Fatalf("%v --help: exit %d\n%s", args, code, errs)
		}
		return strings.Join(strings.Fields(out), " ") // as wrapped for the terminal
	}
	top, convert, info, mount := help(), help("convert"), help("info"), help("mount")
	for _, f := range codec.Formats() {
		for _, ext := range f.Exts {
			if !strings.Contains(convert, ext) {
				t.Errorf("convert --help does not name %s (%s)", ext, f.Name)
			}
			if f.Decode != nil && !strings.Contains(info, ext) {
				t.Errorf("info --help does not name %s", ext)
			}
		}
		if f.Game != "" && !strings.Contains(top, f.Game) {
			t.Errorf("--help does not name %s", f.Game)
		}
		for _, o := range f.Options {
			if !strings.Contains(convert, o.Name+"=") || !strings.Contains(mount, o.Name+"=") {
				t.Errorf("convert or mount --help does not name the option %s", o.Name)
			}
		}
	}
	for _, kind := range []string{".gltf", ".glb", ".obj", ".mtl", ".json", ".png"} {
		if !strings.Contains(mount, kind) {
			t.Errorf("mount --help does not name %s", kind)
		}
	}
}

// --version names the program, the translator's version and the toolchain.
func TestVersion(t *testing.T) {
	code, out, _ := runCLI(t, "--version")
	if code != exitOK || !strings.HasPrefix(out, "modelfs ") || !strings.Contains(out, "translator ") {
		t.Errorf("--version: exit %d: %q", code, out)
	}
}

// info --json prints one JSON object with what the text summary says.
func TestInfoJSON(t *testing.T) {
	code, out, errs := runCLI(t, "info", "--json", sample+"/Units/Swinger.mdx")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var m modelInfo
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if m.Format != "mdx" || m.Meshes == 0 || len(m.Animations) == 0 || m.Animations[0].Name != "Stand" || len(m.Textures) == 0 {
		t.Errorf("summary: %+v", m)
	}
	code, out, errs = runCLI(t, "info", "--json", sample+"/Units/Nope.mdx")
	if code == exitOK || out != "" || !strings.Contains(errs, "Nope.mdx") {
		t.Errorf("a missing model: exit %d, %q, %q", code, out, errs)
	}
}

// serve webdav refuses a password file others may read, and anonymous serving beyond this
// machine unless asked for.
func TestServeRefusals(t *testing.T) {
	pw := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pw, []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--user", "a", "--password-file", pw}, "chmod 600"},
		{[]string{"--addr", ":0"}, "--allow-anonymous"},
		{[]string{"--addr", "0.0.0.0:0"}, "--allow-anonymous"},
		{[]string{"--addr", "[::]:0"}, "--allow-anonymous"},
	} {
		code, _, errs := runCLI(t, append(append([]string{"serve", "webdav"}, c.args...), "--cache-dir", "off", sample)...)
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("serve webdav %v: exit %d, %q; want a refusal naming %s", c.args, code, errs, c.want)
		}
	}
}

// Serving a model file instead of its folder says what to do.
func TestMountAModel(t *testing.T) {
	code, _, errs := runCLI(t, "mount", "--cache-dir", "off", filepath.Join(sample, "Units", "Crate.mdx"), t.TempDir())
	if code == exitOK || !strings.Contains(errs, "not a folder: give the folder that holds it") {
		t.Errorf("mount of a model: exit %d, %q", code, errs)
	}
}
