package mdl

import (
	"math"
	"slices"

	"github.com/modelfs/modelfs/translate/wc3"
)

// file parses the top level: a sequence of blocks.
func (p *parser) file() {
	m := p.m
	sawVersion := false
	for p.lx.kind != tEOF {
		switch p.lx.kind {
		case tRBrace:
			p.failf("unbalanced '}' at top level")
		case tIdent:
		default:
			p.warnTok(p.lx.tokLine, "unexpected %s at top level skipped")
			p.skipUnknown()
			continue
		}
		line, word := p.lx.tokLine, p.lx.text()
		k := keyword(word)
		if k < kwVersion || k > kwCollisionShape { // not a top-level block
			p.warnTok(line, "unknown block %s skipped")
			p.skipUnknown()
			continue
		}
		p.next()
		p.known = true
		switch k {
		case kwVersion:
			p.body("Version", func(k kw, _ bool) bool {
				if k != kwFormatVersion {
					return false
				}
				m.Version = p.u32("FormatVersion")
				switch v := m.Version; {
				case v == 800, v == 900, v == 1000, v == 1100, v == 1200:
				case v > 1200 && v%100 == 0: // the way Reforged numbers its versions
					p.warnf(line, "FormatVersion %d is newer than 1200, the newest this modelfs reads; read as 1200, so anything version %d adds is skipped (a modelfs that knows it would show it)", m.Version, m.Version)
				default:
					p.warnf(line, "FormatVersion %d is not one Warcraft III writes; fields of other versions are skipped", m.Version)
				}
				sawVersion = true
				return true
			})
		case kwModel:
			p.modelBlock()
		case kwSequences:
			p.list("Sequences", kwAnim, func() { m.Sequences = append(m.Sequences, p.sequence()) })
		case kwGlobalSequences:
			p.optCount("GlobalSequences")
			p.body("GlobalSequences", func(k kw, _ bool) bool {
				if k != kwDuration {
					return false
				}
				m.GlobalSequences = append(m.GlobalSequences, p.u32("Duration"))
				return true
			})
		case kwTextures:
			p.list("Textures", kwBitmap, func() { m.Textures = append(m.Textures, p.texture()) })
		case kwMaterials:
			p.list("Materials", kwMaterial, func() { m.Materials = append(m.Materials, p.material()) })
		case kwTextureAnims:
			p.list("TextureAnims", kwTVertexAnim, func() { m.TextureAnims = append(m.TextureAnims, p.textureAnim()) })
		case kwGeoset:
			m.Geosets = append(m.Geosets, p.geoset())
		case kwGeosetAnim:
			m.GeosetAnims = append(m.GeosetAnims, p.geosetAnim())
		case kwBone:
			m.Bones = append(m.Bones, p.bone())
		case kwLight:
			m.Lights = append(m.Lights, p.light())
		case kwHelper:
			var n wc3.Node
			p.node(&n, 0, "Helper", nil)
			m.Helpers = append(m.Helpers, n)
		case kwAttachment:
			m.Attachments = append(m.Attachments, p.attachment())
		case kwPivotPoints:
			m.PivotPoints = append(m.PivotPoints, vecList[[3]float32](p, "PivotPoints")...)
		case kwParticleEmitter:
			m.ParticleEmitters = append(m.ParticleEmitters, p.particleEmitter())
		case kwParticleEmitter2:
			m.ParticleEmitters2 = append(m.ParticleEmitters2, p.particleEmitter2())
		case kwRibbonEmitter:
			m.RibbonEmitters = append(m.RibbonEmitters, p.ribbonEmitter())
		case kwCamera:
			m.Cameras = append(m.Cameras, p.camera())
		case kwEventObject:
			m.Events = append(m.Events, p.eventObject())
		case kwCollisionShape:
			m.CollisionShapes = append(m.CollisionShapes, p.collisionShape())
		case kwBindPose:
			p.bindPose()
		case kwFaceFX:
			p.faceFX()
		case kwParticleEmitterPopcorn:
			p.popcorn()
		default: // a top-level keyword this switch does not read
			p.warnf(line, "unknown block %s skipped", quoteWord(word))
			p.skipRest()
		}
	}
	if !sawVersion {
		m.Version = 800
		if p.known {
			p.warnf(1, "no FormatVersion; 800 assumed")
		}
	}
}

// list parses `[count] { Entry … Entry … }` where every entry starts with the keyword entry;
// fn consumes one entry after its keyword.
func (p *parser) list(what string, entry kw, fn func()) {
	hint := p.optCount(what)
	line := p.lx.tokLine
	n := 0
	p.body(what, func(k kw, _ bool) bool {
		if k != entry {
			return false
		}
		fn()
		n++
		return true
	})
	p.checkCount(line, hint, n, what)
}

