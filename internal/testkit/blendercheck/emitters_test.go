package blendercheck

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/modelfs/modelfs/internal/testkit/corpus"
)

// TestEmittersMatchTheViewer holds every emitter parameter of every Warcraft III model's .json
// (the sample tree and the corpus, archives included, through the mount) equal to what
// mdx-m3-viewer's parser reads of the model, to 1e-4 of the value: static values, tracks (frames,
// values, tangents), flags, names and enumerations.
func TestEmittersMatchTheViewer(t *testing.T) {
	repo := corpus.RepoRoot(t)
	node, _ := renderTools(t, repo)
	trees := drawnTrees(t, repo)
	type model struct {
		file string
		doc  struct {
			Error  string `json:"error"`
			Extras struct {
				Emitters []map[string]any `json:"emitters"`
			} `json:"extras"`
		}
	}
	var models []*model
	for _, tree := range trees {
		mnt := mount(t, tree)
		err := filepath.WalkDir(mnt, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if ext := strings.ToLower(filepath.Ext(p)); ext != ".mdx" && ext != ".mdl" {
				return nil
			}
			m := &model{file: p}
			data, err := os.ReadFile(p + ".json")
			if err != nil {
				return err
			}
			if err := json.Unmarshal(data, &m.doc); err != nil {
				return fmt.Errorf("%s.json: %v", p, err)
			}
			if m.doc.Error == "" {
				models = append(models, m)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	args := []string{filepath.Join(repo, "tools", "mdx-parse", "emitters.mjs")}
	for _, m := range models {
		args = append(args, m.file)
	}
	cmd := exec.Command(node, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("emitters.mjs: %v\n%s", err, stderr.String())
	}
	ref := map[string]struct {
		Emitters []map[string]any `json:"emitters"`
		Error    string           `json:"error"`
	}{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 256<<20)
	for sc.Scan() {
		var line struct {
			File     string           `json:"file"`
			Emitters []map[string]any `json:"emitters"`
			Error    string           `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("emitters.mjs: %v", err)
		}
		ref[line.File] = struct {
			Emitters []map[string]any `json:"emitters"`
			Error    string           `json:"error"`
		}{line.Emitters, line.Error}
	}
	withEmitters, compared, values := 0, 0, 0
	for _, m := range models {
		r, ok := ref[m.file]
		name := m.file
		switch {
		case !ok:
			t.Errorf("%s: the viewer printed nothing", name)
			continue
		case r.Error != "":
			// The parser of mdx-m3-viewer 5.12 stops at what it does not know (Reforged's
			// newest chunks); such a model cannot be compared.
			t.Logf("%s: not compared: the viewer cannot read it: %s", name, r.Error)
			continue
		}
		got := m.doc.Extras.Emitters
		if len(r.Emitters) > 0 {
			withEmitters++
		}
		if len(got) != len(r.Emitters) {
			t.Errorf("%s: %d emitters, the viewer reads %d", name, len(got), len(r.Emitters))
			continue
		}
		for i, want := range r.Emitters {
			keys := make([]string, 0, len(want))
			for k := range want {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				g, present := got[i][k]
				if !present {
					t.Errorf("%s: emitter %d (%v) has no %q", name, i, want["name"], k)
					continue
				}
				values++
				if msg := sameValue(g, want[k]); msg != "" {
					t.Errorf("%s: emitter %d (%v) %s: %s", name, i, want["name"], k, msg)
				}
			}
		}
		compared++
	}
	t.Logf("%d models compared, %d with emitters, %d emitter values", compared, withEmitters, values)
	if withEmitters < 20 && os.Getenv("CI") == "true" {
		t.Errorf("only %d models with emitters compared", withEmitters)
	}
}

// sameValue compares a .json value with the viewer's, numbers to 1e-4 of their size; it
// returns what differs, or "".
func sameValue(got, want any) string {
	switch w := want.(type) {
	case float64:
		g, ok := got.(float64)
		if !ok {
			return fmt.Sprintf("%v, the viewer reads %v", got, want)
		}
		if math.Abs(g-w) > 1e-4*max(1, math.Abs(w)) {
			return fmt.Sprintf("%v, the viewer reads %v", g, w)
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Sprintf("%v, the viewer reads %v", got, want)
		}
		for i := range w {
			if msg := sameValue(g[i], w[i]); msg != "" {
				return fmt.Sprintf("[%d]: %s", i, msg)
			}
		}
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%v, the viewer reads the track %v", got, want)
		}
		for k, v := range w {
			gv, present := g[k]
			if !present {
				if x, empty := v.([]any); empty && len(x) == 0 {
					continue
				}
				return fmt.Sprintf("no %q", k)
			}
			if msg := sameValue(gv, v); msg != "" {
				return k + ": " + msg
			}
		}
	default:
		if got != want {
			return fmt.Sprintf("%v, the viewer reads %v", got, want)
		}
	}
	return ""
}
