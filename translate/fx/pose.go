package fx

import (
	"math"
	"sort"

	"github.com/modelfs/modelfs/translate/scene"
)

// vec is a point or direction in the scene's frame.
type vec [3]float64

func (a vec) add(b vec) vec       { return vec{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func (a vec) sub(b vec) vec       { return vec{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func (a vec) scale(s float64) vec { return vec{a[0] * s, a[1] * s, a[2] * s} }
func (a vec) mul(b vec) vec       { return vec{a[0] * b[0], a[1] * b[1], a[2] * b[2]} }
func (a vec) dot(b vec) float64   { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func (a vec) length() float64     { return math.Sqrt(a.dot(a)) }
func (a vec) cross(b vec) vec {
	return vec{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}
func (a vec) finite() bool { return finite(a[0]) && finite(a[1]) && finite(a[2]) }

// maxCoord bounds where anything is drawn: a particle flung further (a broken emitter's
// speed or size) is left out, as a float32 could not hold it or no one could see it.
const maxCoord = 1e7

func (a vec) drawable() bool {
	return math.Abs(a[0]) <= maxCoord && math.Abs(a[1]) <= maxCoord && math.Abs(a[2]) <= maxCoord
}
func finite(f float64) bool   { return !math.IsNaN(f) && !math.IsInf(f, 0) }
func of(v [3]float32) vec     { return vec{float64(v[0]), float64(v[1]), float64(v[2])} }
func (a vec) f32() [3]float32 { return [3]float32{float32(a[0]), float32(a[1]), float32(a[2])} }
func (a vec) unit() vec {
	l := a.length()
	if l == 0 || !finite(l) {
		return vec{}
	}
	return a.scale(1 / l)
}

// quat is a rotation (x, y, z, w).
type quat [4]float64

func (q quat) mul(r quat) quat {
	return quat{
		q[3]*r[0] + q[0]*r[3] + q[1]*r[2] - q[2]*r[1],
		q[3]*r[1] - q[0]*r[2] + q[1]*r[3] + q[2]*r[0],
		q[3]*r[2] + q[0]*r[1] - q[1]*r[0] + q[2]*r[3],
		q[3]*r[3] - q[0]*r[0] - q[1]*r[1] - q[2]*r[2],
	}
}

func (q quat) conj() quat { return quat{-q[0], -q[1], -q[2], q[3]} }

// rotate turns v by q.
func (q quat) rotate(v vec) vec {
	u := vec{q[0], q[1], q[2]}
	t := u.cross(v).scale(2)
	return v.add(t.scale(q[3])).add(u.cross(t))
}

func (q quat) unit() quat {
	l := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	if l == 0 || !finite(l) {
		return quat{0, 0, 0, 1}
	}
	return quat{q[0] / l, q[1] / l, q[2] / l, q[3] / l}
}

// frame is a node's placement in the scene: p' = T + R·(S∘p).
type frame struct {
	t vec
	r quat
	s vec
}

var identity = frame{r: quat{0, 0, 0, 1}, s: vec{1, 1, 1}}

// apply places a point given in the node's frame.
func (f *frame) apply(p vec) vec { return f.t.add(f.r.rotate(p.mul(f.s))) }

// direction turns a direction of the node's frame into the scene's (rotation only).
func (f *frame) direction(d vec) vec { return f.r.rotate(d) }

// local turns a point of the scene into the node's frame.
func (f *frame) local(p vec) vec {
	q := f.r.conj().rotate(p.sub(f.t))
	return vec{div(q[0], f.s[0]), div(q[1], f.s[1]), div(q[2], f.s[2])}
}

// localDir turns a direction of the scene into the node's frame, undoing its scale.
func (f *frame) localDir(d vec) vec {
	q := f.r.conj().rotate(d)
	return vec{div(q[0], f.s[0]), div(q[1], f.s[1]), div(q[2], f.s[2])}
}

func div(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// compose is the frame of a child placed by local within parent f (scale shears are left
// out, as the games' own node updates leave them).
func (f *frame) compose(local frame) frame {
	return frame{t: f.apply(local.t), r: f.r.mul(local.r).unit(), s: f.s.mul(local.s)}
}

// poser evaluates the scene's node placements at moments of one animation.
type poser struct {
	s     *scene.Scene
	chans [][3]*scene.Channel // per node: translation, rotation, scale of the animation
}

func newPoser(s *scene.Scene, anim int) *poser {
	p := &poser{s: s, chans: make([][3]*scene.Channel, len(s.Nodes))}
	if anim >= 0 && anim < len(s.Animations) {
		a := &s.Animations[anim]
		for i := range a.Channels {
			c := &a.Channels[i]
			if c.Node >= 0 && c.Node < len(s.Nodes) {
				p.chans[c.Node][c.Path.Index()] = c
			}
		}
	}
	return p
}

// world is node n's placement at t seconds into the animation.
func (p *poser) world(n int, t float64) frame {
	f := identity
	// Walk up to the root (the scene's parent chains are acyclic, Validate holds it), then
	// compose down.
	var buf [64]int
	chain := buf[:0]
	for i, steps := n, 0; i >= 0 && i < len(p.s.Nodes) && steps <= len(p.s.Nodes); i, steps = p.s.Nodes[i].Parent, steps+1 {
		chain = append(chain, i)
	}
	for k := len(chain) - 1; k >= 0; k-- {
		f = f.compose(p.local(chain[k], t))
	}
	return f
}

// local is node n's placement within its parent at t.
func (p *poser) local(n int, t float64) frame {
	nd := &p.s.Nodes[n]
	tr, r, s := nd.Translation, nd.Rotation, nd.Scale
	ch := &p.chans[n]
	if c := ch[0]; c != nil {
		sample(c, t, tr[:])
	}
	if c := ch[1]; c != nil {
		sample(c, t, r[:])
	}
	if c := ch[2]; c != nil {
		sample(c, t, s[:])
	}
	return frame{t: of(tr), r: quat{float64(r[0]), float64(r[1]), float64(r[2]), float64(r[3])}.unit(), s: of(s)}
}

// sample evaluates channel c at t into out (Path.Width floats), as glTF plays it.
func sample(c *scene.Channel, t float64, out []float32) {
	w := c.Path.Width()
	n := len(c.Times)
	stride := w
	at := 0
	if c.Interp == scene.CubicSpline {
		stride, at = 3*w, w
	}
	if n == 0 || len(c.Values) < n*stride {
		return
	}
	val := func(k int) []float32 { return c.Values[k*stride+at : k*stride+at+w] }
	i := sort.Search(n, func(i int) bool { return float64(c.Times[i]) > t })
	switch {
	case i == 0:
		copy(out, val(0))
		return
	case i == n:
		copy(out, val(n-1))
		return
	}
	if c.Interp == scene.Step {
		copy(out, val(i-1))
		return
	}
	t0, t1 := float64(c.Times[i-1]), float64(c.Times[i])
	u := (t - t0) / (t1 - t0)
	a, b := val(i-1), val(i)
	if c.Path == scene.PathRotation {
		q := slerp(quat{float64(a[0]), float64(a[1]), float64(a[2]), float64(a[3])},
			quat{float64(b[0]), float64(b[1]), float64(b[2]), float64(b[3])}, u)
		for k := range 4 {
			out[k] = float32(q[k])
		}
		return
	}
	for k := range w {
		out[k] = float32(float64(a[k]) + (float64(b[k])-float64(a[k]))*u)
	}
}

func slerp(a, b quat, u float64) quat {
	d := a[0]*b[0] + a[1]*b[1] + a[2]*b[2] + a[3]*b[3]
	if d < 0 {
		b, d = quat{-b[0], -b[1], -b[2], -b[3]}, -d
	}
	if d > 0.9995 {
		return quat{a[0] + (b[0]-a[0])*u, a[1] + (b[1]-a[1])*u, a[2] + (b[2]-a[2])*u, a[3] + (b[3]-a[3])*u}.unit()
	}
	th := math.Acos(d)
	sa, sb := math.Sin((1-u)*th)/math.Sin(th), math.Sin(u*th)/math.Sin(th)
	return quat{a[0]*sa + b[0]*sb, a[1]*sa + b[1]*sb, a[2]*sa + b[2]*sb, a[3]*sa + b[3]*sb}
}
