package scene

import "testing"

// AddStatic copies what a prop shows, unskinned, sharing the plain textures the scene already
// has and only the textures its kept materials use.
func TestAddStatic(t *testing.T) {
	s := &Scene{Textures: []Texture{{Path: "wall.blp"}, {Path: "shared.blp", WrapU: true}}}
	o := &Scene{
		Textures: []Texture{
			{Path: "shared.blp", WrapU: true}, // 0: already in s
			{Path: "glow.blp"},                // 1
			{Path: "glow.blp", Look: &Look{Additive: true}, From: 1, Extras: Extras{"paintedFrom": int64(1)}}, // 2
			{Path: "skin2.blp"}, // 3: a variant's, unused by default
		},
		Materials: []Material{
			{Name: "body", Texture: 0},
			{Name: "aura", Texture: 2, Emission: &Emission{Texture: 1}},
			{Name: "skin2", Texture: 3},
		},
		Meshes: []Mesh{
			{Name: "Body", Positions: make([][3]float32, 3), Indices: []uint32{0, 1, 2}, Material: 0, Skin: 0,
				Joints: [][][4]uint16{make([][4]uint16, 3)}, Weights: [][][4]float32{make([][4]float32, 3)}, VariantMaterials: []int{0, 2}},
			{Name: "Hidden", Positions: make([][3]float32, 3), Indices: []uint32{0, 1, 2}, Material: 2, Hidden: true},
			{Name: "Aura", Positions: make([][3]float32, 3), Indices: []uint32{0, 1, 2}, Material: 1, Skin: -1},
		},
	}
	got := s.AddStatic(o)
	if len(got) != 2 || s.Meshes[got[0]].Name != "Body" || s.Meshes[got[1]].Name != "Aura" {
		t.Fatalf("added meshes %v", got)
	}
	body, aura := s.Meshes[got[0]], s.Meshes[got[1]]
	if body.Skin != -1 || body.Joints != nil || body.Weights != nil || body.VariantMaterials != nil {
		t.Errorf("body keeps its skin: %+v", body)
	}
	if len(s.Textures) != 4 {
		t.Fatalf("%d textures: %+v", len(s.Textures), s.Textures)
	}
	if m := s.Materials[body.Material]; m.Texture != 1 {
		t.Errorf("body's texture %d, want the scene's shared.blp (1)", m.Texture)
	}
	m := s.Materials[aura.Material]
	painted := s.Textures[m.Texture]
	if painted.Look == nil || s.Textures[painted.From].Path != "glow.blp" || painted.Extras["paintedFrom"] != int64(painted.From) {
		t.Errorf("aura's picture %+v", painted)
	}
	if m.Emission.Texture != painted.From {
		t.Errorf("aura's emission %d, want %d", m.Emission.Texture, painted.From)
	}
	if o.Materials[1].Emission.Texture != 1 {
		t.Errorf("the prop's own material changed")
	}
	// A second prop of the same pictures, spelt otherwise, adds none.
	o.Textures[0].Path, o.Textures[1].Path, o.Textures[2].Path = `SHARED.BLP`, `Glow.BLP`, `Glow.BLP`
	s.AddStatic(o)
	if len(s.Textures) != 4 {
		t.Errorf("%d textures after the second prop, want 4", len(s.Textures))
	}
}
