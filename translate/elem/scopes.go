package elem

import (
	"bytes"
)

// file reads the header and the top-level scopes.
func (p *parser) file() {
	p.next()
	if p.kind == lEOF {
		p.failf("empty file: not an Elfreina model")
	}
	if p.kind != lData || string(p.val) != Header {
		p.failf("not an Elfreina model: first line is %s, want %q", clip(p.val), Header)
	}
	p.next()
	if p.kind == lData && bytes.HasPrefix(p.val, []byte("File Version")) {
		p.f.Version = string(trim(p.val[len("File Version"):]))
		if p.f.Version != "1.00" {
			p.warnf(p.line, "file version %q; read as 1.00", p.f.Version)
		}
		p.next()
	} else {
		p.warnf(p.line, "no File Version line after the header")
	}
	for p.kind != lEOF {
		switch p.kind {
		case lClose:
			p.failf("'}' closes no scope (unbalanced braces)")
		case lOpen:
			switch string(p.key) {
			case "Setting":
				p.setting()
			case "MeshDatas", "MeshDataList":
				p.meshDatas()
			case "MeshContainer": // tolerated outside MeshDatas
				p.container()
			case "HierarchyList":
				p.scope(func() { p.hierarchyItem(-1) })
			case "RenderingMeshList", "RenderMeshList":
				p.renderingList()
			case "AnimationList":
				p.animationList()
			default:
				p.unknown()
			}
		default:
			p.unknown()
		}
	}
}

func (p *parser) setting() {
	s := &p.f.Setting
	s.Present = true
	p.scope(func() {
		if p.kind != lKey {
			p.unknown()
			return
		}
		switch string(p.key) {
		case "ElfreinaSoftVersion", "SoftVersion":
			s.SoftVersion = p.str(p.val)
		case "LoadType":
			s.LoadType = p.str(p.val)
		case "IsRightHand":
			s.IsRightHand = p.boolean(p.val, "IsRightHand")
			s.HasIsRightHand = true
			s.IsRightHandLine = p.line
		default:
			if s.Other == nil {
				s.Other = map[string]string{}
			}
			if len(s.Other) < maxWarnings {
				s.Other[string(p.key)] = p.str(p.val)
			}
		}
		p.next()
	})
}

func (p *parser) meshDatas() {
	declared, line := -1, 0
	first := len(p.f.Containers)
	p.scope(func() {
		switch {
		case p.kind == lKey && string(p.key) == "MeshContainerCount":
			declared, line = p.count(p.val, "MeshContainerCount"), p.line
			p.next()
		case p.kind == lOpen && string(p.key) == "MeshContainer":
			p.container()
		default:
			p.unknown()
		}
	})
	if got := len(p.f.Containers) - first; declared >= 0 && declared != got {
		p.warnf(line, "MeshContainerCount=%d but %d MeshContainer scopes", declared, got)
	}
}

