package scene

import (
	"fmt"
	"math"
	"slices"
)

// ValidationError reports the first inconsistency Validate found.
type ValidationError struct {
	Where string // e.g. "meshes[2].indices[17]"
	Msg   string
}

func (e *ValidationError) Error() string { return "invalid scene: " + e.Where + ": " + e.Msg }

func invalid(where, format string, args ...any) error {
	return &ValidationError{Where: where, Msg: fmt.Sprintf(format, args...)}
}

// finite32 reports whether v is neither NaN nor infinite (its exponent bits are not all ones).
func finite32(v float32) bool {
	return math.Float32bits(v)&0x7f800000 != 0x7f800000
}

// expMask selects a float32's exponent bits; they are all ones only for NaN and infinities.
const expMask = 0x7f800000

// finiteVec3s returns the index of the first vector with a NaN or infinite component, or -1.
// The first pass is branch-free (the largest exponent seen), so clean data costs one pass.
func finiteVec3s(vs [][3]float32) int {
	var m0, m1, m2 uint32 // one running maximum per component: three short dependency chains
	for _, p := range vs {
		m0 = max(m0, math.Float32bits(p[0])&expMask)
		m1 = max(m1, math.Float32bits(p[1])&expMask)
		m2 = max(m2, math.Float32bits(p[2])&expMask)
	}
	if max(m0, m1, m2) != expMask {
		return -1
	}
	for i, p := range vs {
		if !finite32(p[0]) || !finite32(p[1]) || !finite32(p[2]) {
			return i
		}
	}
	return -1
}

// allFinite reports whether no value is NaN or infinite, in one branch-free pass (the largest
// exponent seen, four running maxima).
func allFinite(vs []float32) bool {
	var m0, m1, m2, m3 uint32
	for len(vs) >= 4 {
		v := vs[:4:4]
		m0 = max(m0, math.Float32bits(v[0])&expMask)
		m1 = max(m1, math.Float32bits(v[1])&expMask)
		m2 = max(m2, math.Float32bits(v[2])&expMask)
		m3 = max(m3, math.Float32bits(v[3])&expMask)
		vs = vs[4:]
	}
	for _, v := range vs {
		m0 = max(m0, math.Float32bits(v)&expMask)
	}
	return max(m0, m1, m2, m3) != expMask
}

// weightTolerance is how far a vertex's weights may sum away from 1.
const weightTolerance = 2e-3

// Validate checks every index and length in the scene, so that encoders may trust it.
func (s *Scene) Validate() error {
	n := len(s.Nodes)
	// Where-strings are formatted only for the error: a scene has thousands of channels.
	for i := range s.Nodes {
		nd := &s.Nodes[i]
		if nd.Parent < -1 || nd.Parent >= n || nd.Parent == i {
			return invalid(fmt.Sprintf("nodes[%d]", i), "parent %d out of range", nd.Parent)
		}
		if !allFinite(nd.Translation[:]) || !allFinite(nd.Rotation[:]) || !allFinite(nd.Scale[:]) {
			return invalid(fmt.Sprintf("nodes[%d]", i), "non-finite rest transform")
		}
	}
	// Cycle check: walking up from any node must reach a root within n steps.
	for i := range s.Nodes {
		p, steps := s.Nodes[i].Parent, 0
		for p >= 0 {
			if steps++; steps > n {
				return invalid(fmt.Sprintf("nodes[%d]", i), "parent chain has a cycle")
			}
			p = s.Nodes[p].Parent
		}
	}
	if err := s.CheckShapes(); err != nil {
		return err
	}
	if err := s.checkLights(); err != nil {
		return err
	}
	for i, m := range s.Materials {
		if m.Texture < -1 || m.Texture >= len(s.Textures) {
			return invalid(fmt.Sprintf("materials[%d]", i), "texture %d out of range", m.Texture)
		}
		if m.TexCoord < 0 {
			return invalid(fmt.Sprintf("materials[%d]", i), "negative texcoord %d", m.TexCoord)
		}
		if p := m.PBR; p != nil && (p.Normal < -1 || p.Normal >= len(s.Textures) || p.ORM < -1 || p.ORM >= len(s.Textures)) {
			return invalid(fmt.Sprintf("materials[%d]", i), "maps %d and %d out of range", p.Normal, p.ORM)
		}
		if !allFinite(m.BaseColor[:]) {
			return invalid(fmt.Sprintf("materials[%d]", i), "non-finite colour")
		}
	}
	for i, v := range s.Variants {
		if v == "" {
			return invalid(fmt.Sprintf("variants[%d]", i), "no name")
		}
	}
	for i, sk := range s.Skins {
		w := fmt.Sprintf("skins[%d]", i)
		if len(sk.Joints) == 0 {
			return invalid(w, "no joints")
		}
		if len(sk.InverseBind) != len(sk.Joints) {
			return invalid(w, "%d inverse bind matrices for %d joints", len(sk.InverseBind), len(sk.Joints))
		}
		seen := make(map[int]bool, len(sk.Joints))
		for j, jn := range sk.Joints {
			if jn < 0 || jn >= n {
				return invalid(fmt.Sprintf("%s.joints[%d]", w, j), "node %d out of range", jn)
			}
			if seen[jn] {
				return invalid(fmt.Sprintf("%s.joints[%d]", w, j), "node %d listed twice", jn)
			}
			seen[jn] = true
			if !allFinite(sk.InverseBind[j][:]) {
				return invalid(fmt.Sprintf("%s.inverseBind[%d]", w, j), "non-finite matrix")
			}
		}
		if sk.Skeleton < -1 || sk.Skeleton >= n {
			return invalid(w, "skeleton %d out of range", sk.Skeleton)
		}
	}
	for i := range s.Meshes {
		if err := s.validateMesh(i); err != nil {
			return err
		}
	}
	for i := range s.Animations {
		if err := s.validateAnimation(i); err != nil {
			return err
		}
	}
	return nil
}

