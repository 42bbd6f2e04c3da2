package fx

import (
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/modelfs/modelfs/translate/scene"
)

// keys is a test curve: a value per key at the given times (seconds into the clip), held.
type keys struct {
	times []float64
	vals  []float32
}

func (k *keys) At(_ scene.Clip, t float64) ([3]float32, int) {
	i := -1
	for j, at := range k.times {
		if at <= t {
			i = j
		}
	}
	if i < 0 {
		return [3]float32{k.vals[0]}, -1
	}
	return [3]float32{k.vals[i]}, i
}

func val(v float32) scene.Param { return scene.Param{Value: [3]float32{v, v, v}} }

// fixture is a scene of one node that an emitter hangs from, one looping 2 s Stand, and the
// material its quads are drawn with.
func fixture(e scene.Emitter) *scene.Scene {
	s := &scene.Scene{
		Nodes: []scene.Node{{Name: "Emitter", Kind: scene.KindEmitter, Parent: -1, Rotation: [4]float32{0, 0, 0, 1},
			Scale: [3]float32{1, 1, 1}, Translation: [3]float32{0, 10, 0}}},
		Materials:  []scene.Material{{Name: "m", BaseColor: [4]float32{1, 1, 1, 1}, Texture: -1, AlphaMode: scene.AlphaBlend}},
		Animations: []scene.Animation{{Name: "Stand", Duration: 2, Loop: true, End: 2}},
		Extras:     scene.Extras{},
	}
	e.Node, e.Material = 0, 0
	s.Emitters = []scene.Emitter{e}
	return s
}

// stream is a plain fountain: 10 particles a second living 1 s.
func stream() scene.Emitter {
	return scene.Emitter{
		Name: "Fountain", Kind: "particle2", Seed: 42, Rate: val(10), Visibility: val(1), LifeSpan: 1,
		Speed: val(50), Variation: val(0.2), Latitude: val(20), Gravity: val(30), Width: val(4), Length: val(4),
		Head: true, Middle: 0.5, Scales: [3]float32{1, 5, 2}, Rows: 1, Columns: 1,
		Colors: [3][4]float32{{1, 1, 1, 1}, {1, 0.5, 0, 1}, {0, 0, 0, 0}},
	}
}

