package main

import (
	"fmt"
	"os"

	"github.com/modelfs/modelfs/internal/mpq"

	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/scene"
)

// infoCmd is `modelfs info`.
type infoCmd struct {
	In        pathArg  `arg:"" help:"Model file to summarise (${model_exts}), a member path inside an archive, or an archive (.mpq .w3x .w3m)."`
	Root      pathArg  `help:"Root of the game tree (see convert). Default: the model's directory."`
	ListFiles []string `name:"listfile" placeholder:"FILE" help:"More member names for archives (see convert); repeatable."`
	Game      pathArg  `placeholder:"DIR" help:"A game's install or data folder for a model inside a map (see convert)."`
}

// Run prints the summary.
func (c *infoCmd) Run(e *env) error {
	if st, err := os.Stat(string(c.In)); err == nil && st.Mode().IsRegular() && mpq.IsArchiveName(string(c.In)) {
		a, err := openArchive(string(c.In), c.ListFiles)
		if err != nil {
			return err
		}
		defer a.Close()
		printArchive(e, string(c.In), a)
		return nil
	}
	m, err := openModel(string(c.In), string(c.Root), string(c.Game), c.ListFiles)
	if err != nil {
		return err
	}
	defer m.Close()
	s, f, err := translate.Decode(m.src)
	if err != nil {
		return err
	}
	printInfo(e, s, f)
	return nil
}

// printInfo writes a short human-readable summary of s.
func printInfo(e *env, s *scene.Scene, f *codec.Format) {
	w := e.stdout
	fmt.Fprintf(w, "%s: %s", s.Source.Path, f.Description)
	if s.Source.Version != 0 {
		fmt.Fprintf(w, ", version %d", s.Source.Version)
	}
	if s.Source.Name != "" {
		fmt.Fprintf(w, ", model %q", s.Source.Name)
	}
	fmt.Fprintln(w)
	verts, tris := 0, 0
	for _, m := range s.Meshes {
		verts += len(m.Positions)
		tris += len(m.Indices) / 3
	}
	joints := 0
	for _, sk := range s.Skins {
		joints += len(sk.Joints)
	}
	fmt.Fprintf(w, "  meshes %d, vertices %d, triangles %d, materials %d, textures %d\n",
		len(s.Meshes), verts, tris, len(s.Materials), len(s.Textures))
	fmt.Fprintf(w, "  nodes %d, joints %d, animations %d\n", len(s.Nodes), joints, len(s.Animations))
	for _, a := range s.Animations {
		loop := ""
		if a.Loop {
			loop = ", looping"
		}
		fmt.Fprintf(w, "    %-24s %7.3f s%s\n", a.Name, a.Duration, loop)
	}
	for _, t := range s.Textures {
		switch {
		case t.Path != "":
			fmt.Fprintf(w, "  texture %s\n", t.Path)
		case t.Replaceable != 0:
			fmt.Fprintf(w, "  texture (replaceable %d)\n", t.Replaceable)
		}
	}
	if n := len(s.Warnings); n > 0 {
		fmt.Fprintf(w, "  %d warning(s):\n", n)
		for i, msg := range s.Warnings {
			if i == 10 {
				fmt.Fprintf(w, "    … and %d more (see the .json output)\n", n-10)
				break
			}
			fmt.Fprintf(w, "    %s\n", msg)
		}
	}
}
