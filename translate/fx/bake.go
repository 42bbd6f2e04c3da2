// Package fx simulates a scene's particle emitters and ribbons (scene.Emitter, which decoders
// fill) as the games run them, and bakes what they draw into the scene as geometry every glTF
// reader plays: for each sampled moment of an animation, one mesh holding every live particle
// as a quad with its colour, alpha and texture cell, on a node of its own that stepped scale
// keys show at that moment only.
//
// It imports no decoder and no encoder: a decoder describes its game's emitters, Bake turns
// them into nodes, meshes, shapes and channels, and the encoders see only those. The same
// model always bakes the same bytes: random numbers come from each emitter's seed, and
// nothing depends on the number of cores.
package fx

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/modelfs/modelfs/translate/scene"
)

// Mode says which animations get their effects baked.
type Mode string

// Modes.
const (
	None  Mode = "none"  // no effects: emitters stay empty nodes
	Stand Mode = "stand" // the model's first Stand (its default look), else its first animation
	All   Mode = "all"   // every animation
)

// ParseMode reads a mode's name.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(s)); m {
	case None, Stand, All:
		return m, nil
	}
	return "", fmt.Errorf("effects %q: want none, stand or all", s)
}

// Limits of one model's baking. Past them baking thins out (fewer particles drawn, fewer
// samples), with a warning naming the emitter; it never fails the model.
const (
	DefaultFPS = 15 // samples per second of animation
	// MaxFrames bounds the samples of one animation: a longer one is sampled more sparsely.
	MaxFrames = 150
	// DefaultMaxLive bounds the live particles (or ribbon edges) of one emitter.
	DefaultMaxLive = 1000
	// DefaultMaxQuads bounds the quads of all samples of a model together (about 120 bytes
	// each in a .glb).
	DefaultMaxQuads = 100_000
	// MaxGroupChannels bounds the channels that show each baked animation's group of an
	// emitter in its own animation and hide it in the others.
	MaxGroupChannels = 100_000
	// DefaultMaxWork bounds the particle updates of one model's simulation.
	DefaultMaxWork = 40_000_000
	// maxPreroll bounds how long a looping animation runs before its first sample, so that
	// the effect is already under way when it starts, as a player sees it.
	maxPreroll = 10.0
	substeps   = 4 // simulation steps per sample
)

// Options tune Bake; zero values take the defaults.
type Options struct {
	Mode     Mode
	FPS      float64
	MaxLive  int
	MaxQuads int
	MaxWork  int64
}

func (o *Options) defaults() {
	if o.FPS <= 0 {
		o.FPS = DefaultFPS
	}
	if o.MaxLive <= 0 {
		o.MaxLive = DefaultMaxLive
	}
	if o.MaxQuads <= 0 {
		o.MaxQuads = DefaultMaxQuads
	}
	if o.MaxWork <= 0 {
		o.MaxWork = DefaultMaxWork
	}
}

// quad is one drawn particle (or ribbon piece) at one moment.
type quad struct {
	pos  [4][3]float32
	uv   [4][2]float32
	col  [4]float32     // linear RGB and alpha
	lit  *[4][4]float32 // when set, each corner's own colour (additive piles, pileUp)
	id   uint64
	view [4][2]float32 // its corners in the view (along the camera's right and up)
}

// run is one emitter baked for one animation.
type run struct {
	e       int // index into Scene.Emitters
	clip    int // index into Scene.Animations
	fps     float64
	frames  [][]quad
	stride  uint64 // every stride-th particle is kept
	count   int    // quads drawn, or that would be without thinning
	live    []int  // per sample: particles (or ribbon pieces) alive, before thinning
	lo, hi  vec    // the box around everything drawn, in the scene's frame
	drawn   bool
	budget  int64 // the model's work budget left when the run started
	dropped bool  // left out: the model's quads went to the other runs
	refused int
	stopped bool
}

