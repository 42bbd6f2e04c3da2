package translate

import (
	"bytes"
	"errors"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/modelfs/modelfs/translate/scene"
)

// OpenFunc reads a companion file (a texture, skeleton, skin, animation file) named relative to
// the source's root, slash-separated. Implementations must refuse names outside the root.
type OpenFunc func(name string) ([]byte, error)

// ListFunc returns the names of the entries of a directory named relative to the source's root
// ("" or "." for the root itself), sorted. Implementations must refuse names outside the root.
type ListFunc func(dir string) ([]string, error)

// FoldFunc resolves a slash-separated name relative to the root element by element, as
// Source.FindFold does; ok is false when some element has no match.
type FoldFunc func(name string) (found string, ok bool)

// TextureFunc returns the PNG translation of the texture file name, whose bytes are data:
// exactly what ConvertTexture(name, data) returns.
type TextureFunc func(name string, data []byte) ([]byte, error)

// Source is one model file handed to a decoder.
type Source struct {
	Name string   // slash-separated path relative to the root; used in errors and metadata
	Data []byte   // the whole file
	Open OpenFunc // companion opener; nil when there is none
	List ListFunc // directory lister for finding companions by name; nil when there is none
	// Fold, when set, answers FindFold from an index of the tree instead of listing each
	// directory on the way through List: the mount keeps one per directory.
	Fold FoldFunc
	// Texture, when set, makes the PNG translation of a texture an output embeds; the mount
	// serves it from its cache, so that a texture many models use is decoded once.
	Texture TextureFunc
	// Options are decoder options as name=value pairs (e.g. geosets=all for World of Warcraft
	// character models); each format reads the names it knows and ignores the others.
	Options map[string]string
}

// Companion opens the companion named name (relative to the root), matching each path element
// case-insensitively when the exact name is absent — game trees mix cases freely (P0.bnc beside
// p0.skc). It returns the name that matched and the file's bytes.
func (src Source) Companion(name string) (string, []byte, error) {
	if src.Open == nil {
		return "", nil, fs.ErrNotExist
	}
	if data, err := src.Open(name); err == nil || !errors.Is(err, fs.ErrNotExist) || src.List == nil {
		return name, data, err
	}
	found, ok := src.FindFold(name)
	if !ok {
		return "", nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	data, err := src.Open(found)
	return found, data, err
}

// FindFold resolves name (slash-separated, relative to the root) element by element, ignoring
// case, using src.List. It reports false when any element has no match.
func (src Source) FindFold(name string) (string, bool) {
	if src.Fold != nil {
		return src.Fold(name)
	}
	if src.List == nil {
		return "", false
	}
	dir := ""
	for _, elem := range strings.Split(path.Clean(name), "/") {
		entries, err := src.List(dir)
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

// Format describes one registered source format.
type Format struct {
	Name        string   // short registry name, e.g. "mdx"
	Description string   // human name, e.g. "Warcraft III model (binary MDX)"
	Exts        []string // lower-case extensions with the dot, e.g. ".mdx"
	// Match reports whether head (the first SniffLen bytes or fewer) looks like this format.
	Match func(head []byte) bool
	// Decode turns the source into a scene. It must not panic, log or touch anything but src.
	Decode func(src Source) (*scene.Scene, error)
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

// IsModelName reports whether a registered format claims name's extension. It is a cheap filter
// for directory listings; Sniff has the final word.
func IsModelName(name string) bool {
	ext := Ext(name)
	regMu.RLock() // not Formats(): a directory listing asks once per entry, without copying
	defer regMu.RUnlock()
	for _, f := range formats {
		if slices.Contains(f.Exts, ext) {
			return true
		}
	}
	return false
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

// Sniff picks the format of a source from its content. Formats claiming name's extension are
// tried first, then all others. head should hold the first SniffLen bytes of the file.
func Sniff(name string, head []byte) (*Format, error) {
	all := Formats()
	ext := Ext(name)
	for _, byExt := range []bool{true, false} {
		for i := range all {
			if slices.Contains(all[i].Exts, ext) == byExt && all[i].Match(head) {
				return &all[i], nil
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
	for _, f := range all {
		if slices.Contains(f.Exts, ext) {
			what += ", not a " + f.Description
			break
		}
	}
	return nil, &UnsupportedError{File: name, Msg: what}
}
