package all_test

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/qmuntal/gltf"

	"github.com/modelfs/modelfs/internal/testkit/corpus"
	"github.com/modelfs/modelfs/internal/testkit/fixtures"
	"github.com/modelfs/modelfs/internal/testkit/gltfsample"
	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/anim"
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/internal/testkit/readback"
	"github.com/modelfs/modelfs/translate/scene"
	"github.com/modelfs/modelfs/translate/wc3"
	"github.com/modelfs/modelfs/translate/wc3/mdl"
	"github.com/modelfs/modelfs/translate/wc3/mdx"
	"github.com/modelfs/modelfs/translate/wc3/wc3test"
)

// TestWrittenAnimationsFollowTheSource closes the fidelity loop through the written file: every
// animation channel is read back from the encoded .gltf and .glb with qmuntal/gltf, sampled with
// the independent glTF sampler, and compared with the game's own evaluation of the source track
// (package anim), axis-converted, at many times; they must agree within the bake tolerance the
// .json notes for the node (plus the rounding of 16-bit rotations), or 1e-4. Then the whole
// skeleton: every node's place in the world, posed by the source tracks and by the file, must
// agree within the share of the model's size the bake is allowed all together.
func TestWrittenAnimationsFollowTheSource(t *testing.T) {
	type source struct {
		name  string
		raw   *wc3.Model
		src   codec.Source
		steps int // times sampled per channel
	}
	var sources []source
	paths := []string{filepath.Join(corpus.RepoRoot(t), "testdata/sample/Units/Swinger.mdl")}
	if corpus.Optional(t) != "" {
		paths = append(paths, corpus.Files(t, "wc3", ".mdl")...)
	}
	for _, p := range paths {
		src := load(t, model{filepath.Dir(p), filepath.Base(p)})
		raw, err := mdl.Read(src.Name, src.Data)
		if err != nil {
			t.Fatal(err)
		}
		sources = append(sources, source{filepath.Base(p), raw, src, 300})
	}
	if !testing.Short() {
		for _, h := range []struct {
			name string
			m    *wc3.Model
		}{{"HeavyMenu.mdx", fixtures.HeavyMenu()}, {"HeavyUnit.mdx", fixtures.HeavyUnit()}, {"HeavyMesh.mdx", fixtures.HeavyMesh()}} {
			data, err := wc3test.MDX(h.m)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := mdx.Read(h.name, data)
			if err != nil {
				t.Fatal(err)
			}
			// Thousands of channels, each baked from many keys: fewer times per channel.
			sources = append(sources, source{h.name, raw, codec.Source{Name: h.name, Data: data}, 40})
		}
	}
	for _, c := range sources {
		t.Run(c.name, func(t *testing.T) {
			s, _, err := translate.Decode(c.src)
			if err != nil {
				t.Fatal(err)
			}
			for _, rb := range readback.Both(t, s) {
				kind, doc := rb.Kind, rb.Document
				checked := compareAnimations(t, c.raw, s, doc, c.steps)
				if checked == 0 && len(c.raw.Sequences) > 0 {
					t.Fatalf("%s: no channel compared", kind)
				}
				if kind == translate.GLB {
					compareSkeletons(t, c.raw, s, doc)
				}
			}
		})
	}
}

// sourceTrack returns node n's raw track for path, as the builder sees it.
func sourceTrack(raw *wc3.Model, objectID int32, path scene.Path) *wc3.Track {
	var found *wc3.Node
	visit := func(n *wc3.Node) {
		if n.ObjectID == objectID {
			found = n
		}
	}
	for i := range raw.Bones {
		visit(&raw.Bones[i].Node)
	}
	for i := range raw.Helpers {
		visit(&raw.Helpers[i])
	}
	for i := range raw.Attachments {
		visit(&raw.Attachments[i].Node)
	}
	if found == nil {
		return nil
	}
	switch path {
	case scene.PathTranslation:
		return found.Translation
	case scene.PathRotation:
		return found.Rotation
	}
	return found.Scaling
}

