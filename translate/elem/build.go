package elem

import (
	"fmt"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/scene"
)

// Axis descriptions written to scene.Source.Axes.
const (
	AxesLeft  = "Direct3D left-handed Y-up, converted to glTF by mirroring Z (z → −z) and reversing triangle winding"
	AxesRight = "right-handed Y-up (IsRightHand=True), no conversion"
)

// Unit is the unit of length written to scene.Source.Unit.
const Unit = "Elfreina units (not stated by the format)"

// maxNodes is the most nodes 16-bit joint indices can address.
const maxNodes = math.MaxUint16

type restPose struct {
	t vec3
	q quat
	s vec3
}

// palette is one container's bone palette: TransformIndex → node and offset matrix.
type palette struct {
	nodes []int  // node per palette index, -1 for an empty slot
	ibm   []mat4 // converted OffsetMatrix per palette index
	has   []bool // whether ibm[i] was given
	rigid int    // the node unblended meshes follow, -1 for none
	skin  int    // scene skin, -1 until needed
}

type builder struct {
	f        *File
	src      codec.Source
	s        *scene.Scene
	mirror   bool
	byName   map[string]int
	rest     []restPose
	global   []mat4
	pals     []palette
	matBase  []int
	texByKey map[string]int
	warnings []string
	dropped  int
	cx       []containerExtra
}

// Build converts a parsed .elem file read from src into a scene in glTF's frame.
func Build(f *File, src codec.Source) (*scene.Scene, error) {
	b := &builder{f: f, src: src, byName: map[string]int{}, texByKey: map[string]int{}}
	b.mirror = !f.Setting.IsRightHand
	axes := AxesLeft
	if !b.mirror {
		axes = AxesRight
	}
	version := 0
	if v, err := strconv.ParseFloat(f.Version, 64); err == nil && v >= 0 && v < 1000 {
		version = int(math.Round(v * 100))
	}
	name := ""
	if len(f.Containers) == 1 {
		name = f.Containers[0].Name
	}
	b.s = &scene.Scene{
		Source: scene.Source{Path: src.Name, Format: FormatName, Version: version, Name: name, Axes: axes, Unit: Unit, Scale: 1},
		Extras: scene.Extras{},
	}
	for _, step := range []func() error{b.nodes, b.materials, b.palettes, b.meshes, b.animations} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	b.extras()
	if b.dropped > 0 {
		b.warnings = append(b.warnings, fmt.Sprintf("%d more warnings not shown", b.dropped))
	}
	b.s.Warnings = append(slices.Clone(f.Warnings), b.warnings...)
	return b.s, nil
}

func (b *builder) failAt(line int, format string, args ...any) error {
	return &codec.FormatError{Format: FormatName, File: b.src.Name, Offset: -1, Line: line, Msg: fmt.Sprintf(format, args...)}
}

func (b *builder) warnf(line int, format string, args ...any) {
	if len(b.warnings) >= maxWarnings {
		b.dropped++
		return
	}
	msg := fmt.Sprintf(format, args...)
	if line > 0 {
		msg = fmt.Sprintf("line %d: ", line) + msg
	}
	b.warnings = append(b.warnings, msg)
}

// conv converts a file matrix to glTF's frame.
func (b *builder) conv(m [16]float32) mat4 {
	if b.mirror {
		return mirrorZ(fromFile(m))
	}
	return fromFile(m)
}

func (b *builder) convVec(v [3]float32) [3]float32 {
	if b.mirror {
		v[2] = -v[2]
	}
	return v
}

func f32v3(v vec3) [3]float32 { return [3]float32{float32(v[0]), float32(v[1]), float32(v[2])} }
func f32q(q quat) [4]float32 {
	return [4]float32{float32(q[0]), float32(q[1]), float32(q[2]), float32(q[3])}
}