func (p *parser) extentProp(e *wc3.Extent, k kw) bool {
	switch k {
	case kwMinimumExtent:
		e.Min = p.vec3("MinimumExtent")
	case kwMaximumExtent:
		e.Max = p.vec3("MaximumExtent")
	case kwBoundsRadius:
		e.BoundsRadius = p.float("BoundsRadius")
	default:
		return false
	}
	return true
}

func (p *parser) modelBlock() {
	m := p.m
	m.Name = p.optName()
	p.body("Model", func(k kw, _ bool) bool {
		switch k {
		case kwUnknown:
			// NumGeosets, NumBones, …: counts the reader does not need.
			if t := p.stmtWord; len(t) > 3 && (t[0]|0x20) == 'n' && (t[1]|0x20) == 'u' && (t[2]|0x20) == 'm' {
				p.optCount(string(t))
				return true
			}
			return false
		case kwName:
			m.Name = p.str("Name")
		case kwAnimationFile:
			m.AnimFile = p.str("AnimationFile")
		case kwBlendTime:
			m.BlendTime = p.u32("BlendTime")
		default:
			return p.extentProp(&m.Extent, k)
		}
		return true
	})
}

func (p *parser) sequence() wc3.Sequence {
	var s wc3.Sequence
	s.Name = p.optName()
	p.body("Anim", func(k kw, _ bool) bool {
		switch k {
		case kwInterval:
			p.uints(s.Interval[:], math.MaxUint32, "Interval")
		case kwMoveSpeed:
			s.MoveSpeed = p.float("MoveSpeed")
		case kwNonLooping:
			s.NonLooping = true
		case kwRarity:
			s.Rarity = p.float("Rarity")
		default:
			return p.extentProp(&s.Extent, k)
		}
		return true
	})
	return s
}

func (p *parser) texture() wc3.Texture {
	var t wc3.Texture
	p.body("Bitmap", func(k kw, _ bool) bool {
		switch k {
		case kwImage:
			t.Path = p.str("Image")
		case kwReplaceableId:
			t.ReplaceableID = p.u32("ReplaceableId")
		case kwWrapWidth:
			t.Flags |= 1
		case kwWrapHeight:
			t.Flags |= 2
		default:
			return false
		}
		return true
	})
	return t
}

var filterModes = map[kw]uint32{
	kwNone: wc3.FilterNone, kwTransparent: wc3.FilterTransparent, kwBlend: wc3.FilterBlend,
	kwAdditive: wc3.FilterAdditive, kwAddAlpha: wc3.FilterAddAlpha, kwModulate: wc3.FilterModulate,
	kwModulate2x: wc3.FilterModulate2x,
}

func (p *parser) material() wc3.Material {
	var mt wc3.Material
	p.body("Material", func(k kw, _ bool) bool {
		switch k {
		case kwConstantColor:
			mt.Flags |= 0x1
		case kwTwoSided:
			mt.Flags |= 0x2
		case kwSortPrimsNearZ:
			mt.Flags |= 0x8
		case kwSortPrimsFarZ:
			mt.Flags |= 0x10
		case kwFullResolution:
			mt.Flags |= 0x20
		case kwPriorityPlane:
			mt.PriorityPlane = p.i32("PriorityPlane")
			return true
		case kwShader:
			mt.Shader = p.str("Shader")
			return true
		case kwLayer:
			mt.Layers = append(mt.Layers, p.layer())
			return true
		default:
			return false
		}
		return true
	})
	return mt
}

