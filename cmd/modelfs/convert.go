package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/modelfs/modelfs/internal/archive"
	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/scene"
)

// convertCmd is `modelfs convert`.
type convertCmd struct {
	In        pathArg           `arg:"" help:"Model file to translate (${model_exts}), or texture to convert (${texture_exts}); a path through an archive (Data/patch.MPQ/Creature/x.m2) names a member. With -r: a game tree (a folder, a game's data folder, or an archive)."`
	Dest      pathArg           `arg:"" optional:"" name:"outdir" help:"With -r: the folder to write the documents to (or -o)."`
	Out       pathArg           `short:"o" help:"Output file; its extension (.gltf .glb .obj .json .mtl, or .png for a texture) picks the output kind. An .obj gets its .mtl written beside it. With -r: the output folder."`
	Root      pathArg           `help:"Root of the game tree that companion paths (textures) are relative to; the model's name in the output is its path under this root. Default: the model's directory."`
	Embed     bool              `name:"embed-textures" help:"Put the images into the .gltf itself instead of writing them beside it (a .glb always embeds them)."`
	ListFiles []string          `name:"listfile" placeholder:"FILE" help:"More member names for archives whose own (listfile) is missing or incomplete; repeatable."`
	Game      pathArg           `placeholder:"DIR" help:"For a model inside an archive (a map): a game's install or data folder whose archives hold the stock textures it names, searched after the archive's own files."`
	Decoder   map[string]string `name:"option" placeholder:"NAME=VALUE" help:"Decoder option, repeatable: ${options}."`
	Effects   string            `enum:",none,stand,all" default:"" placeholder:"WHICH" help:"${effects}"`

	Recursive bool     `short:"r" help:"Convert a whole tree: every document the mount would show, under the mount's names and with its bytes, into the output folder; a second run writes only what changed."`
	Kinds     []string `default:"${kinds}" placeholder:"KIND" help:"With -r: the kinds to write, comma-separated (default: all)."`
	Jobs      int      `short:"j" help:"With -r: translations running at once (default: the number of CPUs)."`
	Progress  string   `default:"auto" enum:"auto,bar,lines" help:"With -r: a progress bar (bar), a line per tenth done (lines), or a bar on a terminal and lines elsewhere (auto)."`
	CacheDir  pathArg  `placeholder:"DIR" help:"With -r: the persistent cache the mount uses, which lets a second run skip the translations (default: as for mount; off: none)."`
}

// checkDecoderOptions refuses decoder options no format declares, or with values it refuses.
func checkDecoderOptions(kv map[string]string) error {
	if err := codec.CheckOptions(kv); err != nil {
		return &usageError{err.Error()}
	}
	return nil
}

// effectsHelp is the help of every command's --effects.
const effectsHelp = "Which animations get their particles and ribbons baked into .gltf and .glb: none, stand (the model's first Stand, its look in the game) or all (default: stand; the same as -o option=effects=...)."

// withEffects puts --effects into the decoder options (a copy of *kv), where the pipeline
// reads it; an option given both ways must agree.
func withEffects(kv *map[string]string, effects string) error {
	if effects == "" {
		return nil
	}
	name := codec.Effects.Name
	if v, ok := (*kv)[name]; ok && !strings.EqualFold(v, effects) {
		return &usageError{fmt.Sprintf("--effects %s and -o option=%s=%s disagree", effects, name, v)}
	}
	m := make(map[string]string, len(*kv)+1)
	for k, v := range *kv {
		m[k] = v
	}
	m[name] = strings.ToLower(effects)
	*kv = m
	return nil
}

// opened is a model read for convert or info, and what it was read from.
type opened struct {
	src  codec.Source
	root *os.Root // the folder it lies in; nil for a member of an archive
	arc  archive.Archive
	game []archive.Archive // --game's archives
}

func (o *opened) Close() {
	if o.root != nil {
		o.root.Close()
	}
	if o.arc != nil {
		o.arc.Close()
	}
	for _, a := range o.game {
		a.Close()
	}
}

// openModel reads the model at in under root (default: its directory) and returns it as a
// codec.Source named by its path relative to root. A path that runs through an archive
// (Data/patch.MPQ/Creature/Rabbit/Rabbit.m2) names a member, whose companions are looked up
// in the same archive.
func openModel(in, rootDir, game string, listfiles []string) (*opened, error) {
	if arc, member, ok := splitArchivePath(in); ok {
		if rootDir != "" {
			return nil, &usageError{"--root does not apply to a model inside an archive: its root is the archive's"}
		}
		a, err := openArchive(arc, listfiles)
		if err != nil {
			return nil, err
		}
		o := &opened{arc: a}
		data, err := fs.ReadFile(a, member)
		if err != nil {
			o.Close()
			return nil, err
		}
		var lookup fs.FS = a
		if game != "" {
			if o.game, err = openGame(game, listfiles); err != nil {
				o.Close()
				return nil, err
			}
			lookup = archive.Layers{a, archive.Merge(o.game)}
		}
		o.src = codec.Source{Name: member, Data: data, FS: lookup}
		return o, nil
	}
	if rootDir == "" {
		rootDir = filepath.Dir(in)
	}
	absIn, err := filepath.Abs(in)
	if err != nil {
		return nil, err
	}
	absRoot, err := filepath.Abs(rootDir)
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(absRoot, absIn)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, &usageError{fmt.Sprintf("%s is not inside the root %s", in, rootDir)}
	}
	root, err := os.OpenRoot(absRoot)
	if err != nil {
		return nil, err
	}
	name := filepath.ToSlash(rel)
	data, err := fs.ReadFile(codec.RootFS(root), name)
	if err != nil {
		root.Close()
		return nil, err
	}
	return &opened{src: codec.Source{Name: name, Data: data, FS: codec.RootFS(root)}, root: root}, nil
}