// Bake simulates the scene's emitters over the animations o.Mode names and adds what they draw
// to the scene (see the package comment), recording it in s.Effects. A scene without
// emitters, or with Mode None, is left as it is.
func Bake(s *scene.Scene, o Options) {
	if o.Mode == None || o.Mode == "" || len(s.Emitters) == 0 || len(s.Animations) == 0 {
		return
	}
	o.defaults()
	clips := chooseClips(s, o.Mode)
	cam := newCamera(s.Effects.View)
	// One pass draws everything while the model stays within MaxQuads; past it, the pass
	// only counts, and a second one draws every stride-th particle of the runs over their
	// share. The same seed gives the same particles, so what is kept is an even sample of
	// what the game draws.
	var runs []*run
	work, built := o.MaxWork, 0
	for _, c := range clips {
		pose := newPoser(s, c)
		for ei := range s.Emitters {
			e := &s.Emitters[ei]
			if e.Material < 0 || e.Material >= len(s.Materials) || e.Node < 0 || e.Node >= len(s.Nodes) ||
				(!e.Ribbon && !e.Head && !e.Tail) {
				continue
			}
			r := &run{e: ei, clip: c, stride: 1, budget: work}
			if built > o.MaxQuads {
				r.stride = 0
			}
			simulate(s, e, c, pose, &o, cam, r, &work)
			built += r.count
			if r.count > 0 {
				runs = append(runs, r)
			}
		}
	}
	if built > o.MaxQuads {
		thin(runs, o.MaxQuads)
		for _, r := range runs {
			// The same budget as in the first pass, so that it simulates the same.
			work := r.budget
			again := &run{e: r.e, clip: r.clip, stride: r.stride, budget: r.budget}
			if r.stride > 0 {
				simulate(s, &s.Emitters[r.e], r.clip, newPoser(s, r.clip), &o, cam, again, &work)
			}
			again.count, again.live, again.dropped = r.count, r.live, r.stride == 0
			*r = *again
		}
	}
	pileUp(s, runs)
	write(s, runs, clips, &o, cam)
}

// chooseClips lists the animations to bake.
func chooseClips(s *scene.Scene, m Mode) []int {
	if m == All {
		out := make([]int, len(s.Animations))
		for i := range out {
			out[i] = i
		}
		return out
	}
	for i := range s.Animations {
		if strings.HasPrefix(strings.ToLower(strings.TrimSpace(s.Animations[i].Name)), "stand") {
			return []int{i}
		}
	}
	return []int{0}
}

// thin sets each run's stride so that all runs together keep at most max quads: the runs
// under a common cap keep everything, the others every stride-th particle.
func thin(runs []*run, maxQuads int) {
	total := 0
	for _, r := range runs {
		r.stride = 1
		total += r.count
	}
	if total <= maxQuads {
		return
	}
	counts := make([]int, len(runs))
	for i, r := range runs {
		counts[i] = r.count
	}
	sort.Ints(counts)
	// The largest cap c with sum(min(count, c)) <= maxQuads.
	left, n := maxQuads, len(counts)
	capq := 0
	for i, c := range counts {
		share := left / (n - i)
		if c > share {
			capq = share
			break
		}
		left -= c
		capq = c
	}
	for _, r := range runs {
		switch {
		case capq == 0:
			r.stride = 0 // no share at all: left out
		case r.count > capq:
			r.stride = uint64((r.count + capq - 1) / capq)
		}
	}
}

// clipWindow is the Curve clip of animation a.
func clipWindow(s *scene.Scene, a int) scene.Clip {
	an := &s.Animations[a]
	return scene.Clip{Index: a, Start: an.Start, End: an.End}
}