func (p *parser) layer() wc3.Layer {
	l := wc3.Layer{TextureAnimID: -1, Alpha: 1}
	var hd *wc3.LayerHD // the Reforged fields, as the MDX reader fills them from version 900
	reforged := func() *wc3.LayerHD {
		if hd == nil {
			hd = &wc3.LayerHD{EmissiveGain: 1, FresnelColor: [3]float32{1, 1, 1}}
		}
		return hd
	}
	if p.m.Version > 800 {
		reforged()
	}
	// From version 1100 a layer's textures are a list by slot: TextureID is slot 0 and each
	// other slot has its own keyword, static or a track.
	slotted := p.m.Version >= 1100
	slotTexture := func(static bool, slot uint32, what string) {
		t := wc3.LayerTexture{Slot: slot}
		if !p.trackOr(static, 1, what, &t.TextureTrack) {
			t.TextureID = p.i32(what)
		}
		h := reforged()
		h.Textures = append(h.Textures, t)
	}
	p.body("Layer", func(k kw, static bool) bool {
		switch k {
		case kwFilterMode:
			switch p.lx.kind {
			case tIdent:
				fm, ok := filterModes[keyword(p.lx.text())]
				if !ok {
					fm = wc3.FilterNone
					p.warnTok(p.lx.tokLine, "unknown FilterMode %s; None used")
				}
				l.FilterMode = fm
				p.next()
			default:
				l.FilterMode = p.u32("FilterMode")
			}
			return true
		case kwUnshaded:
			l.Shading |= wc3.ShadeUnshaded
		case kwSphereEnvMap:
			l.Shading |= wc3.ShadeSphereEnvMap
		case kwTwoSided:
			l.Shading |= wc3.ShadeTwoSided
		case kwUnfogged:
			l.Shading |= wc3.ShadeUnfogged
		case kwNoDepthTest:
			l.Shading |= wc3.ShadeNoDepthTest
		case kwNoDepthSet:
			l.Shading |= wc3.ShadeNoDepthSet
		case kwUnlit:
			l.Shading |= wc3.ShadeUnlit
		case kwTextureID:
			if slotted {
				slotTexture(static, wc3.SlotDiffuse, "TextureID")
				if t := hd.Textures[len(hd.Textures)-1]; t.TextureTrack == nil {
					l.TextureID = t.TextureID
				}
				return true
			}
			if !p.trackOr(static, 1, "TextureID", &l.TextureTrack) {
				l.TextureID = p.i32("TextureID")
			}
			return true
		case kwNormalTextureID, kwORMTextureID, kwEmissiveTextureID, kwTeamColorTextureID, kwReflectionsTextureID:
			slotTexture(static, uint32(k-kwNormalTextureID)+wc3.SlotNormal, keywordNames[k])
			return true
		case kwShaderTypeId:
			reforged().ShaderType = p.u32("ShaderTypeId")
			return true
		case kwEmissiveGain:
			h := reforged()
			p.animFloat(static, "EmissiveGain", &h.EmissiveGain, &h.EmissiveTrack)
			return true
		case kwFresnelColor:
			h := reforged()
			p.animVec3(static, "FresnelColor", &h.FresnelColor, &h.FresnelColorTrack)
			return true
		case kwFresnelOpacity:
			h := reforged()
			p.animFloat(static, "FresnelOpacity", &h.FresnelOpacity, &h.FresnelAlphaTrack)
			return true
		case kwFresnelTeamColor:
			h := reforged()
			p.animFloat(static, "FresnelTeamColor", &h.FresnelTeamColor, &h.FresnelTeamTrack)
			return true
		case kwTVertexAnimId:
			l.TextureAnimID = p.i32("TVertexAnimId")
			return true
		case kwCoordId:
			l.CoordID = p.u32("CoordId")
			return true
		case kwAlpha:
			p.animFloat(static, "Alpha", &l.Alpha, &l.AlphaTrack)
			return true
		default:
			return false
		}
		return true
	})
	l.Reforged = hd
	return l
}

// bindPose parses `{ Matrices N { { 12 floats }, … } }`: a 3×4 matrix per object.
func (p *parser) bindPose() {
	p.body("BindPose", func(k kw, _ bool) bool {
		if k != kwMatrices {
			return false
		}
		hint := p.optCount("Matrices")
		open := p.open("Matrices")
		if c := p.capHint(hint, 25); c > 0 {
			p.m.BindPoses = slices.Grow(p.m.BindPoses, c)
		}
		for p.lx.kind == tLBrace {
			var m [12]float32
			p.value(m[:], "BindPose matrix")
			p.m.BindPoses = append(p.m.BindPoses, m)
		}
		p.close(open, "Matrices")
		return true
	})
}

// faceFX parses `FaceFX "target" { Path "…" }`.
func (p *parser) faceFX() {
	fx := wc3.FaceEffect{Target: p.str("FaceFX")}
	p.body("FaceFX", func(k kw, _ bool) bool {
		if k != kwPath {
			return false
		}
		fx.Path = p.str("Path")
		return true
	})
	p.m.FaceEffects = append(p.m.FaceEffects, fx)
}

// popcorn records a `ParticleEmitterPopcorn "name" { … }`: its name, object id and path; the
// rest of its fields (it is not drawn) are passed over without a warning.
func (p *parser) popcorn() {
	rec := wc3.PopcornRecord{Name: p.str("ParticleEmitterPopcorn"), ObjectID: -1}
	p.body("ParticleEmitterPopcorn", func(k kw, _ bool) bool {
		switch k {
		case kwObjectId:
			rec.ObjectID = p.i32("ObjectId")
		case kwPath:
			rec.Path = p.str("Path")
		default:
			p.skipRest()
		}
		return true
	})
	p.m.Popcorns = append(p.m.Popcorns, rec)
}

func (p *parser) textureAnim() wc3.TextureAnim {
	var ta wc3.TextureAnim
	p.body("TVertexAnim", func(k kw, _ bool) bool {
		switch k {
		case kwTranslation:
			ta.Translation = p.track(3, "Translation")
		case kwRotation:
			ta.Rotation = p.track(4, "Rotation")
		case kwScaling:
			ta.Scaling = p.track(3, "Scaling")
		default:
			return false
		}
		return true
	})
	return ta
}

