// Package mdl reads the text Warcraft III model format MDL (FormatVersion 800, and Reforged's
// 900 to 1200) into the raw wc3.Model and registers it as a model format.
//
// Reforged's fields are read by the names the community's MDL tools write: a material's
// Shader; a geoset's LevelOfDetail, Name, Tangents and SkinWeights; a layer's Unlit flag,
// EmissiveGain, FresnelColor, FresnelOpacity and FresnelTeamColor (static or tracks); from
// 1100 a layer's ShaderTypeId and its textures by slot (TextureID, NormalTextureID,
// ORMTextureID, EmissiveTextureID, TeamColorTextureID, ReflectionsTextureID); a light's
// ShadowIntensity; and the top-level BindPose, FaceFX and ParticleEmitterPopcorn blocks (the
// last recorded, not drawn).
//
// Read is a tolerant, allocation-lean tokenizer and recursive-descent parser that fills
// wc3.Model exactly as the MDX reader fills it for the same model. Looks sniffs MDL content.
// The writer tests use is wc3test.MDL.
package mdl

import (
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/scene"
	"github.com/modelfs/modelfs/translate/wc3"
)

func init() {
	codec.Register(codec.Format{
		Name:        "mdl",
		Game:        "Warcraft III",
		Description: "Warcraft III model (text MDL)",
		Exts:        []string{".mdl"},
		Match:       Looks,
		Options:     []codec.Option{codec.Effects},
		Decode: func(src codec.Source) (*scene.Scene, error) {
			m, err := Read(src.Name, src.Data)
			if err != nil {
				return nil, err
			}
			return wc3.Build(m, src, "mdl")
		},
	})
}