// validateAnimation checks animation i.
func (s *Scene) validateAnimation(i int) error {
	a := &s.Animations[i]
	n := len(s.Nodes)
	w := func() string { return fmt.Sprintf("animations[%d]", i) }
	if !finite32(a.Duration) || a.Duration < 0 {
		return invalid(w(), "bad duration %v", a.Duration)
	}
	for c := range a.Channels {
		ch := &a.Channels[c]
		cw := func() string { return fmt.Sprintf("%s.channels[%d]", w(), c) }
		if ch.Node < 0 || ch.Node >= n {
			return invalid(cw(), "node %d out of range", ch.Node)
		}
		switch ch.Path {
		case PathTranslation, PathRotation, PathScale:
		default:
			return invalid(cw(), "unknown path %q", ch.Path)
		}
		per := ch.Path.Width()
		switch ch.Interp {
		case Step, Linear:
		case CubicSpline:
			per *= 3
		default:
			return invalid(cw(), "unknown interpolation %q", ch.Interp)
		}
		if len(ch.Times) == 0 {
			return invalid(cw(), "no keys")
		}
		if len(ch.Values) != per*len(ch.Times) {
			return invalid(cw(), "%d values for %d keys", len(ch.Values), len(ch.Times))
		}
		// Times from a non-negative first one, each above the one before (NaN fails every
		// comparison) and a finite last one are all finite; the culprit is searched for only
		// on failure.
		ok := ch.Times[0] >= 0 && finite32(ch.Times[len(ch.Times)-1])
		for k := 1; k < len(ch.Times) && ok; k++ {
			ok = ch.Times[k] > ch.Times[k-1]
		}
		if !ok {
			for k, t := range ch.Times {
				if !finite32(t) || t < 0 || (k > 0 && t <= ch.Times[k-1]) {
					return invalid(fmt.Sprintf("%s.times[%d]", cw(), k), "time %v not strictly increasing from 0", t)
				}
			}
		}
		if !allFinite(ch.Values) {
			return invalid(cw(), "non-finite value")
		}
		if !(ch.Rounding >= 0) || !finite32(ch.Rounding) {
			return invalid(cw(), "bad rounding %v", ch.Rounding)
		}
	}
	seen := make(map[int]bool, len(a.Visibility))
	for vi := range a.Visibility {
		v := &a.Visibility[vi]
		vw := fmt.Sprintf("%s.visibility[%d]", w(), vi)
		if v.Mesh < 0 || v.Mesh >= len(s.Meshes) {
			return invalid(vw, "mesh %d out of range", v.Mesh)
		}
		if seen[v.Mesh] {
			return invalid(vw, "mesh %d listed twice", v.Mesh)
		}
		seen[v.Mesh] = true
		if len(v.Times) == 0 || len(v.Shown) != len(v.Times) {
			return invalid(vw, "%d steps for %d times", len(v.Shown), len(v.Times))
		}
		for k, t := range v.Times {
			if !finite32(t) || t < 0 || (k > 0 && t <= v.Times[k-1]) {
				return invalid(fmt.Sprintf("%s.times[%d]", vw, k), "time %v not strictly increasing from 0", t)
			}
		}
	}
	return nil
}

