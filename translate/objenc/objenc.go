// Package objenc writes a scene's rest pose as Wavefront OBJ with an MTL material library.
//
// The OBJ holds one object ("o" and "g" with the same name) per mesh, in scene order, with its
// positions ("v"), the texture coordinates of the UV set its material samples ("vt", flipped to
// OBJ's bottom-left origin), its normals ("vn"), a "usemtl" line and its triangles ("f"). The
// scene's vertices are already in model space in the bind pose, so nodes and skins are not
// applied; the axes stay Y-up, as the scene is and as common importers expect. Names are made
// unique and safe (no whitespace, control characters or '#'); the same naming drives the OBJ and
// the MTL, and meshes without a material share an extra plain material.
//
// Numbers are written in the shortest form that reads back to the same float32, so the same
// scene always gives the same bytes.
package objenc

import (
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/modelfs/modelfs/translate/scene"
)

// EncodeOBJ writes the scene's meshes in their rest pose; mtlName, if not empty, is written as
// the mtllib the OBJ refers to.
func EncodeOBJ(s *scene.Scene, mtlName string) ([]byte, error) {
	if s == nil {
		return nil, errors.New("objenc: nil scene")
	}
	// Size the buffer once from the counts: up to about 36 bytes per position or normal, 24 per
	// UV, and per triangle three corners of one to three indices as wide as the largest.
	ds, left := draws(s)
	nverts, ntris := 0, 0
	for _, d := range ds {
		nverts += len(s.Meshes[d.mesh].Positions)
		ntris += len(s.Meshes[d.mesh].Indices) / 3
	}
	digits := len(strconv.Itoa(nverts)) + 1
	est := 512 + len(mtlName)
	for _, d := range ds {
		m := &s.Meshes[d.mesh]
		parts := 1
		est += 64 + 2*len(m.Name) + 36*len(m.Positions)
		if len(m.UVs) > 0 {
			est += 24 * len(m.Positions)
			parts++
		}
		if len(m.Normals) > 0 {
			est += 36 * len(m.Positions)
			parts++
		}
		est += (2 + 3*parts*digits) * (len(m.Indices) / 3)
	}
	b := make([]byte, 0, est)
	b = header(b, s, "OBJ")
	b = append(b, "# rest pose, Y-up; "...)
	b = strconv.AppendInt(b, int64(len(ds)), 10)
	b = append(b, " meshes, "...)
	b = strconv.AppendInt(b, int64(nverts), 10)
	b = append(b, " vertices, "...)
	b = strconv.AppendInt(b, int64(ntris), 10)
	b = append(b, " triangles\n"...)
	if left > 0 {
		b = append(b, "# OBJ has no instances: "...)
		b = strconv.AppendInt(b, int64(left), 10)
		b = append(b, " placed copies past "...)
		b = strconv.AppendInt(b, scene.MaxFlattenedVertices, 10)
		b = append(b, " vertices are left out (the .gltf and .glb draw every one)\n"...)
	}
	if mtlName != "" {
		b = append(b, "mtllib "...)
		b = append(b, fileText(mtlName)...)
		b = append(b, '\n')
	}

	objNames := drawNames(s, ds)
	matNames, defName := materialNames(s)
	// OBJ indices are 1-based and global across the file.
	var vBase, tBase, nBase uint64 = 1, 1, 1
	for di, d := range ds {
		i := d.mesh
		m := &s.Meshes[i]
		nv := len(m.Positions)
		uvs := meshUVs(s, m)
		if uvs != nil && len(uvs) != nv {
			return nil, fmt.Errorf("objenc: mesh %d: %d texture coordinates for %d vertices", i, len(uvs), nv)
		}
		normals := m.Normals
		if len(normals) != 0 && len(normals) != nv {
			return nil, fmt.Errorf("objenc: mesh %d: %d normals for %d vertices", i, len(normals), nv)
		}
		if len(m.Indices)%3 != 0 {
			return nil, fmt.Errorf("objenc: mesh %d: %d indices is not a multiple of 3", i, len(m.Indices))
		}

		b = append(b, "\no "...)
		b = append(b, objNames[di]...)
		b = append(b, "\ng "...)
		b = append(b, objNames[di]...)
		b = append(b, '\n')
		for _, p := range m.Positions {
			if d.world != nil {
				p = d.world.point(p)
			}
			b = appendLine(b, "v", p[:]...)
		}
		for _, uv := range uvs {
			b = appendLine(b, "vt", uv[0], 1-uv[1])
		}
		for _, n := range normals {
			if d.world != nil {
				n = d.world.normal(n)
			}
			b = appendLine(b, "vn", n[:]...)
		}
		b = append(b, "usemtl "...)
		if mi := m.Material; mi >= 0 && mi < len(matNames) {
			b = append(b, matNames[mi]...)
		} else {
			b = append(b, defName...)
		}
		b = append(b, '\n')

		// A transform that mirrors turns the triangles' winding.
		flip := d.world != nil && d.world.det() < 0
		hasUV, hasN := len(uvs) > 0, len(normals) > 0
		for k := 0; k+2 < len(m.Indices); k += 3 {
			b = append(b, 'f')
			tri := [3]uint32{m.Indices[k], m.Indices[k+1], m.Indices[k+2]}
			if flip {
				tri[1], tri[2] = tri[2], tri[1]
			}
			for _, ix := range tri {
				if int(ix) >= nv {
					return nil, fmt.Errorf("objenc: mesh %d: index %d out of range (%d vertices)", i, ix, nv)
				}
				b = append(b, ' ')
				b = strconv.AppendUint(b, vBase+uint64(ix), 10)
				switch {
				case hasUV && hasN:
					b = append(b, '/')
					b = strconv.AppendUint(b, tBase+uint64(ix), 10)
					b = append(b, '/')
					b = strconv.AppendUint(b, nBase+uint64(ix), 10)
				case hasUV:
					b = append(b, '/')
					b = strconv.AppendUint(b, tBase+uint64(ix), 10)
				case hasN:
					b = append(b, '/', '/')
					b = strconv.AppendUint(b, nBase+uint64(ix), 10)
				}
			}
			b = append(b, '\n')
		}
		vBase += uint64(nv)
		tBase += uint64(len(uvs))
		nBase += uint64(len(normals))
	}
	return b, nil
}

