package mpq

import (
	"bytes"
	"io"
	"io/fs"

	"github.com/modelfs/modelfs/internal/archive"
)

// formatName is the name MPQ registers under.
const formatName = "MPQ"

func init() {
	archive.Register(archive.Format{
		Name: formatName,
		Exts: []string{".mpq", ".w3x", ".w3m"},
		// An archive, one with user data before it, or a Warcraft III map's header before it.
		// An archive further in (behind an installer, say) is opened by its name.
		Match: func(head []byte) bool {
			return bytes.HasPrefix(head, []byte(sigArchive)) || bytes.HasPrefix(head, []byte(sigUserData)) || bytes.HasPrefix(head, []byte("HM3W"))
		},
		Open: func(r io.ReaderAt, size int64, opt archive.Options) (archive.Archive, error) {
			a, err := Open(r, size, Options{Name: opt.Name, ListFiles: opt.ListFiles, Warn: opt.Warn})
			if err != nil {
				return nil, err
			}
			return a, nil
		},
		Merge: func(arcs []archive.Archive) fs.FS {
			ms := make([]*Archive, len(arcs))
			for i, a := range arcs {
				ms[i] = archive.Unwrap(a).(*Archive) // Merge is given its own format's alone
			}
			return NewChain(ms)
		},
	})
	archive.RegisterGame(archive.Game{Name: "Warcraft III, World of Warcraft", Archives: GameArchives})
}

// FormatName names the archive's format (see archive.Formatted).
func (a *Archive) FormatName() string { return formatName }