// Run translates the input and writes the output file(s).
func (c *convertCmd) Run(e *env) error {
	if c.Recursive {
		return c.runTree(e)
	}
	if c.Out == "" || c.Dest != "" {
		return &usageError{"convert: give the output file with -o (or convert -r SRC OUTDIR for a whole tree)"}
	}
	kind, ok := translate.KindOf(strings.ToLower(filepath.Ext(string(c.Out))))
	if !ok {
		return &usageError{fmt.Sprintf("cannot tell the output kind from %q: use .gltf, .glb, .obj, .mtl or .json", string(c.Out))}
	}
	if err := withEffects(&c.Decoder, c.Effects); err != nil {
		return err
	}
	if err := checkDecoderOptions(c.Decoder); err != nil {
		return err
	}
	m, err := openModel(string(c.In), string(c.Root), string(c.Game), c.ListFiles)
	if err != nil {
		return err
	}
	defer m.Close()
	src := m.src
	defer relaxGC(len(src.Data))()
	src.Options = c.Decoder
	if kind == translate.PNG {
		out, err := translate.ConvertTexture(src.Name, src.Data)
		if err != nil {
			return err
		}
		return writeAtomic(string(c.Out), out)
	}
	s, _, err := translate.Decode(src)
	if err != nil {
		return err
	}
	mtl := strings.TrimSuffix(string(c.Out), filepath.Ext(string(c.Out))) + ".mtl"
	if err := writeKind(src, s, kind, string(c.Out), filepath.Base(mtl), c.Embed); err != nil {
		return err
	}
	if kind == translate.OBJ {
		if err := writeKind(src, s, translate.MTL, mtl, "", false); err != nil {
			return err
		}
	}
	if kind == translate.OBJ || (kind == translate.GLTF && !c.Embed) {
		return writeImages(src, m.root, s, string(c.Out))
	}
	return nil
}

// writeImages writes the images an output file refers to where it refers to them: at the path
// of each image relative to the model's place in the tree, taken from the output's folder — a
// PNG translation for BLP and TGA, a copy for PNG and JPEG — so the .gltf or .mtl finds them
// just as it does in the mount.
func writeImages(src codec.Source, root *os.Root, s *scene.Scene, out string) error {
	for i := range s.Textures {
		img := s.Textures[i].ImagePath()
		if img == "" {
			continue
		}
		rel, err := filepath.Rel(filepath.Dir(filepath.FromSlash(src.Name)), filepath.FromSlash(img))
		if err != nil {
			return err
		}
		dst := filepath.Join(filepath.Dir(out), rel)
		resolved := s.Textures[i].Resolved
		data, err := src.ReadFile(resolved)
		if err != nil {
			return err
		}
		if img != resolved {
			if data, err = translate.ConvertTexture(resolved, data); err != nil {
				return err
			}
		} else if same(dst, root, resolved) {
			continue // converting in place: the image is already there
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := writeAtomic(dst, data); err != nil {
			return err
		}
	}
	return nil
}

// same reports whether dst is the file name of the source tree itself.
func same(dst string, root *os.Root, name string) bool {
	if root == nil {
		return false
	}
	a, err := os.Stat(dst)
	if err != nil {
		return false
	}
	b, err := root.Stat(name)
	return err == nil && os.SameFile(a, b)
}

// writeKind makes the output of kind for s and writes it to path atomically.
func writeKind(src codec.Source, s *scene.Scene, kind translate.Kind, path, mtlName string, embed bool) error {
	return writeAtomicWith(path, func(w io.Writer) error {
		return translate.OutputTo(w, src, s, kind, translate.EncodeOptions{MTLName: mtlName, EmbedImages: embed})
	})
}

// writeAtomic writes data to a temporary file beside path and renames it into place, so a
// reader never sees a half-written file.
func writeAtomic(path string, data []byte) error {
	return writeAtomicWith(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeAtomicWith is writeAtomic of what write writes; when it fails, nothing is left behind.
func writeAtomicWith(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	werr := write(f)
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(f.Name(), 0o644)
	}
	if werr == nil {
		werr = os.Rename(f.Name(), path)
	}
	if werr != nil {
		os.Remove(f.Name())
	}
	return werr
}

// relaxGC keeps the garbage collector from running while one model of size bytes is converted,
// until the heap nears a limit far above what its translation needs (about eight times the
// source): a process that exits once the file is written gains nothing from collecting sooner.
// GOGC or GOMEMLIMIT in the environment win. It returns the function that restores the settings.
func relaxGC(size int) (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	limit := max(512<<20, 16*int64(size))
	oldLimit := debug.SetMemoryLimit(limit)
	oldPercent := debug.SetGCPercent(-1)
	return func() {
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	}
}