// meshUVs returns the UV set written for m: the one its material's texture samples, else the
// first, else nil.
func meshUVs(s *scene.Scene, m *scene.Mesh) [][2]float32 {
	if len(m.UVs) == 0 {
		return nil
	}
	set := 0
	if mi := m.Material; mi >= 0 && mi < len(s.Materials) {
		if mat := &s.Materials[mi]; mat.Texture >= 0 && mat.TexCoord > 0 && mat.TexCoord < len(m.UVs) {
			set = mat.TexCoord
		}
	}
	return m.UVs[set]
}

// EncodeMTL writes the scene's materials as an MTL library.
//
// Each material gets Kd (the linear base colour), d (its alpha; 1 when the alpha mode is
// OPAQUE) and illum (0 for unlit materials, else 1: diffuse without specular). A texture with a
// Resolved file becomes map_Kd, plus map_d when the alpha mode is MASK or BLEND, with the path
// made relative to the source model's directory, where the MTL is served; an unresolved texture
// is named in a comment instead.
func EncodeMTL(s *scene.Scene) ([]byte, error) {
	if s == nil {
		return nil, errors.New("objenc: nil scene")
	}
	b := make([]byte, 0, 256+160*len(s.Materials))
	b = header(b, s, "MTL")
	b = append(b, "# "...)
	b = strconv.AppendInt(b, int64(len(s.Materials)), 10)
	b = append(b, " material(s)\n"...)
	names, def := materialNames(s)
	dir := path.Dir(s.Source.Path)
	for i := range s.Materials {
		m := &s.Materials[i]
		b = append(b, "\nnewmtl "...)
		b = append(b, names[i]...)
		b = append(b, "\nKd "...)
		b = appendFloat(b, m.BaseColor[0])
		b = append(b, ' ')
		b = appendFloat(b, m.BaseColor[1])
		b = append(b, ' ')
		b = appendFloat(b, m.BaseColor[2])
		b = append(b, "\nd "...)
		if m.AlphaMode == scene.AlphaOpaque || m.AlphaMode == "" {
			b = append(b, '1')
		} else {
			b = appendFloat(b, m.BaseColor[3])
		}
		if m.Unlit {
			b = append(b, "\nillum 0\n"...)
		} else {
			b = append(b, "\nillum 1\n"...)
		}
		if m.Texture < 0 || m.Texture >= len(s.Textures) {
			continue
		}
		t := &s.Textures[m.Texture]
		if t.FileImage() == "" {
			b = append(b, "# texture "...)
			b = strconv.AppendInt(b, int64(m.Texture), 10)
			b = append(b, ": "...)
			switch {
			case t.Path != "" && t.Replaceable != 0:
				b = append(b, commentText(t.Path)...)
				b = append(b, " (replaceable "...)
				b = strconv.AppendInt(b, int64(t.Replaceable), 10)
				b = append(b, ')')
			case t.Path != "":
				b = append(b, commentText(t.Path)...)
			default:
				b = append(b, "replaceable "...)
				b = strconv.AppendInt(b, int64(t.Replaceable), 10)
			}
			if t.ImageError != "" {
				b = append(b, ", no image: "...)
				b = append(b, commentText(t.ImageError)...)
				b = append(b, '\n')
			} else {
				b = append(b, ", not resolved\n"...)
			}
			continue
		}
		p := fileText(relPath(dir, t.FileImage()))
		b = append(b, "map_Kd "...)
		b = append(b, p...)
		b = append(b, '\n')
		if m.AlphaMode == scene.AlphaMask || m.AlphaMode == scene.AlphaBlend {
			b = append(b, "map_d "...)
			b = append(b, p...)
			b = append(b, '\n')
		}
	}
	if def != "" {
		b = append(b, "\n# for meshes without a material\nnewmtl "...)
		b = append(b, def...)
		b = append(b, "\nKd 0.8 0.8 0.8\nd 1\nillum 1\n"...)
	}
	return b, nil
}

