package wc3

import (
	"slices"
	"testing"

	"github.com/modelfs/modelfs/translate/internal/scenemem"
	"github.com/modelfs/modelfs/translate/internal/testkit/testscene"
	"github.com/modelfs/modelfs/translate/scene"
)

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
		scenemem.Poison(1 << 12)
		got := build(t, m)
		if !testscene.Same(got, want[i]) {
			t.Errorf("model %d: built into reused memory, the scene differs from a fresh one", i)
		}
		got.Release()
		next := models[(i+1)%len(models)]
		kept := build(t, next) // most likely in got's memory
		if !testscene.Same(kept, want[(i+1)%len(models)]) {
			t.Errorf("model %d: built into released memory, the scene differs from a fresh one", (i+1)%len(models))
		}
		build(t, m).Release()
		build(t, next).Release()
		if !testscene.Same(kept, want[(i+1)%len(models)]) {
			t.Errorf("model %d: a scene not released changed while others were built and released", (i+1)%len(models))
		}
	}
}