// simulate runs emitter e through animation c and fills r's frames, keeping every r.stride-th
// particle (none, only counting them, when r.stride is 0).
func simulate(s *scene.Scene, e *scene.Emitter, c int, pose *poser, o *Options, cam *camera, r *run, work *int64) {
	an := &s.Animations[c]
	dur := float64(an.Duration)
	if !(dur > 0) || !finite(dur) {
		return
	}
	fps := o.FPS
	if dur*fps > MaxFrames {
		fps = MaxFrames / dur
	}
	r.fps = fps
	nf := max(int(math.Ceil(dur*fps-1e-9)), 1)
	dt := 1 / (fps * substeps)
	m := newSim(e, clipWindow(s, c), pose, o.MaxLive)
	// A looping animation has run for a while when a player sees it: whole loops first.
	pre := 0
	if an.Loop {
		life := min(float64(e.LifeSpan), maxPreroll)
		if life > 0 && finite(life) {
			loops := math.Ceil(life / dur)
			pre = int(loops * dur / dt)
		}
	}
	t := -float64(pre) * dt
	wrap := func(t float64) float64 {
		w := math.Mod(t, dur)
		if w < 0 {
			w += dur
		}
		return w
	}
	for i := 0; i < pre; i++ {
		t += dt
		m.step(wrap(t), dt)
		if m.work > *work {
			r.stopped = true
			break
		}
	}
	r.frames = make([][]quad, nf)
	for k := range nf {
		if k > 0 && !r.stopped {
			for range substeps {
				t += dt
				m.step(wrap(t), dt)
			}
			if m.work > *work {
				r.stopped = true
			}
		}
		at := float64(k) / fps
		r.frames[k] = draw(m, cam, pose, at, r)
	}
	*work -= m.work
	r.refused = m.refused
}

// draw makes the quads of what is alive now (clip time at) and can be seen (a particle of
// size 0 cannot): all of them counted, every stride-th kept (none when stride is 0).
func draw(m *sim, cam *camera, pose *poser, at float64, r *run) []quad {
	e, stride := m.e, r.stride
	if e.Ribbon {
		var qs []quad
		if len(m.edges) >= 2 {
			qs = ribbonQuads(m, at, max(stride, 1))
		}
		n := len(qs)
		if stride > 1 {
			n = len(m.edges) - 1
		}
		r.count += n
		r.live = append(r.live, n)
		if stride == 0 {
			return nil
		}
		for i := range qs {
			for j, p := range qs[i].pos {
				r.extend(of(p))
				qs[i].see(cam, of(p), j)
			}
		}
		return qs
	}
	var f frame
	if e.ModelSpace {
		f = pose.world(e.Node, at)
		if !(math.Abs(f.s[0]*f.s[1]*f.s[2]) > 1e-12) {
			// The node is scaled to nothing (how models hide a part): so is all it carries.
			r.live = append(r.live, 0)
			return nil
		}
	}
	var out []quad
	if stride > 0 {
		out = make([]quad, 0, len(m.parts)/int(stride)+1)
	}
	n := 0
	for i := range m.parts {
		p := &m.parts[i]
		if stride == 0 || p.id%stride != 0 {
			// Counted, not drawn: the cheap test of whether it would be seen.
			if visible(e, p, cam) {
				n++
			}
			continue
		}
		if q, ok := particleQuad(e, p, cam, &f); ok {
			n++
			out = append(out, q)
		}
	}
	r.count += n
	r.live = append(r.live, n)
	for i := range out {
		for j, p := range out[i].pos {
			w := of(p)
			if e.ModelSpace {
				w = f.apply(w)
			}
			r.extend(w)
			out[i].see(cam, w, j)
		}
	}
	return out
}

// see records where corner i of q, at p (the scene's frame), lies in the view.
func (q *quad) see(cam *camera, p vec, i int) {
	q.view[i] = [2]float32{float32(p.dot(cam.right)), float32(p.dot(cam.up))}
}

// extend grows the run's box to hold p.
func (r *run) extend(p vec) {
	if !r.drawn {
		r.lo, r.hi, r.drawn = p, p, true
		return
	}
	for k := range 3 {
		r.lo[k], r.hi[k] = min(r.lo[k], p[k]), max(r.hi[k], p[k])
	}
}

// camera holds the directions billboards are baked with.
type camera struct {
	dir, right, up vec
}