// header writes the comment lines that name the source.
func header(b []byte, s *scene.Scene, kind string) []byte {
	b = append(b, "# modelfs "...)
	b = append(b, kind...)
	b = append(b, " of "...)
	if s.Source.Path != "" {
		b = append(b, commentText(s.Source.Path)...)
	} else {
		b = append(b, "(unnamed source)"...)
	}
	b = append(b, '\n')
	if s.Source.Format != "" || s.Source.Name != "" {
		b = append(b, "# source:"...)
		if s.Source.Format != "" {
			b = append(b, ' ')
			b = append(b, commentText(s.Source.Format)...)
			if s.Source.Version != 0 {
				b = append(b, " version "...)
				b = strconv.AppendInt(b, int64(s.Source.Version), 10)
			}
		}
		if s.Source.Name != "" {
			b = append(b, " model "...)
			b = strconv.AppendQuote(b, strings.ToValidUTF8(s.Source.Name, "\uFFFD"))
		}
		b = append(b, '\n')
	}
	return b
}

// EncodeFailure is the OBJ (or, with mtl, the MTL) served in place of one that could not be
// made from the source at path: comment lines naming the source and why. Importers read it as
// an empty file.
func EncodeFailure(path, format, msg string, mtl bool) []byte {
	kind := "OBJ"
	if mtl {
		kind = "MTL"
	}
	b := header(nil, &scene.Scene{Source: scene.Source{Path: path, Format: format}}, kind)
	b = append(b, "# error: could not convert the source: "...)
	b = append(b, commentText(msg)...)
	return append(b, '\n')
}

// appendLine appends a line of the statement tag with the numbers v.
func appendLine(b []byte, tag string, v ...float32) []byte {
	b = append(b, tag...)
	for _, x := range v {
		b = append(b, ' ')
		b = appendFloat(b, x)
	}
	return append(b, '\n')
}

// appendFloat writes v in the shortest form that reads back as the same float32; negative
// zero is written as 0.
func appendFloat(b []byte, v float32) []byte {
	if v == 0 {
		return append(b, '0')
	}
	return strconv.AppendFloat(b, float64(v), 'g', -1, 32)
}

// relPath returns target (a slash-separated path relative to the root) relative to the
// directory dir (also relative to the root). When the two cannot be related (one absolute and
// the other not, or dir climbing above the root) target is returned cleaned but unchanged.
func relPath(dir, target string) string {
	dir, target = path.Clean(dir), path.Clean(target)
	if path.IsAbs(dir) != path.IsAbs(target) || dir == ".." || strings.HasPrefix(dir, "../") {
		return target
	}
	if dir == "." || dir == "/" {
		return strings.TrimPrefix(target, "/")
	}
	ds := strings.Split(strings.TrimPrefix(dir, "/"), "/")
	ts := strings.Split(strings.TrimPrefix(target, "/"), "/")
	n := 0
	for n < len(ds) && n < len(ts)-1 && ds[n] == ts[n] {
		n++
	}
	var sb strings.Builder
	for range ds[n:] {
		sb.WriteString("../")
	}
	sb.WriteString(strings.Join(ts[n:], "/"))
	return sb.String()
}
