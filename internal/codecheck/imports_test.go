package codecheck

import (
	"errors"
	"go/build"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// module is the module's import path.
const module = "github.com/modelfs/modelfs"

// The layers the import rules speak of, by module-relative package path.
var (
	// A test kit: tests, benchmarks and scripts use it, product code never does.
	isKit = func(p string) bool {
		return slices.Contains(strings.Split(p, "/"), "testkit") || slices.Contains(namedKits, p)
	}
	// Decoders: the format packages, the registry they plug into and the scene they make.
	isDecoder = func(p string) bool {
		return !isKit(p) && underAny(p, "translate/codec", "translate/scene", "translate/anim", "translate/wc3",
			"translate/m2", "translate/wmo", "translate/meteor", "translate/elem", "translate/texture")
	}
	isEncoder = func(p string) bool {
		return !isKit(p) && underAny(p, "translate/gltfenc", "translate/objenc", "translate/metajson", "translate/pngenc")
	}
	// The pipeline: decode, then encode (translate), and the set of every format (translate/all).
	isPipeline = func(p string) bool { return p == "translate" || p == "translate/all" }
	isCache    = func(p string) bool { return p == "cache" }
	isTree     = func(p string) bool { return p == "vfs" }
	isFrontEnd = func(p string) bool { return p == "vfs/fusefs" || p == "vfs/davfs" || under(p, "cmd") }
	// Sources: the archive readers a tree is served from.
	isSource  = func(p string) bool { return !isKit(p) && underAny(p, "internal/mpq", "internal/archive") }
	isProduct = func(p string) bool { return !isKit(p) && p != "internal/codecheck" }
)

// namedKits are the test kits kept beside what they test, named …test as net/http/httptest
// is. A package is a kit by this list, not by its name alone: TestImportRules fails for a
// package named …test that is not on it, so that being exempt from the rules is a decision.
var namedKits = []string{
	"internal/archive/zipfs/ziptest",
	"internal/mpq/mpqtest",
	"internal/textnum/textnumtest",
	"translate/elem/elemtest",
	"translate/gltfenc/gltfjson/gltfjsontest",
	"translate/m2/m2test",
	"translate/metajson/metajsontest",
	"translate/meteor/meteortest",
	"translate/wc3/wc3test",
	"translate/wmo/wmotest",
	"vfs/vfstest",
}

// importRules are the module's layering. A rule binds the packages from selects: with
// transitive, nothing they reach through their imports (other than tests') may be banned;
// else none of their own imports.
var importRules = []struct {
	name       string
	from       func(string) bool
	transitive bool
	banned     func(string) bool
}{
	{"product code uses no test kit", isProduct, true, isKit},
	{"decoders reach no encoder, pipeline, cache, tree, source or front end", isDecoder, true,
		anyOf(isEncoder, isPipeline, isCache, isTree, isSource, isFrontEnd)},
	{"encoders reach no decoder format, pipeline, cache, tree or front end", isEncoder, true,
		func(p string) bool {
			return p != "translate/scene" && p != "translate/codec" && anyOf(isDecoder, isPipeline, isCache, isTree, isFrontEnd)(p)
		}},
	{"the cache reaches no translation, tree or front end", isCache, true,
		anyOf(isDecoder, isEncoder, isPipeline, isTree, isFrontEnd)},
	{"sources reach no pipeline, encoder, cache, tree or front end", isSource, true,
		anyOf(isPipeline, isEncoder, isCache, isTree, isFrontEnd)},
	{"the tree reaches no front end", isTree, true, isFrontEnd},
	{"the FUSE and WebDAV front ends import neither the pipeline nor the cache",
		func(p string) bool { return p == "vfs/fusefs" || p == "vfs/davfs" }, false,
		anyOf(isPipeline, isDecoder, isEncoder, isCache)},
}

// pendingImports are imports that break a rule, each listed until a step of work removes it;
// the test fails when one of them is gone, so that the list only shrinks. None today: the
// front ends' last imports of translate, codec and cache went with #32's first steps.
var pendingImports = []string{}

func under(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

func underAny(p string, dirs ...string) bool {
	return slices.ContainsFunc(dirs, func(d string) bool { return under(p, d) })
}

func anyOf(fs ...func(string) bool) func(string) bool {
	return func(p string) bool { return slices.ContainsFunc(fs, func(f func(string) bool) bool { return f(p) }) }
}

// TestImportRules holds the module's packages to importRules, on every system it builds for.
func TestImportRules(t *testing.T) {
	graph := moduleImports(t, "../..")
	for _, p := range []string{"translate", "translate/wc3/mdx", "translate/gltfenc", "vfs", "vfs/fusefs", "vfs/davfs", "cache", "internal/mpq", "internal/archive"} {
		if _, ok := graph[p]; !ok {
			t.Fatalf("package %s not found: the rules would hold of nothing", p)
		}
	}
	for p := range graph {
		if strings.HasSuffix(path.Base(p), "test") && !isKit(p) {
			t.Errorf("%s is named as a test kit but is not on namedKits: add it there, or rename it", p)
		}
	}
	broken := breaches(graph)
	for _, b := range broken {
		if !slices.Contains(pendingImports, b.edge) {
			t.Errorf("%s: %s", b.rule, b.chain)
		}
	}
	for _, e := range pendingImports {
		if !slices.ContainsFunc(broken, func(b breach) bool { return b.edge == e }) {
			t.Errorf("%s no longer breaks a rule: take it off pendingImports", e)
		}
	}
}

// The rules catch what they forbid, directly and through other packages.
func TestImportRulesCatch(t *testing.T) {
	graph := map[string][]string{
		"translate/wc3/mdx":       {"translate/wc3", "translate/codec"},
		"translate/wc3":           {"translate/scene", "internal/helper"},
		"internal/helper":         {"translate/gltfenc"}, // a decoder reaches an encoder through it
		"translate/gltfenc":       {"translate/scene"},
		"translate/scene":         nil,
		"translate/codec":         {"translate/scene"},
		"vfs":                     {"cache", "translate"},
		"vfs/davfs":               {"vfs", "cache"}, // a front end imports the cache
		"cache":                   nil,
		"translate":               {"translate/codec", "translate/gltfenc", "internal/testkit/golden"}, // a kit
		"internal/testkit/golden": nil,
	}
	var got []string
	for _, b := range breaches(graph) {
		got = append(got, b.chain)
	}
	slices.Sort(got)
	want := []string{
		"translate -> internal/testkit/golden",
		"translate/wc3 -> internal/helper -> translate/gltfenc",
		"translate/wc3/mdx -> translate/wc3 -> internal/helper -> translate/gltfenc",
		"vfs -> translate -> internal/testkit/golden",
		"vfs/davfs -> cache",
		"vfs/davfs -> vfs -> translate -> internal/testkit/golden",
	}
	if !slices.Equal(got, want) {
		t.Errorf("breaches:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// breach is one package reaching what a rule forbids it.
type breach struct {
	rule  string
	edge  string // its first import on the way: "from -> to"
	chain string // the way, import by import
}

// breaches returns every breach of importRules in graph (module-relative package → its
// module-relative imports), one per rule, package and banned package, by the shortest way, in order.
func breaches(graph map[string][]string) []breach {
	var out []breach
	for _, r := range importRules {
		for p := range graph {
			if !r.from(p) {
				continue
			}
			// Breadth first from p, remembering how each package was reached.
			via := map[string]string{p: ""}
			queue := []string{p}
			for len(queue) > 0 {
				q := queue[0]
				queue = queue[1:]
				for _, d := range graph[q] {
					if _, seen := via[d]; seen {
						continue
					}
					via[d] = q
					if r.transitive {
						queue = append(queue, d)
					}
				}
			}
			for d := range via {
				if d == p || !r.banned(d) {
					continue
				}
				chain := []string{d}
				for q := via[d]; q != ""; q = via[q] {
					chain = append(chain, q)
				}
				slices.Reverse(chain)
				out = append(out, breach{rule: r.name, edge: chain[0] + " -> " + chain[1], chain: strings.Join(chain, " -> ")})
			}
		}
	}
	slices.SortFunc(out, func(a, b breach) int { return strings.Compare(a.rule+a.chain, b.rule+b.chain) })
	return out
}

// moduleImports returns the module's packages under root, each with the module's packages it
// imports outside its tests, on Linux, macOS and Windows together.
func moduleImports(t *testing.T, root string) map[string][]string {
	graph := map[string][]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if n := d.Name(); p != root && (n == "node_modules" || n == "testdata" || strings.HasPrefix(n, ".")) {
			return filepath.SkipDir
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		for _, goos := range []string{"linux", "darwin", "windows"} {
			ctxt := build.Default
			ctxt.GOOS = goos
			pkg, err := ctxt.ImportDir(p, 0)
			var none *build.NoGoError
			if errors.As(err, &none) {
				continue
			}
			if err != nil {
				return err
			}
			imps := graph[rel]
			for _, imp := range pkg.Imports {
				if own, ok := strings.CutPrefix(imp, module+"/"); ok && !slices.Contains(imps, own) {
					imps = append(imps, own)
				}
			}
			graph[rel] = imps
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return graph
}
