package meteor

import (
	"cmp"
	"fmt"
	"math"
	"path"
	"slices"
	"strings"

	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/scene"
)

// Unit describes the source unit of length.
const Unit = "Meteor Blade units (a character is about 37 tall)"

// AlphaCutoff is the glTF alphaCutoff of materials with Option ALPHA (alpha-tested textures).
const AlphaCutoff = 0.5

// SharedAnimation is the file name of the animation frames shared by every character (pose
// source 0).
const SharedAnimation = "character.amb"

// Pose status values written to the metadata.
const (
	PoseAnimated      = "animated"
	PoseNeedsShared   = "skipped: source 0 needs " + SharedAnimation + ", which is missing"
	PoseEmpty         = "empty"
	PoseNoRange       = "skipped: no Start/End"
	PoseBadSource     = "skipped: unknown source"
	PoseBadRange      = "skipped: End before Start"
	PosePastEnd       = "skipped: frames missing from the animation file"
	PoseNoAnimation   = "skipped: no animation file"
	PoseBadAnimation  = "skipped: animation file unusable"
	minSpeed          = 0.01
	maxSpeed          = 100
	defaultFPS        = 30
	wholeAnimationKey = "All frames"
)

type builder struct {
	src      codec.Source
	skin     *Skin
	s        *scene.Scene
	dir      string
	char     string
	lod      string
	skel     *Skeleton
	skelFile string
	world    []rigid // world bind transform of each joint, glTF axes
	warnings []string
	prevQuat []quat // scratch for clip
	// own is the character's own animation file, read with the skeleton (nil when missing or
	// unusable) when ownRead is set; ownWarnings are its warnings, reported with the animations.
	own         *frames
	ownRead     bool
	ownWarnings []string
	infl        []influences // scratch for skinMesh
}

// influences are the bone influences of one vertex being gathered.
type influences struct {
	n int
	j [MaxInfluences]uint16
	w [MaxInfluences]float64
}

func newBuilder(src codec.Source, skin *Skin) *builder {
	char, lod := Character(src.Name)
	return &builder{src: src, skin: skin, dir: path.Dir(src.Name), char: char, lod: lod}
}

func (b *builder) warn(format string, args ...any) {
	b.warnings = append(b.warnings, fmt.Sprintf(format, args...))
}

func lodName(lod string) string {
	switch lod {
	case "":
		return "high"
	case "800":
		return "mid (800)"
	case "300":
		return "low (300)"
	}
	return "LOD " + lod
}

func (b *builder) build() error {
	b.s = &scene.Scene{
		Source: scene.Source{Path: b.src.Name, Format: FormatSKC, Name: b.char, Axes: Axes, Unit: Unit, Scale: 1},
		Extras: scene.Extras{},
	}
	b.warnings = append(b.warnings, b.skin.Warnings...)
	b.skeleton()
	b.materials()
	b.meshes()
	b.animations()
	parts := make([]scene.Extras, len(b.skin.Parts))
	for i, p := range b.skin.Parts {
		parts[i] = scene.Extras{"name": p.Name, "materials": len(p.Materials), "vertices": len(p.Vertices), "triangles": len(p.Triangles)}
	}
	meta := b.s.Extras
	meta["character"] = b.char
	meta["lod"] = lodName(b.lod)
	meta["skinParts"] = parts
	meta["staticSkins"] = b.skin.StaticSkins
	meta["dynamicSkins"] = b.skin.DynamicSkins
	b.s.Warnings = b.warnings
	return nil
}

