package m2_test

import (
	"testing"

	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/internal/scenemem"
	"github.com/modelfs/modelfs/translate/internal/testkit/testscene"
	"github.com/modelfs/modelfs/translate/m2"
	"github.com/modelfs/modelfs/translate/scene"
)

// TestReusedKeyMemory checks DecodeWith's reuse of key memory from model to model: decoded
// into memory full of garbage, each fixture gives the scene built from fresh memory (the
// decoder writes every key and vertex it reads), and still does after the next fixture has
// been decoded into the same memory (the scene keeps nothing of it).
func TestReusedKeyMemory(t *testing.T) {
	fx := fixtures(t)
	srcs := make([]codec.Source, len(fx))
	want := make([]*scene.Scene, len(fx))
	for i, f := range fx {
		srcs[i] = f.files.Source(f.model)
		m, err := m2.Read(srcs[i].Name, srcs[i].Data, srcs[i].Companion, m2.Options{})
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		if want[i], err = m2.Build(m, srcs[i].Name, m2.Options{}); err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
	}
	for i, f := range fx {
		m2.PoisonKeyMem(1 << 16)
		got, err := m2.DecodeWith(srcs[i], m2.Options{})
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		if !testscene.Same(got, want[i]) {
			t.Errorf("%s: decoded into reused memory, the scene differs from a fresh one", f.name)
		}
		next := (i + 1) % len(fx)
		if _, err := m2.DecodeWith(srcs[next], m2.Options{}); err != nil {
			t.Fatalf("%s: %v", fx[next].name, err)
		}
		if !testscene.Same(got, want[i]) {
			t.Errorf("%s: the scene changed when %s was decoded after it", f.name, fx[next].name)
		}
	}
}

// TestReusedSceneMemory checks Build's reuse of the memory of released scenes: built into
// memory full of garbage, or into that of the scene released just before, each fixture gives
// the scene built from fresh memory (Build writes every element it takes), and a scene not
// released keeps its arrays while others are built and released.
func TestReusedSceneMemory(t *testing.T) {
	fx := fixtures(t)
	srcs := make([]codec.Source, len(fx))
	want := make([]*scene.Scene, len(fx))
	for i, f := range fx {
		srcs[i] = f.files.Source(f.model)
		var err error
		if want[i], err = m2.DecodeWith(srcs[i], m2.Options{}); err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
	}
	for i, f := range fx {
		scenemem.Poison(1 << 16)
		got, err := m2.DecodeWith(srcs[i], m2.Options{})
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		if !testscene.Same(got, want[i]) {
			t.Errorf("%s: built into reused memory, the scene differs from a fresh one", f.name)
		}
		got.Release()
		got.Release() // a second call does nothing
		next := (i + 1) % len(fx)
		kept, err := m2.DecodeWith(srcs[next], m2.Options{}) // most likely in got's memory
		if err != nil {
			t.Fatalf("%s: %v", fx[next].name, err)
		}
		if !testscene.Same(kept, want[next]) {
			t.Errorf("%s: built into the memory %s released, the scene differs from a fresh one", fx[next].name, f.name)
		}
		for _, src := range []codec.Source{srcs[i], srcs[next]} {
			s, err := m2.DecodeWith(src, m2.Options{})
			if err != nil {
				t.Fatal(err)
			}
			s.Release()
		}
		if !testscene.Same(kept, want[next]) {
			t.Errorf("%s: a scene not released changed while others were built and released", fx[next].name)
		}
	}
}