func (p *parser) container() {
	p.f.Containers = append(p.f.Containers, Container{Line: p.line, BoneCount: -1, MeshCount: -1, MaterialCount: -1})
	c := &p.f.Containers[len(p.f.Containers)-1]
	var m16 [16]float32
	p.scope(func() {
		switch p.kind {
		case lKey:
			switch string(p.key) {
			case "Name":
				c.Name = p.str(p.val)
			case "BoneCount":
				c.BoneCount = p.count(p.val, "BoneCount")
			case "MeshCount":
				c.MeshCount = p.count(p.val, "MeshCount")
			default:
				p.unknown()
				return
			}
			p.next()
		case lOpen:
			switch string(p.key) {
			case "VertexFormat":
				c.VertexFormat = p.strings(c.VertexFormat)
			case "BoneNames":
				c.BoneNames = p.strings(c.BoneNames)
			case "OffsetMatrices", "OffsetMatrix":
				var flat []float32
				open, off := p.line, p.start
				p.scope(func() {
					if p.kind != lData {
						p.unknown()
						return
					}
					flat = append(flat, p.list(p.val, "OffsetMatrices")...)
					p.next()
				})
				if len(flat)%16 != 0 {
					p.failAt(open, off, "OffsetMatrices: %d values is not a whole number of 16-value matrices", len(flat))
				}
				for i := 0; i < len(flat); i += 16 {
					copy(m16[:], flat[i:i+16])
					c.Offsets = append(c.Offsets, m16)
				}
			case "Materials":
				p.scope(func() {
					switch {
					case p.kind == lKey && string(p.key) == "MaterialCount":
						c.MaterialCount = p.count(p.val, "MaterialCount")
						p.next()
					case p.kind == lOpen && string(p.key) == "Material":
						c.Materials = append(c.Materials, p.material())
					default:
						p.unknown()
					}
				})
			case "Material": // tolerated without a Materials scope
				c.Materials = append(c.Materials, p.material())
			case "Mesh":
				c.Meshes = append(c.Meshes, p.mesh())
			default:
				p.unknown()
			}
		default:
			p.unknown()
		}
	})
	if c.MaterialCount >= 0 && c.MaterialCount != len(c.Materials) {
		p.warnf(c.Line, "MaterialCount=%d but %d Material scopes", c.MaterialCount, len(c.Materials))
	}
	if c.MeshCount >= 0 && c.MeshCount != len(c.Meshes) {
		p.warnf(c.Line, "MeshCount=%d but %d Mesh scopes", c.MeshCount, len(c.Meshes))
	}
}

// strings reads a scope of quoted (or bare) strings, one a line.
func (p *parser) strings(dst []string) []string {
	p.scope(func() {
		if p.kind != lData {
			p.unknown()
			return
		}
		dst = append(dst, p.str(p.val))
		p.next()
	})
	return dst
}

// argb reads A:R:G:B and returns RGBA.
func (p *parser) argb(b []byte, what string) [4]float32 {
	var v [4]float32
	p.floats(b, v[:], what)
	return [4]float32{v[1], v[2], v[3], v[0]}
}

func (p *parser) material() Material {
	m := Material{Line: p.line, Diffuse: [4]float32{1, 1, 1, 1}}
	p.scope(func() {
		if p.kind != lKey {
			p.unknown()
			return
		}
		switch string(p.key) {
		case "Name":
			m.Name = p.str(p.val)
		case "Diffuse":
			m.Diffuse, m.HasDiffuse = p.argb(p.val, "Diffuse"), true
		case "Ambient":
			m.Ambient = p.argb(p.val, "Ambient")
		case "Emissive":
			m.Emissive = p.argb(p.val, "Emissive")
		case "Specular":
			m.Specular = p.argb(p.val, "Specular")
		case "SpecularSharpness", "SpeclarSharpness":
			m.SpecularSharpness = float32(p.number(p.val, "SpecularSharpness"))
		case "TextureFilename", "TextureFileName":
			m.Texture = p.str(p.val)
		default:
			p.unknown()
			return
		}
		p.next()
	})
	return m
}

// uvSet returns the UV set a scope name stands for: TextureUV and Texture1UV are set 0,
// Texture2UV…Texture8UV sets 1…7.
func uvSet(tag []byte) (int, bool) {
	if string(tag) == "TextureUV" {
		return 0, true
	}
	if len(tag) == len("Texture1UV") && bytes.HasPrefix(tag, []byte("Texture")) && bytes.HasSuffix(tag, []byte("UV")) {
		if d := tag[7]; d >= '1' && d <= '8' {
			return int(d - '1'), true
		}
	}
	return 0, false
}

