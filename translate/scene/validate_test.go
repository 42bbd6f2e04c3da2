package scene

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// validScene is a small skinned, animated scene that passes Validate.
func validScene() *Scene {
	return &Scene{
		Nodes: []Node{
			{Name: "root", Kind: KindBone, Parent: -1, Rotation: [4]float32{0, 0, 0, 1}, Scale: [3]float32{1, 1, 1}},
			{Name: "child", Kind: KindBone, Parent: 0, Rotation: [4]float32{0, 0, 0, 1}, Scale: [3]float32{1, 1, 1}},
		},
		Meshes: []Mesh{{
			Name:      "tri",
			Positions: [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
			Normals:   [][3]float32{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}},
			UVs:       [][][2]float32{{{0, 0}, {1, 0}, {0, 1}}},
			Joints:    [][][4]uint16{{{0, 1, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}}},
			Weights:   [][][4]float32{{{0.5, 0.5, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}}},
			Indices:   []uint32{0, 1, 2},
			Material:  0,
			Skin:      0,
		}},
		Materials: []Material{{Name: "m", Texture: 0, AlphaMode: AlphaOpaque}},
		Textures:  []Texture{{Path: `Textures\a.blp`}},
		Skins:     []Skin{{Joints: []int{0, 1}, InverseBind: make([][16]float32, 2), Skeleton: -1}},
		Animations: []Animation{{Name: "Stand", Duration: 1, Channels: []Channel{
			{Node: 1, Path: PathRotation, Interp: Linear, Times: []float32{0, 1}, Values: []float32{0, 0, 0, 1, 0, 0, 0, 1}},
			{Node: 0, Path: PathTranslation, Interp: CubicSpline, Times: []float32{0}, Values: make([]float32, 9)},
		}}},
	}
}

