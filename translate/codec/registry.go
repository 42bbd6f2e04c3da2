package codec

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/modelfs/modelfs/translate/scene"
)

// TextureFunc returns the PNG translation of the texture file name, whose bytes are data:
// exactly what the pipeline's own translation of it gives.
type TextureFunc func(name string, data []byte) ([]byte, error)

// Source is one model file handed to a decoder.
type Source struct {
	Name string // slash-separated path relative to the root of FS; used in errors and metadata
	Data []byte // the whole file
	// FS is the tree the source lives in — a folder, an archive, the mount's view of a game —
	// through which companions are read (fs.ReadFile) and folders listed (fs.ReadDir); nil when
	// there is none. Names are slash-separated and relative to its root; the trees modelfs makes
	// take names as the file system has them (not necessarily UTF-8), refuse any that leave the
	// root, read only regular files and none larger than MaxSourceSize. A tree that implements
	// FoldFS resolves names ignoring case itself.
	FS fs.FS
	// Texture, when set, makes the PNG translation of a texture an output embeds; the mount
	// serves it from its cache, so that a texture many models use is decoded once.
	Texture TextureFunc
	// Options are decoder options as name=value pairs (e.g. geosets=all for World of Warcraft
	// character models); each format reads the names it declares and ignores the others.
	Options map[string]string
}

// FoldFS is a tree that resolves a name ignoring case itself — from an index, say — instead of
// by listing each folder on the way.
type FoldFS interface {
	fs.FS
	// FindFold resolves a clean slash-separated name element by element, ignoring case where
	// the exact element is absent; ok is false when some element has no match.
	FindFold(name string) (found string, ok bool)
}

// ReadFile reads the file name (relative to the root) from the source's tree.
func (src Source) ReadFile(name string) ([]byte, error) {
	if src.FS == nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return fs.ReadFile(src.FS, name)
}