func (s *Scene) validateMesh(i int) error {
	m := &s.Meshes[i]
	w := fmt.Sprintf("meshes[%d]", i)
	nv := len(m.Positions)
	if nv == 0 {
		return invalid(w, "no vertices")
	}
	if len(m.Normals) != 0 && len(m.Normals) != nv {
		return invalid(w, "%d normals for %d vertices", len(m.Normals), nv)
	}
	if len(m.Colors) != 0 && len(m.Colors) != nv {
		return invalid(w, "%d colours for %d vertices", len(m.Colors), nv)
	}
	if len(m.Tangents) != 0 && (len(m.Tangents) != nv || len(m.Normals) != nv) {
		return invalid(w, "%d tangents and %d normals for %d vertices", len(m.Tangents), len(m.Normals), nv)
	}
	for u, set := range m.UVs {
		if len(set) != nv {
			return invalid(w, "uv set %d has %d entries for %d vertices", u, len(set), nv)
		}
		var m uint32 // the largest exponent: branch-free, as in finiteVec3s
		for _, uv := range set {
			m = max(m, math.Float32bits(uv[0])&expMask, math.Float32bits(uv[1])&expMask)
		}
		if m == expMask {
			return invalid(w, "uv set %d has a non-finite value", u)
		}
	}
	if v := finiteVec3s(m.Positions); v >= 0 {
		return invalid(fmt.Sprintf("%s.positions[%d]", w, v), "non-finite")
	}
	if v := finiteVec3s(m.Normals); v >= 0 {
		return invalid(fmt.Sprintf("%s.normals[%d]", w, v), "non-finite")
	}
	if len(m.Indices) == 0 || len(m.Indices)%3 != 0 {
		return invalid(w, "%d indices is not a positive multiple of 3", len(m.Indices))
	}
	// One branch-free pass (a running maximum per triangle corner); the search for the culprit
	// only on failure. len(m.Indices) is a multiple of 3 here.
	var t0, t1, t2 uint32
	for k := 0; k+2 < len(m.Indices); k += 3 {
		t := m.Indices[k : k+3 : k+3]
		t0, t1, t2 = max(t0, t[0]), max(t1, t[1]), max(t2, t[2])
	}
	if int64(max(t0, t1, t2)) >= int64(nv) {
		k := slices.IndexFunc(m.Indices, func(ix uint32) bool { return int64(ix) >= int64(nv) })
		return invalid(fmt.Sprintf("%s.indices[%d]", w, k), "vertex %d out of range (%d vertices)", m.Indices[k], nv)
	}
	if err := s.usable(w, m.Material, len(m.UVs)); err != nil {
		return err
	}
	if m.VariantMaterials != nil {
		if len(m.VariantMaterials) != len(s.Variants) {
			return invalid(w, "%d variant materials for %d variants", len(m.VariantMaterials), len(s.Variants))
		}
		for _, vm := range m.VariantMaterials {
			if vm < 0 {
				return invalid(w, "variant material %d out of range", vm)
			}
			if err := s.usable(w, vm, len(m.UVs)); err != nil {
				return err
			}
		}
	}
	if m.Skin < -1 || m.Skin >= len(s.Skins) {
		return invalid(w, "skin %d out of range", m.Skin)
	}
	if len(m.Joints) != len(m.Weights) {
		return invalid(w, "%d joint sets but %d weight sets", len(m.Joints), len(m.Weights))
	}
	if m.Skin < 0 {
		if len(m.Joints) != 0 {
			return invalid(w, "influences without a skin")
		}
		return nil
	}
	if len(m.Joints) == 0 {
		return invalid(w, "skinned mesh without influences")
	}
	nj := len(s.Skins[m.Skin].Joints)
	for set := range m.Joints {
		if len(m.Joints[set]) != nv || len(m.Weights[set]) != nv {
			return invalid(w, "influence set %d does not cover %d vertices", set, nv)
		}
	}
	for set, js := range m.Joints {
		// One branch-free pass for the largest joint index; the slow search only on failure.
		var t0, t1, t2, t3 uint16 // a running maximum per slot: four short dependency chains
		for _, j := range js {
			t0, t1, t2, t3 = max(t0, j[0]), max(t1, j[1]), max(t2, j[2]), max(t3, j[3])
		}
		if int(max(t0, t1, t2, t3)) >= nj {
			for v, j := range js {
				if k := slices.IndexFunc(j[:], func(x uint16) bool { return int(x) >= nj }); k >= 0 {
					return invalid(fmt.Sprintf("%s.joints[%d][%d]", w, set, v), "joint %d out of range (%d joints)", j[k], nj)
				}
			}
		}
	}
	for v := 0; v < nv; v++ {
		var sum float32
		for set := range m.Weights {
			wt := &m.Weights[set][v]
			// NaN and negative weights fail the comparison; an infinite one spoils the sum.
			if !(wt[0] >= 0 && wt[1] >= 0 && wt[2] >= 0 && wt[3] >= 0) {
				return invalid(fmt.Sprintf("%s.weights[%d][%d]", w, set, v), "bad weight in %v", *wt)
			}
			sum += wt[0] + wt[1] + wt[2] + wt[3]
		}
		if !(sum >= 1-weightTolerance && sum <= 1+weightTolerance) {
			return invalid(fmt.Sprintf("%s.weights[*][%d]", w, v), "weights sum to %v, not 1", sum)
		}
	}
	return nil
}