func (p *parser) mesh() Mesh {
	m := Mesh{Line: p.line, VertexCount: -1, FaceCount: -1, Lines: map[string]int{}}
	p.scope(func() {
		switch p.kind {
		case lKey:
			switch string(p.key) {
			case "Name":
				m.Name = p.str(p.val)
			case "VertexCount":
				m.VertexCount = p.count(p.val, "VertexCount")
			case "FaceCount":
				m.FaceCount = p.count(p.val, "FaceCount")
			default:
				p.unknown()
				return
			}
			p.next()
		case lOpen:
			tag := string(p.key)
			switch tag {
			case "Positions", "Position":
				m.Lines["Positions"] = p.line
				m.Positions = p.vec3s(m.Positions[:0], "Positions")
			case "Normals", "Normal":
				m.Lines["Normals"] = p.line
				m.Normals = p.vec3s(m.Normals[:0], "Normals")
			case "Diffuse":
				m.Lines["Diffuse"] = p.line
				m.Colors = m.Colors[:0]
				p.scope(func() {
					if p.kind != lData {
						p.unknown()
						return
					}
					m.Colors = append(m.Colors, p.argb(p.val, "Diffuse"))
					p.next()
				})
			case "BlendList":
				p.scope(func() {
					if p.kind == lOpen && string(p.key) == "BlendPart" {
						m.Blend = append(m.Blend, p.blendPart())
						return
					}
					p.unknown()
				})
			case "VertexIndices":
				m.FacesLine = p.line
				m.Faces = p.faces(m.Faces[:0])
			case "Attributes":
				m.AttrsLine, m.HasAttrs = p.line, true
				m.Attributes = m.Attributes[:0]
				p.scope(func() {
					if p.kind != lData {
						p.unknown()
						return
					}
					v := p.integer(p.val, "Attributes")
					if v < 0 {
						p.failf("Attributes: negative material index %d", v)
					}
					m.Attributes = append(m.Attributes, uint32(v))
					p.next()
				})
			default:
				set, ok := uvSet(p.key)
				if !ok {
					p.unknown()
					return
				}
				if m.HasUV[set] {
					p.warnf(p.line, "%s repeats UV set %d; the later one is kept", tag, set+1)
				}
				m.Lines["UV"+string(rune('1'+set))] = p.line
				m.HasUV[set] = true
				m.UVs[set] = p.vec2s(m.UVs[set][:0], tag)
			}
		default:
			p.unknown()
		}
	})
	return m
}

// rows reads a scope of data lines of len(v) numbers each into v, calling add after each.
func (p *parser) rows(what string, v []float32, add func()) {
	p.scope(func() {
		if p.kind != lData {
			p.unknown()
			return
		}
		p.floats(p.val, v, what)
		add()
		for p.fastFloats(v) {
			add()
		}
		p.next()
	})
}

func (p *parser) vec3s(dst [][3]float32, what string) [][3]float32 {
	var v [3]float32
	p.rows(what, v[:], func() { dst = append(dst, v) })
	return dst
}

func (p *parser) vec2s(dst [][2]float32, what string) [][2]float32 {
	var v [2]float32
	p.rows(what, v[:], func() { dst = append(dst, v) })
	return dst
}

// splitComma splits the current data line, unquoted, at its first comma; a line without one
// fails as not being of the form given.
func (p *parser) splitComma(what, form string) (head, rest []byte) {
	b := unquote(p.val)
	c := bytes.IndexByte(b, ',')
	if c < 0 {
		p.failf("%s: %s is not %s", what, clip(b), form)
	}
	return b[:c], b[c+1:]
}

// faces reads VertexIndices lines "3,i:j:k".
func (p *parser) faces(dst [][3]uint32) [][3]uint32 {
	p.scope(func() {
		if p.kind != lData {
			p.unknown()
			return
		}
		head, rest := p.splitComma("VertexIndices", "count,i:j:k")
		n := p.integer(trim(head), "VertexIndices count")
		if n != 3 {
			p.failf("VertexIndices: a face with %d vertices; only triangles (3) are allowed", n)
		}
		var f [3]uint32
		for k := 0; k < 3; k++ {
			part := rest
			if k < 2 {
				d := bytes.IndexByte(rest, ':')
				if d < 0 {
					p.failf("VertexIndices: want 3 ':'-separated indices, got %d", k+1)
				}
				part, rest = rest[:d], rest[d+1:]
			} else if bytes.IndexByte(rest, ':') >= 0 {
				p.failf("VertexIndices: the face says 3 vertices but lists more")
			}
			v, ok := parseInt(trim(part))
			if !ok || v < 0 {
				p.failf("VertexIndices: %s is not a vertex index", clip(part))
			}
			f[k] = uint32(v)
		}
		dst = append(dst, f)
		for p.fastFace(&f) {
			dst = append(dst, f)
		}
		p.next()
	})
	return dst
}