func newCamera(view [3]float32) *camera {
	d := of(view).unit()
	if d == (vec{}) {
		d = vec{1, 0, 0}
	}
	up := vec{0, 1, 0}
	right := up.cross(d).unit()
	if right == (vec{}) { // looking straight down or up
		right = vec{0, 0, -1}
	}
	return &camera{dir: d, right: right, up: d.cross(right).unit()}
}

// corners of a quad, (x, y) in its own plane, and the texture corner each shows (u from
// right to left, v from top to bottom), as the game lays a particle's picture out.
var corners = [4]struct{ x, y, u, v float64 }{{-1, -1, 1, 0}, {-1, 1, 0, 0}, {1, 1, 0, 1}, {1, -1, 1, 1}}

// visible tells, as particleQuad does but without making the quad, whether particle p would
// be seen: not of size 0, not a streak seen end on, not flung out of reach.
func visible(e *scene.Emitter, p *particle, cam *camera) bool {
	seg, k := lifeFactor(e, p.health)
	size := float64(e.Scales[seg]) + (float64(e.Scales[seg+1])-float64(e.Scales[seg]))*k
	if !(math.Abs(size) > 1e-6) || !(math.Abs(size) <= maxCoord) || !p.pos.drawable() {
		return false
	}
	if p.tail {
		d := p.vel.scale(float64(e.TailLength))
		return cam.dir.cross(d.unit()).length()*math.Abs(size*p.nodeScale) > 1e-6
	}
	return true
}

// particleQuad is particle p drawn: a quad facing the camera (or flat, for XY quads), or its
// streak, with the colour, size and cell of its age. f is the node's placement now, for a
// model-space emitter (whose particles are kept in the node's frame).
func particleQuad(e *scene.Emitter, p *particle, cam *camera, f *frame) (quad, bool) {
	seg, k := lifeFactor(e, p.health)
	size := float64(e.Scales[seg]) + (float64(e.Scales[seg+1])-float64(e.Scales[seg]))*k
	var col [4]float32
	for c := range 4 {
		v := e.Colors[seg][c] + (e.Colors[seg+1][c]-e.Colors[seg][c])*float32(k)
		v = min(max(v, 0), 1)
		if c < 3 {
			v = linear(v)
		}
		col[c] = v
	}
	iv := e.Cells[seg]
	if p.tail {
		iv = e.Cells[seg+2]
	}
	cl := cell(e, iv, k)
	cols, rows := max(e.Columns, 1), max(e.Rows, 1)
	left, top := float64(cl%cols)/float64(cols), float64(cl/cols)/float64(rows)
	du, dv := 1/float64(cols), 1/float64(rows)
	if !(math.Abs(size) > 1e-6) {
		return quad{}, false // nothing to see: a particle born at size 0
	}
	q := quad{col: col, id: p.id}
	var pos [4]vec
	switch {
	case p.tail:
		end := p.pos
		start := end.sub(p.vel.scale(float64(e.TailLength)))
		if e.ModelSpace {
			start, end = f.apply(start), f.apply(end)
		}
		n := cam.dir.cross(end.sub(start).unit())
		b := n.scale(size * p.nodeScale)
		if !(b.length() > 1e-6) {
			return quad{}, false // a streak with no length or seen end on: nothing to see
		}
		pos = [4]vec{start.sub(b), end.sub(b), end.add(b), start.add(b)}
		if e.ModelSpace {
			for i := range pos {
				pos[i] = f.local(pos[i])
			}
		}
	case e.XYQuad:
		s, c := math.Sincos(p.facing)
		// The game's ground plane is the scene's XZ (its Y is the scene's −Z).
		x, z := vec{c, 0, -s}, vec{-s, 0, -c}
		if e.ModelSpace {
			x, z = f.localDir(x), f.localDir(z)
		}
		for i, cr := range corners {
			pos[i] = p.pos.add(x.scale(cr.x * size)).add(z.scale(cr.y * size))
		}
	default:
		r, u := cam.right, cam.up
		if e.ModelSpace {
			r, u = f.localDir(r), f.localDir(u)
		}
		for i, cr := range corners {
			pos[i] = p.pos.add(r.scale(cr.x * size)).add(u.scale(cr.y * size))
		}
	}
	for i := range pos {
		if !pos[i].drawable() {
			return quad{}, false
		}
		q.pos[i] = pos[i].f32()
		q.uv[i] = [2]float32{float32(left + corners[i].u*du), float32(top + corners[i].v*dv)}
	}
	return q, true
}