func bake(t *testing.T, s *scene.Scene, o Options) {
	t.Helper()
	Bake(s, o)
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestBakeIsDeterministic bakes the same scene twice: the same bytes.
func TestBakeIsDeterministic(t *testing.T) {
	a, b := fixture(stream()), fixture(stream())
	bake(t, a, Options{Mode: Stand})
	bake(t, b, Options{Mode: Stand})
	if !reflect.DeepEqual(a.Meshes, b.Meshes) || !reflect.DeepEqual(a.Animations, b.Animations) || !reflect.DeepEqual(a.Nodes, b.Nodes) {
		t.Fatal("two bakes of one scene differ")
	}
	c := stream()
	c.Seed = 43
	d := fixture(c)
	bake(t, d, Options{Mode: Stand})
	if reflect.DeepEqual(a.Meshes, d.Meshes) {
		t.Fatal("another seed baked the same particles")
	}
}

// TestBakeShowsWhatIsAlive: a looping stream is already running at the first sample (the
// default look), each sample holds about rate × life particles, and each sample's node is
// shown at its moment only.
func TestBakeShowsWhatIsAlive(t *testing.T) {
	s := fixture(stream())
	bake(t, s, Options{Mode: Stand})
	nodes, meshes, _ := s.Models()
	if nodes != 1 || meshes != 0 {
		t.Fatalf("the model's own nodes and meshes changed: %d, %d", nodes, meshes)
	}
	if got := len(s.Meshes); got != 30 {
		t.Fatalf("%d samples baked, want 30 (2 s at 15 a second)", got)
	}
	for i, m := range s.Meshes {
		live := len(m.Positions) / 4
		if live < 5 || live > 15 {
			t.Errorf("sample %d holds %d particles, want about 10", i, live)
		}
	}
	// The effect node, the Stand group, then the samples; the first shown at rest.
	if s.Nodes[1].Kind != scene.KindEffect || s.Nodes[1].Extras["emitter"] != int64(0) || s.Nodes[1].Parent != -1 {
		t.Fatalf("effect node %+v", s.Nodes[1])
	}
	if s.Nodes[3].Scale != [3]float32{1, 1, 1} || s.Nodes[4].Scale != [3]float32{} {
		t.Fatalf("rest scales of the first samples: %v %v", s.Nodes[3].Scale, s.Nodes[4].Scale)
	}
	shown := 0
	for _, c := range s.Animations[0].Channels {
		if c.Node < 3 {
			continue
		}
		k := c.Node - 3
		at := float32(float64(k) / 15)
		for i, tm := range c.Times {
			if c.Values[3*i] == 1 {
				shown++
				if tm != at {
					t.Errorf("sample %d shown at %g, want %g", k, tm, at)
				}
			}
		}
	}
	if shown != 30 {
		t.Errorf("%d samples shown, want 30", shown)
	}
	ex := s.Extras["effects"].([]any)
	if len(ex) != 1 {
		t.Fatalf("effects summary %v", ex)
	}
}

// TestBakeModes: none bakes nothing, all bakes every animation, each group shown in its own.
func TestBakeModes(t *testing.T) {
	s := fixture(stream())
	bake(t, s, Options{Mode: None})
	if len(s.Nodes) != 1 || len(s.Meshes) != 0 {
		t.Fatal("mode none baked")
	}
	s = fixture(stream())
	s.Animations = append(s.Animations, scene.Animation{Name: "Death", Duration: 1, Start: 2, End: 3})
	bake(t, s, Options{Mode: All})
	if len(s.Effects.Baked) != 1 || len(s.Effects.Baked[0]["animations"].([]any)) != 2 {
		t.Fatalf("baked %v", s.Effects.Baked)
	}
	// Death does not loop: its first moments, before anything is emitted, draw nothing.
	if n := len(s.Meshes); n > 30+15 || n < 30+12 {
		t.Errorf("%d samples, want 30 of Stand and nearly 15 of Death", n)
	}
}

// TestBakeModelSpace: model-space particles hang under their emitter, in its frame; the
// others at the root, in the scene's.
func TestBakeModelSpace(t *testing.T) {
	e := stream()
	e.ModelSpace = true
	s := fixture(e)
	bake(t, s, Options{Mode: Stand})
	if s.Nodes[1].Parent != 0 {
		t.Fatalf("model-space effect under %d, want the emitter", s.Nodes[1].Parent)
	}
	w := fixture(stream())
	bake(t, w, Options{Mode: Stand})
	if w.Nodes[1].Parent != -1 {
		t.Fatal("world particles not at the root")
	}
	// The same particles (one seed), 10 up in the scene's frame, at the origin in the node's.
	for k := range 4 {
		if d := w.Meshes[0].Positions[k][1] - s.Meshes[0].Positions[k][1]; math.Abs(float64(d)-10) > 1e-3 {
			t.Fatalf("vertex %d: world y − node y = %g, want 10", k, d)
		}
	}
}

// TestBakeRibbon: a ribbon is a strip of quads between the edges it leaves.
func TestBakeRibbon(t *testing.T) {
	e := scene.Emitter{Name: "Trail", Kind: "ribbon", Ribbon: true, Seed: 1, Rate: val(20), Visibility: val(1), LifeSpan: 0.5,
		Above: val(5), Below: val(5), Alpha: val(1), Color: val(1), Rows: 1, Columns: 1}
	s := fixture(e)
	// The node moves, so that the edges spread.
	s.Animations[0].Channels = []scene.Channel{{Node: 0, Path: scene.PathTranslation, Interp: scene.Linear,
		Times: []float32{0, 2}, Values: []float32{0, 10, 0, 100, 10, 0}}}
	bake(t, s, Options{Mode: Stand})
	if len(s.Meshes) == 0 {
		t.Fatal("no ribbon baked")
	}
	m := s.Meshes[len(s.Meshes)/2]
	if q := len(m.Positions) / 4; q < 5 || q > 11 {
		t.Errorf("%d ribbon quads, want about 9 (20 edges a second living 0.5 s)", q)
	}
	if h := m.Positions[0][2] - m.Positions[1][2]; math.Abs(float64(h)+10) > 1e-3 {
		t.Errorf("edge height %g, want 10 (5 above, 5 below)", -h)
	}
}

// TestBakeSquirt: a squirting emitter emits its rate at once when its rate's key changes.
func TestBakeSquirt(t *testing.T) {
	e := stream()
	e.Squirt = true
	e.LifeSpan = 0.3
	e.Rate = scene.Param{Curve: &keys{times: []float64{0, 1}, vals: []float32{0, 25}}}
	s := fixture(e)
	s.Animations[0].Loop = false
	bake(t, s, Options{Mode: Stand})
	var counts []int
	for _, m := range s.Meshes {
		counts = append(counts, len(m.Positions)/4)
	}
	if len(counts) == 0 || counts[0] != 25 {
		t.Fatalf("samples after the burst hold %v particles, want 25 at once", counts)
	}
}

// TestBakeBounds: broken and hostile emitters bake within the limits, with a warning naming
// the emitter, and never fail the model.
func TestBakeBounds(t *testing.T) {
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	cases := map[string]func(e *scene.Emitter){
		"huge rate":       func(e *scene.Emitter) { e.Rate = val(1e9) },
		"infinite rate":   func(e *scene.Emitter) { e.Rate = val(inf) },
		"NaN speed":       func(e *scene.Emitter) { e.Speed = val(nan) },
		"huge life":       func(e *scene.Emitter) { e.LifeSpan = 1e9 },
		"NaN life":        func(e *scene.Emitter) { e.LifeSpan = nan },
		"no cells":        func(e *scene.Emitter) { e.Rows, e.Columns = 0, 0; e.Cells[0] = [3]uint32{5, 1 << 31, 1 << 31} },
		"NaN middle":      func(e *scene.Emitter) { e.Middle = nan },
		"NaN colours":     func(e *scene.Emitter) { e.Colors[1] = [4]float32{nan, inf, -inf, nan} },
		"NaN visibility":  func(e *scene.Emitter) { e.Visibility = val(nan) },
		"infinite size":   func(e *scene.Emitter) { e.Scales = [3]float32{inf, inf, inf} },
		"tail, no speed":  func(e *scene.Emitter) { e.Head, e.Tail, e.Speed = false, true, val(0) },
		"bad node":        func(e *scene.Emitter) { e.Node = 7 },
		"no material":     func(e *scene.Emitter) { e.Material = -1 },
		"infinite length": func(e *scene.Emitter) { e.Width, e.Length = val(inf), val(nan) },
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			e := stream()
			s := fixture(e)
			f(&s.Emitters[0])
			bake(t, s, Options{Mode: All, MaxQuads: 5000})
			quads := 0
			for _, m := range s.Meshes {
				quads += len(m.Positions) / 4
				for _, p := range m.Positions {
					for _, c := range p {
						if math.IsNaN(float64(c)) || math.IsInf(float64(c), 0) {
							t.Fatalf("a vertex at %v", p)
						}
					}
				}
			}
			if quads > 5000 {
				t.Errorf("%d quads, more than the limit", quads)
			}
			if name == "huge rate" && !strings.Contains(strings.Join(s.Warnings, "\n"), `"Fountain"`) {
				t.Errorf("no warning names the emitter: %q", s.Warnings)
			}
		})
	}
}

