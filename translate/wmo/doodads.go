package wmo

import (
	"fmt"
	"path"
	"strings"

	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/m2"
	"github.com/modelfs/modelfs/translate/scene"
)

// DoodadFunc returns the scene of a doodad's model, named as MODN writes it, and the file it
// was read from (relative to the tree's root).
type DoodadFunc func(model string) (s *scene.Scene, file string, err error)

// maxDoodadVertices bounds the vertices all of a WMO's doodad models add: past it, a model's
// doodads stay empty nodes, with a warning. The largest cities place a few hundred models of
// at most some thousands of vertices each.
const maxDoodadVertices = 4 << 20

// M2Name is the file the game loads for a doodad model MODN names: it spells many .mdx or
// .mdl, a leftover of the tools, and loads the .m2.
func M2Name(model string) string {
	switch ext := path.Ext(strings.ReplaceAll(model, `\`, "/")); strings.ToLower(ext) {
	case ".mdx", ".mdl":
		return model[:len(model)-len(ext)] + ".m2"
	}
	return model
}

// loader reads doodad models from src's tree as M2s, with src's options.
func loader(src codec.Source) DoodadFunc {
	return func(model string) (s *scene.Scene, file string, err error) {
		found, data, err := src.Companion(M2Name(model))
		if err != nil {
			return nil, "", err
		}
		file, ok := codec.Clean(found)
		if !ok {
			return nil, "", fmt.Errorf("%s: not a name inside the tree", found)
		}
		defer func() {
			if r := recover(); r != nil {
				s, err = nil, &codec.InternalError{File: file, Stage: "decode", Panic: r}
			}
		}()
		s, err = m2.Decode(codec.Source{Name: file, Data: data, FS: src.FS, Options: src.Options})
		return s, file, err
	}
}

// doodads makes a node per doodad set under the root, named after it, holding a node per
// doodad at its place, named after its model and carrying the model's path.
//
// The game draws the default set (set 0) and, where a map places the WMO, one more that the
// map chooses; without a map only the default set is shown. The other sets' nodes have scale
// 0, so that their furniture does not overlap the default's: giving one scale 1 shows it.
func (b *builder) doodads() {
	m := b.m
	b.placed = map[string][]int{}
	for si, set := range m.Sets {
		setNode := len(b.s.Nodes)
		scale := float32(1)
		if si > 0 {
			scale = 0
		}
		b.s.Nodes = append(b.s.Nodes, scene.Node{Name: set.Name, Kind: scene.KindHelper, Parent: 0,
			Rotation: [4]float32{0, 0, 0, 1}, Scale: [3]float32{scale, scale, scale},
			Extras: scene.Extras{"doodadSet": si, "shown": si == 0}})
		first, count := int(set.First), int(set.Count)
		if first > len(m.Doodads) || count > len(m.Doodads)-first {
			b.warn("doodad set %d (%s) lists doodads %d to %d of %d; cut", si, set.Name, first, first+count, len(m.Doodads))
			first, count = min(first, len(m.Doodads)), max(0, min(count, len(m.Doodads)-first))
		}
		for di := first; di < first+count; di++ {
			d := &m.Doodads[di]
			model := cString(m.DoodadNames, int(d.NameOffset))
			if model == "" {
				b.warn("doodad %d names offset %d of MODN (%d bytes); placed without a model", di, d.NameOffset, len(m.DoodadNames))
			}
			q := d.Rotation
			if !finite3(d.Position) || !finite3([3]float32(q[:3])) || !finite(q[3]) || !finite(d.Scale) {
				b.warn("doodad %d has no finite place; placed at the origin", di)
				d.Position, q, d.Scale = [3]float32{}, [4]float32{0, 0, 0, 1}, 1
			}
			if model != "" {
				key := strings.ToLower(strings.ReplaceAll(model, `\`, "/"))
				if _, ok := b.placed[key]; !ok {
					b.models = append(b.models, model)
				}
				b.placed[key] = append(b.placed[key], len(b.s.Nodes))
			}
			b.s.Nodes = append(b.s.Nodes, scene.Node{
				Name: strings.TrimSuffix(path.Base(strings.ReplaceAll(model, `\`, "/")), path.Ext(model)), Kind: scene.KindHelper, Parent: setNode,
				Translation: y(d.Position), Rotation: [4]float32{q[0], q[2], -q[1], q[3]},
				Scale:  [3]float32{d.Scale, d.Scale, d.Scale},
				Extras: scene.Extras{"doodad": di, "model": model, "color": bgra(d.Color), "flags": d.Flags},
			})
		}
	}
}

// placeModels reads each doodad model once through load and adds what it shows as a shape
// drawn at every node of a doodad placing it, still, in its rest pose. A model that cannot be
// read leaves its doodads empty nodes whose extras say why, with a warning.
func (b *builder) placeModels(load DoodadFunc) {
	if load == nil {
		return
	}
	vertices := 0
	for _, model := range b.models {
		nodes := b.placed[strings.ToLower(strings.ReplaceAll(model, `\`, "/"))]
		missing := func(why string) {
			b.warn("doodad model %q: %s; its %d doodad(s) are empty nodes", model, why, len(nodes))
			for _, n := range nodes {
				b.s.Nodes[n].Extras["missing"] = why
			}
		}
		ds, file, err := load(model)
		if err != nil {
			missing(err.Error())
			continue
		}
		n := 0
		for i := range ds.Meshes {
			if !ds.Meshes[i].Hidden {
				n += len(ds.Meshes[i].Positions)
			}
		}
		if vertices+n > maxDoodadVertices {
			missing(fmt.Sprintf("%s: its %d vertices would pass the %d all doodad models may add", file, n, maxDoodadVertices))
			continue
		}
		vertices += n
		for _, w := range ds.Warnings {
			b.warn("doodad model %s: %s", file, w)
		}
		for _, nd := range nodes {
			b.s.Nodes[nd].Extras["file"] = file
		}
		meshes := b.s.AddStatic(ds)
		if len(meshes) == 0 {
			continue // a model of emitters or lights alone: nothing to draw
		}
		b.s.Shapes = append(b.s.Shapes, scene.Shape{
			Name: strings.TrimSuffix(path.Base(file), path.Ext(file)), Meshes: meshes, Instances: nodes,
			Extras: scene.Extras{"doodadModel": model, "file": file},
		})
	}
}
