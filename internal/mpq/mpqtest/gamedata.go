package mpqtest

import (
	"os"
	"path/filepath"

	"github.com/modelfs/modelfs/internal/testkit/fixtures"
)

// WriteGameData writes a game's Data folder of three archives into dir: the Crate model in the
// base archive (common.MPQ), its texture in a patch (patch.MPQ, encrypted), Shared.txt patched
// twice (last as SHARED.TXT, by a locale patch in enUS/) and Creature/Old.txt deleted by a
// patch's deletion marker. It returns the model's and the texture's bytes.
func WriteGameData(dir string) (crate, crateTex []byte, err error) {
	if crate, crateTex, err = fixtures.CrateFiles(); err != nil {
		return nil, nil, err
	}
	write := func(name string, ms ...Member) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err == nil {
			err = os.MkdirAll(filepath.Dir(p), 0o755)
		}
		if err == nil {
			err = os.WriteFile(p, Archive{Format: 2, Members: ms}.Bytes(), 0o644)
		}
	}
	write("common.MPQ",
		Member{Name: "Units\\Crate.mdx", Data: crate, Zlib: true},
		Member{Name: "Creature\\Old.txt", Data: []byte("old")},
		Member{Name: "Shared.txt", Data: []byte("base")})
	write("patch.MPQ",
		Member{Name: "Textures\\Crate.blp", Data: crateTex, Zlib: true, Encrypt: true},
		Member{Name: "Creature\\Old.txt", DeleteMarker: true},
		Member{Name: "Shared.txt", Data: []byte("patched")})
	write("enUS/patch-enUS.MPQ", Member{Name: "SHARED.TXT", Data: []byte("patched twice")})
	return crate, crateTex, err
}
