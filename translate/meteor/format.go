package meteor

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/scene"
)

func init() {
	codec.Register(codec.Format{
		Name:        FormatSKC,
		Game:        "Meteor Blade",
		Description: "Meteor Blade character skin (.skc)",
		Exts:        []string{".skc"},
		Match:       Match,
		Decode:      Decode,
	})
}

// Match reports whether head looks like a Meteor Blade skin: its first non-blank text is the
// exporter's "# Character Skin Export" banner or the "Static Skins:" header.
func Match(head []byte) bool {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	head = bytes.TrimLeft(head, " \t\r\n")
	if bytes.HasPrefix(head, []byte("# Character Skin Export")) {
		return true
	}
	// Skip leading comment lines, then expect the header.
	for bytes.HasPrefix(head, []byte("#")) {
		i := bytes.IndexByte(head, '\n')
		if i < 0 {
			return false
		}
		head = bytes.TrimLeft(head[i+1:], " \t\r\n")
	}
	return bytes.HasPrefix(head, []byte("Static Skins:"))
}

// Character splits a skin's file name into its character name and level of detail: "p0_800.skc"
// is character "p0" at LOD "800"; "p0.skc" has LOD "" (the full model).
func Character(name string) (char, lod string) {
	base := path.Base(name)
	base = strings.TrimSuffix(base, path.Ext(base))
	if i := strings.LastIndexByte(base, '_'); i > 0 && i < len(base)-1 {
		if _, ok := atoi([]byte(base[i+1:])); ok && base[i+1] != '-' && base[i+1] != '+' {
			return base[:i], base[i+1:]
		}
	}
	return base, ""
}

// Decode turns a .skc and its companions (skeleton, animation frames, action table, shared
// animation, textures) into a scene. Missing or broken companions give a degraded scene with
// warnings; a broken .skc is a *codec.FormatError.
func Decode(src codec.Source) (*scene.Scene, error) {
	skin, err := ParseSKC(src.Data, src.Name)
	if err != nil {
		return nil, err
	}
	b := newBuilder(src, skin)
	if err := b.build(); err != nil {
		return nil, err
	}
	return b.s, nil
}

// companion opens name (relative to the source's directory) case-insensitively. It returns the
// matched path and nil data with no error when the file does not exist.
func companion(src codec.Source, dir, name string) (string, []byte, error) {
	p := path.Join(dir, name)
	found, data, err := src.Companion(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil, nil
		}
		return p, nil, fmt.Errorf("%s: %w", p, err)
	}
	return found, data, nil
}
