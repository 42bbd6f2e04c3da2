package fx

import (
	"math"
	"math/rand/v2"

	"github.com/modelfs/modelfs/translate/scene"
)

// particle is one live particle: where it is and how it moves, in the scene's frame (or its
// emitter node's, for a model-space emitter).
type particle struct {
	pos, vel  vec
	health    float64 // seconds left
	gravity   float64
	nodeScale float64 // the node's scale when emitted: a tail's width scales with it
	facing    float64 // an XY quad's turn about the vertical, radians
	tail      bool
	id        uint64 // emission order, for thinning
}

// edge is one live edge of a ribbon, in the scene's frame.
type edge struct {
	above, below vec
	health       float64
}

// sim runs one emitter through one clip.
type sim struct {
	e        *scene.Emitter
	clip     scene.Clip
	pose     *poser
	rng      *rand.Rand
	parts    []particle
	edges    []edge
	emission float64
	lastKey  int
	nextID   uint64
	maxLive  int
	refused  int   // emissions refused at maxLive
	work     int64 // particle updates done, against the budget
}

func newSim(e *scene.Emitter, clip scene.Clip, pose *poser, maxLive int) *sim {
	return &sim{e: e, clip: clip, pose: pose, rng: rand.New(rand.NewPCG(e.Seed, uint64(clip.Index)+0x9e3779b97f4a7c15)),
		lastKey: -1, maxLive: maxLive}
}

// between is a uniform random number in [-a, a].
func (m *sim) between(a float64) float64 {
	if !(a > 0) || !finite(a) {
		return 0
	}
	return (2*m.rng.Float64() - 1) * a
}

// scalar is a parameter's value at clip time t (seconds), with non-finite values as 0.
func (m *sim) scalar(p *scene.Param, t float64) float64 {
	v := float64(p.Scalar(m.clip, t))
	if !finite(v) {
		return 0
	}
	return v
}

// step advances the emitter by dt to clip time t: it emits at the node's placement at t
// while visible, then ages and moves everything alive, as the game's update does.
func (m *sim) step(t, dt float64) {
	m.work++ // a step costs, whatever it emits
	if m.scalar(&m.e.Visibility, t) > 0 {
		m.emit(t, dt)
	}
	if m.e.Ribbon {
		m.ageEdges(dt)
	} else {
		m.ageParticles(dt)
	}
}

func (m *sim) emit(t, dt float64) {
	rate := max(m.scalar(&m.e.Rate, t), 0)
	if m.e.Squirt && !m.e.Ribbon {
		_, key := m.e.Rate.At(m.clip, t)
		if key != m.lastKey {
			m.emission += rate
		}
		m.lastKey = key
	} else {
		m.emission += rate * dt
	}
	if m.emission < 1 {
		return
	}
	n := math.Floor(m.emission)
	m.emission -= n
	alive := len(m.parts)
	if m.e.Ribbon {
		alive = len(m.edges)
	}
	// Past the limit every emission is refused: counted at once, not tried one by one.
	room := float64(max(m.maxLive-alive, 0))
	if n > room {
		m.refused += int(min(n-room, 1<<30))
		n = room
	}
	if n == 0 {
		return
	}
	f := m.pose.world(m.e.Node, t)
	for range int(n) {
		m.work++
		if m.e.Ribbon {
			m.emitEdge(&f, t)
			continue
		}
		// Head and tail of one emission share an id, so that thinning keeps or drops both.
		id := m.nextID
		m.nextID++
		if m.e.Head {
			m.emitParticle(&f, t, false, id)
		}
		if m.e.Tail {
			m.emitParticle(&f, t, true, id)
		}
	}
}

