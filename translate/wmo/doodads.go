package wmo

import (
	"fmt"
	"maps"
	"path"
	"strings"

	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/m2"
	"github.com/modelfs/modelfs/translate/scene"
)

// DoodadFunc returns the scene of a doodad's model, named as MODN writes it, and the file it
// was read from (relative to the tree's root).
type DoodadFunc func(model string) (s *scene.Scene, file string, err error)

// Limits on what a WMO's doodads may cost, past which the rest stay empty nodes with a warning.
// The largest cities place some thousands of doodads of a few hundred models, each of at most
// some thousands of vertices.
const (
	// maxDoodadNodes bounds the doodad nodes of all sets together (sets may overlap).
	maxDoodadNodes = 1 << 16
	// maxDoodadModels bounds the distinct models read.
	maxDoodadModels = 4096
	// maxDoodadVertices bounds the vertices the models add, each counted once.
	maxDoodadVertices = 4 << 20
	// maxPlacedVertices bounds the vertices of every placed copy together: what an importer
	// that makes each instance a mesh (Blender links them) takes. (An OBJ writes at most
	// scene.MaxFlattenedVertices of them.)
	maxPlacedVertices = 16 << 20
)

// modelKey is how two MODN names are told to be the same model: the .m2 they load, cleaned,
// case folded; "" for a name leaving the tree.
func modelKey(model string) string {
	clean, ok := codec.Clean(M2Name(model))
	if !ok {
		return ""
	}
	return strings.ToLower(clean)
}

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
		if err == nil {
			if verr := s.Validate(); verr != nil {
				return nil, file, fmt.Errorf("%s: decoded model is inconsistent: %w", file, verr)
			}
		}
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
	placed := 0
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
		if placed+count > maxDoodadNodes {
			b.warn("doodad set %d (%s): its %d doodads would pass the %d doodad nodes a WMO may have; cut", si, set.Name, count, maxDoodadNodes)
			count = max(0, maxDoodadNodes-placed)
		}
		placed += count
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
				key := modelKey(model)
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
// read, or would pass a limit, leaves its doodads empty nodes whose extras say why, with a
// warning.
func (b *builder) placeModels(load DoodadFunc) {
	if load == nil {
		return
	}
	vertices, placedVertices, read := 0, 0, 0
	type drawn struct{ shape, vertices int } // shape -1: the model draws nothing
	shapeOf := map[string]drawn{}            // by the file read
	for _, model := range b.models {
		key := modelKey(model)
		nodes := b.placed[key]
		missing := func(why string) {
			b.warn("doodad model %q: %s; its %d doodad(s) are empty nodes", model, why, len(nodes))
			for _, n := range nodes {
				b.s.Nodes[n].Extras["missing"] = why
			}
		}
		switch {
		case key == "":
			missing(M2Name(model) + ": not a name inside the tree")
			continue
		case read == maxDoodadModels:
			missing(fmt.Sprintf("past the %d distinct doodad models a WMO may read", maxDoodadModels))
			continue
		case vertices >= maxDoodadVertices:
			missing(fmt.Sprintf("past the %d vertices all doodad models may add", maxDoodadVertices))
			continue
		}
		read++
		ds, file, err := load(model)
		if err != nil {
			missing(err.Error())
			continue
		}
		for _, nd := range nodes {
			b.s.Nodes[nd].Extras["file"] = file
		}
		if d, ok := shapeOf[file]; ok { // another spelling of a model already read
			if placedVertices+d.vertices*len(nodes) > maxPlacedVertices {
				missing(fmt.Sprintf("%s: placed %d more times it would pass the %d vertices all placed doodads may have", file, len(nodes), maxPlacedVertices))
				continue
			}
			placedVertices += d.vertices * len(nodes)
			if d.shape >= 0 {
				b.s.Shapes[d.shape].Instances = append(b.s.Shapes[d.shape].Instances, nodes...)
			}
			continue
		}
		n := 0
		for i := range ds.Meshes {
			if !ds.Meshes[i].Hidden {
				n += len(ds.Meshes[i].Positions)
			}
		}
		switch {
		case vertices+n > maxDoodadVertices:
			missing(fmt.Sprintf("%s: its %d vertices would pass the %d all doodad models may add", file, n, maxDoodadVertices))
			continue
		case placedVertices+n*len(nodes) > maxPlacedVertices:
			missing(fmt.Sprintf("%s: its %d vertices placed %d times would pass the %d all placed doodads may have", file, n, len(nodes), maxPlacedVertices))
			continue
		}
		vertices += n
		placedVertices += n * len(nodes)
		for _, w := range ds.Warnings {
			b.warn("doodad model %s: %s", file, w)
		}
		meshes := b.s.AddStatic(ds)
		for _, mi := range meshes {
			// The model's own material indices mean nothing among the WMO's.
			if x := b.s.Meshes[mi].Extras; x != nil {
				if _, ok := x["overlayMaterials"]; ok {
					c := maps.Clone(x)
					delete(c, "overlayMaterials")
					b.s.Meshes[mi].Extras = c
				}
			}
		}
		if len(meshes) == 0 {
			shapeOf[file] = drawn{-1, 0}
			continue // a model of emitters or lights alone: nothing to draw
		}
		shapeOf[file] = drawn{len(b.s.Shapes), n}
		b.s.Shapes = append(b.s.Shapes, scene.Shape{
			Name: strings.TrimSuffix(path.Base(file), path.Ext(file)), Meshes: meshes, Instances: nodes,
			Extras: scene.Extras{"doodadModel": model, "file": file},
		})
	}
	if shown := b.shownDoodadVertices(); shown > scene.MaxFlattenedVertices {
		b.warn("the shown doodads place %d vertices: the .obj, which has no instances, draws them up to %d and leaves out the rest; the .gltf and .glb draw every one",
			shown, scene.MaxFlattenedVertices)
	}
}

// shownDoodadVertices counts the vertices the copies of the doodad models in the shown set
// place: what an output without instances writes.
func (b *builder) shownDoodadVertices() int {
	total := 0
	for _, sh := range b.s.Shapes {
		per := 0
		for _, m := range sh.Meshes {
			per += len(b.s.Meshes[m].Positions)
		}
		for _, nd := range sh.Instances {
			if set := b.s.Nodes[nd].Parent; set >= 0 && b.s.Nodes[set].Scale[0] != 0 {
				total += per
			}
		}
	}
	return total
}