// skeleton reads pN.bnc and makes one node per bone and dummy, all joints of one skin.
func (b *builder) skeleton() {
	name := b.char + ".bnc"
	found, data, err := companion(b.src, b.dir, name)
	switch {
	case err != nil:
		b.warn("skeleton %s could not be read (%v); the model is static and unskinned", name, err)
		return
	case data == nil:
		b.warn("skeleton %s not found beside %s; the model is static and unskinned", name, path.Base(b.src.Name))
		return
	}
	sk, err := ParseBNC(data, found)
	if err != nil {
		b.warn("skeleton unusable (%v); the model is static and unskinned", err)
		return
	}
	if len(sk.Joints) > math.MaxUint16 {
		b.warn("skeleton %s has %d joints, more than glTF's 16-bit joint indices; unskinned", found, len(sk.Joints))
		return
	}
	b.warnings = append(b.warnings, sk.Warnings...)
	b.skel, b.skelFile = sk, found
	skelInfo := scene.Extras{"file": found, "bones": sk.Bones, "dummies": sk.Dummies()}
	b.s.Extras["skeleton"] = skelInfo
	// The character's animation is read now: its frame 0 may refine the bind pose.
	w0 := len(b.warnings)
	b.own, _ = b.loadFrames(b.char+".amb", false)
	b.ownRead, b.ownWarnings = true, slices.Clone(b.warnings[w0:])
	b.warnings = b.warnings[:w0]
	pivots, quats := bindPose(sk, b.own)
	if b.own != nil && quats != nil {
		skelInfo["bindPose"] = "frame 0 of " + b.own.file
	}
	n := len(sk.Joints)
	b.s.Nodes = make([]scene.Node, n)
	locals := make([]rigid, n)
	for i, j := range sk.Joints {
		t, wq := convPos(j.Pivot), j.Quat
		if quats != nil {
			t, wq = convPos(pivots[i]), quats[i]
		}
		q := convQuat(wq[0], wq[1], wq[2], wq[3])
		locals[i] = fromTR(t, q)
		kind, typ, ref := scene.KindBone, "bone", fmt.Sprintf("b%d", i)
		if j.Dummy {
			kind, typ, ref = scene.KindAttachment, "dummy", fmt.Sprintf("d%d", i-sk.Bones)
		}
		ex := scene.Extras{"type": typ, "ref": ref, "parentRef": j.Parent, "quaternionWXYZ": j.Quat, "pivot": j.Pivot}
		if !j.Dummy {
			ex["children"] = j.Children
		}
		b.s.Nodes[i] = scene.Node{
			Name: j.Name, Kind: kind, Parent: sk.Parents[i],
			Translation: [3]float32{float32(t[0]), float32(t[1]), float32(t[2])},
			Rotation:    q.f32(),
			Scale:       [3]float32{1, 1, 1},
			Extras:      ex,
		}
	}
	b.world = make([]rigid, n)
	done := make([]bool, n)
	var world func(i int) rigid
	world = func(i int) rigid {
		if !done[i] {
			w := locals[i]
			if p := sk.Parents[i]; p >= 0 {
				w = world(p).mul(locals[i])
			}
			b.world[i], done[i] = w, true
		}
		return b.world[i]
	}
	skin := scene.Skin{Name: b.char, Joints: make([]int, n), InverseBind: make([][16]float32, n), Skeleton: -1}
	roots := 0
	for i := range n {
		skin.Joints[i] = i
		skin.InverseBind[i] = world(i).inverse().mat4()
		if sk.Parents[i] < 0 {
			roots++
			skin.Skeleton = i
		}
	}
	if roots != 1 {
		skin.Skeleton = -1
	}
	b.s.Skins = []scene.Skin{skin}
}