// ribbonQuads is the ribbon's strip now: one quad between each edge and the next, every
// stride-th kept, in the colour, alpha and texture row of the moment.
func ribbonQuads(m *sim, at float64, stride uint64) []quad {
	e := m.e
	cv, _ := e.Color.At(m.clip, at)
	alpha := min(max(m.scalar(&e.Alpha, at), 0), 1)
	var col [4]float32
	for c := range 3 {
		col[c] = linear(min(max(cv[c], 0), 1))
	}
	col[3] = float32(alpha)
	cols, rows := max(e.Columns, 1), max(e.Rows, 1)
	slot := int(min(max(m.scalar(&e.Slot, at), 0), float64(cols*rows-1)))
	left0, top := float64(slot%cols)/float64(cols), float64(slot/cols)/float64(rows)
	du, dv := 1/float64(cols), 1/float64(rows)
	n := len(m.edges) - 1
	keep := make([]int, 0, n/int(stride)+2)
	for i := 0; i < len(m.edges); i += int(stride) {
		keep = append(keep, i)
	}
	if keep[len(keep)-1] != len(m.edges)-1 {
		keep = append(keep, len(m.edges)-1) // the strip always reaches the emitter
	}
	out := make([]quad, 0, len(keep)-1)
	for j := 0; j+1 < len(keep); j++ {
		a, b := &m.edges[keep[j]], &m.edges[keep[j+1]]
		// The oldest edge shows the picture's right, the newest its left.
		ua := left0 + du*(1-float64(keep[j])/float64(n))
		ub := left0 + du*(1-float64(keep[j+1])/float64(n))
		q := quad{col: col, id: uint64(keep[j])}
		if a.above.sub(b.above).length()+a.below.sub(b.below).length() < 1e-6 {
			continue // the emitter stood still: a piece with no area, which no one sees
		}
		pts := [4]vec{a.above, a.below, b.below, b.above}
		if !pts[0].drawable() || !pts[1].drawable() || !pts[2].drawable() || !pts[3].drawable() {
			continue
		}
		uvs := [4][2]float64{{ua, top}, {ua, top + dv}, {ub, top + dv}, {ub, top}}
		for i := range pts {
			q.pos[i] = pts[i].f32()
			q.uv[i] = [2]float32{float32(uvs[i][0]), float32(uvs[i][1])}
		}
		out = append(out, q)
	}
	return out
}

