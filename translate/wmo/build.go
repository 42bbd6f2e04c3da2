package wmo

import (
	"fmt"
	"math"
	"path"
	"strings"

	"github.com/modelfs/modelfs/translate/scene"
)

// Axes and Unit are World of Warcraft's, as for M2.
const (
	Axes = "Z-up right-handed, converted to Y-up by (x, y, z) → (x, z, −y)"
	Unit = "yards (World of Warcraft world units)"
)

// AlphaKeyCutoff is the alpha below which the game discards pixels of an alpha-keyed (blend
// mode 1) material: 224/255, as for M2.
const AlphaKeyCutoff = 224.0 / 255

// Material flags (MOMT).
const (
	flagUnlit    = 0x1
	flagUnfogged = 0x2
	flagTwoSided = 0x4
	flagExterior = 0x8
	flagWindow   = 0x10 // lit at night: the emissive colour
	flagClampS   = 0x20
	flagClampT   = 0x40
)

var materialFlagNames = []struct {
	bit  uint32
	name string
}{{flagUnlit, "Unlit"}, {flagUnfogged, "Unfogged"}, {flagTwoSided, "TwoSided"}, {flagExterior, "ExteriorLit"},
	{flagWindow, "NightGlow"}, {flagClampS, "ClampS"}, {flagClampT, "ClampT"}}

var blendNames = []string{"Opaque", "AlphaKey", "Alpha", "Add", "Mod", "Mod2x", "ModAdd", "InvSrcAlphaAdd",
	"InvSrcAlphaOpaque", "SrcAlphaOpaque", "NoAlphaAdd", "ConstantAlpha"}

func blendName(b uint32) string {
	if int(b) < len(blendNames) {
		return blendNames[b]
	}
	return fmt.Sprintf("Blend%d", b)
}

// builder makes the scene of one WMO.
type builder struct {
	name string
	m    *Model
	s    *scene.Scene
	tex  map[uint32]int // MOTX offset → scene texture
	// collision counts the triangles drawn by nothing (MOPY material 0xFF).
	collision int
	// models lists the doodads' models in the order they are first placed, and placed the
	// doodad nodes of each, by modelKey.
	models []string
	placed map[string][]int
}

// y converts a WoW position (Z-up) to the scene's Y-up frame.
func y(v [3]float32) [3]float32 { return [3]float32{v[0], v[2], -v[1]} }

// Build makes the scene of m, read from the root named name: one shape per group (named after
// it, a mesh per render batch), the materials and their textures, the liquids, the doodad
// sets as nodes holding a node per doodad at its place, and the lights.
//
// load, when not nil, gives the doodads' models: each is added once as a shape drawn at its
// doodads' nodes (see placeModels).
func Build(name string, m *Model, load DoodadFunc) (*scene.Scene, error) {
	b := &builder{name: name, m: m, tex: map[uint32]int{}}
	b.s = &scene.Scene{
		Source: scene.Source{Path: name, Format: Format, Version: int(m.Version),
			Name: strings.TrimSuffix(path.Base(name), path.Ext(name)), Axes: Axes, Unit: Unit, Scale: 1},
		Nodes: []scene.Node{{Name: strings.TrimSuffix(path.Base(name), path.Ext(name)), Kind: scene.KindRoot, Parent: -1,
			Rotation: [4]float32{0, 0, 0, 1}, Scale: [3]float32{1, 1, 1}}},
		Warnings: append([]string(nil), m.Warnings...),
	}
	for i := range m.Materials {
		b.material(i)
	}
	for i, g := range m.Groups {
		if g != nil {
			b.group(i, g)
		}
	}
	b.doodads()
	b.placeModels(load)
	b.lights()
	b.extras()
	return b.s, nil
}

func (b *builder) warn(format string, args ...any) {
	if len(b.s.Warnings) < 2*maxWarnings {
		b.s.Warnings = append(b.s.Warnings, fmt.Sprintf(format, args...))
	}
}

// texture returns the scene texture of the MOTX path at off, -1 for none.
func (b *builder) texture(off uint32, clampS, clampT bool) int {
	if int(off) >= len(b.m.Textures) {
		return -1
	}
	p := cString(b.m.Textures, int(off))
	if p == "" {
		return -1
	}
	if i, ok := b.tex[off]; ok {
		return i
	}
	b.s.Textures = append(b.s.Textures, scene.Texture{Path: p, WrapU: !clampS, WrapV: !clampT})
	b.tex[off] = len(b.s.Textures) - 1
	return len(b.s.Textures) - 1
}

