package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
)

// Exit codes.
const (
	exitOK      = 0 // success
	exitFailure = 1 // the model could not be read or translated
	exitUsage   = 2 // bad command line
	exitIO      = 3 // a file could not be read or written
)

// cli is the command-line grammar.
type cli struct {
	Version kong.VersionFlag `help:"Print the version and exit."`

	Convert convertCmd `cmd:"" help:"Translate one model file to .gltf, .glb, .obj (+ .mtl) or .json, or one texture to .png; with -r, a whole tree into a folder."`
	Info    infoCmd    `cmd:"" help:"Print a short summary of a model file or an archive (--json: as JSON)."`
	Mount   mountCmd   `cmd:"" help:"Mount a game tree read-only, every model beside its source as .gltf, .glb, .obj, .mtl and .json, every texture as .png (foreground; stop with Ctrl-C)."`
	Serve   serveCmd   `cmd:"" help:"Serve a game tree over the network instead of mounting it: webdav."`
	Cache   cacheCmd   `cmd:"" help:"Fill (warm), inspect (stats) or empty (clear) the persistent cache directory that mounts share."`
}

// pathArg is a command-line argument or flag value naming a file, kept as the bytes given: a
// file name need not be UTF-8, and kong's string mapping would replace such bytes.
type pathArg string

// Decode takes the value as it is.
func (p *pathArg) Decode(ctx *kong.DecodeContext) error {
	t, err := ctx.Scan.PopValue("path")
	if err != nil {
		return err
	}
	s, ok := t.Value.(string)
	if !ok {
		return fmt.Errorf("expected a path, got %v", t.Value)
	}
	*p = pathArg(s)
	return nil
}

// env is what subcommands get to run with.
type env struct {
	stdout, stderr io.Writer
	args           []string // the command line as parsed (after the fstab form's rewriting)
}

// parse parses args into a cli without exiting the process. It returns the kong context, or
// an error for a bad command line; help requests return (nil, nil) after printing.
func parse(args []string, stdout, stderr io.Writer) (*kong.Context, error) {
	var c cli
	helped := false
	k, err := kong.New(&c,
		kong.Name("modelfs"),
		kong.Description("Open old game models with today's tools: shows ${model_formats} models as glTF, OBJ and JSON, and their textures as PNG."),
		helpVars(),
		kong.Vars{"version": versionText()},
		kong.Writers(stdout, stderr),
		kong.Exit(func(int) { helped = true }),
		kong.UsageOnError(),
	)
	if err != nil {
		return nil, err
	}
	if err := negativeSize(args); err != nil {
		return nil, err
	}
	ctx, err := k.Parse(args)
	if helped {
		return nil, nil
	}
	return ctx, err
}

// helpVars fills the help texts' ${…} from the format registry, so that they name every format
// and decoder option there is.
func helpVars() kong.Vars {
	var models, textures, games, options []string
	for _, f := range codec.Formats() {
		if f.Decode != nil {
			models = append(models, f.Exts...)
			if f.Game != "" && !slices.Contains(games, f.Game) {
				games = append(games, f.Game)
			}
		} else {
			textures = append(textures, f.Exts...)
		}
		for _, o := range f.Options {
			options = append(options, fmt.Sprintf("%s=… %s (%s)", o.Name, o.Help, f.Name))
		}
	}
	opts := "none"
	if len(options) > 0 {
		opts = strings.Join(options, "; ")
	}
	var modelKinds, textureKinds []string
	for _, k := range translate.AllKinds {
		if info, _ := translate.InfoOf(k); info.Model {
			modelKinds = append(modelKinds, string(k))
		} else {
			textureKinds = append(textureKinds, string(k))
		}
	}
	return kong.Vars{
		"kinds":         strings.Join(append(slices.Clone(modelKinds), textureKinds...), ","),
		"model_kinds":   strings.Join(modelKinds, ", "),
		"texture_kinds": strings.Join(textureKinds, ", "),
		"model_exts":    strings.Join(models, ", "),
		"texture_exts":  strings.Join(textures, ", "),
		"model_formats": strings.Join(games, ", "),
		"options":       opts,
		"effects":       effectsHelp,
	}
}

// sizeFlags are the flags whose value is a size.
var sizeFlags = []string{"--cache-size", "--disk-cache-size", "--memory-limit", "--max-source-size"}

// negativeSize refuses a negative size given as a separate argument (--cache-size -1), which
// kong would take for a short flag and answer with a puzzle.
func negativeSize(args []string) error {
	for i := 0; i+1 < len(args); i++ {
		if v := args[i+1]; slices.Contains(sizeFlags, args[i]) && len(v) > 1 && v[0] == '-' && v[1] >= '0' && v[1] <= '9' {
			return &usageError{fmt.Sprintf("%s: %q: a size cannot be negative", args[i], v)}
		}
	}
	return nil
}

// run executes the command line and returns the process exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if a, ok := fstabArgs(args); ok {
		args = a
	}
	ctx, err := parse(args, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "modelfs: %v\n", err)
		return exitUsage
	}
	if ctx == nil {
		return exitOK
	}
	if err := ctx.Run(&env{stdout: stdout, stderr: stderr, args: args}); err != nil {
		fmt.Fprintf(stderr, "modelfs: %v\n", err)
		return exitCode(err)
	}
	return exitOK
}

// usageError marks an error in how the command was called.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// exitCode maps an error to the process exit status.
func exitCode(err error) int {
	var ue *usageError
	var fe *codec.FormatError
	var un *codec.UnsupportedError
	var pe *fs.PathError
	switch {
	case errors.As(err, &ue):
		return exitUsage
	case errors.As(err, &fe), errors.As(err, &un):
		return exitFailure
	case errors.As(err, &pe):
		return exitIO
	}
	return exitFailure
}