// write adds the runs to the scene: per emitter a node, per baked animation a node under it,
// per sample a node under that drawing the sample's mesh; and the channels that show each
// sample at its moment.
func write(s *scene.Scene, runs []*run, clips []int, o *Options, cam *camera) {
	if len(runs) == 0 {
		return
	}
	n0, m0, sh0 := len(s.Nodes), len(s.Meshes), len(s.Shapes)
	// Each run's group is shown or hidden by a channel in every animation: runs × animations
	// channels, which a model of thousands of emitters and sequences would make millions of.
	if limit := MaxGroupChannels / max(len(s.Animations), 1); len(runs) > limit {
		s.Warnings = append(s.Warnings, fmt.Sprintf("effects: %d emitter animations to bake in a model of %d animations, more than %d channels: the first %d baked",
			len(runs), len(s.Animations), MaxGroupChannels, limit))
		runs = runs[:limit]
	}
	byEmitter := map[int][]*run{}
	var order []int
	written := 0
	for _, r := range runs {
		if r.dropped {
			e := &s.Emitters[r.e]
			s.Warnings = append(s.Warnings, fmt.Sprintf("emitter %q (%s): left out of %s: the model's %d quads went to its other emitters",
				e.Name, e.Kind, s.Animations[r.clip].Name, o.MaxQuads))
			continue
		}
		if _, ok := byEmitter[r.e]; !ok {
			order = append(order, r.e)
		}
		byEmitter[r.e] = append(byEmitter[r.e], r)
	}
	slices.Sort(order)
	shown := clips[0] // the default look: the first baked animation
	channels := make([][]scene.Channel, len(s.Animations))
	step := func(node int, times []float32, vals []float32) scene.Channel {
		return scene.Channel{Node: node, Path: scene.PathScale, Interp: scene.Step, Times: times, Values: vals}
	}
	for _, ei := range order {
		e := &s.Emitters[ei]
		parent := -1
		if e.ModelSpace && !e.Ribbon {
			parent = e.Node
		}
		effect := len(s.Nodes)
		s.Nodes = append(s.Nodes, scene.Node{Name: e.Name + " effect", Kind: scene.KindEffect, Parent: parent,
			Rotation: [4]float32{0, 0, 0, 1}, Scale: [3]float32{1, 1, 1},
			Extras: scene.Extras{"emitter": int64(e.Index), "emitterKind": e.Kind}})
		var summary []any
		for _, r := range byEmitter[ei] {
			an := &s.Animations[r.clip]
			group := len(s.Nodes)
			rest := float32(0)
			if r.clip == shown {
				rest = 1
			}
			s.Nodes = append(s.Nodes, scene.Node{Name: e.Name + " " + an.Name, Kind: scene.KindEffect, Parent: effect,
				Rotation: [4]float32{0, 0, 0, 1}, Scale: [3]float32{rest, rest, rest},
				Extras: scene.Extras{"animation": an.Name}})
			// The group shows in its own animation and hides in every other.
			for a := range s.Animations {
				v := float32(0)
				if a == r.clip {
					v = 1
				}
				channels[a] = append(channels[a], step(group, []float32{0}, []float32{v, v, v}))
			}
			quads := 0
			for k, qs := range r.frames {
				if len(qs) == 0 || written+len(qs) > o.MaxQuads {
					continue // nothing alive, or past the model's quads (a long-lived few in every sample)
				}
				written += len(qs)
				quads += len(qs)
				at := float32(float64(k) / r.fps)
				next := float32(float64(k+1) / r.fps)
				node := len(s.Nodes)
				v := float32(0)
				if k == 0 {
					v = 1
				}
				s.Nodes = append(s.Nodes, scene.Node{Name: fmt.Sprintf("%s %s %d", e.Name, an.Name, k), Kind: scene.KindEffect,
					Parent: group, Rotation: [4]float32{0, 0, 0, 1}, Scale: [3]float32{v, v, v}})
				mesh := len(s.Meshes)
				s.Meshes = append(s.Meshes, quadMesh(fmt.Sprintf("%s %s %d", e.Name, an.Name, k), qs, e.Material, uvSets(&s.Materials[e.Material])))
				s.Shapes = append(s.Shapes, scene.Shape{Name: s.Meshes[mesh].Name, Meshes: []int{mesh}, Instances: []int{node}})
				var times, vals []float32
				if k > 0 {
					times, vals = append(times, 0), append(vals, 0, 0, 0)
				}
				times, vals = append(times, at), append(vals, 1, 1, 1)
				if k+1 < len(r.frames) && next < an.Duration {
					times, vals = append(times, next), append(vals, 0, 0, 0)
				}
				channels[r.clip] = append(channels[r.clip], step(node, times, vals))
			}
			live := make([]int64, len(r.live))
			for i, n := range r.live {
				live[i] = int64(n)
			}
			x := scene.Extras{"animation": an.Name, "samples": int64(len(r.frames)), "fps": r.fps, "quads": int64(quads), "live": live}
			if r.drawn {
				lo, hi := r.lo.f32(), r.hi.f32()
				x["bounds"] = scene.Extras{"min": lo, "max": hi}
			}
			if r.stride > 1 {
				x["thinned"] = int64(r.stride)
				s.Warnings = append(s.Warnings, fmt.Sprintf("emitter %q (%s): %d quads over %s's samples, more than the model's share of %d: every %d. particle drawn",
					e.Name, e.Kind, r.count, an.Name, o.MaxQuads, r.stride))
			}
			if r.refused > 0 {
				s.Warnings = append(s.Warnings, fmt.Sprintf("emitter %q (%s): more than %d alive at once in %s: %d emissions left out",
					e.Name, e.Kind, o.MaxLive, an.Name, r.refused))
			}
			if r.stopped {
				s.Warnings = append(s.Warnings, fmt.Sprintf("emitter %q (%s): the simulation of %s stopped at the model's work budget",
					e.Name, e.Kind, an.Name))
			}
			summary = append(summary, x)
		}
		s.Effects.Baked = append(s.Effects.Baked, scene.Extras{"emitter": int64(e.Index), "name": e.Name, "kind": e.Kind, "animations": summary})
	}
	for a := range s.Animations {
		s.Animations[a].Channels = append(s.Animations[a].Channels, channels[a]...)
	}
	if s.Extras == nil {
		s.Extras = scene.Extras{}
	}
	baked := make([]any, len(s.Effects.Baked))
	for i, x := range s.Effects.Baked {
		baked[i] = x
	}
	s.Extras["effects"] = baked
	// The direction billboards face (glTF axes, from the model): the view to look at them from.
	s.Extras["effectsView"] = cam.dir.f32()
	s.Effects.Nodes += len(s.Nodes) - n0
	s.Effects.Meshes += len(s.Meshes) - m0
	s.Effects.Shapes += len(s.Shapes) - sh0
}