// material makes the scene material of MOMT entry i (scene material i).
func (b *builder) material(i int) {
	mm := &b.m.Materials[i]
	clampS, clampT := mm.Flags&flagClampS != 0, mm.Flags&flagClampT != 0
	mat := scene.Material{Name: fmt.Sprintf("Material%d", i), BaseColor: [4]float32{1, 1, 1, 1},
		Texture: b.texture(mm.Texture1, clampS, clampT), AlphaMode: scene.AlphaOpaque,
		DoubleSided: mm.Flags&flagTwoSided != 0, Unlit: mm.Flags&flagUnlit != 0}
	if mm.Texture1 != 0 && int(mm.Texture1) >= len(b.m.Textures) {
		b.warn("material %d: texture offset %d is past MOTX (%d bytes); untextured", i, mm.Texture1, len(b.m.Textures))
	}
	var look *scene.Look
	switch mm.Blend {
	case 0:
	case 1:
		mat.AlphaMode, mat.AlphaCutoff = scene.AlphaMask, AlphaKeyCutoff
	case 3:
		look = &scene.Look{Additive: true}
	case 4, 5:
		look = &scene.Look{Modulate: true, Scale: float32(mm.Blend - 3)}
	case 10:
		look = &scene.Look{Opaque: true, Additive: true}
	default:
		mat.AlphaMode = scene.AlphaBlend
	}
	if look != nil {
		mat.AlphaMode = scene.AlphaBlend
		if mat.Texture >= 0 {
			mat.Texture = b.s.Paint(mat.Texture, *look)
		}
	}
	if mm.Flags&flagWindow != 0 {
		mat.Emission = &scene.Emission{Texture: -1, Factor: linear(mm.Emissive)}
	}
	mat.Flags = []string{"Blend:" + blendName(mm.Blend)}
	for _, f := range materialFlagNames {
		if mm.Flags&f.bit != 0 {
			mat.Flags = append(mat.Flags, f.name)
		}
	}
	ex := scene.Extras{"shader": mm.Shader, "blendMode": mm.Blend, "flags": mm.Flags, "groundType": mm.GroundType,
		"diffuseColor": bgra(mm.Diffuse), "emissiveColor": bgra(mm.Emissive)}
	for k, off := range []uint32{mm.Texture2, mm.Texture3} {
		if p := cString(b.m.Textures, int(off)); off != 0 && p != "" {
			ex[fmt.Sprintf("texture%d", k+2)] = p
		}
	}
	mat.Extras = ex
	b.s.Materials = append(b.s.Materials, mat)
}

// bgra is a BGRA colour as [r, g, b, a] bytes.
func bgra(c [4]uint8) []int { return []int{int(c[2]), int(c[1]), int(c[0]), int(c[3])} }

// linear is the linear RGB of a BGRA colour stored in sRGB.
func linear(c [4]uint8) [3]float32 {
	return [3]float32{scene.SRGBToLinear(float32(c[2]) / 255), scene.SRGBToLinear(float32(c[1]) / 255),
		scene.SRGBToLinear(float32(c[0]) / 255)}
}

