package fx

import (
	"math"

	"github.com/modelfs/modelfs/translate/scene"
)

// The game draws an additive emitter's quads by adding them onto the picture: where many pile
// up, their colours sum until they saturate (a dim purple fire burns magenta at its heart).
// glTF can only blend a quad over what is behind it, which never gets brighter than the
// quad's own colour. So, for each sample, the baker estimates how much additive light falls
// where each quad lies, and gives the quad the alpha and colour that, blended with the others
// there, come to what the game's sum shows over a dark ground: full coverage and the summed,
// saturated colour where the sum passes 1, the quad's own look where it lies alone.

// softCover is the share of a quad its picture covers, on average: the baker sees materials,
// not pixels, and a particle's picture is mostly a soft spot. A quad whose texture is missing
// is drawn solid, all of it covered.
const softCover = 0.5

// pileCells is the side, in cells, of the grid the light is summed on, over the sample's
// extent in the view.
const pileCells = 96

// pileUp brightens the quads of the additive emitters where they pile up, sample by sample,
// over all the additive emitters of each animation.
func pileUp(s *scene.Scene, runs []*run) {
	byClip := map[int][]*run{}
	var order []int
	for _, r := range runs {
		if !s.Emitters[r.e].Additive || r.stride == 0 {
			continue
		}
		if _, ok := byClip[r.clip]; !ok {
			order = append(order, r.clip)
		}
		byClip[r.clip] = append(byClip[r.clip], r)
	}
	var g pileGrid
	for _, c := range order {
		rs := byClip[c]
		frames := 0
		covers := make([]float64, len(rs))
		for i, r := range rs {
			frames = max(frames, len(r.frames))
			covers[i] = cover(s, s.Emitters[r.e].Material)
		}
		for k := range frames {
			g.reset()
			for i, r := range rs {
				if k < len(r.frames) {
					for j := range r.frames[k] {
						g.add(&r.frames[k][j], covers[i], float64(r.stride))
					}
				}
			}
			g.apply()
		}
	}
}

// cover is the share of its quads the pictures of material m cover.
func cover(s *scene.Scene, m int) float64 {
	if m < 0 || m >= len(s.Materials) {
		return 1
	}
	t := s.Materials[m].Texture
	if t < 0 || t >= len(s.Textures) {
		return 1
	}
	if tx := &s.Textures[t]; tx.FileImage() == "" && (tx.Look == nil || tx.Look.Glow == nil) {
		return 1
	}
	return softCover
}

// pileGrid sums the light of one sample's additive quads: per cell of the view, the sum of
// their coverage and of their colour (sRGB, as the game adds).
type pileGrid struct {
	quads  []pileQuad
	sum    [][4]float64 // nu+1 by nv+1: the light per cell
	lo     [2]float64
	cell   float64
	nu, nv int
}

// pileQuad is a quad with the light it adds: coverage (alpha times its picture's cover, times
// the quads it stands for) and that times its colour, and its extent in the view.
type pileQuad struct {
	q      *quad
	light  [4]float64
	own    float64
	reach  float32 // how far from its centre towards a corner its picture shows
	lo, hi [2]float32
}

func (g *pileGrid) reset() { g.quads = g.quads[:0] }

// add counts q, whose picture covers cover of it and which stands for weight quads (thinning
// keeps one of every weight).
func (g *pileGrid) add(q *quad, cover, weight float64) {
	col := &q.col
	if !(col[3] > 0) {
		return
	}
	own := float64(col[3]) * cover
	a := own * weight
	// A soft picture shows about halfway to its corners; a solid quad shows all the way.
	reach := float32(0.5)
	if cover == 1 {
		reach = 0.7
	}
	p := pileQuad{q: q, own: own, reach: reach, lo: q.view[0], hi: q.view[0],
		light: [4]float64{a, a * srgb(float64(col[0])), a * srgb(float64(col[1])), a * srgb(float64(col[2]))}}
	for _, v := range q.view[1:] {
		p.lo = [2]float32{min(p.lo[0], v[0]), min(p.lo[1], v[1])}
		p.hi = [2]float32{max(p.hi[0], v[0]), max(p.hi[1], v[1])}
	}
	if !finite(float64(p.lo[0]+p.lo[1]+p.hi[0]+p.hi[1])) || !finite(a) {
		return
	}
	g.quads = append(g.quads, p)
}

