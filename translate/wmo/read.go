package wmo

import (
	"encoding/binary"
	"fmt"
	"math"
	"path"
	"strings"

	"github.com/modelfs/modelfs/translate/codec"
)

// Model is a WMO as the files hold it: the root's tables and each group's geometry.
type Model struct {
	Version   uint32
	Header    Header
	Textures  []byte // MOTX: NUL-separated paths, named by offset
	Materials []Material
	Names     []byte // MOGN: NUL-separated group names, named by offset
	Infos     []GroupInfo
	Skybox    string
	// Portals: MOPV vertices, MOPT portals, MOPR references.
	PortalVerts [][3]float32
	Portals     []Portal
	PortalRefs  []PortalRef
	Lights      []Light
	Sets        []DoodadSet
	DoodadNames []byte // MODN: NUL-separated model paths, named by offset
	Doodads     []Doodad
	Fogs        int
	// Groups holds one entry per MOGI entry; nil where the group file is missing or broken
	// (a warning says why).
	Groups   []*Group
	Warnings []string
}

// Header is MOHD.
type Header struct {
	Materials, Groups, Portals, Lights, DoodadNames, Doodads, Sets uint32
	Ambient                                                        [4]uint8 // BGRA
	ID                                                             uint32
	Min, Max                                                       [3]float32
	Flags                                                          uint16
}

// Material is one MOMT entry (64 bytes).
type Material struct {
	Flags, Shader, Blend    uint32
	Texture1                uint32 // offset into MOTX
	Emissive, FrameEmissive [4]uint8
	Texture2                uint32
	Diffuse                 [4]uint8
	GroundType              uint32
	Texture3                uint32
	Color2                  [4]uint8
	Flags2                  uint32
}

// GroupInfo is one MOGI entry.
type GroupInfo struct {
	Flags      uint32
	Min, Max   [3]float32
	NameOffset int32 // into MOGN, -1 for none
}

// Portal is one MOPT entry: its vertices in MOPV and its plane.
type Portal struct {
	Start, Count uint16
	Plane        [4]float32
}

// PortalRef is one MOPR entry.
type PortalRef struct {
	Portal, Group uint16
	Side          int16
}

// Light is one MOLT entry.
type Light struct {
	Type                 uint8
	Attenuate            bool
	Color                [4]uint8 // BGRA
	Position             [3]float32
	Intensity            float32
	AttenStart, AttenEnd float32
}

// DoodadSet is one MODS entry: the doodads First to First+Count of MODD.
type DoodadSet struct {
	Name         string
	First, Count uint32
}

// Doodad is one MODD entry: a model placed in the WMO.
type Doodad struct {
	NameOffset uint32 // into MODN (24 bits)
	Flags      uint8
	Position   [3]float32
	Rotation   [4]float32 // quaternion x, y, z, w
	Scale      float32
	Color      [4]uint8 // BGRA
}

// Group is one group file: its header and geometry.
type Group struct {
	File                     string
	NameOffset, DescOffset   uint32
	Flags                    uint32
	Min, Max                 [3]float32
	LiquidType, ID           uint32
	PolyFlags, PolyMaterials []uint8 // MOPY, per triangle
	Indices                  []uint16
	Vertices, Normals        [][3]float32
	UVs                      [][][2]float32 // one per MOTV
	Colors                   [][][4]uint8   // one per MOCV, BGRA
	Batches                  []Batch
	DoodadRefs               []uint16 // MODR
	Liquid                   *Liquid
	BSPNodes, BSPFaces       int
}

// Batch is one MOBA entry: a run of MOVI drawn with one material.
type Batch struct {
	Start    uint32
	Count    uint16
	MinVert  uint16
	MaxVert  uint16
	Flags    uint8
	Material uint8
}

// Liquid is MLIQ: a grid of heights over tiles.
type Liquid struct {
	XVerts, YVerts, XTiles, YTiles uint32
	Corner                         [3]float32
	Material                       uint16
	Heights                        []float32 // XVerts × YVerts
	Tiles                          []uint8   // XTiles × YTiles
}