// ReadDir returns the names of the entries of the folder dir ("." for the root), sorted.
func (src Source) ReadDir(dir string) ([]string, error) {
	if src.FS == nil {
		return nil, &fs.PathError{Op: "readdir", Path: dir, Err: fs.ErrNotExist}
	}
	entries, err := fs.ReadDir(src.FS, dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return names, nil
}

// Companion opens the companion named name (relative to the root, as a model writes it: slash-
// or backslash-separated), matching each path element case-insensitively when the exact name is
// absent — game trees mix cases freely (P0.bnc beside p0.skc). It returns the name that matched
// (as given, when the exact name was found) and the file's bytes; a name leaving the root is
// refused.
func (src Source) Companion(name string) (string, []byte, error) {
	if src.FS == nil {
		return "", nil, fs.ErrNotExist
	}
	clean, ok := Clean(name)
	if !ok {
		return "", nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	if data, err := src.ReadFile(clean); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return name, data, err
	}
	found, ok := src.FindFold(clean)
	if !ok {
		return "", nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	data, err := src.ReadFile(found)
	return found, data, err
}

// FindFold resolves name (slash-separated, relative to the root) element by element, ignoring
// case where the exact element is absent. It reports false when any element has no match.
func (src Source) FindFold(name string) (string, bool) {
	if f, ok := src.FS.(FoldFS); ok {
		return f.FindFold(name)
	}
	if src.FS == nil {
		return "", false
	}
	dir := "."
	for _, elem := range strings.Split(path.Clean(name), "/") {
		entries, err := src.ReadDir(dir)
		if err != nil {
			return "", false
		}
		match := ""
		for _, e := range entries {
			if e == elem {
				match = e
				break
			}
			if match == "" && strings.EqualFold(e, elem) {
				match = e
			}
		}
		if match == "" {
			return "", false
		}
		dir = path.Join(dir, match)
	}
	return dir, true
}

// Format describes one registered source format: a model format (Decode) or a texture format
// (DecodeImage).
type Format struct {
	Name        string   // short registry name, e.g. "mdx"
	Description string   // human name, e.g. "Warcraft III model (binary MDX)"
	Game        string   // the game (or family of games) whose files these are, e.g. "Warcraft III"
	Exts        []string // lower-case extensions with the dot, e.g. ".mdx"
	// Match reports whether head (the first SniffLen bytes or fewer) looks like this model format.
	Match func(head []byte) bool
	// Decode turns the source into a scene. It must not panic, log or touch anything but src.
	Decode func(src Source) (*scene.Scene, error)
	// DecodeImage decodes a texture file named name (its extension may matter: TGA has no
	// magic number) whose bytes are data.
	DecodeImage func(name string, data []byte) (image.Image, error)
	// DecodeConfig makes every check DecodeImage makes short of decoding the pixels, as
	// image.DecodeConfig does: what a document that only refers to the image needs.
	DecodeConfig func(name string, data []byte) (image.Config, error)
	// Notes, if set, lists what a texture departs from its format in where the decoder goes on
	// (a header field the game ignores, say); each becomes a warning of the models using it.
	Notes func(name string, data []byte) []string
	// Options declares the decoder options the format reads from Source.Options.
	Options []Option
	// Part, if set, reports whether a file of this format's extension named name is a part
	// another file of the format reads (a World of Warcraft WMO's group file), not a model of
	// its own: it is told by its name alone, as a folder listing must.
	Part func(name string) bool
}

// Option is one decoder option a format declares: `modelfs convert --option NAME=VALUE` and the
// mount's -o NAME=VALUE pass it to every decoder, and each reads the ones it declares.
type Option struct {
	Name string
	Help string // what it does and the values it takes, for help texts and errors
	// Check reports whether value is one the format accepts.
	Check func(value string) error
}

// SniffLen is how many leading bytes Sniff needs at most.
const SniffLen = 4096

var (
	regMu   sync.RWMutex
	formats []Format
)

// Register adds a format to the registry. It is meant to be called from init functions.
func Register(f Format) {
	regMu.Lock()
	defer regMu.Unlock()
	for _, g := range formats {
		if g.Name == f.Name {
			panic("translate: format registered twice: " + f.Name)
		}
	}
	formats = append(formats, f)
}

// Formats returns the registered formats in registration order.
func Formats() []Format {
	regMu.RLock()
	defer regMu.RUnlock()
	return slices.Clone(formats)
}

// Ext returns the lower-cased extension of name, with the dot.
func Ext(name string) string { return strings.ToLower(path.Ext(name)) }

// IsModelName reports whether a registered model format claims name's extension, and name is
// not one of its parts (see Format.Part). It is a cheap filter for directory listings; Sniff
// has the final word.
func IsModelName(name string) bool {
	f := byExt(name, true)
	return f != nil && (f.Part == nil || !f.Part(name))
}

// IsTextureName reports whether a registered texture format claims name's extension: a texture
// modelfs offers as NAME.EXT.png.
func IsTextureName(name string) bool {
	return byExt(name, false) != nil
}

// ImageFormat returns the texture format claiming name's extension, or nil.
func ImageFormat(name string) *Format {
	return byExt(name, false)
}

// byExt returns the first model (or texture) format claiming name's extension, or nil.
func byExt(name string, model bool) *Format {
	ext := Ext(name)
	regMu.RLock() // not Formats(): a directory listing asks once per entry, without copying
	defer regMu.RUnlock()
	for i := range formats {
		if f := &formats[i]; (f.Decode != nil) == model && slices.Contains(f.Exts, ext) {
			return f
		}
	}
	return nil
}

// CheckOptions reports an option that no registered format declares, or whose value the
// format declaring it refuses.
func CheckOptions(kv map[string]string) error {
	all := Formats()
	for _, k := range slices.Sorted(maps.Keys(kv)) {
		known := false
		for _, f := range all {
			for _, o := range f.Options {
				if o.Name != k {
					continue
				}
				known = true
				if o.Check != nil {
					if err := o.Check(kv[k]); err != nil {
						return fmt.Errorf("%s option %s=%q: %w", f.Name, k, kv[k], err)
					}
				}
			}
		}
		if !known {
			var names []string
			for _, f := range all {
				for _, o := range f.Options {
					names = append(names, o.Name)
				}
			}
			return fmt.Errorf("unknown decoder option %q (known: %s)", k, strings.Join(names, ", "))
		}
	}
	return nil
}

// foreign lists magic numbers of model formats that share extensions with ours but are not ours.
var foreign = []struct{ magic, what string }{
	{"IDPO", "a Quake model (IDPO)"},
	{"IDST", "a Half-Life model (IDST)"},
	{"IDSQ", "a Half-Life sequence file (IDSQ)"},
	{"IDP2", "a Quake II model (IDP2)"},
	{"IDP3", "a Quake III model (IDP3)"},
	{"MD21", "a chunked World of Warcraft M2 (MD21, Legion or later)"},
}

// ModelIn returns the model format whose content head (a file's first SniffLen bytes or fewer)
// is, whatever the file's name: how a texture that will not decode is told to be a model
// saved under a texture's name (maps ship such files).
func ModelIn(head []byte) (*Format, bool) {
	regMu.RLock()
	defer regMu.RUnlock()
	for i := range formats {
		if f := &formats[i]; f.Decode != nil && f.Match != nil && f.Match(head) {
			return f, true
		}
	}
	return nil, false
}

// Sniff picks the format of a source from its content. Formats claiming name's extension are
// tried first, then all others. head should hold the first SniffLen bytes of the file.
func Sniff(name string, head []byte) (*Format, error) {
	ext := Ext(name)
	regMu.RLock() // not Formats(): every translation sniffs, and a copy would cost each one
	defer regMu.RUnlock()
	for _, byExt := range []bool{true, false} {
		for i := range formats {
			f := &formats[i]
			if f.Decode != nil && slices.Contains(f.Exts, ext) == byExt && f.Match(head) {
				return f, nil
			}
		}
	}
	what := "not a model format modelfs reads"
	if len(head) == 0 {
		what = "empty file"
	}
	for _, f := range foreign {
		if bytes.HasPrefix(head, []byte(f.magic)) {
			what = "unsupported format: " + f.what
		}
	}
	for _, f := range formats {
		if f.Decode != nil && slices.Contains(f.Exts, ext) {
			what += ", not a " + f.Description
			break
		}
	}
	return nil, &UnsupportedError{File: name, Msg: what}
}

// Effects is the option every format with particle emitters declares (and the command line's
// --effects sets): which animations get their particles and ribbons baked into glTF. The
// pipeline reads it (translate/fx bakes); decoders only describe their emitters.
var Effects = Option{
	Name: "effects",
	Help: "none|stand|all: which animations get their particles and ribbons baked into glTF (default stand)",
	Check: func(v string) error {
		switch strings.ToLower(v) {
		case "none", "stand", "all":
			return nil
		}
		return fmt.Errorf("want none, stand or all")
	},
}