// vecList parses `[count] { { x, y[, z] }, … }`: a list of 2- or 3-float vectors.
func vecList[V [2]float32 | [3]float32 | [4]float32](p *parser, what string) []V {
	hint := p.optCount(what)
	open := p.open(what)
	var out []V
	var v V
	if c := p.capHint(hint, 2*len(v)+1); c > 0 {
		out = make([]V, 0, c)
	}
	for p.lx.kind == tLBrace {
		p.next()
		for i := range len(v) {
			v[i] = p.float(what)
		}
		if p.lx.kind != tRBrace {
			p.failf("%s entry takes %d values, got %s after them", what, len(v), p.desc())
		}
		p.next()
		out = append(out, v)
	}
	p.close(open, what)
	p.checkCount(open, hint, len(out), what)
	if len(out) == 0 {
		return nil
	}
	return out
}

// intList appends `{ a, b, … }` (integers in [0, hi]) to dst, returning it and the count.
func (p *parser) intList(dst []uint32, hi int64, what string) ([]uint32, int) {
	open := p.open(what)
	n := 0
	for p.lx.kind == tNumber {
		v, ok := parseInt(p.lx.text())
		if !ok || v < 0 || v > hi {
			p.failf("malformed or out-of-range %s in %s", p.desc(), what)
		}
		dst = append(dst, uint32(v))
		n++
		p.next()
	}
	p.close(open, what)
	return dst, n
}

func (p *parser) geoset() wc3.Geoset {
	var g wc3.Geoset
	p.body("Geoset", func(k kw, _ bool) bool {
		switch k {
		case kwVertices:
			g.Vertices = vecList[[3]float32](p, "Vertices")
		case kwNormals:
			g.Normals = vecList[[3]float32](p, "Normals")
		case kwTVertices:
			g.UVSets = append(g.UVSets, vecList[[2]float32](p, "TVertices"))
		case kwVertexGroup:
			hint := p.optCount("VertexGroup")
			open := p.open("VertexGroup")
			if c := p.capHint(hint, 2); c > 0 {
				g.VertexGroups = make([]uint8, 0, c)
			}
			for p.lx.kind == tNumber {
				v, ok := parseInt(p.lx.text())
				if !ok || v < 0 || v > 255 {
					p.failf("malformed or out-of-range vertex group (%s) (0..255)", p.desc())
				}
				g.VertexGroups = append(g.VertexGroups, uint8(v))
				p.next()
			}
			p.close(open, "VertexGroup")
			p.checkCount(open, hint, len(g.VertexGroups), "VertexGroup")
			if len(g.VertexGroups) == 0 {
				g.VertexGroups = nil
			}
		case kwFaces:
			p.faces(&g)
		case kwGroups:
			p.groups(&g)
		case kwAnim:
			var e wc3.Extent
			p.body("Anim", func(k kw, _ bool) bool { return p.extentProp(&e, k) })
			g.SeqExtents = append(g.SeqExtents, e)
		case kwMaterialID:
			g.MaterialID = p.u32("MaterialID")
		case kwSelectionGroup:
			g.SelectionGroup = p.u32("SelectionGroup")
		case kwUnselectable:
			g.SelectionFlags |= 4
		case kwLevelOfDetail:
			g.LOD = p.i32("LevelOfDetail")
		case kwName:
			g.Name = p.str("Name")
		case kwTangents:
			g.Tangents = vecList[[4]float32](p, "Tangents")
		case kwSkinWeights:
			g.Skin = p.skinWeights()
		default:
			return p.extentProp(&g.Extent, k)
		}
		return true
	})
	return g
}

// faces parses `Faces [groups [indices]] { Triangles [n] { { i, … } … } … }`; each Triangles
// block is one face group of type 4.
func (p *parser) faces(g *wc3.Geoset) {
	line := p.lx.tokLine
	p.optCount("Faces")
	hint := p.optCount("Faces")
	if c := p.capHint(hint, 2); c > 0 && g.Faces == nil {
		g.Faces = make([]uint16, 0, c)
	}
	total := 0
	p.body("Faces", func(k kw, _ bool) bool {
		if k != kwTriangles {
			return false
		}
		tline := p.stmtLine
		p.optCount("Triangles")
		open := p.open("Triangles")
		start := len(g.Faces)
		for p.lx.kind == tLBrace {
			vopen := p.lx.tokLine
			p.next()
			for p.lx.kind == tNumber {
				v, ok := parseInt(p.lx.text())
				if !ok || v < 0 || v > math.MaxUint16 {
					p.failf("malformed or out-of-range vertex index (%s) in Triangles (0..65535)", p.desc())
				}
				g.Faces = append(g.Faces, uint16(v))
				p.next()
			}
			p.close(vopen, "Triangles index list")
		}
		p.close(open, "Triangles")
		n := len(g.Faces) - start
		if n%3 != 0 {
			p.lx.tokLine = tline
			p.failf("Triangles holds %d indices, not a multiple of 3", n)
		}
		g.FaceTypes = append(g.FaceTypes, 4)
		g.FaceCounts = append(g.FaceCounts, uint32(n))
		total += n
		return true
	})
	p.checkCount(line, hint, total, "Faces")
	if len(g.Faces) == 0 {
		g.Faces = nil
	}
}