// addNode appends a scene node with the rest transform m (glTF frame).
func (b *builder) addNode(name string, parent int, m mat4, line int, extras scene.Extras) int {
	t, q, s, exact := decompose(m)
	if !finite(t[0]+t[1]+t[2]+q[0]+q[1]+q[2]+q[3]+s[0]+s[1]+s[2]) || !finiteF32(t, s) {
		b.warnf(line, "the posture matrix of node %q does not give a finite transform; the identity is used", name)
		t, q, s, exact = vec3{}, quat{0, 0, 0, 1}, vec3{1, 1, 1}, true
	}
	if !exact {
		b.warnf(line, "the posture matrix of node %q has shear, projection or a zero scale; its rest transform is approximated", name)
		if extras == nil {
			extras = scene.Extras{}
		}
		extras["initPostureMatrix"] = m.f32()
	}
	i := len(b.s.Nodes)
	b.s.Nodes = append(b.s.Nodes, scene.Node{
		Name: name, Kind: scene.KindBone, Parent: parent,
		Translation: f32v3(t), Rotation: f32q(q), Scale: f32v3(s), Extras: extras,
	})
	// The rest pose as glTF will see it, in float32.
	nd := &b.s.Nodes[i]
	r := restPose{
		t: vec3{float64(nd.Translation[0]), float64(nd.Translation[1]), float64(nd.Translation[2])},
		q: normQuat(quat{float64(nd.Rotation[0]), float64(nd.Rotation[1]), float64(nd.Rotation[2]), float64(nd.Rotation[3])}),
		s: vec3{float64(nd.Scale[0]), float64(nd.Scale[1]), float64(nd.Scale[2])},
	}
	b.rest = append(b.rest, r)
	g := compose(r.t, r.q, r.s)
	if parent >= 0 {
		g = b.global[parent].mul(g)
	}
	if !finiteMat(g.f32AsF64()) {
		g = identity()
	}
	b.global = append(b.global, g)
	if name != "" {
		if _, dup := b.byName[name]; dup {
			b.warnf(line, "node name %q used twice; references go to the first", name)
		} else {
			b.byName[name] = i
		}
	}
	return i
}

func (b *builder) nodes() error {
	if len(b.f.Nodes) > maxNodes {
		return b.failAt(b.f.Nodes[maxNodes].Line, "more than %d hierarchy nodes", maxNodes)
	}
	for _, n := range b.f.Nodes {
		m := identity()
		if n.HasInit {
			m = b.conv(n.Init)
		}
		if n.Name == "" {
			b.warnf(n.Line, "node without a NodeName")
		}
		b.addNode(n.Name, n.Parent, m, n.Line, nil)
	}
	return nil
}

// ---- materials and textures ----

type materialExtra struct {
	Ambient           [4]float32 `json:"ambient"`
	Emissive          [4]float32 `json:"emissive"`
	Specular          [4]float32 `json:"specular"`
	SpecularSharpness float32    `json:"specularSharpness"`
	Container         string     `json:"container"`
}

func (b *builder) materials() error {
	for ci := range b.f.Containers {
		c := &b.f.Containers[ci]
		b.matBase = append(b.matBase, len(b.s.Materials))
		for _, m := range c.Materials {
			sm := scene.Material{
				Name: m.Name, BaseColor: m.Diffuse, Texture: -1, AlphaMode: scene.AlphaOpaque,
				Extras: scene.Extras{"elfreina": materialExtra{
					Ambient: m.Ambient, Emissive: m.Emissive, Specular: m.Specular,
					SpecularSharpness: m.SpecularSharpness, Container: c.Name,
				}},
			}
			if m.Diffuse[3] < 1 {
				sm.AlphaMode = scene.AlphaBlend
			}
			if m.Texture != "" {
				sm.Texture = b.texture(m.Texture, m.Line)
			}
			b.s.Materials = append(b.s.Materials, sm)
		}
	}
	return nil
}