// usable checks that material mat (-1 for none) exists and finds its UV set among a mesh's uvSets.
func (s *Scene) usable(w string, mat, uvSets int) error {
	if mat < -1 || mat >= len(s.Materials) {
		return invalid(w, "material %d out of range", mat)
	}
	if mat >= 0 {
		if tc := s.Materials[mat].TexCoord; s.Materials[mat].Texture >= 0 && tc >= uvSets {
			return invalid(w, "material %d uses uv set %d of %d", mat, tc, uvSets)
		}
	}
	return nil
}

// CheckShapes checks that every shape names meshes and nodes that exist, that no mesh is in
// two shapes nor skinned or hidden there, and that no node draws two shapes (part of Validate,
// for encoders that check only what they rely on).
func (s *Scene) CheckShapes() error {
	if len(s.Shapes) == 0 {
		return nil
	}
	inShape := make([]bool, len(s.Meshes))
	drawn := map[int]bool{}
	for i, sh := range s.Shapes {
		where := func() string { return fmt.Sprintf("shapes[%d]", i) }
		if len(sh.Meshes) == 0 {
			return invalid(where(), "no meshes")
		}
		for _, m := range sh.Meshes {
			if m < 0 || m >= len(s.Meshes) {
				return invalid(where(), "mesh %d out of range", m)
			}
			if inShape[m] {
				return invalid(where(), "mesh %d is in another shape", m)
			}
			inShape[m] = true
			if s.Meshes[m].Skin >= 0 || s.Meshes[m].Hidden {
				return invalid(where(), "mesh %d is skinned or hidden", m)
			}
		}
		for _, n := range sh.Instances {
			if n < 0 || n >= len(s.Nodes) {
				return invalid(where(), "instance node %d out of range", n)
			}
			if drawn[n] {
				return invalid(where(), "node %d draws another shape", n)
			}
			drawn[n] = true
		}
	}
	for _, a := range s.Animations {
		for _, v := range a.Visibility {
			if v.Mesh >= 0 && v.Mesh < len(inShape) && inShape[v.Mesh] {
				return invalid("animations", "visibility of mesh %d, which is in a shape", v.Mesh)
			}
		}
	}
	return nil
}

// checkLights checks that each light is at its own node, of a known type, with finite values
// in their ranges.
func (s *Scene) checkLights() error {
	lit := map[int]bool{}
	for i, l := range s.Lights {
		where := func() string { return fmt.Sprintf("lights[%d]", i) }
		if l.Node < 0 || l.Node >= len(s.Nodes) {
			return invalid(where(), "node %d out of range", l.Node)
		}
		if lit[l.Node] {
			return invalid(where(), "node %d holds another light", l.Node)
		}
		lit[l.Node] = true
		switch l.Type {
		case LightPoint:
		case LightDirectional:
			if l.Range != 0 {
				return invalid(where(), "a directional light with a range (%g)", l.Range)
			}
		case LightSpot:
			if !(l.InnerCone >= 0 && l.InnerCone < l.OuterCone && float64(l.OuterCone) <= math.Pi/2) {
				return invalid(where(), "spot cone %g to %g", l.InnerCone, l.OuterCone)
			}
		default:
			return invalid(where(), "type %q", l.Type)
		}
		if !allFinite(l.Color[:]) || !allFinite([]float32{l.Intensity, l.Range}) || l.Intensity < 0 || l.Range < 0 ||
			min(l.Color[0], l.Color[1], l.Color[2]) < 0 || max(l.Color[0], l.Color[1], l.Color[2]) > 1 {
			return invalid(where(), "colour %v, intensity %g, range %g", l.Color, l.Intensity, l.Range)
		}
	}
	return nil
}