// group makes group i's shape: a mesh per render batch (per material where the group has no
// batches), and its liquid.
func (b *builder) group(i int, g *Group) {
	name := fmt.Sprintf("group %d", i)
	if i < len(b.m.Infos) {
		if n := cString(b.m.Names, int(b.m.Infos[i].NameOffset)); n != "" {
			name = n
		}
	}
	nv, ntri := len(g.Vertices), len(g.Indices)/3
	for k, mat := range g.PolyMaterials {
		if mat == 0xFF && k < ntri {
			b.collision++
		}
	}
	if len(g.Normals) != nv {
		if len(g.Normals) != 0 {
			b.warn("group %d (%s): %d normals for %d vertices; left out", i, name, len(g.Normals), nv)
		}
		g.Normals = nil
	}
	var uvs [][][2]float32
	for k, set := range g.UVs {
		if len(set) != nv {
			b.warn("group %d (%s): UV set %d has %d entries for %d vertices; left out", i, name, k, len(set), nv)
			break
		}
		uvs = append(uvs, set)
	}
	var colors [][4]uint8
	if len(g.Colors) > 0 {
		if len(g.Colors[0]) == nv {
			colors = g.Colors[0]
		} else {
			b.warn("group %d (%s): %d vertex colours for %d vertices; left out", i, name, len(g.Colors[0]), nv)
		}
	}
	sh := scene.Shape{Name: name, Extras: scene.Extras{"group": i, "flags": g.Flags, "file": g.File}}
	batches := g.Batches
	if len(batches) == 0 && ntri > 0 { // no batches: one per material, in the order of first use
		batches = batchesByMaterial(g)
	}
	remap := make([]int32, nv)
	for k := range remap {
		remap[k] = -1
	}
	for k, ba := range batches {
		start, end := int(ba.Start), int(ba.Start)+int(ba.Count)
		if start%3 != 0 || end%3 != 0 || end > len(g.Indices) {
			b.warn("group %d (%s): batch %d covers indices %d to %d of %d, not whole triangles; cut", i, name, k, start, end, len(g.Indices))
			start, end = min(start-start%3, len(g.Indices)-len(g.Indices)%3), min(end-end%3, len(g.Indices)-len(g.Indices)%3)
		}
		mesh := scene.Mesh{Name: fmt.Sprintf("%s batch %d", name, k), Material: int(ba.Material), Skin: -1,
			Extras: scene.Extras{"batch": k, "flags": ba.Flags}}
		if mesh.Material >= len(b.s.Materials) {
			b.warn("group %d (%s): batch %d names material %d of %d; none used", i, name, k, ba.Material, len(b.s.Materials))
			mesh.Material = -1
		}
		var used []int32
		for t := start; t < end; t += 3 {
			if tri := t / 3; tri < len(g.PolyMaterials) && g.PolyMaterials[tri] == 0xFF {
				continue // collision only: the game draws nothing
			}
			ok, finite := true, true
			for _, ix := range g.Indices[t : t+3] {
				if int(ix) >= nv {
					ok = false
				} else if !finite3(g.Vertices[ix]) {
					finite = false
				}
			}
			if !ok {
				b.warn("group %d (%s): batch %d triangle %d names a vertex past the %d there are; left out", i, name, k, t/3, nv)
				continue
			}
			if !finite {
				b.warn("group %d (%s): batch %d triangle %d has a vertex at no finite place; left out", i, name, k, t/3)
				continue
			}
			for _, ix := range g.Indices[t : t+3] {
				if remap[ix] < 0 {
					remap[ix] = int32(len(used))
					used = append(used, int32(ix))
				}
				mesh.Indices = append(mesh.Indices, uint32(remap[ix]))
			}
		}
		for _, v := range used {
			remap[v] = -1
		}
		if len(mesh.Indices) == 0 {
			continue
		}
		mesh.Positions = make([][3]float32, len(used))
		for j, v := range used {
			mesh.Positions[j] = y(g.Vertices[v])
		}
		if g.Normals != nil {
			mesh.Normals = make([][3]float32, len(used))
			for j, v := range used {
				if n := g.Normals[v]; finite3(n) {
					mesh.Normals[j] = y(n)
				} else {
					mesh.Normals[j] = [3]float32{0, 1, 0}
				}
			}
		}
		for _, set := range uvs {
			out := make([][2]float32, len(used))
			for j, v := range used {
				if uv := set[v]; finite(uv[0]) && finite(uv[1]) {
					out[j] = uv
				}
			}
			mesh.UVs = append(mesh.UVs, out)
		}
		if mi := mesh.Material; mi >= 0 && b.s.Materials[mi].Texture >= 0 && len(mesh.UVs) <= b.s.Materials[mi].TexCoord {
			b.warn("group %d (%s): batch %d is textured but has no texture coordinates; they are all 0", i, name, k)
			for len(mesh.UVs) <= b.s.Materials[mi].TexCoord {
				mesh.UVs = append(mesh.UVs, make([][2]float32, len(used)))
			}
		}
		if colors != nil {
			// Baked light, multiplied into the texture as the game does; the game's values are
			// sRGB, glTF's linear. Its alpha blends outside and inside light, not the surface.
			mesh.Colors = make([][4]float32, len(used))
			for j, v := range used {
				c := colors[v]
				mesh.Colors[j] = [4]float32{scene.SRGBToLinear(float32(c[2]) / 255), scene.SRGBToLinear(float32(c[1]) / 255),
					scene.SRGBToLinear(float32(c[0]) / 255), 1}
			}
		}
		sh.Meshes = append(sh.Meshes, len(b.s.Meshes))
		b.s.Meshes = append(b.s.Meshes, mesh)
	}
	if g.Liquid != nil {
		if k := b.liquid(name, g); k >= 0 {
			sh.Meshes = append(sh.Meshes, k)
		}
	}
	if len(sh.Meshes) > 0 {
		b.s.Shapes = append(b.s.Shapes, sh)
	}
}