// groups parses `Groups [n [m]] { Matrices { i, … } … }`.
func (p *parser) groups(g *wc3.Geoset) {
	line := p.lx.tokLine
	nHint := p.optCount("Groups")
	mHint := p.optCount("Groups")
	if c := p.capHint(mHint, 2); c > 0 && g.Matrices == nil {
		g.Matrices = make([]uint32, 0, c)
	}
	if c := p.capHint(nHint, 12); c > 0 && g.GroupSizes == nil {
		g.GroupSizes = make([]uint32, 0, c)
	}
	total, groups := 0, 0
	p.body("Groups", func(k kw, _ bool) bool {
		if k != kwMatrices {
			return false
		}
		p.optCount("Matrices")
		var n int
		g.Matrices, n = p.intList(g.Matrices, math.MaxUint32, "Matrices")
		g.GroupSizes = append(g.GroupSizes, uint32(n))
		total += n
		groups++
		return true
	})
	p.checkCount(line, nHint, groups, "Groups")
	p.checkCount(line, mHint, total, "Groups matrix indices")
	if len(g.Matrices) == 0 {
		g.Matrices = nil
	}
	if len(g.GroupSizes) == 0 {
		g.GroupSizes = nil
	}
}

func (p *parser) geosetAnim() wc3.GeosetAnim {
	ga := wc3.GeosetAnim{Alpha: 1, Color: [3]float32{1, 1, 1}, GeosetID: -1}
	p.body("GeosetAnim", func(k kw, static bool) bool {
		switch k {
		case kwDropShadow:
			ga.Flags |= 0x1
		case kwAlpha:
			p.animFloat(static, "Alpha", &ga.Alpha, &ga.AlphaTrack)
		case kwColor:
			ga.Flags |= 0x2
			p.animColor(static, "Color", &ga.Color, &ga.ColorTrack)
		case kwGeosetId:
			ga.GeosetID = p.i32("GeosetId")
		default:
			return false
		}
		return true
	})
	return ga
}

// nodeFlags maps the flag keywords every node accepts to their bits.
var nodeFlags = map[kw]uint32{
	kwBillboarded:      wc3.NodeBillboarded,
	kwBillboardedLockX: wc3.NodeBillboardedLockX,
	kwBillboardedLockY: wc3.NodeBillboardedLockY,
	kwBillboardedLockZ: wc3.NodeBillboardedLockZ,
	kwBillboardLockX:   wc3.NodeBillboardedLockX,
	kwBillboardLockY:   wc3.NodeBillboardedLockY,
	kwBillboardLockZ:   wc3.NodeBillboardedLockZ,
	kwCameraAnchored:   wc3.NodeCameraAnchored,
}

// node parses `["name"] { … }` for any object of the hierarchy; extra handles the keywords of
// the particular kind (it may be nil).
func (p *parser) node(n *wc3.Node, typ uint32, what string, extra func(k kw, static bool) bool) {
	n.Name = p.optName()
	n.ObjectID, n.ParentID, n.Flags = -1, -1, typ
	p.body(what, func(k kw, static bool) bool {
		switch k {
		case kwObjectId:
			n.ObjectID = p.i32("ObjectId")
		case kwParent:
			n.ParentID = p.i32("Parent")
		case kwDontInherit:
			p.body("DontInherit", func(k kw, _ bool) bool {
				switch k {
				case kwTranslation:
					n.Flags |= wc3.NodeDontInheritTranslation
				case kwRotation:
					n.Flags |= wc3.NodeDontInheritRotation
				case kwScaling:
					n.Flags |= wc3.NodeDontInheritScaling
				default:
					return false
				}
				return true
			})
		case kwTranslation:
			n.Translation = p.track(3, "Translation")
		case kwRotation:
			n.Rotation = p.track(4, "Rotation")
		case kwScaling:
			n.Scaling = p.track(3, "Scaling")
		default:
			if f, ok := nodeFlags[k]; ok {
				n.Flags |= f
				return true
			}
			return extra != nil && extra(k, static)
		}
		return true
	})
}

func (p *parser) bone() wc3.Bone {
	b := wc3.Bone{GeosetID: -1, GeosetAnimID: -1}
	p.node(&b.Node, wc3.TypeBone, "Bone", func(k kw, _ bool) bool {
		switch k {
		case kwGeosetId:
			if p.lx.kind == tIdent && keyword(p.lx.text()) == kwMultiple {
				p.next()
				b.GeosetID = -1
			} else {
				b.GeosetID = p.i32("GeosetId")
			}
		case kwGeosetAnimId:
			if p.lx.kind == tIdent && keyword(p.lx.text()) == kwNone {
				p.next()
				b.GeosetAnimID = -1
			} else {
				b.GeosetAnimID = p.i32("GeosetAnimId")
			}
		default:
			return false
		}
		return true
	})
	return b
}

