// Package wmo reads World of Warcraft world objects (.wmo, version 17: clients 0.6 to 3.x) —
// buildings, caves, bridges, ships, dungeons — and builds the scene modelfs encodes. A WMO is a
// root file Name.wmo and group files Name_000.wmo, Name_001.wmo, …, which the root reads as
// companions (through codec.Source.Companion, so the mount re-translates the root when one
// changes); a group file is not a model of its own (codec.Format.Part tells it by its name).
//
// Reading (Read) bounds every chunk by its file and
// every record count by its chunk: a chunk that runs past its file is cut there, an offset into
// a string block past its end names nothing, and a group file that is missing or broken costs
// that group, each with a warning.
//
// Building (Build) makes one scene.Shape per group, named after it (MOGN): a glTF mesh with a
// primitive per render batch (MOBA), carrying positions, normals, both UV sets and the baked
// vertex colours (MOCV) as COLOR_0. Collision-only triangles (MOPY material 0xFF) are left out
// and counted. Materials (MOMT) map their blend modes as M2's do, their two-sided, unlit and
// night-glow flags too; their second and third textures and shader are in extras. A group's
// liquid (MLIQ) is one more primitive with a translucent material. Doodad sets (MODS) are
// nodes named after the set, holding a node per doodad (MODD) at its place, named after its
// model. Each doodad model (the .m2 the game loads for the .mdx MODN names) is read once and
// drawn at its doodads' nodes as a shape, still. Only the default set is shown, as the game
// shows a WMO no map places: the other sets' nodes have scale 0. Lights (MOLT) are punctual
// lights at nodes; they, portals, fog, the skybox and the BSP are also in the .json.
package wmo

import (
	"bytes"

	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/scene"
)

// Format is the registry name.
const Format = "wmo"

func init() {
	codec.Register(codec.Format{
		Name:        Format,
		Game:        "World of Warcraft",
		Description: "World of Warcraft world object (WMO root, version 17)",
		Exts:        []string{".wmo"},
		Match:       func(head []byte) bool { return bytes.HasPrefix(head, []byte("REVM")) },
		Decode:      Decode,
		Part:        IsGroupName,
	})
}

// Decode reads the root src and its groups, and builds the scene.
func Decode(src codec.Source) (*scene.Scene, error) {
	var open CompanionFunc
	var load DoodadFunc
	if src.FS != nil {
		open, load = src.Companion, loader(src)
	}
	m, err := Read(src.Name, src.Data, open)
	if err != nil {
		return nil, err
	}
	return Build(src.Name, m, load)
}