// Limits on what a file may declare.
const (
	maxGroups   = 512  // a client's own limit
	maxGroupDim = 4096 // liquid grid side
	maxWarnings = 100
)

// CompanionFunc reads a companion named relative to the root, ignoring case as the game does;
// it returns the name that matched.
type CompanionFunc func(name string) (string, []byte, error)

// GroupName is the name of group i of the root named root: "Name_NNN.wmo" beside it.
func GroupName(root string, i int) string {
	stem := strings.TrimSuffix(root, path.Ext(root))
	return fmt.Sprintf("%s_%03d%s", stem, i, path.Ext(root))
}

// IsGroupName reports whether name is that of a group file: its stem ends in an underscore and
// three digits. Roots are never named so by the game.
func IsGroupName(name string) bool {
	stem := strings.TrimSuffix(path.Base(name), path.Ext(name))
	n := len(stem)
	if n < 5 || stem[n-4] != '_' {
		return false
	}
	for _, c := range stem[n-3:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// reader reads one file's chunks, every offset checked.
type reader struct {
	file string
	d    []byte
	m    *Model
}

func (r *reader) fail(off int, format string, args ...any) error {
	return &codec.FormatError{Format: Format, File: r.file, Offset: int64(off), Msg: fmt.Sprintf(format, args...)}
}

func (r *reader) warn(format string, args ...any) {
	if len(r.m.Warnings) < maxWarnings {
		r.m.Warnings = append(r.m.Warnings, r.file+": "+fmt.Sprintf(format, args...))
	}
}

func (r *reader) u16(p int) uint16  { return binary.LittleEndian.Uint16(r.d[p:]) }
func (r *reader) u32(p int) uint32  { return binary.LittleEndian.Uint32(r.d[p:]) }
func (r *reader) f32(p int) float32 { return math.Float32frombits(r.u32(p)) }
func (r *reader) vec3(p int) [3]float32 {
	return [3]float32{r.f32(p), r.f32(p + 4), r.f32(p + 8)}
}
func (r *reader) color(p int) [4]uint8 { return [4]uint8(r.d[p : p+4]) }

// chunk is one chunk: its tag as read (reversed on disk) and its data's bounds.
type chunk struct {
	tag        string
	start, end int
}

// chunks splits d[from:to] into chunks; a chunk running past the end is cut there with a warning.
func (r *reader) chunks(from, to int) []chunk {
	var out []chunk
	for p := from; p < to; {
		if to-p < 8 {
			r.warn("offset %d: %d stray bytes after the last chunk", p, to-p)
			break
		}
		tag := string([]byte{r.d[p+3], r.d[p+2], r.d[p+1], r.d[p]})
		size := int(r.u32(p + 4))
		end := p + 8 + size
		if size < 0 || end > to || end < p {
			r.warn("offset %d: chunk %s of %d bytes runs past the end (%d left); cut", p, tag, size, to-p-8)
			end = to
		}
		out = append(out, chunk{tag, p + 8, end})
		p = end
	}
	return out
}

// records returns how many size-byte records c holds, warning about a remainder.
func (r *reader) records(c chunk, size int) int {
	n := (c.end - c.start) / size
	if (c.end-c.start)%size != 0 {
		r.warn("offset %d: %s holds %d bytes, not a multiple of %d; the rest is left out", c.start, c.tag, c.end-c.start, size)
	}
	return n
}

// version checks the MVER chunk that starts every file.
func (r *reader) version(cs []chunk) (uint32, error) {
	if len(cs) == 0 || cs[0].tag != "MVER" || cs[0].end-cs[0].start < 4 {
		return 0, r.fail(0, "not a WMO: no MVER chunk first")
	}
	v := r.u32(cs[0].start)
	if v != 17 {
		return v, r.fail(cs[0].start, "WMO version %d; modelfs reads version 17 (World of Warcraft 0.6 to 3.x)", v)
	}
	return v, nil
}

// Read reads the root named name (its bytes data) and, through open, its group files. A
// group file that is missing or broken costs that group, with a warning.
func Read(name string, data []byte, open CompanionFunc) (*Model, error) {
	m := &Model{}
	r := &reader{file: name, d: data, m: m}
	cs := r.chunks(0, len(data))
	v, err := r.version(cs)
	if err != nil {
		return nil, err
	}
	m.Version = v
	if err := r.root(cs[1:]); err != nil {
		return nil, err
	}
	n := len(m.Infos)
	if n == 0 && m.Header.Groups > 0 {
		n = int(min(m.Header.Groups, maxGroups))
	}
	m.Groups = make([]*Group, n)
	for i := range m.Groups {
		gname := GroupName(name, i)
		if open == nil {
			r.warn("group %d: %s not read (no tree to read it from)", i, path.Base(gname))
			continue
		}
		found, gdata, err := open(gname)
		if err != nil {
			r.warn("group %d: %s: %v; the group is left out", i, path.Base(gname), err)
			continue
		}
		g, err := readGroup(found, gdata, m)
		if err != nil {
			r.warn("group %d: %v; the group is left out", i, err)
			continue
		}
		m.Groups[i] = g
	}
	return m, nil
}

// root reads the root's chunks after MVER.
func (r *reader) root(cs []chunk) error {
	m := r.m
	sawHeader := false
	for _, c := range cs {
		p, size := c.start, c.end-c.start
		switch c.tag {
		case "MOHD":
			if size < 64 {
				return r.fail(p, "MOHD of %d bytes; 64 expected", size)
			}
			h := &m.Header
			h.Materials, h.Groups, h.Portals, h.Lights = r.u32(p), r.u32(p+4), r.u32(p+8), r.u32(p+12)
			h.DoodadNames, h.Doodads, h.Sets = r.u32(p+16), r.u32(p+20), r.u32(p+24)
			h.Ambient, h.ID = r.color(p+28), r.u32(p+32)
			h.Min, h.Max, h.Flags = r.vec3(p+36), r.vec3(p+48), r.u16(p+60)
			if h.Groups > maxGroups {
				return r.fail(p+4, "%d groups; at most %d are read", h.Groups, maxGroups)
			}
			sawHeader = true
		case "MOTX":
			m.Textures = r.d[p:c.end]
		case "MOMT":
			n := r.records(c, 64)
			m.Materials = make([]Material, n)
			for i := range m.Materials {
				q := p + 64*i
				m.Materials[i] = Material{Flags: r.u32(q), Shader: r.u32(q + 4), Blend: r.u32(q + 8), Texture1: r.u32(q + 12),
					Emissive: r.color(q + 16), FrameEmissive: r.color(q + 20), Texture2: r.u32(q + 24), Diffuse: r.color(q + 28),
					GroundType: r.u32(q + 32), Texture3: r.u32(q + 36), Color2: r.color(q + 40), Flags2: r.u32(q + 44)}
			}
		case "MOGN":
			m.Names = r.d[p:c.end]
		case "MOGI":
			n := r.records(c, 32)
			if n > maxGroups {
				return r.fail(p, "%d groups; at most %d are read", n, maxGroups)
			}
			m.Infos = make([]GroupInfo, n)
			for i := range m.Infos {
				q := p + 32*i
				m.Infos[i] = GroupInfo{Flags: r.u32(q), Min: r.vec3(q + 4), Max: r.vec3(q + 16), NameOffset: int32(r.u32(q + 28))}
			}
		case "MOSB":
			m.Skybox = cString(r.d[p:c.end], 0)
		case "MOPV":
			m.PortalVerts = make([][3]float32, r.records(c, 12))
			for i := range m.PortalVerts {
				m.PortalVerts[i] = r.vec3(p + 12*i)
			}
		case "MOPT":
			m.Portals = make([]Portal, r.records(c, 20))
			for i := range m.Portals {
				q := p + 20*i
				m.Portals[i] = Portal{Start: r.u16(q), Count: r.u16(q + 2), Plane: [4]float32{r.f32(q + 4), r.f32(q + 8), r.f32(q + 12), r.f32(q + 16)}}
			}
		case "MOPR":
			m.PortalRefs = make([]PortalRef, r.records(c, 8))
			for i := range m.PortalRefs {
				q := p + 8*i
				m.PortalRefs[i] = PortalRef{Portal: r.u16(q), Group: r.u16(q + 2), Side: int16(r.u16(q + 4))}
			}
		case "MOLT":
			m.Lights = make([]Light, r.records(c, 48))
			for i := range m.Lights {
				q := p + 48*i
				m.Lights[i] = Light{Type: r.d[q], Attenuate: r.d[q+1] != 0, Color: r.color(q + 4), Position: r.vec3(q + 8),
					Intensity: r.f32(q + 20), AttenStart: r.f32(q + 40), AttenEnd: r.f32(q + 44)}
			}
		case "MODS":
			m.Sets = make([]DoodadSet, r.records(c, 32))
			for i := range m.Sets {
				q := p + 32*i
				m.Sets[i] = DoodadSet{Name: cString(r.d[q:q+20], 0), First: r.u32(q + 20), Count: r.u32(q + 24)}
			}
		case "MODN":
			m.DoodadNames = r.d[p:c.end]
		case "MODD":
			m.Doodads = make([]Doodad, r.records(c, 40))
			for i := range m.Doodads {
				q := p + 40*i
				w := r.u32(q)
				m.Doodads[i] = Doodad{NameOffset: w & 0xFFFFFF, Flags: uint8(w >> 24), Position: r.vec3(q + 4),
					Rotation: [4]float32{r.f32(q + 16), r.f32(q + 20), r.f32(q + 24), r.f32(q + 28)},
					Scale:    r.f32(q + 32), Color: r.color(q + 36)}
			}
		case "MFOG":
			m.Fogs = r.records(c, 48)
		case "MOVV", "MOVB", "MCVP":
		case "MOGP":
			return r.fail(p-8, "a WMO group file, not a root: open its root (the name without _NNN)")
		default:
			r.warn("offset %d: unknown chunk %q skipped", p-8, c.tag)
		}
	}
	if !sawHeader {
		return r.fail(0, "no MOHD header")
	}
	if int(m.Header.Groups) != len(m.Infos) && len(m.Infos) > 0 {
		r.warn("MOHD counts %d groups, MOGI lists %d; the list is used", m.Header.Groups, len(m.Infos))
	}
	return nil
}

// readGroup reads one group file.
func readGroup(name string, data []byte, m *Model) (*Group, error) {
	r := &reader{file: name, d: data, m: m}
	cs := r.chunks(0, len(data))
	if _, err := r.version(cs); err != nil {
		return nil, err
	}
	var gp *chunk
	for i := range cs[1:] {
		if cs[1+i].tag == "MOGP" {
			gp = &cs[1+i]
			break
		}
	}
	if gp == nil {
		return nil, r.fail(0, "no MOGP chunk")
	}
	p := gp.start
	if gp.end-p < 68 {
		return nil, r.fail(p, "MOGP header of %d bytes; 68 expected", gp.end-p)
	}
	g := &Group{File: name, NameOffset: r.u32(p), DescOffset: r.u32(p + 4), Flags: r.u32(p + 8),
		Min: r.vec3(p + 12), Max: r.vec3(p + 24), LiquidType: r.u32(p + 52), ID: r.u32(p + 56)}
	for _, c := range r.chunks(p+68, gp.end) {
		q := c.start
		switch c.tag {
		case "MOPY":
			n := r.records(c, 2)
			g.PolyFlags, g.PolyMaterials = make([]uint8, n), make([]uint8, n)
			for i := range n {
				g.PolyFlags[i], g.PolyMaterials[i] = r.d[q+2*i], r.d[q+2*i+1]
			}
		case "MOVI":
			g.Indices = make([]uint16, r.records(c, 2))
			for i := range g.Indices {
				g.Indices[i] = r.u16(q + 2*i)
			}
		case "MOVT":
			g.Vertices = r.vec3s(c)
		case "MONR":
			g.Normals = r.vec3s(c)
		case "MOTV":
			uv := make([][2]float32, r.records(c, 8))
			for i := range uv {
				uv[i] = [2]float32{r.f32(q + 8*i), r.f32(q + 8*i + 4)}
			}
			g.UVs = append(g.UVs, uv)
		case "MOCV":
			cv := make([][4]uint8, r.records(c, 4))
			for i := range cv {
				cv[i] = r.color(q + 4*i)
			}
			g.Colors = append(g.Colors, cv)
		case "MOBA":
			g.Batches = make([]Batch, r.records(c, 24))
			for i := range g.Batches {
				b := q + 24*i
				g.Batches[i] = Batch{Start: r.u32(b + 12), Count: r.u16(b + 16), MinVert: r.u16(b + 18), MaxVert: r.u16(b + 20),
					Flags: r.d[b+22], Material: r.d[b+23]}
			}
		case "MODR":
			g.DoodadRefs = make([]uint16, r.records(c, 2))
			for i := range g.DoodadRefs {
				g.DoodadRefs[i] = r.u16(q + 2*i)
			}
		case "MLIQ":
			g.Liquid = r.liquid(c)
		case "MOBN":
			g.BSPNodes = r.records(c, 16)
		case "MOBR":
			g.BSPFaces = r.records(c, 2)
		case "MOLR", "MPBV", "MPBP", "MPBI", "MPBG", "MORI", "MORB", "MOTA", "MOBS":
		default:
			r.warn("offset %d: unknown chunk %q in the group skipped", q-8, c.tag)
		}
	}
	return g, nil
}

func (r *reader) vec3s(c chunk) [][3]float32 {
	v := make([][3]float32, r.records(c, 12))
	for i := range v {
		v[i] = r.vec3(c.start + 12*i)
	}
	return v
}

// liquid reads MLIQ: a 30-byte header, 8 bytes per vertex (a height in the last four), one
// byte per tile. A grid that does not fit the chunk is left out with a warning.
func (r *reader) liquid(c chunk) *Liquid {
	p, size := c.start, c.end-c.start
	if size < 30 {
		r.warn("offset %d: MLIQ of %d bytes; the liquid is left out", p, size)
		return nil
	}
	l := &Liquid{XVerts: r.u32(p), YVerts: r.u32(p + 4), XTiles: r.u32(p + 8), YTiles: r.u32(p + 12),
		Corner: r.vec3(p + 16), Material: r.u16(p + 28)}
	if l.XVerts > maxGroupDim || l.YVerts > maxGroupDim || l.XTiles > maxGroupDim || l.YTiles > maxGroupDim {
		r.warn("offset %d: a liquid grid of %d×%d vertices; the liquid is left out", p, l.XVerts, l.YVerts)
		return nil
	}
	nv, nt := int(l.XVerts)*int(l.YVerts), int(l.XTiles)*int(l.YTiles)
	if 30+8*nv+nt > size {
		r.warn("offset %d: a liquid grid of %d vertices and %d tiles needs %d bytes, MLIQ holds %d; the liquid is left out", p, nv, nt, 30+8*nv+nt, size)
		return nil
	}
	l.Heights = make([]float32, nv)
	for i := range l.Heights {
		l.Heights[i] = r.f32(p + 30 + 8*i + 4)
	}
	l.Tiles = r.d[p+30+8*nv : p+30+8*nv+nt]
	return l
}

// cString returns the NUL-terminated string at off in b, "" when off is outside b.
func cString(b []byte, off int) string {
	if off < 0 || off >= len(b) {
		return ""
	}
	s := b[off:]
	if i := strings.IndexByte(string(s), 0); i >= 0 {
		s = s[:i]
	}
	return string(s)
}