func (p *parser) light() wc3.Light {
	var l wc3.Light
	p.node(&l.Node, wc3.TypeLight, "Light", func(k kw, static bool) bool {
		switch k {
		case kwOmnidirectional:
			l.Type = 0
		case kwDirectional:
			l.Type = 1
		case kwAmbient:
			l.Type = 2
		case kwAttenuationStart:
			p.animFloat(static, "AttenuationStart", &l.AttenuationStart, &l.AttenuationStartTrack)
		case kwAttenuationEnd:
			p.animFloat(static, "AttenuationEnd", &l.AttenuationEnd, &l.AttenuationEndTrack)
		case kwIntensity:
			p.animFloat(static, "Intensity", &l.Intensity, &l.IntensityTrack)
		case kwAmbIntensity:
			p.animFloat(static, "AmbIntensity", &l.AmbIntensity, &l.AmbIntensityTrack)
		case kwShadowIntensity: // version 1200
			si := p.float("ShadowIntensity")
			l.ShadowIntensity = &si
		case kwColor:
			p.animColor(static, "Color", &l.Color, &l.ColorTrack)
		case kwAmbColor:
			p.animColor(static, "AmbColor", &l.AmbColor, &l.AmbColorTrack)
		case kwVisibility:
			l.Visibility = p.track(1, "Visibility")
		default:
			return false
		}
		return true
	})
	return l
}

func (p *parser) attachment() wc3.Attachment {
	var a wc3.Attachment
	p.node(&a.Node, wc3.TypeAttachment, "Attachment", func(k kw, _ bool) bool {
		switch k {
		case kwPath:
			a.Path = p.str("Path")
		case kwAttachmentID:
			a.AttachmentID = p.i32("AttachmentID")
		case kwVisibility:
			a.Visibility = p.track(1, "Visibility")
		default:
			return false
		}
		return true
	})
	return a
}

// animFloat parses a float property that may be static or a track.
func (p *parser) animFloat(static bool, what string, dst *float32, trk **wc3.Track) {
	if !p.trackOr(static, 1, what, trk) {
		*dst = p.float(what)
	}
}

// animVec3 parses a vector property that may be static or a track.
func (p *parser) animVec3(static bool, what string, dst *[3]float32, trk **wc3.Track) {
	if !p.trackOr(static, 3, what, trk) {
		*dst = p.vec3(what)
	}
}

// animColor reads a colour that may be animated. A static colour is written {B, G, R} in MDL,
// the reverse of MDX's order, and is kept in MDX's; a track's keys are in the same order in
// both forms (as mdx-m3-viewer and the game's converters have it).
func (p *parser) animColor(static bool, what string, dst *[3]float32, trk **wc3.Track) {
	if !p.trackOr(static, 3, what, trk) {
		*dst = reverse3(p.vec3(what))
	}
}

func reverse3(v [3]float32) [3]float32 { return [3]float32{v[2], v[1], v[0]} }

func (p *parser) particleEmitter() wc3.ParticleEmitter {
	var e wc3.ParticleEmitter
	p.node(&e.Node, wc3.TypeParticleEmitter, "ParticleEmitter", func(k kw, static bool) bool {
		switch k {
		case kwEmitterUsesMDL:
			e.Flags |= 0x8000
		case kwEmitterUsesTGA:
			e.Flags |= 0x10000
		case kwEmissionRate:
			p.animFloat(static, "EmissionRate", &e.EmissionRate, &e.EmissionRateTrack)
		case kwGravity:
			p.animFloat(static, "Gravity", &e.Gravity, &e.GravityTrack)
		case kwLongitude:
			p.animFloat(static, "Longitude", &e.Longitude, &e.LongitudeTrack)
		case kwLatitude:
			p.animFloat(static, "Latitude", &e.Latitude, &e.LatitudeTrack)
		case kwVisibility:
			e.Visibility = p.track(1, "Visibility")
		case kwParticle:
			p.body("Particle", func(k kw, static bool) bool {
				switch k {
				case kwLifeSpan:
					p.animFloat(static, "LifeSpan", &e.LifeSpan, &e.LifeSpanTrack)
				case kwInitVelocity:
					p.animFloat(static, "InitVelocity", &e.InitVelocity, &e.InitVelocityTrack)
				case kwPath:
					e.Path = p.str("Path")
				default:
					return false
				}
				return true
			})
		default:
			return false
		}
		return true
	})
	return e
}