// emitParticle starts a particle at placement f of the emitter's node.
func (m *sim) emitParticle(f *frame, t float64, tail bool, id uint64) {
	if len(m.parts) >= m.maxLive {
		m.refused++
		return
	}
	e := m.e
	w, l := m.scalar(&e.Width, t)/2, m.scalar(&e.Length, t)/2
	lat := m.scalar(&e.Latitude, t) * math.Pi / 180
	speed := m.scalar(&e.Speed, t) * (1 + m.between(m.scalar(&e.Variation, t)))
	p := particle{health: float64(e.LifeSpan), tail: tail, id: id, nodeScale: f.s[0]}
	local := vec{m.between(w), 0, m.between(l)}
	// The direction leans from the node's +Y by a random angle within the latitude, in the
	// node's YZ plane; and, but for a line emitter, by another in its XY plane.
	a := m.between(lat)
	b := 0.0
	if !e.Line {
		b = m.between(lat)
	}
	sa, ca := math.Sincos(a)
	sb, cb := math.Sincos(b)
	dir := vec{sb, ca * cb, -cb * sa}
	if e.Sphere {
		// On a shell between Length and Width from the node, flying outward.
		r := 2 * (l + (w-l)*m.rng.Float64())
		sp, cp := math.Sincos(m.between(lat))
		sz, cz := math.Sincos(m.between(math.Pi))
		dir = vec{cp * cz, sp, -cp * sz}
		local = dir.scale(r)
	}
	if src := m.scalar(&e.Source, t); src > 0.001 {
		// From the point above, out through the spawn point (straight down from under it).
		if d := local.sub(vec{0, src, 0}).unit(); d != (vec{}) {
			dir = d
		}
	}
	if e.ModelSpace {
		p.pos = local
		p.vel = dir.scale(speed)
		p.gravity = m.scalar(&e.Gravity, t)
	} else {
		p.pos = f.apply(local)
		p.vel = f.direction(dir).scale(speed).mul(f.s)
		p.gravity = m.scalar(&e.Gravity, t) * f.s[1]
	}
	if e.XYQuad {
		// Turned to face the velocity on the ground plane (the game's own offset of π/8).
		p.facing = math.Atan2(-p.vel[2], p.vel[0]) - math.Pi + math.Pi/8
	}
	if !p.pos.finite() || !p.vel.finite() || !finite(p.gravity) {
		return
	}
	m.parts = append(m.parts, p)
}

func (m *sim) ageParticles(dt float64) {
	live := m.parts[:0]
	for _, p := range m.parts {
		m.work++
		p.health -= dt
		if p.health <= 0 {
			continue
		}
		p.vel[1] -= p.gravity * dt
		p.pos = p.pos.add(p.vel.scale(dt))
		live = append(live, p)
	}
	m.parts = live
}

// emitEdge leaves a ribbon edge at placement f: from Above over the node to Below under it.
func (m *sim) emitEdge(f *frame, t float64) {
	if len(m.edges) >= m.maxLive {
		m.refused++
		return
	}
	above, below := m.scalar(&m.e.Above, t), m.scalar(&m.e.Below, t)
	g := edge{above: f.apply(vec{0, 0, -above}), below: f.apply(vec{0, 0, below}), health: float64(m.e.LifeSpan)}
	if g.above.finite() && g.below.finite() {
		m.edges = append(m.edges, g)
	}
}

func (m *sim) ageEdges(dt float64) {
	fall := m.scalar(&m.e.Gravity, 0) * dt * dt
	live := m.edges[:0]
	for _, g := range m.edges {
		m.work++
		g.health -= dt
		if g.health <= 0 {
			continue
		}
		g.above[1] -= fall
		g.below[1] -= fall
		live = append(live, g)
	}
	m.edges = live
}

// lifeFactor is where a particle is in its life's two halves: the segment (0 or 1) and how
// far through it, 0 to 1.
func lifeFactor(e *scene.Emitter, health float64) (seg int, f float64) {
	life := float64(e.LifeSpan)
	x := 1.0
	if life > 0 {
		x = (life - health) / life
	}
	mid := float64(e.Middle)
	if x < mid {
		f = x / mid
	} else {
		seg = 1
		f = 1
		if mid < 1 {
			f = (x - mid) / (1 - mid)
		}
	}
	if !finite(f) {
		f = 1
	}
	return seg, min(max(f, 0), 1)
}

// cell is the texture cell a particle shows: interval (start, end, repeat) run over f.
func cell(e *scene.Emitter, iv [3]uint32, f float64) int {
	start, end, repeat := float64(iv[0]), float64(iv[1]), float64(iv[2])
	c := start
	if n := end - start; n > 0 {
		c = start + math.Mod(math.Floor(n*repeat*f), n)
	}
	last := float64(e.Rows*e.Columns - 1)
	return int(min(max(c, 0), max(last, 0)))
}
