// Package mdx reads the binary Warcraft III model format MDX — version 800 and the Reforged
// versions 900 to 1200 — into the raw wc3.Model and registers it as a model format.
//
// The writer that tests use to make MDX files is wc3test.MDX. For a model that follows the
// conventions of wc3.Model (nil slices for absent data, Track.Width matching the track's kind,
// tangents only on Hermite/Bezier tracks), Read(wc3test.MDX(m)) equals m.
//
// Decisions worth knowing:
//   - Versions 800 (Reign of Chaos, The Frozen Throne), 900, 1000, 1100 and 1200 (Reforged) are
//     read, each with its layout: geoset LOD and names, TANG and SKIN (900); material shader
//     names (900–1000 only); layer emissive gain and fresnel fields, read as far as the layer's
//     bytes hold them before its tracks, as files of 900 differ on them (900); the layer's
//     shader type and textures by slot, each with its KMTF track (1100); a light's shadow
//     intensity (1200). BPOS, FAFX and CORN are recorded. A version above 1200 is read with
//     1200's layout and a warning, or refused with an error saying so; any other is refused.
//   - The first chunk must be VERS, and a MODL chunk must be present.
//   - Unknown chunks are skipped by size, with a warning. Inside an object, a track tag known
//     elsewhere (e.g. the v900 layer track KMTE) is skipped by its size with a warning; an
//     entirely unknown tag ends the object's track list with a warning (its size is unknowable).
//   - Integer-valued tracks (KMTF texture ids, KRTX texture slots) are read as int32 and kept as
//     float32 values, as MDL text gives them; the writer writes them back as int32 and refuses
//     non-integer values. Camera roll (KCRL) is a float track.
//   - An event object without a KEVT block has Frames == nil and GlobalSeq -1; a KEVT block
//     with no keys gives a non-nil empty Frames.
//   - Cross-references (texture, material, geoset and object ids, pivot counts) are not
//     checked; a few cheap consistency checks (per-vertex array lengths, pivot count) add
//     warnings only. A file cut exactly at a top-level chunk boundary is a well-formed smaller
//     model and reads without error.
package mdx

import (
	"bytes"

	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/scene"
	"github.com/modelfs/modelfs/translate/wc3"
)

func init() {
	codec.Register(codec.Format{
		Name:        "mdx",
		Game:        "Warcraft III",
		Description: "Warcraft III model (binary MDX)",
		Exts:        []string{".mdx"},
		Match:       func(head []byte) bool { return bytes.HasPrefix(head, []byte("MDLX")) },
		Options:     []codec.Option{codec.Effects},
		Decode: func(src codec.Source) (*scene.Scene, error) {
			m, err := Read(src.Name, src.Data)
			if err != nil {
				return nil, err
			}
			return wc3.Build(m, src, "mdx")
		},
	})
}