var pe2Flags = map[kw]uint32{
	kwUnshaded: 0x8000, kwSortPrimsFarZ: 0x10000, kwLineEmitter: 0x20000, kwUnfogged: 0x40000,
	kwModelSpace: 0x80000, kwXYQuad: 0x100000,
}

var pe2Filters = map[kw]uint32{kwBlend: 0, kwAdditive: 1, kwModulate: 2, kwModulate2x: 3, kwAlphaKey: 4}

func (p *parser) particleEmitter2() wc3.ParticleEmitter2 {
	var e wc3.ParticleEmitter2
	p.node(&e.Node, wc3.TypeParticleEmitter, "ParticleEmitter2", func(k kw, static bool) bool {
		if f, ok := pe2Flags[k]; ok {
			e.Flags |= f
			return true
		}
		if f, ok := pe2Filters[k]; ok {
			e.FilterMode = f
			return true
		}
		switch k {
		case kwSpeed:
			p.animFloat(static, "Speed", &e.Speed, &e.SpeedTrack)
		case kwVariation:
			p.animFloat(static, "Variation", &e.Variation, &e.VariationTrack)
		case kwLatitude:
			p.animFloat(static, "Latitude", &e.Latitude, &e.LatitudeTrack)
		case kwGravity:
			p.animFloat(static, "Gravity", &e.Gravity, &e.GravityTrack)
		case kwEmissionRate:
			p.animFloat(static, "EmissionRate", &e.EmissionRate, &e.EmissionRateTrack)
		case kwWidth:
			p.animFloat(static, "Width", &e.Width, &e.WidthTrack)
		case kwLength:
			p.animFloat(static, "Length", &e.Length, &e.LengthTrack)
		case kwVisibility:
			e.Visibility = p.track(1, "Visibility")
		case kwSquirt:
			e.Squirt = 1
		case kwLifeSpan:
			e.LifeSpan = p.float("LifeSpan")
		case kwTailLength:
			e.TailLength = p.float("TailLength")
		case kwTime:
			e.Time = p.float("Time")
		case kwRows:
			e.Rows = p.u32("Rows")
		case kwColumns:
			e.Columns = p.u32("Columns")
		case kwHead:
			e.HeadOrTail = 0
		case kwTail:
			e.HeadOrTail = 1
		case kwBoth:
			e.HeadOrTail = 2
		case kwSegmentColor:
			n := 0
			p.body("SegmentColor", func(k kw, _ bool) bool {
				if k != kwColor {
					return false
				}
				c := reverse3(p.vec3("SegmentColor Color"))
				if n < 3 {
					e.SegmentColor[n] = c
				} else {
					p.warnf(p.lx.tokLine, "SegmentColor has more than 3 colours; extra ignored")
				}
				n++
				return true
			})
		case kwAlpha:
			var a [3]uint32
			p.uints(a[:], 255, "Alpha")
			e.SegmentAlpha = [3]uint8{uint8(a[0]), uint8(a[1]), uint8(a[2])}
		case kwParticleScaling:
			e.SegmentScaling = p.vec3("ParticleScaling")
		case kwLifeSpanUVAnim:
			p.uints(e.HeadIntervals[0][:], math.MaxUint32, "LifeSpanUVAnim")
		case kwDecayUVAnim:
			p.uints(e.HeadIntervals[1][:], math.MaxUint32, "DecayUVAnim")
		case kwTailUVAnim:
			p.uints(e.TailIntervals[0][:], math.MaxUint32, "TailUVAnim")
		case kwTailDecayUVAnim:
			p.uints(e.TailIntervals[1][:], math.MaxUint32, "TailDecayUVAnim")
		case kwTextureID:
			e.TextureID = p.i32("TextureID")
		case kwReplaceableId:
			e.ReplaceableID = p.u32("ReplaceableId")
		case kwPriorityPlane:
			e.PriorityPlane = p.i32("PriorityPlane")
		default:
			return false
		}
		return true
	})
	return e
}

func (p *parser) ribbonEmitter() wc3.RibbonEmitter {
	var r wc3.RibbonEmitter
	p.node(&r.Node, wc3.TypeRibbonEmitter, "RibbonEmitter", func(k kw, static bool) bool {
		switch k {
		case kwHeightAbove:
			p.animFloat(static, "HeightAbove", &r.HeightAbove, &r.HeightAboveTrack)
		case kwHeightBelow:
			p.animFloat(static, "HeightBelow", &r.HeightBelow, &r.HeightBelowTrack)
		case kwAlpha:
			p.animFloat(static, "Alpha", &r.Alpha, &r.AlphaTrack)
		case kwColor:
			p.animColor(static, "Color", &r.Color, &r.ColorTrack)
		case kwTextureSlot:
			if !p.trackOr(static, 1, "TextureSlot", &r.TextureSlotTrack) {
				r.TextureSlot = p.u32("TextureSlot")
			}
		case kwVisibility:
			r.Visibility = p.track(1, "Visibility")
		case kwEmissionRate:
			r.EmissionRate = p.u32("EmissionRate")
		case kwLifeSpan:
			r.LifeSpan = p.float("LifeSpan")
		case kwGravity:
			r.Gravity = p.float("Gravity")
		case kwRows:
			r.Rows = p.u32("Rows")
		case kwColumns:
			r.Columns = p.u32("Columns")
		case kwMaterialID:
			r.MaterialID = p.i32("MaterialID")
		default:
			return false
		}
		return true
	})
	return r
}