// texture adds (once) the texture named, relative to the .elem file's folder, and resolves it
// with the shared resolver (case-insensitive, backslash-tolerant, other image extensions). An
// absolute path (the artist's disk) is looked up by its file name beside the model.
func (b *builder) texture(name string, line int) int {
	if i, ok := b.texByKey[name]; ok {
		return i
	}
	p := strings.ReplaceAll(strings.TrimSpace(name), "\\", "/")
	if strings.HasPrefix(p, "/") || len(p) >= 2 && p[1] == ':' {
		b.warnf(line, "texture %q is an absolute path; looked up by its file name beside the model", name)
		p = path.Base(p)
	}
	// An unresolved texture is reported by the pipeline, which tries again from the root.
	resolved := ""
	if rel := path.Clean(path.Join(path.Dir(b.src.Name), p)); rel != ".." && !strings.HasPrefix(rel, "../") {
		resolved, _ = b.src.ResolveTexture(rel)
	}
	i := len(b.s.Textures)
	b.s.Textures = append(b.s.Textures, scene.Texture{Path: name, Resolved: resolved, WrapU: true, WrapV: true})
	b.texByKey[name] = i
	return i
}

// ---- bone palettes and skins ----

func (b *builder) palettes() error {
	for ci := range b.f.Containers {
		c := &b.f.Containers[ci]
		size := max(len(c.BoneNames), len(c.Offsets))
		nParts := 0
		for _, m := range c.Meshes {
			nParts += len(m.Blend)
		}
		if size == 0 {
			for _, m := range c.Meshes {
				for _, bp := range m.Blend {
					size = max(size, bp.TransformIndex+1)
				}
			}
			if size > nParts {
				return b.failAt(c.Line, "TransformIndex %d with neither BoneNames nor OffsetMatrices and %d BlendPart scopes", size-1, nParts)
			}
		}
		pal := palette{nodes: make([]int, size), ibm: make([]mat4, size), has: make([]bool, size), rigid: -1, skin: -1}
		names := make([]string, size)
		copy(names, c.BoneNames)
		for _, m := range c.Meshes {
			for i := range m.Blend {
				bp := &m.Blend[i]
				if bp.TransformIndex < 0 {
					bp.TransformIndex = slices.Index(names, bp.BoneName)
					if bp.TransformIndex < 0 || bp.BoneName == "" {
						return b.failAt(bp.Line, "BlendPart without TransformIndex names bone %q, which is not in BoneNames", bp.BoneName)
					}
				}
				if bp.TransformIndex >= size {
					return b.failAt(bp.Line, "TransformIndex %d past the end of the bone palette (%d bones)", bp.TransformIndex, size)
				}
				switch n := names[bp.TransformIndex]; {
				case n == "":
					names[bp.TransformIndex] = bp.BoneName
				case bp.BoneName != "" && bp.BoneName != n:
					b.warnf(bp.Line, "BlendPart bone %q but BoneNames[%d] is %q; BoneNames wins", bp.BoneName, bp.TransformIndex, n)
				}
			}
		}
		for i := range size {
			if i < len(c.Offsets) {
				pal.ibm[i], pal.has[i] = b.conv(c.Offsets[i]), true
			}
			pal.nodes[i] = -1
			if names[i] == "" {
				continue
			}
			n, ok := b.byName[names[i]]
			if !ok {
				if len(b.s.Nodes) >= maxNodes {
					return b.failAt(c.Line, "more than %d nodes", maxNodes)
				}
				bind := identity()
				if pal.has[i] {
					if inv, ok := invert(pal.ibm[i]); ok {
						bind = inv
					}
				}
				b.warnf(c.Line, "bone %q of container %q has no hierarchy node; added at the root in its bind pose", names[i], c.Name)
				n = b.addNode(names[i], -1, bind, c.Line, scene.Extras{"synthetic": "bone without a HierarchyList node"})
			}
			pal.nodes[i] = n
		}
		for _, rm := range b.f.Rendering {
			if rm.Name != c.Name {
				continue
			}
			if len(rm.HierarchyNames) == 1 {
				if n, ok := b.byName[rm.HierarchyNames[0]]; ok {
					pal.rigid = n
				} else {
					b.warnf(rm.Line, "rendering mesh %q names hierarchy node %q, which does not exist", rm.Name, rm.HierarchyNames[0])
				}
			}
			break
		}
		b.pals = append(b.pals, pal)
	}
	return nil
}