// batchesByMaterial makes a batch per material of a group that has none, over its drawn
// triangles in order; the triangles of one material need not be contiguous, so each batch
// is a list the caller walks through remapped indices.
func batchesByMaterial(g *Group) []Batch {
	// Reorder the indices so that each material's triangles are contiguous.
	ntri := len(g.Indices) / 3
	var order []uint8
	byMat := map[uint8][]uint16{}
	for t := range ntri {
		mat := uint8(0)
		if t < len(g.PolyMaterials) {
			mat = g.PolyMaterials[t]
		}
		if mat == 0xFF {
			continue
		}
		if _, ok := byMat[mat]; !ok {
			order = append(order, mat)
		}
		byMat[mat] = append(byMat[mat], g.Indices[3*t:3*t+3]...)
	}
	var idx []uint16
	var out []Batch
	for _, mat := range order {
		out = append(out, Batch{Start: uint32(len(idx)), Count: uint16(min(len(byMat[mat]), 0xFFFF/3*3)), Material: mat})
		idx = append(idx, byMat[mat]...)
	}
	g.Indices, g.PolyMaterials = idx, nil
	return out
}

// liquidTile is the side of a liquid tile, in yards: a map chunk's 533⅓ over 128.
const liquidTile = 533.33333 / 128

// liquid makes the mesh of a group's liquid: a quad per tile the game fills, at the heights of
// its corners, with a translucent material of its own. It returns the mesh, -1 for none.
func (b *builder) liquid(group string, g *Group) int {
	l := g.Liquid
	xv, yv := int(l.XVerts), int(l.YVerts)
	if !finite3(l.Corner) {
		b.warn("%s: liquid at no finite place; left out", group)
		return -1
	}
	if xv < 2 || yv < 2 || int(l.XTiles) != xv-1 || int(l.YTiles) != yv-1 {
		b.warn("%s: liquid grid of %d×%d vertices and %d×%d tiles; left out", group, xv, yv, l.XTiles, l.YTiles)
		return -1
	}
	mesh := scene.Mesh{Name: group + " liquid", Skin: -1, Material: b.liquidMaterial(g.LiquidType)}
	for ty := range yv - 1 {
		for tx := range xv - 1 {
			if l.Tiles[ty*(xv-1)+tx]&0x0F == 0x0F { // no liquid on this tile
				continue
			}
			if h := l.Heights; !finite(h[ty*xv+tx]) || !finite(h[ty*xv+tx+1]) || !finite(h[(ty+1)*xv+tx]) || !finite(h[(ty+1)*xv+tx+1]) {
				continue
			}
			base := uint32(len(mesh.Positions))
			for _, c := range [4][2]int{{0, 0}, {1, 0}, {1, 1}, {0, 1}} {
				x, yy := tx+c[0], ty+c[1]
				p := [3]float32{l.Corner[0] + float32(x)*liquidTile, l.Corner[1] + float32(yy)*liquidTile, l.Heights[yy*xv+x]}
				mesh.Positions = append(mesh.Positions, y(p))
				mesh.Normals = append(mesh.Normals, [3]float32{0, 1, 0})
			}
			mesh.Indices = append(mesh.Indices, base, base+1, base+2, base, base+2, base+3)
		}
	}
	if len(mesh.Indices) == 0 {
		return -1
	}
	mesh.Extras = scene.Extras{"liquidType": g.LiquidType, "material": l.Material}
	b.s.Meshes = append(b.s.Meshes, mesh)
	return len(b.s.Meshes) - 1
}

