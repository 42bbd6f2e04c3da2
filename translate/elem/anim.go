package elem

import (
	"math"

	"github.com/modelfs/modelfs/translate/scene"
)

type uvAnimExtra struct {
	MeshContainer string       `json:"meshContainer"`
	Material      string       `json:"material"`
	Times         []float32    `json:"times"`
	Translation   [][2]float32 `json:"translation"`
	Rotation      []float32    `json:"rotation"`
	Scale         [][2]float32 `json:"scale"`
}

type animExtra struct {
	Name           string        `json:"name"`
	Animation      *int          `json:"animation"` // index into the scene's animations, null without bone channels
	TimeMS         float64       `json:"animationTimeMs"`
	FrameRate      float64       `json:"frameRate"`
	TransitionTime float64       `json:"transitionTime"`
	Priority       float64       `json:"priority"`
	Loop           bool          `json:"loop"`
	BoneParts      int           `json:"boneParts"`
	UVAnimation    []uvAnimExtra `json:"uvAnimation"`
}

// animations converts every AnimationData. Keys compose onto the node's InitPosture the way the
// Danmakufu loader does (row vectors: keys · InitPosture · parent), i.e. in glTF terms the
// animated local transform is InitPosture · T(key) · R(key) · S(key); with the posture
// decomposed into T·R·S (uniform scale) that is again one T·R·S, written as LINEAR channels.
func (b *builder) animations() error {
	var extras []animExtra
	for ai := range b.f.Animations {
		a := &b.f.Animations[ai]
		dur := a.TimeMS / 1000
		if !(dur > 0) {
			b.warnf(a.Line, "animation %q has no positive AnimationTime; key times read as seconds", a.Name)
			dur = 1
		}
		sa := scene.Animation{
			Name: a.Name, Duration: float32(dur), Loop: a.Loop,
			Extras: scene.Extras{"frameRate": a.FrameRate, "transitionTime": a.TransitionTime, "priority": a.Priority, "animationTimeMs": a.TimeMS},
		}
		done := map[int]bool{}
		for pi := range a.Parts {
			part := &a.Parts[pi]
			node, ok := b.byName[part.NodeName]
			if !ok {
				b.warnf(part.Line, "animation %q: AnimationPart for unknown node %q skipped", a.Name, part.NodeName)
				continue
			}
			if done[node] {
				b.warnf(part.Line, "animation %q: node %q animated twice; the first part is kept", a.Name, part.NodeName)
				continue
			}
			done[node] = true
			times := part.Times
			if len(times) == 0 {
				times = a.TimeKeys
			}
			n := len(times)
			for _, k := range []struct {
				what string
				got  int
			}{{"TransKeys", len(part.Trans)}, {"RotateKeys", len(part.Rotate)}, {"ScaleKeys", len(part.Scale)}} {
				if k.got != 0 && k.got != n {
					return b.failAt(part.Line, "animation %q, node %q: %d %s for %d TimeKeys", a.Name, part.NodeName, k.got, k.what, n)
				}
			}
			if n == 0 {
				continue
			}
			keep, secs := b.keyTimes(times, dur, a, part)
			if len(keep) == 0 {
				continue
			}
			r := b.rest[node]
			uniform := math.Abs(r.s[0]-r.s[1]) <= 1e-5*math.Abs(r.s[0]) && math.Abs(r.s[1]-r.s[2]) <= 1e-5*math.Abs(r.s[1])
			if len(part.Trans) > 0 {
				vals := make([]float32, 0, 3*len(keep))
				for _, k := range keep {
					t := b.convVec(part.Trans[k])
					v := rotate(r.q, vec3{r.s[0] * float64(t[0]), r.s[1] * float64(t[1]), r.s[2] * float64(t[2])})
					vals = append(vals, float32(r.t[0]+v[0]), float32(r.t[1]+v[1]), float32(r.t[2]+v[2]))
				}
				sa.Channels = append(sa.Channels, scene.Channel{Node: node, Path: scene.PathTranslation, Interp: scene.Linear, Times: secs, Values: vals})
			}
			if len(part.Rotate) > 0 {
				if !uniform {
					b.warnf(part.Line, "animation %q: node %q has a non-uniform posture scale; its rotation keys are approximate", a.Name, part.NodeName)
				}
				vals := make([]float32, 0, 4*len(keep))
				var prev quat
				for i, k := range keep {
					src := part.Rotate[k]
					q := quat{float64(src[0]), float64(src[1]), float64(src[2]), float64(src[3])}
					if b.mirror {
						q[0], q[1] = -q[0], -q[1]
					}
					q = normQuat(quatMul(r.q, normQuat(q)))
					if i > 0 && q[0]*prev[0]+q[1]*prev[1]+q[2]*prev[2]+q[3]*prev[3] < 0 {
						q = quat{-q[0], -q[1], -q[2], -q[3]}
					}
					prev = q
					vals = append(vals, float32(q[0]), float32(q[1]), float32(q[2]), float32(q[3]))
				}
				sa.Channels = append(sa.Channels, scene.Channel{Node: node, Path: scene.PathRotation, Interp: scene.Linear, Times: secs, Values: vals})
			}
			if len(part.Scale) > 0 {
				vals := make([]float32, 0, 3*len(keep))
				for _, k := range keep {
					s := part.Scale[k]
					vals = append(vals, float32(r.s[0]*float64(s[0])), float32(r.s[1]*float64(s[1])), float32(r.s[2]*float64(s[2])))
				}
				sa.Channels = append(sa.Channels, scene.Channel{Node: node, Path: scene.PathScale, Interp: scene.Linear, Times: secs, Values: vals})
			}
		}
		kept := sa.Channels[:0]
		for _, ch := range sa.Channels {
			if allFinite32(ch.Values) {
				kept = append(kept, ch)
			} else {
				b.warnf(a.Line, "animation %q: a %s channel of node %q leaves the float range; dropped", a.Name, ch.Path, b.s.Nodes[ch.Node].Name)
			}
		}
		sa.Channels = kept
		ex := animExtra{
			Name: a.Name, TimeMS: a.TimeMS, FrameRate: a.FrameRate, TransitionTime: a.TransitionTime,
			Priority: a.Priority, Loop: a.Loop, BoneParts: len(a.Parts), UVAnimation: []uvAnimExtra{},
		}
		for _, up := range a.UVParts {
			times := up.Times
			if len(times) == 0 {
				times = a.UVTimeKeys
			}
			secs := make([]float32, len(times))
			for i, t := range times {
				secs[i] = float32(float64(t) * dur)
			}
			ex.UVAnimation = append(ex.UVAnimation, uvAnimExtra{
				MeshContainer: up.ContainerName, Material: up.MaterialName, Times: secs,
				Translation: nonNil(up.Trans), Rotation: nonNil(up.Rotate), Scale: nonNil(up.Scale),
			})
		}
		if len(ex.UVAnimation) > 0 {
			sa.Extras["uvAnimation"] = ex.UVAnimation
		}
		if len(sa.Channels) > 0 {
			k := len(b.s.Animations)
			ex.Animation = &k
			b.s.Animations = append(b.s.Animations, sa)
		} else {
			b.warnf(a.Line, "animation %q has no bone keys; listed in the metadata only", a.Name)
		}
		extras = append(extras, ex)
	}
	if len(extras) > 0 {
		b.s.Extras["animations"] = extras
	}
	return nil
}

// keyTimes converts fractions of the animation time to seconds, keeping the keys whose times
// are finite, non-negative and strictly increasing.
func (b *builder) keyTimes(times []float32, dur float64, a *Animation, part *AnimationPart) ([]int, []float32) {
	keep := make([]int, 0, len(times))
	secs := make([]float32, 0, len(times))
	for k, t := range times {
		s := float32(float64(t) * dur)
		if math.IsNaN(float64(s)) || math.IsInf(float64(s), 0) || s < 0 || len(secs) > 0 && s <= secs[len(secs)-1] {
			continue
		}
		keep = append(keep, k)
		secs = append(secs, s)
	}
	if d := len(times) - len(keep); d > 0 {
		b.warnf(part.Line, "animation %q, node %q: %d keys with negative or non-increasing times dropped", a.Name, part.NodeName, d)
	}
	return keep, secs
}

func allFinite32(v []float32) bool {
	for _, x := range v {
		if !finite(float64(x)) {
			return false
		}
	}
	return true
}