func compareAnimations(t *testing.T, raw *wc3.Model, s *scene.Scene, doc *gltf.Document, steps int) int {
	t.Helper()
	byName := readback.Animations(doc)
	checked := 0
	for _, seq := range raw.Sequences {
		ga := byName[seq.Name]
		if ga == nil {
			continue // an animation with no channels is left out of the glTF
		}
		dur := float64(animationNamed(s, seq.Name).Duration)
		for _, ch := range ga.Channels {
			if ch.Target.Path == gltf.TRSWeights {
				continue // a geoset shown or hidden: compared by the appearance tests
			}
			n := int(*ch.Target.Node)
			if s.Nodes[n].Kind == scene.KindEffect {
				continue // baked particles shown at their moments: the effects tests check them
			}
			path := scene.Path(ch.Target.Path)
			oid, ok := s.Nodes[n].Extras["objectId"]
			if !ok {
				t.Fatalf("node %d has no objectId", n)
			}
			tr := sourceTrack(raw, toInt32(oid), path)
			if tr == nil {
				continue
			}
			smp := ga.Samplers[ch.Sampler]
			times, values := readback.Floats(t, doc, int(smp.Input)), readback.Floats(t, doc, int(smp.Output))
			width := path.Width()
			at := gameTrack(raw, tr, path)
			win := anim.Window{Start: int64(seq.Interval[0]), End: int64(seq.Interval[1])}
			rest := restOffset(s, n, path)
			for k := 0; k <= steps; k++ {
				tt := dur * float64(k) / float64(steps)
				want, err := anim.Sample(&at, win, tt*1000)
				if err != nil {
					t.Fatal(err)
				}
				want = convert(want, path, rest)
				got, err := gltfsample.Sample(smp.Interpolation.String(), times, values, width, float32(tt))
				if err != nil {
					t.Fatal(err)
				}
				if d := distance(want, got, path == scene.PathRotation); d > allowed(s, n, path) {
					t.Fatalf("%s node %s %s at %.4fs: source %v, glTF %v (|d| %g)", seq.Name, s.Nodes[n].Name, path, tt, want, got, d)
				}
			}
			checked++
		}
	}
	return checked
}

func toInt32(v any) int32 {
	switch x := v.(type) {
	case int32:
		return x
	case int:
		return int32(x)
	case int64:
		return int32(x)
	case float64:
		return int32(x)
	}
	return -1
}

func defaultFor(p scene.Path) []float32 {
	switch p {
	case scene.PathRotation:
		return []float32{0, 0, 0, 1}
	case scene.PathScale:
		return []float32{1, 1, 1}
	}
	return []float32{0, 0, 0}
}

// restOffset is what the builder adds to translation keys: the node's rest translation
// (pivot − parent pivot, already in glTF axes).
func restOffset(s *scene.Scene, n int, p scene.Path) [3]float64 {
	if p != scene.PathTranslation {
		return [3]float64{}
	}
	r := s.Nodes[n].Translation
	return [3]float64{float64(r[0]), float64(r[1]), float64(r[2])}
}

// convert takes a value from Warcraft III axes to glTF's, as the field notes say.
func convert(v []float64, p scene.Path, rest [3]float64) []float64 {
	switch p {
	case scene.PathRotation:
		return []float64{v[0], v[2], -v[1], v[3]}
	case scene.PathScale:
		return []float64{v[0], v[2], v[1]}
	}
	return []float64{v[0] + rest[0], v[2] + rest[1], -v[1] + rest[2]}
}

