package meteor

import (
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelfs/modelfs/internal/testkit/corpus"
	"github.com/modelfs/modelfs/internal/testkit/gltfvalidate"
	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/metajson/metajsontest"
	"github.com/modelfs/modelfs/translate/scene"
)

// corpusSource opens a corpus file (path relative to the corpus root) as a Source with the
// corpus root as its root, as the mount does.
func corpusSource(t testing.TB, rel string) codec.Source {
	t.Helper()
	root, err := os.OpenRoot(corpus.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	data, err := fs.ReadFile(codec.RootFS(root), rel)
	if err != nil {
		t.Fatal(err)
	}
	return codec.Source{Name: rel, Data: data, FS: codec.RootFS(root)}
}

func corpusSkins(t *testing.T) []string {
	files := corpus.Files(t, "meteor", ".skc")
	if len(files) == 0 {
		t.Fatal("no .skc in the corpus")
	}
	dir := corpus.Dir(t)
	out := make([]string, len(files))
	for i, f := range files {
		rel, err := filepath.Rel(dir, f)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = filepath.ToSlash(rel)
	}
	return out
}

// worldBind composes the nodes' rest transforms into world transforms.
func worldBind(s *scene.Scene) []rigid {
	w := make([]rigid, len(s.Nodes))
	done := make([]bool, len(s.Nodes))
	var get func(i int) rigid
	get = func(i int) rigid {
		if !done[i] {
			n := s.Nodes[i]
			r := n.Rotation
			l := fromTR([3]float64{float64(n.Translation[0]), float64(n.Translation[1]), float64(n.Translation[2])},
				quat{float64(r[0]), float64(r[1]), float64(r[2]), float64(r[3])})
			if n.Parent >= 0 {
				l = get(n.Parent).mul(l)
			}
			w[i], done[i] = l, true
		}
		return w[i]
	}
	for i := range s.Nodes {
		get(i)
	}
	return w
}

// TestCorpus translates every .skc of the corpus and checks the skeleton against the mesh: in
// the bind pose every joint lies inside the mesh's box grown by 10 % of its size on each side, d_top is within 1 unit of
// the top, and the inverse bind matrices undo the world bind transforms.
func TestCorpus(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for _, rel := range corpusSkins(t) {
		t.Run(filepath.Base(rel), func(t *testing.T) {
			src := corpusSource(t, rel)
			s := mustDecode(t, src)
			if len(s.Nodes) != 36 || len(s.Skins) != 1 || len(s.Animations) == 0 {
				t.Fatalf("%d nodes, %d skins, %d animations", len(s.Nodes), len(s.Skins), len(s.Animations))
			}
			for _, w := range s.Warnings {
				t.Log("warning: " + w)
			}
			lo := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
			hi := [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
			for _, m := range s.Meshes {
				for _, p := range m.Positions {
					for k := range 3 {
						lo[k], hi[k] = min(lo[k], float64(p[k])), max(hi[k], float64(p[k]))
					}
				}
			}
			world := worldBind(s)
			top := -1
			for i, n := range s.Nodes {
				pos := world[i].t
				for k := range 3 {
					// Each side moves out by 10 % of the extent. (p0_300's coarse feet end short of
					// the toe joints: 3.103 against a box edge of 2.582 + 0.538.)
					grow := 0.1 * (hi[k] - lo[k])
					if pos[k] < lo[k]-grow || pos[k] > hi[k]+grow {
						t.Errorf("joint %s at %.3f lies outside the mesh box %.3f…%.3f (axis %d)", n.Name, pos, lo, hi, k)
						break
					}
				}
				if n.Name == "d_top" {
					top = i
				}
				// IBM · world = identity.
				ibm := s.Skins[0].InverseBind[i]
				w := world[i].mat4()
				for r := range 4 {
					for c := range 4 {
						v := 0.0
						for k := range 4 {
							v += float64(ibm[k*4+r]) * float64(w[c*4+k])
						}
						want := 0.0
						if r == c {
							want = 1
						}
						if math.Abs(v-want) > 1e-4 {
							t.Fatalf("joint %s: inverse bind · world bind [%d][%d] = %v", n.Name, r, c, v)
						}
					}
				}
			}
			if top < 0 {
				t.Fatal("no d_top")
			}
			if d := math.Abs(world[top].t[1] - hi[1]); d > 1 {
				t.Errorf("d_top at height %.3f, mesh top %.3f", world[top].t[1], hi[1])
			}
			t.Logf("mesh %.2f…%.2f, d_top at %.3f; %d meshes, %d animations", lo, hi, world[top].t[1], len(s.Meshes), len(s.Animations))
			doc, err := translate.Encode(s, translate.JSON, translate.EncodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := metajsontest.Validate(doc); err != nil {
				t.Errorf("metadata does not match the schema: %v", err)
			}
			// Write the glTF for the validator; textures are cleared because the .tga's PNG
			// translation exists only in the mount (the mount check covers images).
			for i := range s.Textures {
				s.Textures[i].Resolved = ""
			}
			for _, k := range []translate.Kind{translate.GLTF, translate.GLB} {
				out, err := translate.Encode(s, k, translate.EncodeOptions{})
				if err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(dir, strings.ReplaceAll(rel, "/", "_")+"."+string(k))
				if err := os.WriteFile(p, out, 0o644); err != nil {
					t.Fatal(err)
				}
				paths = append(paths, p)
			}
		})
	}
	gltfvalidate.Check(t, paths...)
}

// TestCorpusBindIsFrame0 checks, on every corpus skin, that the translated rest pose is frame 0
// of the character's .amb within 1e-4: the root's translation, every bone's rotation and every
// dummy's transform, in glTF axes, as the animations write them.
func TestCorpusBindIsFrame0(t *testing.T) {
	for _, rel := range corpusSkins(t) {
		t.Run(filepath.Base(rel), func(t *testing.T) {
			s := mustDecode(t, corpusSource(t, rel))
			char, _ := Character(rel)
			amb := corpusSource(t, path.Join(path.Dir(rel), char+".amb"))
			a, err := ParseAMB(amb.Data, amb.Name)
			if err != nil {
				t.Fatal(err)
			}
			r, ok := a.Record(0)
			if !ok || len(s.Nodes) != a.Bones+a.Dummies {
				t.Fatalf("frame 0 found %v; %d nodes for %d bones and %d dummies", ok, len(s.Nodes), a.Bones, a.Dummies)
			}
			worstQ, worstP := 0.0, 0.0
			rot := func(i int, wxyz [4]float32) {
				want := convQuat(float64(wxyz[0]), float64(wxyz[1]), float64(wxyz[2]), float64(wxyz[3]))
				worstQ = max(worstQ, quatDiff(s.Nodes[i].Rotation, want))
			}
			pos := func(i int, p [3]float32) {
				want := convPos32(p)
				for k := range 3 {
					worstP = max(worstP, math.Abs(float64(s.Nodes[i].Translation[k]-want[k])))
				}
			}
			pos(0, a.RootPos(r))
			for b := range a.Bones {
				rot(b, a.BoneQuat(r, b))
			}
			for d := range a.Dummies {
				df := a.Dummy(r, d)
				pos(a.Bones+d, df.Pos)
				rot(a.Bones+d, df.Quat)
			}
			t.Logf("rest pose vs frame 0: rotations within %.2g, translations within %.2g", worstQ, worstP)
			if worstQ > 1e-4 || worstP > 1e-4 {
				t.Errorf("the rest pose differs from frame 0: rotations by %g, translations by %g", worstQ, worstP)
			}
		})
	}
}

// TestCorpusFrame0 checks that frame 0 of each corpus .amb is the .bnc bind pose as printed:
// rotations within 1e-4, translations within 5e-4 (the .bnc prints them with three decimals;
// the translation uses frame 0's own values, see bindPose).
func TestCorpusFrame0(t *testing.T) {
	files := corpus.Files(t, "meteor", ".amb")
	if len(files) == 0 {
		t.Fatal("no .amb in the corpus")
	}
	for _, f := range files {
		ambData, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		char := strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
		var bnc []byte
		entries, _ := os.ReadDir(filepath.Dir(f))
		for _, e := range entries {
			if strings.EqualFold(e.Name(), char+".bnc") {
				bnc, err = os.ReadFile(filepath.Join(filepath.Dir(f), e.Name()))
				if err != nil {
					t.Fatal(err)
				}
			}
		}
		if bnc == nil {
			t.Fatalf("no skeleton beside %s", f)
		}
		sk, err := ParseBNC(bnc, char+".bnc")
		if err != nil {
			t.Fatal(err)
		}
		a, err := ParseAMB(ambData, f)
		if err != nil {
			t.Fatal(err)
		}
		if a.Bones != sk.Bones || a.Dummies != sk.Dummies() || a.FPS != 30 {
			t.Fatalf("%s: %d bones %d dummies %d fps; skeleton %d %d", f, a.Bones, a.Dummies, a.FPS, sk.Bones, sk.Dummies())
		}
		r, ok := a.Record(0)
		if !ok {
			t.Fatalf("%s: no frame 0", f)
		}
		pdiff := func(got [3]float32, want [3]float64) float64 {
			d := 0.0
			for k := range 3 {
				d = max(d, math.Abs(float64(got[k])-want[k]))
			}
			return d
		}
		worstQ, worstP := 0.0, 0.0
		for b := 0; b < a.Bones; b++ {
			worstQ = max(worstQ, quatDiff(a.BoneQuat(r, b), sk.Joints[b].Quat))
		}
		worstP = max(worstP, pdiff(a.RootPos(r), sk.Joints[0].Pivot))
		for d := 0; d < a.Dummies; d++ {
			j := sk.Joints[sk.Bones+d]
			df := a.Dummy(r, d)
			worstQ = max(worstQ, quatDiff(df.Quat, j.Quat))
			worstP = max(worstP, pdiff(df.Pos, j.Pivot))
			if p, ok := sk.Index(df.Parent); !ok || p != sk.Parents[sk.Bones+d] {
				t.Errorf("%s: dummy %s: frame 0 names parent %q, the skeleton %q", f, j.Name, df.Parent, j.Parent)
			}
		}
		t.Logf("%s: frame 0 vs bind pose: rotations within %.2g, translations within %.2g", filepath.Base(f), worstQ, worstP)
		if worstQ > 1e-4 || worstP > 5e-4 {
			t.Errorf("%s: frame 0 differs from the bind pose: rotations by %g, translations by %g", f, worstQ, worstP)
		}
	}
}
