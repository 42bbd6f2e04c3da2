package wc3

import (
	"fmt"
	"strings"

	"github.com/modelfs/modelfs/translate/scene"
)

// hdSlots returns, for an HD (Reforged) material, the texture of each slot (SlotDiffuse …
// SlotReflection; -1 where the material has none) and the layer whose filter mode, shading and
// UV set the material takes; ok is false for an SD material, which look draws.
//
// Versions 900 and 1000 mark an HD material by its shader name (Shader_HD_…) and give one
// layer per slot, in slot order. From 1100 a layer of shader type 1 lists its textures by slot.
func (b *builder) hdSlots(i int) (slots [6]int, layer int, ok bool) {
	m := &b.m.Materials[i]
	slots = [6]int{-1, -1, -1, -1, -1, -1}
	texture := func(id int32, what string) int {
		if id >= 0 && int(id) < len(b.m.Textures) {
			return int(id)
		}
		b.warn("material %d: %s names texture %d of %d", i, what, id, len(b.m.Textures))
		return -1
	}
	for j := range m.Layers {
		l := &m.Layers[j]
		if hd := l.Reforged; hd != nil && hd.ShaderType == 1 && len(hd.Textures) > 0 {
			for _, t := range hd.Textures {
				if t.Slot < uint32(len(slots)) && slots[t.Slot] < 0 {
					slots[t.Slot] = texture(t.TextureID, fmt.Sprintf("layer %d slot %d", j, t.Slot))
				}
			}
			return slots, j, true
		}
	}
	if !strings.HasPrefix(strings.ToLower(m.Shader), "shader_hd") {
		return slots, 0, false
	}
	for j := range min(len(m.Layers), len(slots)) {
		slots[j] = texture(m.Layers[j].TextureID, fmt.Sprintf("layer %d", j))
	}
	return slots, 0, true
}

// hdLook sets mat from HD material i: its diffuse, normal, ORM and emissive maps become glTF's
// base colour, normal, occlusion and metallic-roughness, and emissive textures; the team colour
// and reflection maps, which the game's shader mixes in by the ORM's alpha and the view, are
// recorded in extras.
func (b *builder) hdLook(i int, mat *scene.Material, sp span, slots [6]int, layer int) {
	l := &b.m.Materials[i].Layers[layer]
	b.layerLook(mat, l, b.layerAlpha(l, sp, sp.start), sp)
	mat.Texture = slots[SlotDiffuse]
	mat.PBR = &scene.PBR{Normal: slots[SlotNormal], ORM: slots[SlotORM]}
	technique := fmt.Sprintf("HD: layer %d, filter mode %s; diffuse, normal and ORM maps as glTF PBR", layer, filterName(l.FilterMode))
	if t := slots[SlotEmissive]; t >= 0 {
		gain := float32(1)
		if hd := l.Reforged; hd != nil {
			gain = clamp01(hd.EmissiveGain)
		}
		mat.Emission = &scene.Emission{Texture: t, TexCoord: mat.TexCoord, Factor: [3]float32{gain, gain, gain}}
		technique += fmt.Sprintf("; emissive map × gain %g", gain)
	}
	if t := slots[SlotTeamColor]; t >= 0 {
		mat.Extras["teamColorTexture"] = int64(t)
	}
	if t := slots[SlotReflection]; t >= 0 {
		mat.Extras["reflectionTexture"] = int64(t)
	}
	mat.Extras["technique"] = technique + "; team colour and reflection maps recorded, not drawn"
}
