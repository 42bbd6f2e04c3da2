package elem

import (
	"fmt"
	"math"
	"slices"

	"github.com/modelfs/modelfs/translate/scene"
)

type containerExtra struct {
	Name         string      `json:"name"`
	BoneCount    int         `json:"boneCount"`
	VertexFormat []string    `json:"vertexFormat"`
	BoneNames    []string    `json:"boneNames"`
	Materials    []int       `json:"materials"`
	Meshes       []meshExtra `json:"meshes"`
	Skin         *int        `json:"skin"`
	RigidNode    *int        `json:"rigidNode"`
}

type meshExtra struct {
	Name        string `json:"name"`
	Vertices    int    `json:"vertices"`
	Faces       int    `json:"faces"`
	UVSets      int    `json:"uvSets"`
	BlendParts  int    `json:"blendParts"`
	SceneMeshes []int  `json:"sceneMeshes"`
	Skipped     string `json:"skipped,omitempty"`
}

func (b *builder) meshes() error {
	for ci := range b.f.Containers {
		c := &b.f.Containers[ci]
		ce := containerExtra{Name: c.Name, BoneCount: max(c.BoneCount, 0), VertexFormat: nonNil(c.VertexFormat), BoneNames: nonNil(c.BoneNames), Materials: []int{}, Meshes: []meshExtra{}}
		for i := range c.Materials {
			ce.Materials = append(ce.Materials, b.matBase[ci]+i)
		}
		for mi := range c.Meshes {
			me, err := b.mesh(ci, mi)
			if err != nil {
				return err
			}
			ce.Meshes = append(ce.Meshes, me)
		}
		if k := b.pals[ci].skin; k >= 0 {
			ce.Skin = &k
		}
		if r := b.pals[ci].rigid; r >= 0 {
			ce.RigidNode = &r
		}
		b.cx = append(b.cx, ce)
	}
	return nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// influence is one (joint, weight) pair of a vertex.
type influence struct {
	joint  uint16
	weight float32
}

// mesh converts mesh mi of container ci into one scene mesh per material it uses.
func (b *builder) mesh(ci, mi int) (meshExtra, error) {
	c := &b.f.Containers[ci]
	m := &c.Meshes[mi]
	nv := len(m.Positions)
	me := meshExtra{Name: m.Name, Vertices: nv, Faces: len(m.Faces), BlendParts: len(m.Blend), SceneMeshes: []int{}}
	top, err := b.checkMesh(c, m)
	if err != nil {
		return me, err
	}
	me.UVSets = top + 1
	if nv == 0 || len(m.Faces) == 0 {
		me.Skipped = "no vertices or no faces"
		b.warnf(m.Line, "mesh %q has %d vertices and %d faces; left out", m.Name, nv, len(m.Faces))
		return me, nil
	}
	pos, nrm, col, uvs, idx := b.vertexArrays(m, top)
	skin, joints, weights, err := b.meshSkin(ci, m, pos, nrm)
	if err != nil {
		return me, err
	}
	base := scene.Mesh{Normals: nrm, Colors: col, UVs: uvs, Skin: skin, Joints: joints, Weights: weights}
	name := m.Name
	if name == "" {
		name = fmt.Sprintf("%s#%d", c.Name, mi)
	}
	me.SceneMeshes = b.byMaterial(ci, m, base, name, pos, idx)
	return me, nil
}

// meshLine is the line of mesh m's part k, or of the mesh when it does not say.
func meshLine(m *Mesh, k string) int {
	if l := m.Lines[k]; l > 0 {
		return l
	}
	return m.Line
}

// checkMesh checks mesh m of container c against itself and c: counts, indices, UV sets and
// material attributes. top is its highest UV set, -1 for none.
func (b *builder) checkMesh(c *Container, m *Mesh) (top int, err error) {
	nv := len(m.Positions)
	if m.VertexCount >= 0 && m.VertexCount != nv {
		return -1, b.failAt(meshLine(m, "Positions"), "mesh %q: VertexCount=%d but Positions has %d entries", m.Name, m.VertexCount, nv)
	}
	if m.Lines["Normals"] > 0 && len(m.Normals) != nv {
		return -1, b.failAt(meshLine(m, "Normals"), "mesh %q: %d normals for %d vertices", m.Name, len(m.Normals), nv)
	}
	if m.Lines["Diffuse"] > 0 && len(m.Colors) != nv {
		return -1, b.failAt(meshLine(m, "Diffuse"), "mesh %q: %d vertex colours for %d vertices", m.Name, len(m.Colors), nv)
	}
	top = -1
	for set := range m.UVs {
		if !m.HasUV[set] {
			continue
		}
		top = set
		if len(m.UVs[set]) != nv {
			return -1, b.failAt(meshLine(m, "UV"+string(rune('1'+set))), "mesh %q: UV set %d has %d entries for %d vertices", m.Name, set+1, len(m.UVs[set]), nv)
		}
	}
	if m.FaceCount >= 0 && m.FaceCount != len(m.Faces) {
		return -1, b.failAt(max(m.FacesLine, m.Line), "mesh %q: FaceCount=%d but VertexIndices has %d faces", m.Name, m.FaceCount, len(m.Faces))
	}
	for f, face := range m.Faces {
		for _, v := range face {
			if int(v) >= nv {
				return -1, b.failAt(m.FacesLine+1+f, "mesh %q: face %d uses vertex %d, past the end (%d vertices)", m.Name, f, v, nv)
			}
		}
	}
	if m.HasAttrs && len(m.Attributes) != len(m.Faces) {
		return -1, b.failAt(m.AttrsLine, "mesh %q: %d Attributes for %d faces", m.Name, len(m.Attributes), len(m.Faces))
	}
	nMat := len(c.Materials)
	for f, a := range m.Attributes {
		if int(a) >= nMat && !(nMat == 0 && a == 0) {
			return -1, b.failAt(m.AttrsLine+1+f, "mesh %q: face %d uses material %d, past the end (%d materials)", m.Name, f, a, nMat)
		}
	}
	if !m.HasAttrs && nMat > 1 {
		b.warnf(m.Line, "mesh %q has no Attributes and its container %d materials; the first is used", m.Name, nMat)
	}
	return top, nil
}

// vertexArrays returns mesh m's vertex attributes in glTF's frame, its UV sets up to top (a
// missing one below top filled with zeros) and its triangles.
func (b *builder) vertexArrays(m *Mesh, top int) (pos, nrm [][3]float32, col [][4]float32, uvs [][][2]float32, idx []uint32) {
	nv := len(m.Positions)
	pos = make([][3]float32, nv)
	for i, p := range m.Positions {
		pos[i] = b.convVec(p)
	}
	if len(m.Normals) > 0 {
		nrm = make([][3]float32, nv)
		for i, n := range m.Normals {
			nrm[i] = b.convVec(n)
		}
	}
	if len(m.Colors) > 0 {
		col = slices.Clone(m.Colors)
		big := false
		for _, cl := range col {
			big = big || cl[0] > 1 || cl[1] > 1 || cl[2] > 1 || cl[3] > 1
		}
		if big {
			b.warnf(meshLine(m, "Diffuse"), "mesh %q: vertex colours above 1 are read as 0…255", m.Name)
			for i := range col {
				for k := range col[i] {
					col[i][k] /= 255
				}
			}
		}
	}
	for set := 0; set <= top; set++ {
		if !m.HasUV[set] {
			b.warnf(m.Line, "mesh %q: UV set %d is missing below set %d; filled with zeros", m.Name, set+1, top+1)
			uvs = append(uvs, make([][2]float32, nv))
			continue
		}
		uvs = append(uvs, m.UVs[set])
	}
	idx = make([]uint32, 0, 3*len(m.Faces))
	for _, f := range m.Faces {
		if b.mirror {
			idx = append(idx, f[0], f[2], f[1])
		} else {
			idx = append(idx, f[0], f[1], f[2])
		}
	}
	return pos, nrm, col, uvs, idx
}

// meshSkin binds mesh m of container ci to the container's skin: by its blend weights, or
// whole to the one node its vertices are placed on (moving pos and nrm to the bind pose); skin
// is -1 for neither.
func (b *builder) meshSkin(ci int, m *Mesh, pos, nrm [][3]float32) (skin int, joints [][][4]uint16, weights [][][4]float32, err error) {
	nv := len(m.Positions)
	skin = -1
	pal := &b.pals[ci]
	switch {
	case len(m.Blend) > 0:
		joints, weights, err = b.influences(ci, m)
		if err != nil {
			return -1, nil, nil, err
		}
		skin = b.skinOf(ci)
	case pal.rigid >= 0:
		// The vertices are in the node's space: move them to the model's bind pose.
		g := b.global[pal.rigid]
		if inv, ok := invert(g); ok {
			for i, p := range pos {
				pos[i] = transformPoint(g, p)
				if !finite(float64(pos[i][0] + pos[i][1] + pos[i][2])) {
					return -1, nil, nil, b.failAt(meshLine(m, "Positions"), "mesh %q: vertex %d leaves the float range when placed on its node", m.Name, i)
				}
			}
			for i, n := range nrm {
				nrm[i] = transformNormal(inv, n)
			}
		}
		joints = [][][4]uint16{make([][4]uint16, nv)}
		weights = [][][4]float32{make([][4]float32, nv)}
		for v := range nv {
			joints[0][v] = [4]uint16{uint16(pal.rigid)}
			weights[0][v] = [4]float32{1}
		}
		skin = b.skinOf(ci)
	}
	return skin, joints, weights, nil
}

// byMaterial adds mesh m of container ci to the scene as base, split by material when its
// faces use several, and returns the scene meshes it added.
func (b *builder) byMaterial(ci int, m *Mesh, base scene.Mesh, name string, pos [][3]float32, idx []uint32) []int {
	c := &b.f.Containers[ci]
	nMat := len(c.Materials)
	var added []int
	attrs := m.Attributes
	groups := []uint32{0}
	if len(attrs) > 0 {
		groups = slices.Compact(slices.Sorted(slices.Values(attrs)))
	}
	for _, g := range groups {
		sm := base
		sm.Name = name
		sm.Positions = pos
		sm.Indices = idx
		sm.Material = -1
		if nMat > 0 {
			sm.Material = b.matBase[ci] + int(g)
		}
		sm.Extras = scene.Extras{"container": c.Name, "sourceMesh": m.Name}
		if len(groups) > 1 {
			mname := fmt.Sprintf("#%d", g)
			if int(g) < nMat && c.Materials[g].Name != "" {
				mname = c.Materials[g].Name
			}
			sm.Name = name + "." + mname
			sm.Extras["materialAttribute"] = g
			subset(&sm, pos, idx, attrs, g)
		}
		if sm.Material >= 0 && b.s.Materials[sm.Material].Texture >= 0 && len(sm.UVs) == 0 {
			b.warnf(m.Line, "mesh %q has a textured material but no UVs; given a zero UV set", m.Name)
			sm.UVs = [][][2]float32{make([][2]float32, len(sm.Positions))}
		}
		added = append(added, len(b.s.Meshes))
		b.s.Meshes = append(b.s.Meshes, sm)
	}
	return added
}

// subset narrows sm (sharing the whole mesh's arrays) to the faces with attribute g, keeping
// only the vertices they use, in their original order.
func subset(sm *scene.Mesh, pos [][3]float32, idx []uint32, attrs []uint32, g uint32) {
	remap := make([]int32, len(pos))
	for i := range remap {
		remap[i] = -1
	}
	var faces []uint32
	for f, a := range attrs {
		if a == g {
			faces = append(faces, idx[3*f:3*f+3]...)
		}
	}
	for _, v := range faces {
		remap[v] = 0
	}
	var keep []int
	for v, r := range remap {
		if r == 0 {
			remap[v] = int32(len(keep))
			keep = append(keep, v)
		}
	}
	for i, v := range faces {
		faces[i] = uint32(remap[v])
	}
	sm.Indices = faces
	sm.Positions = pick(pos, keep)
	sm.Normals = pick(sm.Normals, keep)
	sm.Colors = pick(sm.Colors, keep)
	uvs := make([][][2]float32, len(sm.UVs))
	for s := range sm.UVs {
		uvs[s] = pick(sm.UVs[s], keep)
	}
	sm.UVs = uvs
	js := make([][][4]uint16, len(sm.Joints))
	ws := make([][][4]float32, len(sm.Weights))
	for s := range sm.Joints {
		js[s], ws[s] = pick(sm.Joints[s], keep), pick(sm.Weights[s], keep)
	}
	if sm.Skin >= 0 {
		sm.Joints, sm.Weights = js, ws
	}
}

func pick[T any](s []T, keep []int) []T {
	if len(s) == 0 {
		return s
	}
	out := make([]T, len(keep))
	for i, k := range keep {
		out[i] = s[k]
	}
	return out
}

// influences transposes the per-bone BlendParts of m into per-vertex joint/weight sets of four.
// Joint indices are node indices (every node is a joint).
func (b *builder) influences(ci int, m *Mesh) ([][][4]uint16, [][][4]float32, error) {
	pal := &b.pals[ci]
	nv := len(m.Positions)
	start := make([]int32, nv+1)
	total := map[int]float64{}
	for _, bp := range m.Blend {
		node := pal.nodes[bp.TransformIndex]
		if node < 0 {
			return nil, nil, b.failAt(bp.Line, "TransformIndex %d names no bone", bp.TransformIndex)
		}
		for k, v := range bp.Vertices {
			if int(v) >= nv {
				return nil, nil, b.failAt(bp.Line, "VertexBlend of bone %q: vertex %d past the end (%d vertices)", bp.BoneName, v, nv)
			}
			start[v+1]++
			if w := bp.Weights[k]; w > 0 && !math.IsInf(float64(w), 0) {
				total[node] += float64(w)
			}
		}
	}
	for v := range nv {
		start[v+1] += start[v]
	}
	inf := make([]influence, start[nv])
	fill := slices.Clone(start[:nv])
	for _, bp := range m.Blend {
		j := uint16(pal.nodes[bp.TransformIndex])
		for k, v := range bp.Vertices {
			inf[fill[v]] = influence{j, bp.Weights[k]}
			fill[v]++
		}
	}
	// The fallback for unweighted vertices: the rigid node, else the mesh's heaviest joint.
	fallback := pal.rigid
	if fallback < 0 {
		best := -1.0
		for n, w := range total {
			if w > best || w == best && n < fallback {
				best, fallback = w, n
			}
		}
		if fallback < 0 {
			fallback = pal.nodes[m.Blend[0].TransformIndex]
		}
	}
	most, unweighted, renorm, negative := 1, 0, 0, 0
	kept := make([]int32, nv) // cleaned influences of each vertex, at the start of its range
	for v := range nv {
		list := inf[start[v]:start[v+1]]
		// Merge repeated joints, drop zero, negative and non-finite weights.
		out := list[:0]
		for _, in := range list {
			w := float64(in.weight)
			if !(w > 0) || math.IsInf(w, 0) {
				if w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
					negative++
				}
				continue
			}
			merged := false
			for k := range out {
				if out[k].joint == in.joint {
					out[k].weight += in.weight
					merged = true
					break
				}
			}
			if !merged {
				out = append(out, in)
			}
		}
		slices.SortFunc(out, func(a, b influence) int {
			if c := cmpF(b.weight, a.weight); c != 0 {
				return c
			}
			return int(a.joint) - int(b.joint)
		})
		var sum float64
		for _, in := range out {
			sum += float64(in.weight)
		}
		if len(out) == 0 || !(sum > 0) || math.IsInf(sum, 0) {
			unweighted++
			continue
		}
		if math.Abs(sum-1) > 1e-3 {
			renorm++
		}
		for k := range out {
			out[k].weight = float32(float64(out[k].weight) / sum)
		}
		kept[v] = int32(len(out))
		most = max(most, len(out))
	}
	if unweighted > 0 {
		b.warnf(m.Line, "mesh %q: %d vertices have no blend weight; bound to node %q", m.Name, unweighted, b.s.Nodes[fallback].Name)
	}
	if renorm > 0 {
		b.warnf(m.Line, "mesh %q: %d vertices' weights do not sum to 1; renormalised", m.Name, renorm)
	}
	if negative > 0 {
		b.warnf(m.Line, "mesh %q: %d negative or non-finite weights dropped", m.Name, negative)
	}
	sets := (most + 3) / 4
	joints := make([][][4]uint16, sets)
	weights := make([][][4]float32, sets)
	for s := range sets {
		joints[s] = make([][4]uint16, nv)
		weights[s] = make([][4]float32, nv)
	}
	for v := range nv {
		if kept[v] == 0 {
			joints[0][v] = [4]uint16{uint16(fallback)}
			weights[0][v] = [4]float32{1}
			continue
		}
		for k, in := range inf[start[v] : start[v]+kept[v]] {
			joints[k/4][v][k%4] = in.joint
			weights[k/4][v][k%4] = in.weight
		}
	}
	return joints, weights, nil
}

func cmpF(a, b float32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
