// Command sweep translates every model of a folder of game files to every output kind and every
// texture to PNG, the way `modelfs convert --root DIR` does, runs the Khronos glTF Validator over
// every .gltf and .glb it made, and prints counts and the failures grouped by class: what a user
// with a game folder runs to see how much of it opens, and what the project measures with.
//
//	go run ./internal/sweep [-validator tools/gltf-validator/validate.mjs] [-keep OUT] DIR...
//
// The exit status is 0 when nothing was refused, crashed or failed validation, 1 otherwise.
package main

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/modelfs/modelfs/translate"
	_ "github.com/modelfs/modelfs/translate/all"
	"github.com/modelfs/modelfs/translate/codec"
)

func main() {
	validator := flag.String("validator", "tools/gltf-validator/validate.mjs", "the validator script (node); \"\" to skip validation")
	keep := flag.String("keep", "", "write the outputs under this folder (default: a temporary one, removed)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: go run ./internal/sweep [-validator FILE] [-keep OUT] DIR...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	out := *keep
	if out == "" {
		tmp, err := os.MkdirTemp("", "modelfs-sweep-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer os.RemoveAll(tmp)
		out = tmp
	}
	var r report
	for i, dir := range flag.Args() {
		if err := r.sweep(dir, filepath.Join(out, fmt.Sprint(i))); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if *validator != "" {
		if err := r.validate(*validator); err != nil {
			fmt.Fprintln(os.Stderr, "validator:", err)
			os.Exit(1)
		}
	}
	r.print(os.Stdout, *validator != "")
	if r.failed() {
		os.Exit(1)
	}
}

// report is what a sweep found.
type report struct {
	models, textures         int
	modelsOK, texturesOK     int
	warnings                 int
	gltfs                    []string
	validated, invalid       int
	refused, crashed, errors map[string][]string // class → files
}

func (r *report) note(m *map[string][]string, class, file string) {
	if *m == nil {
		*m = map[string][]string{}
	}
	(*m)[class] = append((*m)[class], file)
}

func (r *report) failed() bool {
	return len(r.refused) > 0 || len(r.crashed) > 0 || r.invalid > 0
}

// sweep translates everything under dir, writing the .gltf and .glb files (with the images
// the .gltf files refer to) under out.
func (r *report) sweep(dir, out string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	return fs.WalkDir(root.FS(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		switch {
		case codec.IsModelName(name):
			r.models++
			r.model(root, dir, name, out)
		case codec.IsTextureName(name):
			r.textures++
			r.texture(root, dir, name)
		}
		return nil
	})
}

// guard runs f, turning a panic into a crash of file.
func (r *report) guard(file string, f func()) {
	defer func() {
		if p := recover(); p != nil {
			r.note(&r.crashed, fmt.Sprint(p), file)
			fmt.Fprintf(os.Stderr, "crash in %s: %v\n%s", file, p, debug.Stack())
		}
	}()
	f()
}

func (r *report) model(root *os.Root, dir, name, out string) {
	file := filepath.Join(dir, name)
	r.guard(file, func() {
		data, err := fs.ReadFile(codec.RootFS(root), name)
		if err != nil {
			r.note(&r.refused, classOf(err), file)
			return
		}
		src := codec.Source{Name: name, Data: data, FS: codec.RootFS(root)}
		s, _, err := translate.Decode(src)
		if err != nil {
			r.note(&r.refused, classOf(err), file)
			return
		}
		for _, t := range s.Textures {
			if img, res := t.ImagePath(), t.Resolved; img != "" && res != "" {
				writeImage(root, res, img, out)
			}
		}
		outs, errs := translate.Outputs(src, s, translate.Kinds, translate.EncodeOptions{MTLName: path.Base(name) + ".mtl"})
		ok := true
		for i, k := range translate.Kinds {
			if errs[i] != nil {
				r.note(&r.refused, string(k)+": "+classOf(errs[i]), file)
				ok = false
				continue
			}
			if k == translate.JSON { // its warnings hold the textures' notes too
				var doc struct{ Warnings []string }
				if json.Unmarshal(outs[i], &doc) == nil {
					r.warnings += len(doc.Warnings)
				}
			}
			if k == translate.GLTF || k == translate.GLB {
				p := filepath.Join(out, filepath.FromSlash(name)+"."+string(k))
				if os.MkdirAll(filepath.Dir(p), 0o755) == nil && os.WriteFile(p, outs[i], 0o644) == nil {
					r.gltfs = append(r.gltfs, p)
				}
			}
		}
		s.Release()
		if ok {
			r.modelsOK++
		}
	})
}

// writeImage writes where a .gltf refers to it the image of the texture file res: the file
// itself, or its PNG translation at img (as the mount shows them).
func writeImage(root *os.Root, res, img, out string) {
	p := filepath.Join(out, filepath.FromSlash(img))
	if _, err := os.Stat(p); err == nil {
		return
	}
	data, err := root.ReadFile(res)
	if err != nil {
		return
	}
	if img != res {
		if data, err = translate.ConvertTexture(res, data); err != nil {
			return
		}
	}
	if os.MkdirAll(filepath.Dir(p), 0o755) == nil {
		os.WriteFile(p, data, 0o644)
	}
}

func (r *report) texture(root *os.Root, dir, name string) {
	file := filepath.Join(dir, name)
	r.guard(file, func() {
		data, err := fs.ReadFile(codec.RootFS(root), name)
		if err == nil {
			_, err = translate.ConvertTexture(name, data)
		}
		if err != nil {
			r.note(&r.refused, classOf(err), file)
			return
		}
		r.texturesOK++
	})
}

var (
	numbers = regexp.MustCompile(`\d+`)
	quoted  = regexp.MustCompile(`"[^"]*"`)
)

// classOf names the class of a failure: its format and message with the numbers and quoted
// names taken out, so that one defect in many files counts as one class.
func classOf(err error) string {
	msg := err.Error()
	var fe *codec.FormatError
	if errors.As(err, &fe) {
		msg = fe.Format + ": " + fe.Msg
		if fe.Err != nil {
			msg += ": " + fe.Err.Error()
		}
	}
	msg = quoted.ReplaceAllString(msg, `"…"`)
	return numbers.ReplaceAllString(msg, "N")
}

// validate runs the validator script over every .gltf and .glb made.
func (r *report) validate(script string) error {
	if len(r.gltfs) == 0 {
		return nil
	}
	cmd := exec.Command("node", script, "-")
	cmd.Stdin = strings.NewReader(strings.Join(r.gltfs, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var line struct {
			File     string `json:"file"`
			Errors   int    `json:"errors"`
			Messages []struct {
				Code     string `json:"code"`
				Severity int    `json:"severity"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			return fmt.Errorf("reading its output: %w", err)
		}
		r.validated++
		if line.Errors > 0 {
			r.invalid++
			for _, m := range line.Messages {
				if m.Severity == 0 {
					r.note(&r.errors, m.Code, line.File)
				}
			}
		}
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("%v: %s", err, stderr.String())
	}
	return nil
}

// print writes the counts and the failures by class, the largest first, each with up to three
// files.
func (r *report) print(w io.Writer, validated bool) {
	fmt.Fprintf(w, "models:   %d, %d translated to every kind, %d with a refusal (%d warnings in all)\n", r.models, r.modelsOK, r.models-r.modelsOK, r.warnings)
	fmt.Fprintf(w, "textures: %d, %d converted, %d refused\n", r.textures, r.texturesOK, r.textures-r.texturesOK)
	crashes := 0
	for _, f := range r.crashed {
		crashes += len(f)
	}
	fmt.Fprintf(w, "crashes:  %d\n", crashes)
	if validated {
		fmt.Fprintf(w, "glTF:     %d validated, %d with errors\n", r.validated, r.invalid)
	} else {
		fmt.Fprintf(w, "glTF:     %d made, not validated\n", len(r.gltfs))
	}
	for _, g := range []struct {
		title string
		m     map[string][]string
	}{{"refused", r.refused}, {"crashed", r.crashed}, {"validator errors", r.errors}} {
		if len(g.m) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s, by class:\n", g.title)
		classes := make([]string, 0, len(g.m))
		for c := range g.m {
			classes = append(classes, c)
		}
		slices.SortFunc(classes, func(a, b string) int { return cmp.Or(len(g.m[b])-len(g.m[a]), strings.Compare(a, b)) })
		for _, c := range classes {
			files := g.m[c]
			fmt.Fprintf(w, "  %5d  %s\n", len(files), c)
			for _, f := range files[:min(3, len(files))] {
				fmt.Fprintf(w, "         %s\n", f)
			}
		}
	}
}
