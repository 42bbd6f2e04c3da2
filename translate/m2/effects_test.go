package m2_test

import (
	"math"
	"strings"
	"testing"

	"github.com/modelfs/modelfs/translate/m2"
	"github.com/modelfs/modelfs/translate/scene"
)

// TestEmittersAcrossVersions reads the fixtures' particle emitter and ribbon, written in every
// version's layout (the legacy three keys and the later life tracks hold the same values),
// and requires the same description for the simulator from each, and both in the .json's
// emitters with their kinds and nodes.
func TestEmittersAcrossVersions(t *testing.T) {
	var ref []scene.Emitter
	var refName string
	for _, fx := range fixtures(t) {
		if !strings.HasPrefix(fx.name, "creature-v") {
			continue
		}
		s, err := m2.Decode(fx.files.Source(fx.model))
		if err != nil {
			t.Fatalf("%s: %v", fx.name, err)
		}
		if len(s.Emitters) != 2 || s.Emitters[0].Kind != m2.EmitterParticle || s.Emitters[1].Kind != m2.EmitterRibbon {
			t.Fatalf("%s: emitters %+v; want a particle emitter and a ribbon", fx.name, s.Emitters)
		}
		em, _ := s.Extras["emitters"].([]scene.Extras)
		if len(em) != 2 || em[0]["kind"] != m2.EmitterParticle || em[1]["kind"] != m2.EmitterRibbon {
			t.Fatalf("%s: .json emitters %v", fx.name, em)
		}
		for i, e := range s.Emitters {
			if n := s.Nodes[e.Node]; em[i]["node"] != e.Node || n.Extras["emitter"] != i {
				t.Errorf("%s: emitter %d on node %d (%s, extras %v), .json says node %v", fx.name, i, e.Node, n.Name, n.Extras, em[i]["node"])
			}
		}
		p := &s.Emitters[0]
		if math.Abs(float64(p.Middle)-0.4) > 1e-4 || !p.Head || p.Tail || p.LifeSpan != 1.5 || p.Rate.Curve == nil || p.Speed.Value[0] != 2 ||
			p.Cells[0] != [3]uint32{0, 4, 1} || p.Cells[1] != [3]uint32{4, 8, 1} || p.Rows != 4 || p.Columns != 4 {
			t.Errorf("%s: particle emitter %+v", fx.name, *p)
		}
		if ref == nil {
			ref, refName = s.Emitters, fx.name
			continue
		}
		for i := range s.Emitters {
			a, b := ref[i], s.Emitters[i]
			for k := range 3 {
				for c := range 4 {
					if math.Abs(float64(a.Colors[k][c]-b.Colors[k][c])) > 1e-4 {
						t.Errorf("%s: emitter %d colour %d is %v, %s's %v", fx.name, i, k, b.Colors[k], refName, a.Colors[k])
					}
				}
				if a.Scales[k] != b.Scales[k] {
					t.Errorf("%s: emitter %d scale %d is %v, %s's %v", fx.name, i, k, b.Scales[k], refName, a.Scales[k])
				}
			}
			if a.Cells != b.Cells || math.Abs(float64(a.Middle-b.Middle)) > 1e-4 || a.LifeSpan != b.LifeSpan || a.Head != b.Head || a.Material != b.Material {
				t.Errorf("%s: emitter %d differs from %s's", fx.name, i, refName)
			}
		}
	}
	if ref == nil {
		t.Fatal("no creature fixtures")
	}
}