// allowed is how far a written sample of node n's track may be from the source: what the
// decoder allows it (noted in the node's extras, baking and rounding together), or 1e-4, and a
// tenth more for what the glTF sampler's normalised slerp, float32 times and the bake's model
// of the curve between its checks add.
func allowed(s *scene.Scene, n int, path scene.Path) float64 {
	note, _ := s.Nodes[n].Extras["animationTolerance"].(map[string]any)
	tol, _ := note[string(path)].(float64)
	return 1.1 * max(1e-4, tol)
}

// gameTrack is the source track tr of path as the game evaluates it.
func gameTrack(raw *wc3.Model, tr *wc3.Track, path scene.Path) anim.Track {
	at := anim.Track{Interp: anim.Interp(tr.Interp), Width: tr.Width, Rotation: path == scene.PathRotation,
		Values: tr.Values, InTans: tr.InTans, OutTans: tr.OutTans, Default: defaultFor(path)}
	at.Frames = make([]int64, len(tr.Frames))
	for i, f := range tr.Frames {
		at.Frames[i] = int64(f)
	}
	if tr.GlobalSeq >= 0 {
		at.Global, at.Period = true, int64(raw.GlobalSequences[tr.GlobalSeq])
	}
	return at
}

// distance is gltfsample.Distance after normalising a when it is a rotation.
func distance(a, b []float64, rotation bool) float64 {
	var la float64
	for i := range a {
		la += a[i] * a[i]
	}
	if rotation && la > 0 {
		// The game's rotation is compared normalised; glTF samplers normalise too.
		l := math.Sqrt(la)
		for i := range a {
			a[i] /= l
		}
	}
	return gltfsample.Distance(a, b, rotation)
}

// compareSkeletons poses every node by the source's tracks (the game's evaluation) and by the
// file's channels at many times of every animation, and checks that each node stands where
// the game puts it within 0.04 % of the model's size, well inside the Blender check's 0.1 %.
func compareSkeletons(t *testing.T, raw *wc3.Model, s *scene.Scene, doc *gltf.Document) {
	t.Helper()
	size := modelDiagonal(s)
	// The decoder budgets a quarter of the Blender check's 0.1 %; on a deep chain the floors
	// of its tolerances (as accurate as before it budgeted) can go a little past that.
	limit := 4e-4 * size
	byName := readback.Animations(doc)
	worst := 0.0
	for _, seq := range raw.Sequences {
		ga := byName[seq.Name]
		if ga == nil {
			continue
		}
		dur := float64(animationNamed(s, seq.Name).Duration)
		win := anim.Window{Start: int64(seq.Interval[0]), End: int64(seq.Interval[1])}
		channels := map[[2]int]*gltf.AnimationSampler{}
		for _, ch := range ga.Channels {
			channels[[2]int{int(*ch.Target.Node), scene.Path(ch.Target.Path).Index()}] = ga.Samplers[ch.Sampler]
		}
		read := map[int][]float32{}
		floats := func(acc int) []float32 {
			if v, ok := read[acc]; ok {
				return v
			}
			read[acc] = readback.Floats(t, doc, acc)
			return read[acc]
		}
		const steps = 40
		for k := 0; k <= steps; k++ {
			tt := dur * float64(k) / steps
			game := pose(s, func(n int, path scene.Path) []float64 {
				oid, _ := s.Nodes[n].Extras["objectId"]
				tr := sourceTrack(raw, toInt32(oid), path)
				if tr == nil {
					return nil
				}
				at := gameTrack(raw, tr, path)
				v, err := anim.Sample(&at, win, tt*1000)
				if err != nil {
					t.Fatal(err)
				}
				return convert(v, path, restOffset(s, n, path))
			})
			file := pose(s, func(n int, path scene.Path) []float64 {
				smp := channels[[2]int{n, path.Index()}]
				if smp == nil {
					return nil
				}
				v, err := gltfsample.Sample(smp.Interpolation.String(), floats(int(smp.Input)), floats(int(smp.Output)), path.Width(), float32(tt))
				if err != nil {
					t.Fatal(err)
				}
				return v
			})
			for n := range game {
				d := math.Sqrt(sq(game[n][0]-file[n][0]) + sq(game[n][1]-file[n][1]) + sq(game[n][2]-file[n][2]))
				worst = max(worst, d)
				if d > limit {
					t.Fatalf("%s at %.3fs: node %s stands %g from the game's place (limit %g, size %g)", seq.Name, tt, s.Nodes[n].Name, d, limit, size)
				}
			}
		}
	}
	t.Logf("skeleton: worst distance from the game's pose %.3g (%.2g of the size %.4g; limit %.3g)", worst, worst/size, size, limit)
}

