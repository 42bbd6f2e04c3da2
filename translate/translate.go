package translate

import (
	"fmt"
	"io/fs"

	"github.com/modelfs/modelfs/translate/codec"

	"github.com/modelfs/modelfs/translate/gltfenc"
	"github.com/modelfs/modelfs/translate/metajson"
	"github.com/modelfs/modelfs/translate/objenc"
	"github.com/modelfs/modelfs/translate/scene"
)

// Version identifies the translator's output. Bump it whenever any output byte may change, so
// caches keyed on it are invalidated.
const Version = "15"

// EncodeOptions tune the encoders.
type EncodeOptions struct {
	// MTLName is the file name an OBJ's mtllib line refers to. Empty means no mtllib line.
	MTLName string
	// EmbedImages makes a .gltf carry its images in its buffer instead of referring to them.
	EmbedImages bool
}

// Decode sniffs src, decodes it with the matching format and validates the scene. A panic in
// the decoder is returned as an *codec.InternalError.
func Decode(src codec.Source) (s *scene.Scene, f *codec.Format, err error) {
	head := src.Data
	if len(head) > codec.SniffLen {
		head = head[:codec.SniffLen]
	}
	f, err = codec.Sniff(src.Name, head)
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, &codec.InternalError{File: src.Name, Stage: "decode", Panic: r}
		}
	}()
	src.FS = memoFS(src.FS)
	s, err = f.Decode(src)
	if err != nil {
		return nil, f, err
	}
	if src.FS != nil {
		resolveTextures(src, s)
	}
	s.MakePlain() // the encoders write plain extras only
	if err := s.Validate(); err != nil {
		return nil, f, &codec.FormatError{Format: f.Name, File: src.Name, Offset: -1, Msg: "decoded model is inconsistent", Err: err}
	}
	// Baked on a valid scene (the simulator walks its parent chains), and checked again:
	// what the baker adds must be as sound as what the decoder made.
	if bakeEffects(src, s) {
		if err := s.Validate(); err != nil {
			return nil, f, &codec.InternalError{File: src.Name, Stage: "effects", Panic: err}
		}
	}
	return s, f, nil
}

// memoFS wraps a source's tree so that each folder is listed at most once per translation:
// companion and texture lookups ask for the same folders many times.
func memoFS(tree fs.FS) fs.FS {
	if tree == nil {
		return nil
	}
	m := &listed{FS: tree, dirs: map[string]listing{}}
	if fold, ok := tree.(codec.FoldFS); ok {
		return foldListed{m, fold}
	}
	return m
}

type listing struct {
	entries []fs.DirEntry
	err     error
}

// listed is a tree whose listings are remembered.
type listed struct {
	fs.FS
	dirs map[string]listing
}

// ReadDir lists the folder name once.
func (m *listed) ReadDir(name string) ([]fs.DirEntry, error) {
	if l, ok := m.dirs[name]; ok {
		return l.entries, l.err
	}
	entries, err := fs.ReadDir(m.FS, name)
	m.dirs[name] = listing{entries, err}
	return entries, err
}

// ReadFile reads through the tree's own ReadFile, when it has one.
func (m *listed) ReadFile(name string) ([]byte, error) { return fs.ReadFile(m.FS, name) }

// foldListed is listed for a tree that resolves names ignoring case itself.
type foldListed struct {
	*listed
	fold codec.FoldFS
}

// FindFold asks the tree.
func (f foldListed) FindFold(name string) (string, bool) { return f.fold.FindFold(name) }

// resolveTextures fills in Resolved for every texture of s that names a file, and records in the
// scene's warnings the references that could not be resolved. A path is looked up once, however
// many textures name it (the pictures painted from one texture all do).
func resolveTextures(src codec.Source, s *scene.Scene) {
	type result struct{ found, reason string }
	seen := map[string]result{}
	warned := map[string]bool{}
	for i := range s.Textures {
		t := &s.Textures[i]
		if t.Path == "" || t.Resolved != "" {
			continue
		}
		r, again := seen[t.Path]
		if !again {
			r.found, r.reason = src.ResolveTexture(t.Path)
			seen[t.Path] = r
		}
		if r.found == "" {
			if !t.Guess && !warned[t.Path] { // a missing stand-in is expected, not a fault of the model
				warned[t.Path] = true
				s.Warnings = append(s.Warnings, "texture "+quote(t.Path)+": "+r.reason)
			}
			continue
		}
		t.Resolved = r.found
	}
}

func quote(s string) string { return "\"" + s + "\"" }

// Encode serialises a validated scene as kind.
func Encode(s *scene.Scene, kind Kind, opt EncodeOptions) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, &codec.InternalError{File: s.Source.Path, Stage: "encode", Panic: r}
		}
	}()
	switch kind {
	case GLTF:
		return gltfenc.Encode(s, gltfenc.Options{EmbedImages: opt.EmbedImages})
	case GLB:
		return gltfenc.Encode(s, gltfenc.Options{Binary: true})
	case OBJ:
		return objenc.EncodeOBJ(withoutEffects(s), opt.MTLName)
	case MTL:
		return objenc.EncodeMTL(withoutEffects(s))
	case JSON:
		return metajson.Encode(withoutEffects(s))
	}
	return nil, fmt.Errorf("unknown output kind %q", kind)
}

// ErrorDocument is the .json served in place of the metadata of a model that failed to
// translate, naming the source, its format when known ("" otherwise) and the error.
func ErrorDocument(path, format string, err error) []byte {
	return metajson.EncodeError(path, format, err)
}

// Translate decodes src and makes its output of kind (see Output).
func Translate(src codec.Source, kind Kind, opt EncodeOptions) ([]byte, error) {
	s, _, err := Decode(src)
	if err != nil {
		return nil, err
	}
	defer s.Release() // the output is a copy
	return Output(src, s, kind, opt)
}
