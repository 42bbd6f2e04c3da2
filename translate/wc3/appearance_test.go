package wc3_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/modelfs/modelfs/internal/testkit/fixtures"
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/scene"
	"github.com/modelfs/modelfs/translate/wc3"
)

// TestAppearance builds the Beacon fixture, one geoset per class of what the game shows
// otherwise than the file holds, and checks each against the game's rules.
func TestAppearance(t *testing.T) {
	m := fixtures.Beacon()
	s, err := wc3.Build(m, codec.Source{Name: "Units/Beacon.mdx"}, "mdx")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Meshes) != 7 {
		t.Fatalf("%d meshes", len(s.Meshes))
	}
	mat := func(mi int) *scene.Material { return &s.Materials[s.Meshes[mi].Material] }
	tex := func(i int) *scene.Texture { return &s.Textures[i] }

	// The default frame is the first Stand's, not the first sequence's (Birth, where the
	// burst shows), and Stand is the first animation, which glTF readers show on import.
	for mi, want := range []bool{true, true, true, true, false, true, false} {
		if s.Meshes[mi].Hidden == want {
			t.Errorf("geoset %d: hidden %v, want %v", mi, s.Meshes[mi].Hidden, !want)
		}
	}
	if s.Animations[0].Name != "Stand" || s.Animations[1].Name != "Birth" || s.Animations[2].Name != "Spell" {
		t.Errorf("animations %q %q %q", s.Animations[0].Name, s.Animations[1].Name, s.Animations[2].Name)
	}

	// Geoset 0: team colour under the banner, composited over player 1's red.
	if m0 := mat(0); m0.Texture < 0 || tex(m0.Texture).Look == nil || tex(m0.Texture).Look.Under == nil || m0.AlphaMode != scene.AlphaOpaque {
		t.Errorf("team colour composite: %+v", m0)
	} else if u := *tex(m0.Texture).Look.Under; u != [3]float32{1, 3.0 / 255, 3.0 / 255} || tex(m0.Texture).Path != `Textures\Banner.tga` {
		t.Errorf("composited over %v, from %q", u, tex(m0.Texture).Path)
	}
	// Every player's colour is a variant; player 1's is the default material.
	if len(s.Variants) != 24 || s.Variants[1] != "Blue" || len(s.Meshes[0].VariantMaterials) != 24 || s.Meshes[0].VariantMaterials[0] != s.Meshes[0].Material {
		t.Errorf("variants %v, mesh 0 %v", s.Variants, s.Meshes[0].VariantMaterials)
	} else if blue := s.Materials[s.Meshes[0].VariantMaterials[1]]; blue.Emission == nil || blue.Emission.Factor[2] != 1 || blue.Emission.Factor[0] != 0 {
		t.Errorf("blue player: %+v", blue)
	}

	// Geoset 1: additive glow, blended with alpha from brightness, unlit.
	if m1 := mat(1); m1.AlphaMode != scene.AlphaBlend || !m1.Unlit || tex(m1.Texture).Look == nil || !tex(m1.Texture).Look.Additive {
		t.Errorf("additive: %+v", m1)
	}
	// Geoset 2: team glow without its file: a painted glow of player 1's colour.
	if m2 := mat(2); tex(m2.Texture).Look == nil || tex(m2.Texture).Look.Glow == nil || (*tex(m2.Texture).Look.Glow)[0] != 1 {
		t.Errorf("team glow: %+v", m2)
	}
	// Geoset 3: tinted by its geoset animation's colour (as linear factors).
	if m3 := mat(3); m3.BaseColor != [4]float32{scene.SRGBToLinear(0.2), scene.SRGBToLinear(0.8), scene.SRGBToLinear(0.3), 1} {
		t.Errorf("tint: %v", m3.BaseColor)
	}
	if s.Meshes[3].Material == 3 || s.Materials[3].BaseColor != [4]float32{1, 1, 1, 1} {
		t.Error("the tint changed the shared material")
	}
	// Geoset 5: modulate, black with alpha from darkness.
	if m5 := mat(5); m5.AlphaMode != scene.AlphaBlend || tex(m5.Texture).Look == nil || !tex(m5.Texture).Look.Modulate {
		t.Errorf("modulate: %+v", m5)
	}
	// Geoset 6, hidden by its layer's alpha: its material keeps the alpha it shows with.
	if a := mat(6).BaseColor[3]; a != 0.8 {
		t.Errorf("halo alpha %v, want 0.8", a)
	}
	for i := range s.Materials {
		if x, _ := s.Materials[i].Extras["technique"].(string); x == "" {
			t.Errorf("material %d has no technique", i)
		}
	}

	// Visibility steps: the burst fades in at Spell's 2200–2500 (shown from just after the
	// start) and out at 2900–3200 (shown until the end), the halo from Spell's start.
	steps := func(a *scene.Animation, mesh int) (string, []float32) {
		for _, v := range a.Visibility {
			if v.Mesh == mesh {
				var b strings.Builder
				for _, on := range v.Shown {
					b.WriteByte("hs"[btoi(on)])
				}
				return b.String(), v.Times
			}
		}
		return "", nil
	}
	spell := &s.Animations[2]
	if got, times := steps(spell, 4); got != "hsh" || !slices.Equal(times, []float32{0, 0.001, 1}) {
		t.Errorf("burst in Spell: %s at %v", got, times)
	}
	if got, _ := steps(spell, 6); !strings.HasPrefix(got, "sh") {
		t.Errorf("halo in Spell: %s", got)
	}
	if got, _ := steps(&s.Animations[0], 4); got != "hh" {
		t.Errorf("burst in Stand: %s", got)
	}
	if got, _ := steps(&s.Animations[1], 4); got != "ss" {
		t.Errorf("burst in Birth: %s", got)
	}
	if got, _ := steps(&s.Animations[0], 0); got != "" {
		t.Errorf("the pillar, always shown, has steps: %s", got)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