func (p *parser) blendPart() BlendPart {
	bp := BlendPart{Line: p.line, TransformIndex: -1}
	p.scope(func() {
		switch {
		case p.kind == lKey && string(p.key) == "BoneName":
			bp.BoneName = p.str(p.val)
			p.next()
		case p.kind == lKey && string(p.key) == "TransformIndex":
			bp.TransformIndex = p.count(p.val, "TransformIndex")
			p.next()
		case p.kind == lOpen && string(p.key) == "VertexBlend":
			p.scope(func() {
				if p.kind != lData {
					p.unknown()
					return
				}
				head, rest := p.splitComma("VertexBlend", "vertex,weight")
				v, ok := parseInt(trim(head))
				if !ok || v < 0 {
					p.failf("VertexBlend: %s is not a vertex index", clip(head))
				}
				w, ok := parseFloat32(trim(rest))
				if !ok {
					p.failf("VertexBlend: %s is not a weight", clip(rest))
				}
				bp.Vertices = append(bp.Vertices, uint32(v))
				bp.Weights = append(bp.Weights, w)
				for {
					v, w, ok := p.fastBlend()
					if !ok {
						break
					}
					bp.Vertices = append(bp.Vertices, v)
					bp.Weights = append(bp.Weights, w)
				}
				p.next()
			})
		default:
			p.unknown()
		}
	})
	return bp
}

// hierarchyItem reads one line of a HierarchyList or Node scope whose node is parent.
func (p *parser) hierarchyItem(parent int) {
	if p.kind != lOpen || string(p.key) != "Node" {
		p.unknown()
		return
	}
	idx := len(p.f.Nodes)
	p.f.Nodes = append(p.f.Nodes, Node{Parent: parent, Line: p.line})
	p.scope(func() {
		n := &p.f.Nodes[idx] // re-taken: children append to the list
		switch {
		case p.kind == lKey && string(p.key) == "NodeName":
			n.Name = p.str(p.val)
			p.next()
		case p.kind == lKey && string(p.key) == "InitPostureMatrix":
			p.floats(p.val, n.Init[:], "InitPostureMatrix")
			n.HasInit = true
			p.next()
		case p.kind == lOpen && string(p.key) == "Node":
			p.hierarchyItem(idx)
		default:
			p.unknown()
		}
	})
}

func (p *parser) renderingList() {
	p.scope(func() {
		switch {
		case p.kind == lKey && (string(p.key) == "RenderingMeshCount" || string(p.key) == "RenderMeshCount"):
			p.count(p.val, string(p.key))
			p.next()
		case p.kind == lOpen && (string(p.key) == "RenderingMesh" || string(p.key) == "RenderMesh"):
			rm := RenderingMesh{Line: p.line}
			p.scope(func() {
				switch {
				case p.kind == lKey && (string(p.key) == "RenderingMeshName" || string(p.key) == "RenderMeshName"):
					rm.Name = p.str(p.val)
					p.next()
				case p.kind == lKey && string(p.key) == "HierarchyNamesCount":
					p.count(p.val, "HierarchyNamesCount")
					p.next()
				case p.kind == lOpen && string(p.key) == "HierarchyNames":
					rm.HierarchyNames = p.strings(rm.HierarchyNames)
				default:
					p.unknown()
				}
			})
			p.f.Rendering = append(p.f.Rendering, rm)
		default:
			p.unknown()
		}
	})
}

func (p *parser) animationList() {
	p.scope(func() {
		switch {
		case p.kind == lKey && string(p.key) == "AnimationCount":
			p.count(p.val, "AnimationCount")
			p.next()
		case p.kind == lOpen && string(p.key) == "AnimationData":
			p.f.Animations = append(p.f.Animations, p.animation())
		default:
			p.unknown()
		}
	})
}

