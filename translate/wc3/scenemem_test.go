package wc3

import (
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/modelfs/modelfs/translate/scene"
)

// poisonSceneMem puts into the pool scene memory full of garbage, as the memory of a released
// scene would be.
func poisonSceneMem(elems int) {
	sm := &sceneMem{}
	nan := float32(math.NaN())
	v3 := sm.vec3.Take(2 * elems)
	for i := range v3 {
		v3[i] = [3]float32{nan, nan, nan}
	}
	uv := sm.vec2.Take(2 * elems)
	for i := range uv {
		uv[i] = [2]float32{nan, nan}
	}
	j := sm.joints.Take(elems)
	for i := range j {
		j[i] = [4]uint16{9999, 9999, 9999, 9999}
	}
	w := sm.weights.Take(elems)
	for i := range w {
		w[i] = [4]float32{nan, nan, nan, nan}
	}
	ix := sm.indices.Take(3 * elems)
	for i := range ix {
		ix[i] = 0xdeadbeef
	}
	putSceneMem(sm)
}

// sameScene compares two scenes, leaving out what Release would do (reflect.DeepEqual finds no
// two functions equal).
func sameScene(a, b *scene.Scene) bool {
	x, y := *a, *b
	x.OnRelease(nil)
	y.OnRelease(nil)
	return reflect.DeepEqual(x, y)
}

// TestReusedSceneMemory checks Build's reuse of the memory of released scenes: built into
// memory full of garbage, or into that of a scene released just before, the model gives the
// scene built from fresh memory (Build writes every element it takes), and a scene not
// released keeps its arrays while others are built and released.
func TestReusedSceneMemory(t *testing.T) {
	other := testModel() // another geoset, moved, without normals
	g := other.Geosets[0]
	g.Vertices, g.Normals = slices.Clone(g.Vertices), nil
	for v := range g.Vertices {
		g.Vertices[v][0] += 10
	}
	other.Geosets = append(other.Geosets, g)
	models := []*Model{testModel(), other}
	want := make([]*scene.Scene, len(models))
	for i, m := range models {
		want[i] = build(t, m)
	}
	for i, m := range models {
		poisonSceneMem(1 << 12)
		got := build(t, m)
		if !sameScene(got, want[i]) {
			t.Errorf("model %d: built into reused memory, the scene differs from a fresh one", i)
		}
		got.Release()
		next := models[(i+1)%len(models)]
		kept := build(t, next) // most likely in got's memory
		if !sameScene(kept, want[(i+1)%len(models)]) {
			t.Errorf("model %d: built into released memory, the scene differs from a fresh one", (i+1)%len(models))
		}
		build(t, m).Release()
		build(t, next).Release()
		if !sameScene(kept, want[(i+1)%len(models)]) {
			t.Errorf("model %d: a scene not released changed while others were built and released", (i+1)%len(models))
		}
	}
}