// uvSets is the number of UV sets a mesh drawn with m needs.
func uvSets(m *scene.Material) int {
	n := m.TexCoord
	if m.Emission != nil {
		n = max(n, m.Emission.TexCoord)
	}
	return n + 1
}

// linearTable holds scene.SRGBToLinear at 4096 steps of [0, 1]: a colour is turned for every
// particle at every moment, and math.Pow was a sixth of a bake's time.
var linearTable = func() (t [4097]float32) {
	for i := range t {
		t[i] = scene.SRGBToLinear(float32(i) / 4096)
	}
	return t
}()

// linear is scene.SRGBToLinear of v in [0, 1], interpolated in linearTable (within 2e-5).
func linear(v float32) float32 {
	if !(v > 0) { // NaN too
		return 0
	}
	x := min(v, 1) * 4096
	i := int(x)
	if i >= 4096 {
		return linearTable[4096]
	}
	f := x - float32(i)
	return linearTable[i] + (linearTable[i+1]-linearTable[i])*f
}

// quadMesh makes one sample's mesh: 4 vertices and 2 triangles per quad.
func quadMesh(name string, qs []quad, material, sets int) scene.Mesh {
	n := 4 * len(qs)
	pos := make([][3]float32, 0, n)
	uv := make([][2]float32, 0, n)
	col := make([][4]float32, 0, n)
	idx := make([]uint32, 0, 6*len(qs))
	for _, q := range qs {
		b := uint32(len(pos))
		for i := range 4 {
			pos = append(pos, q.pos[i])
			uv = append(uv, q.uv[i])
			if q.lit != nil {
				col = append(col, q.lit[i])
			} else {
				col = append(col, q.col)
			}
		}
		idx = append(idx, b, b+1, b+2, b, b+2, b+3)
	}
	uvs := make([][][2]float32, sets)
	for i := range uvs {
		uvs[i] = uv // a material of the model may read its picture from another set: the same
	}
	return scene.Mesh{Name: name, Positions: pos, UVs: uvs, Colors: col, Indices: idx,
		Material: material, Skin: -1, Extras: scene.Extras{"effect": true}}
}