func (p *parser) animation() Animation {
	a := Animation{Line: p.line}
	p.scope(func() {
		switch p.kind {
		case lKey:
			switch string(p.key) {
			case "AnimationName":
				a.Name = p.str(p.val)
			case "AnimationTime":
				a.TimeMS = p.number(p.val, "AnimationTime")
			case "FrameParSecond", "FramePerSecond":
				a.FrameRate = p.number(p.val, string(p.key))
			case "TransitionTime":
				a.TransitionTime = p.number(p.val, "TransitionTime")
			case "Priority":
				a.Priority = p.number(p.val, "Priority")
			case "Loop":
				a.Loop = p.boolean(p.val, "Loop")
			default:
				p.unknown()
				return
			}
			p.next()
		case lOpen:
			switch string(p.key) {
			case "BoneAnimation":
				p.scope(func() {
					switch {
					case p.kind == lOpen && string(p.key) == "TimeKeys":
						a.TimeKeys = p.times(a.TimeKeys[:0])
					case p.kind == lOpen && string(p.key) == "AnimationPart":
						a.Parts = append(a.Parts, p.bonePart())
					default:
						p.unknown()
					}
				})
			case "UVAnimation":
				a.HasUV = true
				p.scope(func() {
					switch {
					case p.kind == lOpen && string(p.key) == "TimeKeys":
						a.UVTimeKeys = p.times(a.UVTimeKeys[:0])
					case p.kind == lOpen && string(p.key) == "AnimationPart":
						a.UVParts = append(a.UVParts, p.uvPart())
					default:
						p.unknown()
					}
				})
			default:
				p.unknown()
			}
		default:
			p.unknown()
		}
	})
	return a
}

// times reads a TimeKeys scope: numbers, one or more a line.
func (p *parser) times(dst []float32) []float32 {
	p.scope(func() {
		if p.kind != lData {
			p.unknown()
			return
		}
		dst = append(dst, p.list(p.val, "TimeKeys")...)
		var v [1]float32
		for p.fastFloats(v[:]) {
			dst = append(dst, v[0])
		}
		p.next()
	})
	return dst
}

func (p *parser) bonePart() AnimationPart {
	ap := AnimationPart{Line: p.line}
	p.scope(func() {
		switch p.kind {
		case lKey:
			if string(p.key) != "NodeName" {
				p.unknown()
				return
			}
			ap.NodeName = p.str(p.val)
			p.next()
		case lOpen:
			switch string(p.key) {
			case "TimeKeys":
				ap.Times = p.times(ap.Times[:0])
			case "TransKeys":
				ap.Trans = p.vec3s(ap.Trans[:0], "TransKeys")
			case "ScaleKeys":
				ap.Scale = p.vec3s(ap.Scale[:0], "ScaleKeys")
			case "RotateKeys":
				var v [4]float32
				ap.Rotate = ap.Rotate[:0]
				p.scope(func() {
					if p.kind != lData {
						p.unknown()
						return
					}
					p.floats(p.val, v[:], "RotateKeys")
					ap.Rotate = append(ap.Rotate, v)
					for p.fastFloats(v[:]) {
						ap.Rotate = append(ap.Rotate, v)
					}
					p.next()
				})
			default:
				p.unknown()
			}
		default:
			p.unknown()
		}
	})
	return ap
}

func (p *parser) uvPart() UVPart {
	up := UVPart{Line: p.line}
	p.scope(func() {
		switch p.kind {
		case lKey:
			switch string(p.key) {
			case "MeshContainerName":
				up.ContainerName = p.str(p.val)
			case "MaterialName":
				up.MaterialName = p.str(p.val)
			default:
				p.unknown()
				return
			}
			p.next()
		case lOpen:
			switch string(p.key) {
			case "TimeKeys":
				up.Times = p.times(up.Times[:0])
			case "TransKeys":
				up.Trans = p.vec2s(up.Trans[:0], "TransKeys")
			case "ScaleKeys":
				up.Scale = p.vec2s(up.Scale[:0], "ScaleKeys")
			case "RotateKeys":
				up.Rotate = up.Rotate[:0]
				p.scope(func() {
					if p.kind != lData {
						p.unknown()
						return
					}
					var v [1]float32
					p.floats(p.val, v[:], "RotateKeys")
					up.Rotate = append(up.Rotate, v[0])
					p.next()
				})
			default:
				p.unknown()
			}
		default:
			p.unknown()
		}
	})
	return up
}