// cellOf is the cell that holds x along axis k.
func (g *pileGrid) cellOf(x float32, k int) int {
	n := g.nu
	if k == 1 {
		n = g.nv
	}
	return min(max(int((float64(x)-g.lo[k])/g.cell), 0), n-1)
}

// apply sums the light over the grid and sets the alpha and colour of each quad's corners.
func (g *pileGrid) apply() {
	if len(g.quads) < 2 {
		return
	}
	lo, hi := [2]float64{math.Inf(1), math.Inf(1)}, [2]float64{math.Inf(-1), math.Inf(-1)}
	for _, p := range g.quads {
		lo[0], lo[1] = min(lo[0], float64(p.lo[0])), min(lo[1], float64(p.lo[1]))
		hi[0], hi[1] = max(hi[0], float64(p.hi[0])), max(hi[1], float64(p.hi[1]))
	}
	extent := max(hi[0]-lo[0], hi[1]-lo[1])
	if !(extent > 0) || !finite(extent) {
		return
	}
	g.lo, g.cell = lo, extent/pileCells
	g.nu = min(int((hi[0]-lo[0])/g.cell)+1, pileCells)
	g.nv = min(int((hi[1]-lo[1])/g.cell)+1, pileCells)
	w := g.nu + 1
	if n := w * (g.nv + 1); cap(g.sum) < n {
		g.sum = make([][4]float64, n)
	} else {
		g.sum = g.sum[:n]
		clear(g.sum)
	}
	// Each quad spreads its light evenly over the cells it covers: a difference table,
	// summed along both axes into the light per cell.
	put := func(i int, l *[4]float64, sign float64) {
		for c := range 4 {
			g.sum[i][c] += sign * l[c]
		}
	}
	for i := range g.quads {
		p := &g.quads[i]
		u0, u1 := g.cellOf(p.lo[0], 0), g.cellOf(p.hi[0], 0)
		v0, v1 := g.cellOf(p.lo[1], 1), g.cellOf(p.hi[1], 1)
		put(v0*w+u0, &p.light, 1)
		put(v0*w+u1+1, &p.light, -1)
		put((v1+1)*w+u0, &p.light, -1)
		put((v1+1)*w+u1+1, &p.light, 1)
	}
	for v := range g.nv + 1 {
		for u := 1; u <= g.nu; u++ {
			put(v*w+u, &g.sum[v*w+u-1], 1)
		}
	}
	for v := 1; v <= g.nv; v++ {
		for u := range g.nu + 1 {
			put(v*w+u, &g.sum[(v-1)*w+u], 1)
		}
	}
	// The corners' own colours, for the quads that get them: one block for the sample.
	lit := make([][4][4]float32, 0, len(g.quads))
	for i := range g.quads {
		p := &g.quads[i]
		centre := [2]float32{(p.lo[0] + p.hi[0]) / 2, (p.lo[1] + p.hi[1]) / 2}
		for k, v := range p.q.view {
			// The light on the way from the centre to the corner, as far as the quad's
			// picture shows; the corner takes it, and the quad blends between its corners, so
			// that a large quad under a few small bright ones brightens only under them.
			at := [2]float32{centre[0] + (v[0]-centre[0])*p.reach, centre[1] + (v[1]-centre[1])*p.reach}
			l := &g.sum[g.cellOf(at[1], 1)*w+g.cellOf(at[0], 0)]
			if !(l[0] > p.own*1.01) || !finite(l[0]+l[1]+l[2]+l[3]) {
				continue // alone where it lies: the blend shows what the game adds
			}
			// The blended quads there, each with coverage 1 − (1 − A)^(own/light), come to
			// coverage A = min(light, 1) together; each has the colour the sum there comes
			// to.
			if p.q.lit == nil {
				lit = append(lit, [4][4]float32{p.q.col, p.q.col, p.q.col, p.q.col})
				p.q.lit = &lit[len(lit)-1]
			}
			col := &p.q.lit[k]
			a := min(l[0], 1)
			alpha := (1 - math.Pow(1-min(a, 0.999), p.own/l[0])) * float64(col[3]) / p.own
			col[3] = float32(min(alpha, 1))
			for c := range 3 {
				col[c] = linear(float32(min(1, max(l[c+1], 0)/a)))
			}
		}
	}
}

// srgb is linear's inverse.
func srgb(v float64) float64 {
	if !(v > 0.0031308) {
		return max(v, 0) * 12.92
	}
	return 1.055*math.Pow(min(v, 1), 1/2.4) - 0.055
}
