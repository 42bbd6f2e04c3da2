// Package scenemem is the memory decoders carve a scene's large arrays from — key times and
// values, vertex attributes, triangles — reused from one scene to the next: a decoder takes a
// Mem, carves the arrays it builds from it, and ties it to the scene with Attach, so that the
// scene's Release (once its outputs are made) hands it back for the next model. A translation
// then allocates, zeroes and has the garbage collector count little beyond its output.
package scenemem

import (
	"math"

	"github.com/modelfs/modelfs/translate/internal/arena"
	"github.com/modelfs/modelfs/translate/scene"
)

// Mem holds the arenas of one scene. Its arenas hand out stale memory: a decoder writes every
// element it takes.
type Mem struct {
	Times, Values arena.Arena[float32]    // animation key times and values
	Vec3          arena.Arena[[3]float32] // positions and normals
	Vec2          arena.Arena[[2]float32] // texture coordinates
	Joints        arena.Arena[[4]uint16]
	Weights       arena.Arena[[4]float32]
	Indices       arena.Arena[uint32]
}

// pool keeps the memory of released scenes, up to 64 MiB each.
var pool = arena.Pool[Mem]{Limit: 64 << 20}

// Get returns memory for one scene, reused when a released scene left some.
func Get() *Mem { return pool.Get() }

// Put returns m to the pool. Nothing carved from it may be used afterwards.
func (m *Mem) Put() {
	pool.Put(m, &m.Times, &m.Values, &m.Vec3, &m.Vec2, &m.Joints, &m.Weights, &m.Indices)
}

// Attach makes s's Release put m back: s is built from m and handed to its owner.
func (m *Mem) Attach(s *scene.Scene) { s.OnRelease(m.Put) }

// Build runs a decoder's build steps in order. At the first error it puts m back (the scene
// is dropped) and returns that error.
func (m *Mem) Build(steps ...func() error) error {
	for _, step := range steps {
		if err := step(); err != nil {
			m.Put()
			return err
		}
	}
	return nil
}

// Poison puts into the pool memory whose every block is full of garbage (NaNs, out-of-range
// joints and indices), as the memory of a released scene would be, so that tests can check
// that a decoder writes every element it takes.
func Poison(elems int) {
	m := new(Mem)
	nan := float32(math.NaN())
	for _, a := range []*arena.Arena[float32]{&m.Times, &m.Values} {
		v := a.Take(4 * elems)
		for i := range v {
			v[i] = nan
		}
	}
	v3 := m.Vec3.Take(2 * elems)
	for i := range v3 {
		v3[i] = [3]float32{nan, nan, nan}
	}
	uv := m.Vec2.Take(2 * elems)
	for i := range uv {
		uv[i] = [2]float32{nan, nan}
	}
	j := m.Joints.Take(elems)
	for i := range j {
		j[i] = [4]uint16{9999, 9999, 9999, 9999}
	}
	w := m.Weights.Take(elems)
	for i := range w {
		w[i] = [4]float32{nan, nan, nan, nan}
	}
	ix := m.Indices.Take(3 * elems)
	for i := range ix {
		ix[i] = 0xdeadbeef
	}
	m.Put()
}
