package all_test

import (
	"bytes"
	"math"
	"path/filepath"
	"testing"

	"github.com/qmuntal/gltf"

	"github.com/modelfs/modelfs/internal/corpus"
	"github.com/modelfs/modelfs/internal/gltfsample"
	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/anim"
	"github.com/modelfs/modelfs/translate/scene"
	"github.com/modelfs/modelfs/translate/wc3"
	"github.com/modelfs/modelfs/translate/wc3/mdl"
)

// TestWrittenAnimationsFollowTheSource closes the fidelity loop through the written file: every
// animation channel is read back from the encoded .gltf and .glb with qmuntal/gltf, sampled with
// the independent glTF sampler, and compared with the game's own evaluation of the source track
// (package anim), axis-converted, at many times; they must agree within 1e-4 (translations:
// within twice the share of the model's size the decoder bakes them to).
func TestWrittenAnimationsFollowTheSource(t *testing.T) {
	paths := []string{filepath.Join(corpus.RepoRoot(t), "testdata/sample/Units/Swinger.mdl")}
	paths = append(paths, corpus.Files(t, "wc3", ".mdl")...)
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			src := load(t, model{filepath.Dir(p), filepath.Base(p)})
			raw, err := mdl.Read(src.Name, src.Data)
			if err != nil {
				t.Fatal(err)
			}
			s, _, err := translate.Decode(src)
			if err != nil {
				t.Fatal(err)
			}
			for _, kind := range []translate.Kind{translate.GLTF, translate.GLB} {
				out, err := translate.Encode(s, kind, translate.EncodeOptions{})
				if err != nil {
					t.Fatal(err)
				}
				doc := new(gltf.Document)
				if err := gltf.NewDecoder(bytes.NewReader(out)).Decode(doc); err != nil {
					t.Fatalf("%s: read back: %v", kind, err)
				}
				checked := compareAnimations(t, raw, s, doc)
				if checked == 0 && len(raw.Sequences) > 0 {
					t.Fatalf("%s: no channel compared", kind)
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

func compareAnimations(t *testing.T, raw *wc3.Model, s *scene.Scene, doc *gltf.Document) int {
	t.Helper()
	byName := map[string]*gltf.Animation{}
	for _, a := range doc.Animations {
		byName[a.Name] = a
	}
	checked := 0
	for ai, seq := range raw.Sequences {
		ga := byName[seq.Name]
		if ga == nil {
			continue // an animation with no channels is left out of the glTF
		}
		dur := float64(s.Animations[ai].Duration)
		for _, ch := range ga.Channels {
			n := int(*ch.Target.Node)
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
			times, values := readFloats(t, doc, int(smp.Input)), readFloats(t, doc, int(smp.Output))
			width := path.Width()
			at := anim.Track{Interp: anim.Interp(tr.Interp), Width: tr.Width, Rotation: path == scene.PathRotation,
				Values: tr.Values, InTans: tr.InTans, OutTans: tr.OutTans, Default: defaultFor(path)}
			at.Frames = make([]int64, len(tr.Frames))
			for i, f := range tr.Frames {
				at.Frames[i] = int64(f)
			}
			if tr.GlobalSeq >= 0 {
				at.Global, at.Period = true, int64(raw.GlobalSequences[tr.GlobalSeq])
			}
			win := anim.Window{Start: int64(seq.Interval[0]), End: int64(seq.Interval[1])}
			rest := restOffset(s, n, path)
			for k := 0; k <= 300; k++ {
				tt := dur * float64(k) / 300
				want, err := anim.Sample(&at, win, tt*1000)
				if err != nil {
					t.Fatal(err)
				}
				want = convert(want, path, rest)
				got, err := gltfsample.Sample(smp.Interpolation.String(), times, values, width, float32(tt))
				if err != nil {
					t.Fatal(err)
				}
				if d := distance(want, got, path == scene.PathRotation); d > allowed(s, path) {
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

// allowed is how far a baked sample may be from the source: 1e-4, or for translations twice
// the tolerance the decoder bakes them with, a share of the model's size.
func allowed(s *scene.Scene, path scene.Path) float64 {
	if path != scene.PathTranslation {
		return 1e-4
	}
	lo, hi := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}, [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, m := range s.Meshes {
		for _, p := range m.Positions {
			for k := range 3 {
				lo[k], hi[k] = min(lo[k], float64(p[k])), max(hi[k], float64(p[k]))
			}
		}
	}
	d := math.Sqrt((hi[0]-lo[0])*(hi[0]-lo[0]) + (hi[1]-lo[1])*(hi[1]-lo[1]) + (hi[2]-lo[2])*(hi[2]-lo[2]))
	return max(1e-4, 2*1e-5*d) // wc3's translationShare
}

func distance(a, b []float64, rotation bool) float64 {
	d, dn := 0.0, 0.0
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
	for i := range a {
		d = max(d, math.Abs(a[i]-b[i]))
		dn = max(dn, math.Abs(a[i]+b[i]))
	}
	if rotation {
		return min(d, dn)
	}
	return d
}

func readFloats(t *testing.T, doc *gltf.Document, acc int) []float32 {
	t.Helper()
	v, err := gltfsample.Floats(doc, acc)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
