package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/modelfs/modelfs/internal/archive"
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
	JSON      bool     `name:"json" help:"Print the summary as one JSON object, for scripts."`
}

// Run prints the summary.
func (c *infoCmd) Run(e *env) error {
	if st, err := os.Stat(string(c.In)); err == nil && st.Mode().IsRegular() && archive.IsArchiveName(string(c.In)) {
		a, err := openArchive(string(c.In), c.ListFiles)
		if err != nil {
			return err
		}
		defer a.Close()
		if c.JSON {
			if m, ok := archive.Unwrap(a).(*mpq.Archive); ok {
				return writeJSON(e, archiveSummary(string(c.In), m))
			}
			return writeJSON(e, otherSummary(string(c.In), a))
		}
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
	if c.JSON {
		return writeJSON(e, modelSummary(s, f))
	}
	printInfo(e, s, f)
	return nil
}

// writeJSON prints v as indented JSON.
func writeJSON(e *env, v any) error {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// modelInfo is what `info --json` prints of a model.
type modelInfo struct {
	Path        string          `json:"path"`
	Format      string          `json:"format"`
	Description string          `json:"description"`
	Version     uint32          `json:"version,omitempty"`
	Name        string          `json:"name,omitempty"`
	Meshes      int             `json:"meshes"`
	Vertices    int             `json:"vertices"`
	Triangles   int             `json:"triangles"`
	Materials   int             `json:"materials"`
	Nodes       int             `json:"nodes"`
	Joints      int             `json:"joints"`
	Animations  []animationInfo `json:"animations"`
	Textures    []textureInfo   `json:"textures"`
	Warnings    []string        `json:"warnings"`
}

type animationInfo struct {
	Name     string  `json:"name"`
	Duration float32 `json:"duration"` // seconds
	Loop     bool    `json:"loop"`
}

type textureInfo struct {
	Path        string `json:"path,omitempty"`
	Replaceable int    `json:"replaceable,omitempty"`
	Guess       bool   `json:"guess,omitempty"`
}

// modelSummary gathers what info prints of s, for --json.
func modelSummary(s *scene.Scene, f *codec.Format) modelInfo {
	// The model's own nodes and meshes: baked effects are the .glb's, not the model's.
	nodes, meshes, _ := s.Models()
	m := modelInfo{Path: s.Source.Path, Format: f.Name, Description: f.Description, Version: uint32(s.Source.Version),
		Name: s.Source.Name, Meshes: meshes, Materials: len(s.Materials), Nodes: nodes,
		Animations: []animationInfo{}, Textures: []textureInfo{}, Warnings: s.Warnings}
	if m.Warnings == nil {
		m.Warnings = []string{}
	}
	for _, me := range s.Meshes[:meshes] {
		m.Vertices += len(me.Positions)
		m.Triangles += len(me.Indices) / 3
	}
	for _, sk := range s.Skins {
		m.Joints += len(sk.Joints)
	}
	for _, a := range s.Animations {
		m.Animations = append(m.Animations, animationInfo{a.Name, a.Duration, a.Loop})
	}
	for _, t := range s.Textures {
		m.Textures = append(m.Textures, textureInfo{t.Path, t.Replaceable, t.Guess})
	}
	return m
}

// archiveInfo is what `info --json` prints of an archive.
type archiveInfo struct {
	Path         string            `json:"path"`
	Format       int               `json:"format"`
	HeaderOffset int64             `json:"headerOffset"`
	SectorSize   int               `json:"sectorSize"`
	Members      int               `json:"members"`
	Unnamed      int               `json:"unnamed"`
	Stored       int64             `json:"storedBytes"`
	Unpacked     int64             `json:"unpackedBytes"`
	Encrypted    int               `json:"encrypted"`
	Compressions []compressionInfo `json:"compressions"`
	Unreadable   []string          `json:"unreadable"`
	Warnings     []string          `json:"warnings"`
}

type compressionInfo struct {
	Name    string `json:"name"`
	Sectors int    `json:"sectors"`
}

// archiveSummary gathers what info prints of an archive, for --json.
func archiveSummary(name string, a *mpq.Archive) archiveInfo {
	s := a.Summary()
	out := archiveInfo{Path: name, Format: int(a.Format()), HeaderOffset: int64(a.Offset()), SectorSize: int(a.SectorSize()),
		Members: s.Members, Unnamed: s.Unnamed, Stored: s.Stored, Unpacked: s.Unpacked, Encrypted: s.Encrypted,
		Compressions: []compressionInfo{}, Unreadable: []string{}, Warnings: []string{}}
	for _, c := range s.Compressions {
		out.Compressions = append(out.Compressions, compressionInfo{c.Name, c.Sectors})
	}
	for _, p := range s.Problems {
		out.Unreadable = append(out.Unreadable, p.Error())
	}
	for _, w := range a.Warnings() {
		out.Warnings = append(out.Warnings, fmt.Sprint(w))
	}
	return out
}

// printInfo writes a short human-readable summary of s: what --json prints, as text.
func printInfo(e *env, s *scene.Scene, f *codec.Format) {
	w := e.stdout
	m := modelSummary(s, f)
	fmt.Fprintf(w, "%s: %s", m.Path, m.Description)
	if m.Version != 0 {
		fmt.Fprintf(w, ", version %d", m.Version)
	}
	if m.Name != "" {
		fmt.Fprintf(w, ", model %q", m.Name)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  meshes %d, vertices %d, triangles %d, materials %d, textures %d\n",
		m.Meshes, m.Vertices, m.Triangles, m.Materials, len(m.Textures))
	fmt.Fprintf(w, "  nodes %d, joints %d, animations %d\n", m.Nodes, m.Joints, len(m.Animations))
	for _, a := range m.Animations {
		loop := ""
		if a.Loop {
			loop = ", looping"
		}
		fmt.Fprintf(w, "    %-24s %7.3f s%s\n", a.Name, a.Duration, loop)
	}
	for _, t := range m.Textures {
		switch {
		case t.Path != "":
			fmt.Fprintf(w, "  texture %s\n", t.Path)
		case t.Replaceable != 0:
			fmt.Fprintf(w, "  texture (replaceable %d)\n", t.Replaceable)
		}
	}
	if n := len(m.Warnings); n > 0 {
		fmt.Fprintf(w, "  %d warning(s):\n", n)
		for i, msg := range m.Warnings {
			if i == 10 {
				fmt.Fprintf(w, "    … and %d more (see the .json output)\n", n-10)
				break
			}
			fmt.Fprintf(w, "    %s\n", msg)
		}
	}
}
