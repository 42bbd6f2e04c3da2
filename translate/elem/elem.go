// Package elem reads Elfreina extension models (.elem, "Elfreina Extension Model File", version
// 1.00) and registers the format with the translate package.
//
// Read is a tolerant line-oriented reader for the Elfreina text syntax: scopes (`Tag {` … `}`),
// `Key=Data` lines, bare or quoted data lines, ':' and ',' multi-data, both spellings of the
// scope names that have two (MeshDatas/MeshDataList, Positions/Position, Normals/Normal,
// OffsetMatrices/OffsetMatrix, RenderingMeshList/RenderMeshList, TextureUV/Texture1UV…8UV).
// Unknown scopes are skipped and reported. Problems that make the model unreadable (unbalanced
// braces, wrong value counts, indices past the end, non-triangular faces, invalid UTF-8, lines
// over 1 MiB) are *codec.FormatError values with line numbers.
//
// Build turns the parsed File into a scene in glTF's frame. Elfreina is Direct3D: left-handed
// Y-up, so unless Setting says IsRightHand=True positions, normals and translations get Z negated,
// quaternions (x, y, z, w) become (−x, −y, z, w), matrices M become S·M·S with S = diag(1,1,−1,1),
// and triangle winding is reversed. Matrices are Direct3D row-major row-vector matrices, so read in
// file order they are glTF column-major column-vector matrices. OffsetMatrix is the inverse bind
// matrix; InitPostureMatrix the node's rest transform relative to its parent, decomposed into T·R·S.
// Every hierarchy node is a joint of each skin (one skin per distinct set of bind matrices).
// Meshes without blend weights whose container's RenderingMesh names a single hierarchy node are
// bound rigidly to that node (their vertices in its space, as Direct3D frame meshes are);
// others are static. A mesh whose faces use several materials becomes one scene mesh per material.
// Animation key times are fractions of AnimationTime (ms); keys compose onto the posture as in
// the Danmakufu loader (see animations). UV animations go to the metadata.
package elem

import (
	"bytes"

	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/scene"
)

// FormatName is the registry name of the format.
const FormatName = "elem"

func init() {
	codec.Register(codec.Format{
		Name:        FormatName,
		Game:        "Elfreina",
		Description: "Elfreina extension model (.elem)",
		Exts:        []string{".elem"},
		Match:       Looks,
		Decode:      Decode,
	})
}

// Looks reports whether head starts like an .elem file: the header line, after an optional
// UTF-8 byte order mark and blank space.
func Looks(head []byte) bool {
	head = bytes.TrimPrefix(head, []byte{0xEF, 0xBB, 0xBF})
	head = bytes.TrimLeft(head, " \t\r\n")
	return bytes.HasPrefix(head, []byte(Header))
}

// Decode reads src as an .elem file and builds its scene.
func Decode(src codec.Source) (*scene.Scene, error) {
	f, err := Read(src.Name, src.Data)
	if err != nil {
		return nil, err
	}
	return Build(f, src)
}