func sq(x float64) float64 { return x * x }

// pose places every node of s in the world, each with the local translation, rotation and
// scale value returns (nil: the rest value), and returns their positions.
func pose(s *scene.Scene, value func(n int, path scene.Path) []float64) [][3]float64 {
	type affine [3][4]float64
	world := make([]affine, len(s.Nodes))
	done := make([]bool, len(s.Nodes))
	var place func(n int) affine
	place = func(n int) affine {
		if done[n] {
			return world[n]
		}
		nd := &s.Nodes[n]
		t := []float64{float64(nd.Translation[0]), float64(nd.Translation[1]), float64(nd.Translation[2])}
		q := []float64{float64(nd.Rotation[0]), float64(nd.Rotation[1]), float64(nd.Rotation[2]), float64(nd.Rotation[3])}
		sc := []float64{float64(nd.Scale[0]), float64(nd.Scale[1]), float64(nd.Scale[2])}
		if v := value(n, scene.PathTranslation); v != nil {
			t = v
		}
		if v := value(n, scene.PathRotation); v != nil {
			q = v
		}
		if v := value(n, scene.PathScale); v != nil {
			sc = v
		}
		l := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
		x, y, z, w := q[0]/l, q[1]/l, q[2]/l, q[3]/l
		r := [3][3]float64{
			{1 - 2*(y*y+z*z), 2 * (x*y - z*w), 2 * (x*z + y*w)},
			{2 * (x*y + z*w), 1 - 2*(x*x+z*z), 2 * (y*z - x*w)},
			{2 * (x*z - y*w), 2 * (y*z + x*w), 1 - 2*(x*x+y*y)},
		}
		var local affine
		for i := range 3 {
			for j := range 3 {
				local[i][j] = r[i][j] * sc[j]
			}
			local[i][3] = t[i]
		}
		if p := nd.Parent; p >= 0 {
			pw := place(p)
			var m affine
			for i := range 3 {
				for j := range 4 {
					m[i][j] = pw[i][0]*local[0][j] + pw[i][1]*local[1][j] + pw[i][2]*local[2][j]
					if j == 3 {
						m[i][j] += pw[i][3]
					}
				}
			}
			local = m
		}
		world[n], done[n] = local, true
		return local
	}
	out := make([][3]float64, len(s.Nodes))
	for n := range out {
		w := place(n)
		out[n] = [3]float64{w[0][3], w[1][3], w[2][3]}
	}
	return out
}

// modelDiagonal is the diagonal of the bounds of the scene's vertices.
func modelDiagonal(s *scene.Scene) float64 {
	lo, hi := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}, [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, m := range s.Meshes {
		for _, p := range m.Positions {
			for k := range 3 {
				lo[k], hi[k] = min(lo[k], float64(p[k])), max(hi[k], float64(p[k]))
			}
		}
	}
	return math.Sqrt(sq(hi[0]-lo[0]) + sq(hi[1]-lo[1]) + sq(hi[2]-lo[2]))
}

// animationNamed returns the scene's animation of that name (the decoder puts the default
// sequence first, so indices differ from the file's).
func animationNamed(s *scene.Scene, name string) *scene.Animation {
	for i := range s.Animations {
		if s.Animations[i].Name == name {
			return &s.Animations[i]
		}
	}
	return &scene.Animation{}
}