func TestValidate(t *testing.T) {
	nan := float32(math.NaN())
	tests := []struct {
		name   string
		mutate func(s *Scene)
		where  string // "" means valid
	}{
		{"valid", func(s *Scene) {}, ""},
		{"parent out of range", func(s *Scene) { s.Nodes[1].Parent = 5 }, "nodes[1]"},
		{"self parent", func(s *Scene) { s.Nodes[0].Parent = 0 }, "nodes[0]"},
		{"cycle", func(s *Scene) { s.Nodes[0].Parent = 1 }, "cycle"},
		{"index past vertices", func(s *Scene) { s.Meshes[0].Indices[2] = 3 }, "indices[2]"},
		{"not triangles", func(s *Scene) { s.Meshes[0].Indices = s.Meshes[0].Indices[:2] }, "multiple of 3"},
		{"normals short", func(s *Scene) { s.Meshes[0].Normals = s.Meshes[0].Normals[:1] }, "normals"},
		{"nan position", func(s *Scene) { s.Meshes[0].Positions[1][0] = nan }, "positions[1]"},
		{"uv set short", func(s *Scene) { s.Meshes[0].UVs[0] = s.Meshes[0].UVs[0][:2] }, "uv set 0"},
		{"material out of range", func(s *Scene) { s.Meshes[0].Material = 3 }, "material 3"},
		{"texture out of range", func(s *Scene) { s.Materials[0].Texture = 2 }, "materials[0]"},
		{"variants", func(s *Scene) { s.Variants = []string{"a", "b"}; s.Meshes[0].VariantMaterials = []int{0, 0} }, ""},
		{"variant without a name", func(s *Scene) { s.Variants = []string{""} }, "variants[0]"},
		{"lights", func(s *Scene) {
			s.Lights = []Light{{Node: 0, Type: LightPoint, Color: [3]float32{1, 0.5, 0}, Intensity: 2, Range: 5},
				{Node: 1, Type: LightSpot, InnerCone: 0.2, OuterCone: math.Pi / 4}}
		}, ""},
		{"light node out of range", func(s *Scene) { s.Lights = []Light{{Node: 2, Type: LightPoint}} }, "lights[0]"},
		{"two lights on a node", func(s *Scene) { s.Lights = []Light{{Node: 1, Type: LightPoint}, {Node: 1, Type: LightPoint}} }, "another light"},
		{"light type", func(s *Scene) { s.Lights = []Light{{Node: 0, Type: "area"}} }, "type"},
		{"spot cone", func(s *Scene) { s.Lights = []Light{{Node: 0, Type: LightSpot, InnerCone: 0.5, OuterCone: 0.5}} }, "spot cone"},
		{"spot past a right angle", func(s *Scene) { s.Lights = []Light{{Node: 0, Type: LightSpot, OuterCone: float32(math.Pi / 2)}} }, "spot cone"},
		{"light colour past 1", func(s *Scene) { s.Lights = []Light{{Node: 0, Type: LightPoint, Color: [3]float32{2, 0, 0}}} }, "colour"},
		{"light intensity nan", func(s *Scene) { s.Lights = []Light{{Node: 0, Type: LightPoint, Intensity: nan}} }, "intensity"},
		{"sun with a range", func(s *Scene) { s.Lights = []Light{{Node: 0, Type: LightDirectional, Range: 3}} }, "range"},
		{"variant materials short", func(s *Scene) { s.Variants = []string{"a", "b"}; s.Meshes[0].VariantMaterials = []int{0} }, "2 variants"},
		{"variant material out of range", func(s *Scene) { s.Variants = []string{"a"}; s.Meshes[0].VariantMaterials = []int{1} }, "material 1"},
		{"variant material none", func(s *Scene) { s.Variants = []string{"a"}; s.Meshes[0].VariantMaterials = []int{-1} }, "variant material -1"},
		{"joint out of range", func(s *Scene) { s.Meshes[0].Joints[0][0][1] = 2 }, "joint 2"},
		{"weights not 1", func(s *Scene) { s.Meshes[0].Weights[0][0][1] = 0.2 }, "sum"},
		{"negative weight", func(s *Scene) { s.Meshes[0].Weights[0][1] = [4]float32{1.5, -0.5, 0, 0} }, "bad weight"},
		{"skin without influences", func(s *Scene) { s.Meshes[0].Joints, s.Meshes[0].Weights = nil, nil }, "without influences"},
		{"influences without skin", func(s *Scene) { s.Meshes[0].Skin = -1 }, "without a skin"},
		{"skin joint twice", func(s *Scene) { s.Skins[0].Joints[1] = 0 }, "twice"},
		{"ibm count", func(s *Scene) { s.Skins[0].InverseBind = s.Skins[0].InverseBind[:1] }, "inverse bind"},
		{"times not increasing", func(s *Scene) { s.Animations[0].Channels[0].Times[1] = 0 }, "times[1]"},
		{"values short", func(s *Scene) { s.Animations[0].Channels[1].Values = make([]float32, 3) }, "values"},
		{"channel node", func(s *Scene) { s.Animations[0].Channels[0].Node = -1 }, "node -1"},
		{"bad path", func(s *Scene) { s.Animations[0].Channels[0].Path = "weights" }, "unknown path"},
		{"bad interp", func(s *Scene) { s.Animations[0].Channels[0].Interp = "SMOOTH" }, "unknown interpolation"},
		{"empty mesh", func(s *Scene) { s.Meshes[0].Positions = nil }, "no vertices"},
		{"nan key value", func(s *Scene) { s.Animations[0].Channels[0].Values[5] = nan }, "channels[0]: non-finite"},
		{"infinite key value", func(s *Scene) { s.Animations[0].Channels[1].Values[8] = float32(math.Inf(-1)) }, "channels[1]: non-finite"},
		{"infinite last time", func(s *Scene) { s.Animations[0].Channels[0].Times[1] = float32(math.Inf(1)) }, "times[1]"},
		{"infinite rest scale", func(s *Scene) { s.Nodes[1].Scale[2] = float32(math.Inf(1)) }, "nodes[1]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := validScene()
			tc.mutate(s)
			err := s.Validate()
			if tc.where == "" {
				if err != nil {
					t.Fatalf("Validate() = %v; want nil", err)
				}
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Validate() = %v; want *ValidationError", err)
			}
			if !strings.Contains(err.Error(), tc.where) {
				t.Fatalf("Validate() = %q; want it to mention %q", err, tc.where)
			}
		})
	}
}