// skinOf returns the skin of container ci, making it on first use. Every node is a joint, so
// joint indices are node indices; a node's inverse bind matrix is the container's OffsetMatrix
// when the palette has it, else the inverse of its rest world transform.
func (b *builder) skinOf(ci int) int {
	pal := &b.pals[ci]
	if pal.skin >= 0 {
		return pal.skin
	}
	n := len(b.s.Nodes)
	ibm := make([][16]float32, n)
	set := make([]bool, n)
	for i, nd := range pal.nodes {
		if nd >= 0 && pal.has[i] && !set[nd] {
			ibm[nd], set[nd] = pal.ibm[i].f32(), true
		}
	}
	for j := range n {
		if set[j] {
			continue
		}
		inv, ok := invert(b.global[j])
		if !ok || !finiteMat(inv.f32AsF64()) {
			inv = identity()
		}
		ibm[j] = inv.f32()
	}
	for k, sk := range b.s.Skins {
		if sameMatrices(sk.InverseBind, ibm) {
			pal.skin = k
			return k
		}
	}
	joints := make([]int, n)
	for j := range joints {
		joints[j] = j
	}
	pal.skin = len(b.s.Skins)
	b.s.Skins = append(b.s.Skins, scene.Skin{Name: b.f.Containers[ci].Name, Joints: joints, InverseBind: ibm, Skeleton: -1})
	return pal.skin
}

type settingExtra struct {
	SoftVersion string            `json:"softVersion"`
	LoadType    string            `json:"loadType"`
	IsRightHand *bool             `json:"isRightHand"` // null when the file does not say
	Other       map[string]string `json:"other,omitempty"`
}

type renderingExtra struct {
	Name           string   `json:"name"`
	Container      *int     `json:"container"`
	HierarchyNames []string `json:"hierarchyNames"`
	Nodes          []*int   `json:"nodes"`
}

// extras fills the scene's Extras with what glTF has no place for.
func (b *builder) extras() {
	x := b.s.Extras
	x["fileVersion"] = b.f.Version
	st := settingExtra{SoftVersion: b.f.Setting.SoftVersion, LoadType: b.f.Setting.LoadType, Other: b.f.Setting.Other}
	if b.f.Setting.HasIsRightHand {
		v := b.f.Setting.IsRightHand
		st.IsRightHand = &v
	}
	x["settings"] = st
	x["containers"] = nonNil(b.cx)
	if len(b.f.Rendering) > 0 {
		var rs []renderingExtra
		for _, rm := range b.f.Rendering {
			r := renderingExtra{Name: rm.Name, HierarchyNames: nonNil(rm.HierarchyNames), Nodes: []*int{}}
			for ci := range b.f.Containers {
				if b.f.Containers[ci].Name == rm.Name {
					r.Container = &ci
					break
				}
			}
			if r.Container == nil {
				b.warnf(rm.Line, "rendering mesh %q names no MeshContainer", rm.Name)
			}
			for _, hn := range rm.HierarchyNames {
				if n, ok := b.byName[hn]; ok {
					r.Nodes = append(r.Nodes, &n)
				} else {
					r.Nodes = append(r.Nodes, nil)
				}
			}
			rs = append(rs, r)
		}
		x["renderingMeshes"] = rs
	}
	if len(b.f.Unknown) > 0 {
		x["unknownScopes"] = b.f.Unknown
	}
}

// sameMatrices reports whether two matrix lists agree to within float noise.
func sameMatrices(a, b [][16]float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		for k := range a[i] {
			x, y := float64(a[i][k]), float64(b[i][k])
			if math.Abs(x-y) > 1e-5*max(1, math.Abs(x), math.Abs(y)) {
				return false
			}
		}
	}
	return true
}