// TestThin keeps the small runs whole and cuts the large ones to a common cap.
func TestThin(t *testing.T) {
	runs := []*run{{count: 100}, {count: 10_000}, {count: 50_000}}
	thin(runs, 20_100)
	if runs[0].stride != 1 {
		t.Errorf("a small run thinned: stride %d", runs[0].stride)
	}
	kept := 0
	for _, r := range runs {
		kept += (r.count + int(r.stride) - 1) / int(r.stride)
	}
	if kept > 20_100+len(runs) {
		t.Errorf("%d kept, more than the limit", kept)
	}
}

// FuzzBake bakes emitters of arbitrary parameters: no panic, no invalid scene, within limits.
func FuzzBake(f *testing.F) {
	f.Add(make([]byte, 64))
	f.Add(append(make([]byte, 40), 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0x20, 0x41, 0, 0, 0x80, 0x3f, 0, 0, 0xa0, 0x40))
	f.Add([]byte("\x00\x00\x20\x41\x00\x00\x80\x3f\xff\xff\xff\x7f\x00\x00\xc0\x7f"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fl := func(i int) float32 {
			if 4*i+4 > len(data) {
				return 1
			}
			return math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
		}
		b := func(i int) bool { return i < len(data) && data[i]&1 != 0 }
		e := scene.Emitter{
			Name: "F", Seed: 1, Rate: val(fl(0)), Visibility: val(fl(1)), LifeSpan: fl(2), Speed: val(fl(3)),
			Variation: val(fl(4)), Latitude: val(fl(5)), Gravity: val(fl(6)), Width: val(fl(7)), Length: val(fl(8)),
			Squirt: b(36), Line: b(37), ModelSpace: b(38), XYQuad: b(39), Head: b(40), Tail: b(41), Ribbon: b(42),
			Sphere: b(43), Additive: b(44), Source: val(fl(16)),
			TailLength: fl(11), Middle: fl(12), Scales: [3]float32{fl(13), fl(14), fl(15)},
			Rows: int(fl(9)) & 0xff, Columns: int(fl(10)) & 0xff,
			Above: val(fl(13)), Below: val(fl(14)), Alpha: val(fl(15)), Color: val(fl(4)), Slot: val(fl(5)),
		}
		s := fixture(e)
		s.Animations[0].Duration = min(max(fl(9), 0), 30)
		if math.IsNaN(float64(s.Animations[0].Duration)) {
			s.Animations[0].Duration = 1
		}
		Bake(s, Options{Mode: All, MaxQuads: 2000, MaxWork: 200_000})
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestLinearTable holds the table's colours to scene.SRGBToLinear.
func TestLinearTable(t *testing.T) {
	for i := 0; i <= 100000; i++ {
		v := float32(i) / 100000
		if d := math.Abs(float64(linear(v) - scene.SRGBToLinear(v))); d > 2e-5 {
			t.Fatalf("linear(%g) off by %g", v, d)
		}
	}
}

// TestHeadAndTailShareTheirEmission: thinning keeps or drops both halves of one emission (an
// even stride kept only heads when they were numbered apart).
func TestHeadAndTailShareTheirEmission(t *testing.T) {
	e := stream()
	e.Tail, e.TailLength = true, 0.1
	s := fixture(e)
	m := newSim(&s.Emitters[0], clipWindow(s, 0), newPoser(s, 0), 100)
	for range 60 {
		m.step(0.5, 1.0/60)
	}
	ids := map[uint64][2]int{}
	for _, p := range m.parts {
		c := ids[p.id]
		if p.tail {
			c[1]++
		} else {
			c[0]++
		}
		ids[p.id] = c
	}
	for id, c := range ids {
		if c != [2]int{1, 1} {
			t.Fatalf("emission %d: %d heads and %d tails", id, c[0], c[1])
		}
	}
}

// TestBakeManyAnimations: groups × animations channels stay within MaxGroupChannels.
func TestBakeManyAnimations(t *testing.T) {
	s := fixture(stream())
	for i := range 400 {
		s.Animations = append(s.Animations, scene.Animation{Name: fmt.Sprintf("Other %d", i), Duration: 0.1, Start: float64(i), End: float64(i) + 0.1})
	}
	for i := range 299 {
		e := stream()
		e.Name, e.Node, e.Material, e.Rate = fmt.Sprintf("E%d", i), 0, 0, val(1)
		s.Emitters = append(s.Emitters, e)
	}
	bake(t, s, Options{Mode: Stand})
	channels := 0
	for _, a := range s.Animations {
		channels += len(a.Channels)
	}
	if channels > MaxGroupChannels+30*300 {
		t.Errorf("%d channels", channels)
	}
	if !strings.Contains(strings.Join(s.Warnings, "\n"), "channels") {
		t.Errorf("no warning says baking stopped: %q", s.Warnings)
	}
}

// TestPileUp: additive quads piled on one spot come to the saturated sum the game adds; a
// quad alone keeps its look; a large quad under a small bright one brightens only under it.
func TestPileUp(t *testing.T) {
	square := func(cx, cy, half float32, col [4]float32) quad {
		q := quad{col: col}
		for i, c := range corners {
			q.view[i] = [2]float32{cx + float32(c.x)*half, cy + float32(c.y)*half}
		}
		return q
	}
	dim := [4]float32{linear(0.5), linear(0.1), linear(0.5), 0.4}
	qs := []quad{square(0, 0, 1, dim), square(0, 0, 1, dim), square(0, 0, 1, dim), square(0, 0, 1, dim), square(0, 0, 1, dim),
		square(50, 0, 1, dim)}
	var g pileGrid
	for i := range qs {
		g.add(&qs[i], 1, 1)
	}
	g.apply()
	// Five of alpha 0.4 sum to 2: the game shows 2 × the colour, saturated where it passes 1.
	pile := corner(&qs[0], 0)
	if got := srgb(float64(pile[0])); math.Abs(got-1) > 0.01 {
		t.Errorf("piled red: %.3f in sRGB, want 1 (0.5 × 2, saturated)", got)
	}
	if got := srgb(float64(pile[1])); math.Abs(got-0.2) > 0.01 {
		t.Errorf("piled green: %.3f in sRGB, want 0.2", got)
	}
	// Blended five times over, they cover all.
	if cov := 1 - math.Pow(1-float64(pile[3]), 5); cov < 0.99 {
		t.Errorf("five piled quads cover %.3f, want all", cov)
	}
	if qs[5].lit != nil || qs[5].col != dim {
		t.Errorf("a quad alone changed: %v", corner(&qs[5], 0))
	}

	big, small := square(0, 0, 10, dim), square(0, 0, 1, [4]float32{1, 1, 1, 1})
	g.reset()
	g.add(&big, 1, 1)
	g.add(&small, 1, 1)
	g.apply()
	if corner(&big, 0) != dim {
		t.Errorf("the large quad's corner, far from the small one, changed: %v", corner(&big, 0))
	}
	if c := corner(&small, 0); c[3] < 0.99 || c[0] != 1 {
		t.Errorf("the small bright quad on the large one: %v, want white and opaque", c)
	}
}

// corner is the colour corner i of q is drawn with.
func corner(q *quad, i int) [4]float32 {
	if q.lit != nil {
		return q.lit[i]
	}
	return q.col
}

// TestSphereAndSource: a sphere emitter spawns on its shell (between Length and Width from
// the node) flying outward; with a source point above, particles fly from it through where
// they spawn (down and out, for a flat emitter under it).
func TestSphereAndSource(t *testing.T) {
	emit := func(e scene.Emitter) (*sim, frame) {
		s := fixture(e)
		pose := newPoser(s, 0)
		m := newSim(&s.Emitters[0], clipWindow(s, 0), pose, 1000)
		f := pose.world(0, 0)
		for i := range 200 {
			m.emitParticle(&f, 0, false, uint64(i))
		}
		if len(m.parts) != 200 {
			t.Fatalf("%d particles of 200", len(m.parts))
		}
		return m, f
	}
	e := stream()
	e.Sphere, e.Length, e.Width, e.Latitude = true, val(2), val(6), val(90)
	m, f := emit(e)
	for _, p := range m.parts {
		r := p.pos.sub(f.t)
		if d := r.length(); d < 2-1e-9 || d > 6+1e-9 {
			t.Fatalf("sphere: spawned %.3f from the node, want 2 to 6", d)
		}
		if p.vel.dot(r) <= 0 {
			t.Fatalf("sphere: a particle at %v flies %v, inward", r, p.vel)
		}
	}
	e = stream()
	e.Source, e.Latitude = val(5), val(0)
	m, _ = emit(e)
	for _, p := range m.parts {
		if !(p.vel[1] < 0) {
			t.Fatalf("source above: a particle flies %v, not down", p.vel)
		}
	}
}