func (p *parser) camera() wc3.Camera {
	var c wc3.Camera
	c.Name = p.optName()
	p.body("Camera", func(k kw, _ bool) bool {
		switch k {
		case kwPosition:
			c.Position = p.vec3("Position")
		case kwFieldOfView:
			c.FieldOfView = p.float("FieldOfView")
		case kwFarClip:
			c.FarClip = p.float("FarClip")
		case kwNearClip:
			c.NearClip = p.float("NearClip")
		case kwTranslation:
			c.Translation = p.track(3, "Translation")
		case kwRotation:
			c.Rotation = p.track(1, "Rotation")
		case kwTarget:
			p.body("Target", func(k kw, _ bool) bool {
				switch k {
				case kwPosition:
					c.TargetPosition = p.vec3("Target Position")
				case kwTranslation:
					c.TargetTranslation = p.track(3, "Target Translation")
				default:
					return false
				}
				return true
			})
		default:
			return false
		}
		return true
	})
	return c
}

func (p *parser) eventObject() wc3.EventObject {
	e := wc3.EventObject{GlobalSeq: -1}
	p.node(&e.Node, wc3.TypeEvent, "EventObject", func(k kw, _ bool) bool {
		switch k {
		case kwGlobalSeqId:
			e.GlobalSeq = p.i32("GlobalSeqId")
		case kwEventTrack:
			hint := p.optCount("EventTrack")
			open := p.open("EventTrack")
			if c := p.capHint(hint, 2); c > 0 {
				e.Frames = make([]uint32, 0, c)
			}
			for {
				if p.lx.kind == tNumber {
					e.Frames = append(e.Frames, p.u32("EventTrack frame"))
					continue
				}
				if p.lx.kind == tIdent && keyword(p.lx.text()) == kwGlobalSeqId {
					p.next()
					e.GlobalSeq = p.i32("GlobalSeqId")
					continue
				}
				break
			}
			p.close(open, "EventTrack")
			p.checkCount(open, hint, len(e.Frames), "EventTrack")
			if len(e.Frames) == 0 {
				e.Frames = nil
			}
		default:
			return false
		}
		return true
	})
	return e
}

func (p *parser) collisionShape() wc3.CollisionShape {
	var c wc3.CollisionShape
	p.node(&c.Node, wc3.TypeCollisionShape, "CollisionShape", func(k kw, _ bool) bool {
		switch k {
		case kwBox:
			c.Type = wc3.ShapeBox
		case kwPlane:
			c.Type = wc3.ShapePlane
		case kwSphere:
			c.Type = wc3.ShapeSphere
		case kwCylinder:
			c.Type = wc3.ShapeCylinder
		case kwVertices:
			c.Vertices = vecList[[3]float32](p, "Vertices")
			return true
		case kwBoundsRadius:
			c.BoundsRadius = p.float("BoundsRadius")
			return true
		default:
			return false
		}
		return true
	})
	return c
}

// skinWeights reads SkinWeights n { b0, b1, b2, b3, w0, w1, w2, w3, … }: per vertex four object
// ids and four weights (0–255), n the vertex count; each vertex's eight values may be braced.
func (p *parser) skinWeights() []uint8 {
	hint := p.optCount("SkinWeights")
	open := p.open("SkinWeights")
	var out []uint8
	if c := p.capHint(hint, 16); c > 0 {
		out = make([]uint8, 0, 8*c)
	}
	inner := false
	for {
		switch {
		case p.lx.kind == tLBrace && !inner:
			inner = true
		case p.lx.kind == tRBrace && inner:
			inner = false
		case p.lx.kind == tNumber:
			v, ok := parseInt(p.lx.text())
			if !ok || v < 0 || v > 255 {
				p.failf("malformed or out-of-range skin weight (%s) (0..255)", p.desc())
			}
			out = append(out, uint8(v))
		default:
			if inner {
				p.failf("SkinWeights: %s inside a vertex's values", p.desc())
			}
			p.close(open, "SkinWeights")
			if len(out)%8 != 0 {
				p.failf("SkinWeights: %d values, not 8 per vertex", len(out))
			}
			p.checkCount(open, hint, len(out)/8, "SkinWeights")
			if len(out) == 0 {
				return nil
			}
			return out
		}
		p.next()
	}
}
