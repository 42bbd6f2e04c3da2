package translate

import (
	"bytes"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/modelfs/modelfs/translate/scene"
)

// OpenFunc reads a companion file (a texture, skeleton, skin, animation file) named relative to
// the source's root, slash-separated. Implementations must refuse names outside the root.
type OpenFunc func(name string) ([]byte, error)

// Source is one model file handed to a decoder.
type Source struct {
	Name string   // slash-separated path relative to the root; used in errors and metadata
	Data []byte   // the whole file
	Open OpenFunc // companion opener; nil when there is none
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
	for _, f := range Formats() {
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