// liquidMaterial returns the translucent material of liquids of type t, made once.
func (b *builder) liquidMaterial(t uint32) int {
	name := fmt.Sprintf("Liquid%d", t)
	for i := range b.s.Materials {
		if b.s.Materials[i].Name == name {
			return i
		}
	}
	// Water's blue-green; the game draws animated textures modelfs does not.
	b.s.Materials = append(b.s.Materials, scene.Material{Name: name, BaseColor: [4]float32{0.05, 0.15, 0.2, 0.6},
		Texture: -1, AlphaMode: scene.AlphaBlend, DoubleSided: true, Extras: scene.Extras{"liquidType": t}})
	return len(b.s.Materials) - 1
}

// Light types (MOLT).
const (
	lightOmni        = 0
	lightSpot        = 1
	lightDirectional = 2
	lightAmbient     = 3
)

// lights places a node per MOLT light under the root, each holding a glTF punctual light: an
// omni light a point light, a spot light a point light too (version 17 gives it no direction),
// a directional light one shining down. The intensity is the file's, as candela: the game
// draws a WMO with the light baked into its vertex colours, so these add little in a viewer,
// as they add nothing in the game. An ambient light has no glTF form: it is in the .json only.
func (b *builder) lights() {
	for i, l := range b.m.Lights {
		if !finite3(l.Position) || !finite(l.Intensity) || l.Intensity < 0 {
			b.warn("light %d: position %v, intensity %g; left out", i, l.Position, l.Intensity)
			continue
		}
		typ := scene.LightPoint
		rot := [4]float32{0, 0, 0, 1}
		switch l.Type {
		case lightOmni, lightSpot:
		case lightDirectional:
			typ = scene.LightDirectional
			rot = [4]float32{-math.Sqrt2 / 2, 0, 0, math.Sqrt2 / 2} // −Z turned to −Y, down
		case lightAmbient:
			continue
		default:
			b.warn("light %d: type %d is not one the game knows; in the .json only", i, l.Type)
			continue
		}
		name := fmt.Sprintf("Light%d", i)
		b.s.Nodes = append(b.s.Nodes, scene.Node{Name: name, Kind: scene.KindLight, Parent: 0, Translation: y(l.Position),
			Rotation: rot, Scale: [3]float32{1, 1, 1}, Extras: scene.Extras{"light": i, "type": int(l.Type)}})
		sl := scene.Light{Name: name, Node: len(b.s.Nodes) - 1, Type: typ, Intensity: l.Intensity, Color: linear(l.Color)}
		if l.Attenuate && finite(l.AttenEnd) && l.AttenEnd > 0 && typ != scene.LightDirectional {
			sl.Range = l.AttenEnd
		}
		b.s.Lights = append(b.s.Lights, sl)
	}
}

// extras records what the scene does not draw: counts, portals, lights, fog, skybox.
func (b *builder) extras() {
	m := b.m
	x := scene.Extras{
		"wmoId": m.Header.ID, "flags": m.Header.Flags, "ambientColor": bgra(m.Header.Ambient),
		"groups": len(m.Groups), "collisionOnlyTriangles": b.collision,
		"portals": len(m.Portals), "portalReferences": len(m.PortalRefs), "fogs": m.Fogs,
	}
	if m.Skybox != "" {
		x["skybox"] = m.Skybox
	}
	if len(m.Lights) > 0 {
		lights := make([]scene.Extras, len(m.Lights))
		for i, l := range m.Lights {
			p := y(l.Position)
			lights[i] = scene.Extras{"type": l.Type, "color": bgra(l.Color), "position": p[:], "intensity": l.Intensity,
				"attenuate": l.Attenuate, "attenuationStart": l.AttenStart, "attenuationEnd": l.AttenEnd}
		}
		x["lights"] = lights
	}
	var names []string
	seen := map[string]bool{}
	for _, d := range m.Doodads {
		if n := cString(m.DoodadNames, int(d.NameOffset)); n != "" && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	if names != nil {
		x["doodadModels"] = names
	}
	bsp := 0
	for _, g := range m.Groups {
		if g != nil {
			bsp += g.BSPNodes
		}
	}
	x["bspNodes"] = bsp
	b.s.Extras = x
}

func finite(f float32) bool { return !math.IsNaN(float64(f)) && !math.IsInf(float64(f), 0) }

func finite3(v [3]float32) bool { return finite(v[0]) && finite(v[1]) && finite(v[2]) }