// materials makes one scene material per .skc material (over all skin parts) and resolves the
// textures.
func (b *builder) materials() {
	texIndex := map[string]int{}
	for pi, p := range b.skin.Parts {
		for mi, m := range p.Materials {
			gi := len(b.s.Materials)
			mat := scene.Material{
				Name: fmt.Sprintf("Material%d", gi),
				// The game's fixed-function pipeline multiplies colours as written (sRGB); glTF's
				// factors are linear.
				BaseColor: [4]float32{lin(m.Diffuse[0]), lin(m.Diffuse[1]), lin(m.Diffuse[2]), clamp01(m.Opacity)},
				Texture:   -1,
				AlphaMode: scene.AlphaOpaque,
				Extras: scene.Extras{
					"skinPart": pi, "index": mi, "texture": m.Texture, "colorKey": m.ColorKey,
					"ambient": m.Ambient, "diffuse": m.Diffuse, "specular": m.Specular, "emissive": m.Emissive,
					"opacity": m.Opacity, "option": m.Option, "twoSide": m.TwoSide,
				},
			}
			if m.Texture != "" {
				base := strings.TrimSuffix(path.Base(strings.ReplaceAll(m.Texture, `\`, "/")), path.Ext(m.Texture))
				mat.Name += "_" + base
			}
			alpha := strings.EqualFold(m.Option, "ALPHA")
			switch {
			case m.Opacity < 1:
				mat.AlphaMode = scene.AlphaBlend
			case alpha:
				mat.AlphaMode, mat.AlphaCutoff = scene.AlphaMask, AlphaCutoff
			}
			mat.DoubleSided = m.TwoSide
			mat.Flags = []string{"Option:" + m.Option}
			if m.TwoSide {
				mat.Flags = append(mat.Flags, "TwoSide")
			}
			if m.ColorKey != [4]float64{} {
				mat.Flags = append(mat.Flags, "ColorKey")
			}
			if !strings.EqualFold(m.Option, "ALPHA") && !strings.EqualFold(m.Option, "NONE") {
				b.warn("%s line %d: material option %q is unknown; treated as NONE", b.src.Name, m.Line, m.Option)
			}
			if m.Texture != "" {
				// translate.Decode resolves the name (beside the skin, then in the sibling
				// folders such as ../texture, case-insensitively) and warns when it cannot.
				ti, ok := texIndex[m.Texture]
				if !ok {
					ti = len(b.s.Textures)
					texIndex[m.Texture] = ti
					b.s.Textures = append(b.s.Textures, scene.Texture{Path: m.Texture, WrapU: true, WrapV: true})
				}
				mat.Texture = ti
			}
			technique := "option " + m.Option
			switch {
			case m.Opacity < 1:
				technique += fmt.Sprintf("; opacity %g: blended", m.Opacity)
			case alpha:
				technique += "; alpha tested"
			}
			if key := m.ColorKey; key != [4]float64{} && mat.Texture >= 0 {
				// A Direct3D colour key: texels of that colour are not drawn. (0 0 0 0, in every
				// real file, is no key.)
				c := [3]float32{clamp01(key[0]), clamp01(key[1]), clamp01(key[2])}
				if key[0] > 1 || key[1] > 1 || key[2] > 1 { // written as 0–255
					c = [3]float32{clamp01(key[0] / 255), clamp01(key[1] / 255), clamp01(key[2] / 255)}
				}
				mat.Texture = b.s.Paint(mat.Texture, scene.Look{ColorKey: &c})
				if mat.AlphaMode == scene.AlphaOpaque {
					mat.AlphaMode, mat.AlphaCutoff = scene.AlphaMask, AlphaCutoff
				}
				technique += "; colour key: those texels transparent"
			}
			if e := m.Emissive; e != [3]float64{} {
				mat.Emission = &scene.Emission{Texture: -1, Factor: [3]float32{lin(e[0]), lin(e[1]), lin(e[2])}}
				technique += "; emissive"
			}
			if m.TwoSide {
				technique += "; two-sided"
			}
			mat.Extras["technique"] = technique
			b.s.Materials = append(b.s.Materials, mat)
		}
	}
}

// lin is an sRGB fraction as glTF's linear factor.
func lin(f float64) float32 { return scene.SRGBToLinear(clamp01(f)) }

func clamp01(f float64) float32 {
	if !(f > 0) {
		return 0
	}
	return float32(min(f, 1))
}

// group is the triangles of one skin part using one material.
type group struct {
	part, material int // material: index into the part's materials, -1 for an invalid one
	tris           []int
	split          map[int]bool // triangles given their own vertex copies (a reversed twin)
}

// canonical returns a triangle's corners sorted (its key) and rotated to start at the smallest
// (its orientation).
func canonical(v [3]uint32) (key, orient [3]uint32) {
	key = v
	if key[0] > key[1] {
		key[0], key[1] = key[1], key[0]
	}
	if key[1] > key[2] {
		key[1], key[2] = key[2], key[1]
	}
	if key[0] > key[1] {
		key[0], key[1] = key[1], key[0]
	}
	orient = v
	for orient[0] != key[0] {
		orient = [3]uint32{orient[1], orient[2], orient[0]}
	}
	return key, orient
}

// meshes makes one mesh per skin part and material, each with the vertices its triangles use.
func (b *builder) meshes() {
	matBase := 0
	for pi := range b.skin.Parts {
		p := &b.skin.Parts[pi]
		groups := map[int]*group{}
		// seen maps each group's triangles (material+1, then the sorted corners) to the
		// orientation of the first: one map for the part, sized once.
		seen := make(map[[4]uint32][3]uint32, len(p.Triangles))
		degenerate, badMat, duplicate, reversed := 0, 0, 0, 0
		for ti, t := range p.Triangles {
			if t.V[0] == t.V[1] || t.V[1] == t.V[2] || t.V[0] == t.V[2] {
				degenerate++
				continue
			}
			m := int(t.Material)
			if m < 0 || m >= len(p.Materials) {
				badMat++
				m = -1
			}
			g := groups[m]
			if g == nil {
				g = &group{part: pi, material: m}
				groups[m] = g
			}
			// Blender keeps one face per set of vertices: an exact repeat is dropped, a reversed
			// twin (a back face) gets its own copies of the vertices.
			corners, orient := canonical(t.V)
			key := [4]uint32{uint32(m + 1), corners[0], corners[1], corners[2]}
			if first, dup := seen[key]; dup {
				if first == orient {
					duplicate++
					continue
				}
				if g.split == nil {
					g.split = map[int]bool{}
				}
				g.split[ti] = true
				reversed++
			} else {
				seen[key] = orient
			}
			g.tris = append(g.tris, ti)
		}
		if duplicate > 0 {
			b.warn("skin %q: %d triangles repeating an earlier one dropped", p.Name, duplicate)
		}
		if reversed > 0 {
			b.warn("skin %q: %d triangles reversing an earlier one get their own copies of its vertices", p.Name, reversed)
		}
		if degenerate > 0 {
			b.warn("skin %q: %d degenerate triangles (a vertex used twice) dropped", p.Name, degenerate)
		}
		if badMat > 0 {
			b.warn("skin %q: %d triangles name a material beyond the %d materials; they have none", p.Name, badMat, len(p.Materials))
		}
		keys := make([]int, 0, len(groups))
		for k := range groups {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		remap := make([]int32, len(p.Vertices))
		used := make([]bool, len(p.Vertices))
		for _, k := range keys {
			g := groups[k]
			mesh := b.mesh(p, g, remap, used)
			if g.material >= 0 {
				mesh.Material = matBase + g.material
			}
			b.s.Meshes = append(b.s.Meshes, mesh)
		}
		unused := 0
		for _, u := range used {
			if !u {
				unused++
			}
		}
		if unused > 0 {
			b.warn("skin %q: %d vertices used by no triangle dropped", p.Name, unused)
		}
		matBase += len(p.Materials)
	}
	if len(b.s.Meshes) == 0 {
		b.warn("the skin has no triangles")
	}
}

func (b *builder) mesh(p *SkinPart, g *group, remap []int32, used []bool) scene.Mesh {
	name := p.Name
	if g.material >= 0 {
		name = fmt.Sprintf("%s_%d", p.Name, g.material)
	}
	for i := range remap {
		remap[i] = -1
	}
	var order []int32
	idx := make([]uint32, 0, 3*len(g.tris))
	for _, ti := range g.tris {
		for _, v := range p.Triangles[ti].V {
			if g.split[ti] {
				idx = append(idx, uint32(len(order)))
				order = append(order, int32(v))
				continue
			}
			if remap[v] < 0 {
				remap[v] = int32(len(order))
				order = append(order, int32(v))
				used[v] = true
			}
			idx = append(idx, uint32(remap[v]))
		}
	}
	nv := len(order)
	mesh := scene.Mesh{Name: name, Material: -1, Skin: -1, Indices: idx, Positions: make([][3]float32, nv)}
	uvs := make([][2]float32, nv)
	for k, v := range order {
		vx := &p.Vertices[v]
		mesh.Positions[k] = convPos32(vx.Pos)
		uvs[k] = [2]float32{vx.UV[0], 1 - vx.UV[1]}
	}
	mesh.UVs = [][][2]float32{uvs}
	if b.skel != nil {
		b.skinMesh(p, &mesh, order)
	}
	return mesh
}

// skinMesh writes the influences of the mesh's vertices, every one of them kept (a fifth goes
// into a second set), weights normalised to sum to 1.
func (b *builder) skinMesh(p *SkinPart, mesh *scene.Mesh, order []int32) {
	nb := b.skel.Bones
	// The influences are gathered in a buffer the meshes share.
	if cap(b.infl) < len(order) {
		b.infl = make([]influences, len(order))
	}
	inf := b.infl[:len(order)]
	maxN, badBone, noWeight := 1, 0, 0
	for k, v := range order {
		vx := &p.Vertices[v]
		in := &inf[k]
		in.n = 0
		for i := 0; i < vx.N; i++ {
			bone, w := int(vx.Bones[i]), float64(vx.Weights[i])
			if bone < 0 || bone >= nb || !(w >= 0) {
				badBone++
				continue
			}
			merged := false
			for e := 0; e < in.n; e++ {
				if int(in.j[e]) == bone {
					in.w[e] += w
					merged = true
				}
			}
			if !merged {
				in.j[in.n], in.w[in.n] = uint16(bone), w
				in.n++
			}
		}
		sum := 0.0
		for e := 0; e < in.n; e++ {
			sum += in.w[e]
		}
		if !(sum > 0) || math.IsInf(sum, 0) {
			// No usable influence: the vertex follows the first bone.
			noWeight++
			in.n, in.j[0], in.w[0] = 1, 0, 1
			sum = 1
		}
		for e := 0; e < in.n; e++ {
			in.w[e] /= sum
		}
		maxN = max(maxN, in.n)
	}
	if badBone > 0 {
		b.warn("skin %q: %d influences name a bone beyond the skeleton's %d or have a negative weight; dropped", p.Name, badBone, nb)
	}
	if noWeight > 0 {
		b.warn("skin %q: %d vertices have no usable influence; bound to bone 0", p.Name, noWeight)
	}
	sets := (maxN + 3) / 4
	mesh.Joints = make([][][4]uint16, sets)
	mesh.Weights = make([][][4]float32, sets)
	for s := range sets {
		mesh.Joints[s] = make([][4]uint16, len(order))
		mesh.Weights[s] = make([][4]float32, len(order))
	}
	for k := range inf {
		in := &inf[k]
		for e := 0; e < in.n; e++ {
			mesh.Joints[e/4][k][e%4] = in.j[e]
			mesh.Weights[e/4][k][e%4] = float32(in.w[e])
		}
	}
	mesh.Skin = 0
	if sets > 1 {
		mesh.Extras = scene.Extras{"influenceSets": sets}
	}
}

// sortWindows orders windows by start, so that later windows win where they overlap.
func sortWindows(ws []Window) []Window {
	out := slices.Clone(ws)
	slices.SortStableFunc(out, func(a, b Window) int { return cmp.Compare(a.Start, b.Start) })
	return out
}
