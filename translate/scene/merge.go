package scene

import "strings"

// AddStatic adds the meshes o shows, unskinned and still, to s — with the materials and
// textures they use — and returns their indices in s.Meshes: a prop one model places in
// another (a building's furniture), which the outer model then draws as a Shape. Meshes hidden
// by default are left out, and each mesh keeps the pose its vertices are stored in (a skinned
// mesh's bind pose, which for the pivot-based skeletons of Warcraft III and World of Warcraft
// is the model at rest), since a placed prop does not play its own animations. A variant
// mesh shows its first look.
//
// A texture of o that s already has as a plain file (same path and resolution, case and
// slashes aside, same slot and wrapping), or the same picture painted from it, is shared, so
// that an output embeds each image once however many props use it.
func (s *Scene) AddStatic(o *Scene) []int {
	// Paths are compared as the games do: case and slashes aside.
	type plain struct {
		path, resolved string
		replaceable    int
		guess, wu, wv  bool
	}
	fold := func(p string) string { return strings.ToLower(strings.ReplaceAll(p, `\`, "/")) }
	have := map[plain]int{}
	for i := range s.Textures {
		if t := &s.Textures[i]; t.Look == nil {
			k := plain{fold(t.Path), fold(t.Resolved), t.Replaceable, t.Guess, t.WrapU, t.WrapV}
			if _, ok := have[k]; !ok {
				have[k] = i
			}
		}
	}
	// Textures are added as the kept materials use them (a variant's skins are not).
	texAt := map[int]int{}
	var tex func(i int) int
	tex = func(i int) int {
		if i < 0 || i >= len(o.Textures) {
			return -1
		}
		if at, ok := texAt[i]; ok {
			return at
		}
		t := o.Textures[i]
		if t.Look == nil {
			k := plain{fold(t.Path), fold(t.Resolved), t.Replaceable, t.Guess, t.WrapU, t.WrapV}
			if at, ok := have[k]; ok {
				texAt[i] = at
				return at
			}
			have[k] = len(s.Textures)
		} else {
			texAt[i] = -1 // a painting of itself, which Validate refuses, stops here
			t.From = tex(t.From)
			for j := range s.Textures { // the same picture painted already
				if u := &s.Textures[j]; u.Look != nil && u.From == t.From && u.Look.same(t.Look) {
					texAt[i] = j
					return j
				}
			}
			x := make(Extras, len(t.Extras))
			for k, v := range t.Extras {
				x[k] = v
			}
			x["paintedFrom"] = int64(t.From)
			t.Extras = x
		}
		texAt[i] = len(s.Textures)
		s.Textures = append(s.Textures, t)
		return texAt[i]
	}

	matAt := make([]int, len(o.Materials))
	for i := range matAt {
		matAt[i] = -1
	}
	var out []int
	for i := range o.Meshes {
		m := o.Meshes[i]
		if m.Hidden || len(m.Indices) == 0 {
			continue
		}
		if m.Material >= 0 && m.Material < len(o.Materials) {
			if matAt[m.Material] < 0 {
				matAt[m.Material] = len(s.Materials)
				s.Materials = append(s.Materials, o.Materials[m.Material].remapped(tex))
			}
			m.Material = matAt[m.Material]
		} else {
			m.Material = -1
		}
		m.Skin, m.Joints, m.Weights, m.VariantMaterials = -1, nil, nil, nil
		out = append(out, len(s.Meshes))
		s.Meshes = append(s.Meshes, m)
	}
	return out
}

// remapped is a copy of m whose texture references go through tex.
func (m Material) remapped(tex func(int) int) Material {
	m.Texture = tex(m.Texture)
	if m.Emission != nil {
		e := *m.Emission
		e.Texture = tex(e.Texture)
		m.Emission = &e
	}
	if m.PBR != nil {
		p := *m.PBR
		p.Normal, p.ORM = tex(p.Normal), tex(p.ORM)
		m.PBR = &p
	}
	m.Flags = append([]string(nil), m.Flags...)
	return m
}
