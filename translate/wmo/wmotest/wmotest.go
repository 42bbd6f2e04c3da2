// Package wmotest writes World of Warcraft WMO files (version 17, a root and its groups) for
// tests and fixtures, from a description close to what the files hold.
package wmotest

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
)

// Root describes a root file.
type Root struct {
	Materials []Material
	Groups    []Group // each also written as a group file by Files
	Sets      []Set
	Doodads   []Doodad
	Lights    []Light
	Skybox    string
	Portals   int // portals of four vertices each, with one reference each
}

// Material is one MOMT entry; its textures are paths.
type Material struct {
	Flags, Shader, Blend uint32
	Texture, Texture2    string
	Emissive             [4]uint8 // BGRA
}

// Group is one group: its name, geometry and batches.
type Group struct {
	Name      string
	Vertices  [][3]float32 // WoW axes, Z up
	Normals   [][3]float32
	UVs       [][][2]float32 // one MOTV each
	Colors    [][4]uint8     // MOCV, BGRA; nil for none
	Triangles [][3]uint16
	// Materials gives each triangle's MOPY material; 0xFF makes it collision only.
	Materials []uint8
	Batches   []Batch
	Liquid    *Liquid
}

// Batch is one MOBA entry.
type Batch struct {
	Start    uint32 // first index
	Count    uint16 // indices
	Material uint8
}

// Liquid is a group's MLIQ: a grid of XTiles×YTiles tiles at Corner, every tile filled but
// those in Empty.
type Liquid struct {
	XTiles, YTiles int
	Corner         [3]float32
	Height         float32
	Empty          map[[2]int]bool
}

// Set is one MODS entry.
type Set struct {
	Name         string
	First, Count uint32
}

// Doodad is one MODD entry.
type Doodad struct {
	Model    string // written into MODN
	Position [3]float32
	Rotation [4]float32
	Scale    float32
	Color    [4]uint8
}

// Light is one MOLT entry.
type Light struct {
	Type      uint8
	Color     [4]uint8
	Position  [3]float32
	Intensity float32
}

// Files returns the root (named name, e.g. "World/Foo.wmo") and its group files by name.
func (r *Root) Files(name string) map[string][]byte {
	out := map[string][]byte{name: r.root()}
	stem := strings.TrimSuffix(name, ".wmo")
	for i := range r.Groups {
		out[fmt.Sprintf("%s_%03d.wmo", stem, i)] = r.group(i)
	}
	return out
}

type writer struct{ b []byte }

func (w *writer) u8(v uint8)   { w.b = append(w.b, v) }
func (w *writer) u16(v uint16) { w.b = binary.LittleEndian.AppendUint16(w.b, v) }
func (w *writer) u32(v uint32) { w.b = binary.LittleEndian.AppendUint32(w.b, v) }
func (w *writer) f32(v float32) {
	w.u32(math.Float32bits(v))
}
func (w *writer) vec(v ...float32) {
	for _, x := range v {
		w.f32(x)
	}
}

// chunk appends tag (written reversed, as the game does) with the bytes body makes.
func (w *writer) chunk(tag string, body func(w *writer)) {
	c := &writer{}
	body(c)
	w.b = append(w.b, tag[3], tag[2], tag[1], tag[0])
	w.u32(uint32(len(c.b)))
	w.b = append(w.b, c.b...)
}

// strings is a NUL-separated block of ss and the offset of each.
func stringBlock(ss []string) ([]byte, map[string]uint32) {
	var b []byte
	at := map[string]uint32{}
	for _, s := range ss {
		if _, ok := at[s]; ok || s == "" {
			continue
		}
		at[s] = uint32(len(b))
		b = append(b, s...)
		b = append(b, 0)
	}
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b, at
}

func (r *Root) root() []byte {
	w := &writer{}
	w.chunk("MVER", func(w *writer) { w.u32(17) })
	var texs, names, models []string
	for _, m := range r.Materials {
		texs = append(texs, m.Texture, m.Texture2)
	}
	for _, g := range r.Groups {
		names = append(names, g.Name)
	}
	for _, d := range r.Doodads {
		models = append(models, d.Model)
	}
	motx, texAt := stringBlock(texs)
	// The group names block starts with an empty name, as the game's do.
	mogn, nameAt := stringBlock(append([]string{"\x00"}, names...))
	modn, modelAt := stringBlock(models)
	w.chunk("MOHD", func(w *writer) {
		for _, n := range []int{len(r.Materials), len(r.Groups), r.Portals, len(r.Lights), len(modelAt), len(r.Doodads), len(r.Sets)} {
			w.u32(uint32(n))
		}
		w.b = append(w.b, 0x40, 0x40, 0x40, 0xFF)
		w.u32(1234)
		w.vec(-10, -10, -10, 10, 10, 10)
		w.u16(1)
		w.u16(0)
	})
	w.chunk("MOTX", func(w *writer) { w.b = append(w.b, motx...) })
	w.chunk("MOMT", func(w *writer) {
		for _, m := range r.Materials {
			t1, t2 := texAt[m.Texture], texAt[m.Texture2]
			if m.Texture == "" {
				t1 = uint32(len(motx)) + 100 // names nothing: past the block
			}
			if m.Texture2 == "" {
				t2 = 0
			}
			w.u32(m.Flags)
			w.u32(m.Shader)
			w.u32(m.Blend)
			w.u32(t1)
			w.b = append(w.b, m.Emissive[:]...)
			w.u32(0)
			w.u32(t2)
			w.b = append(w.b, 0x80, 0x80, 0x80, 0xFF)
			w.u32(0)
			w.u32(0)
			w.u32(0)
			w.u32(0)
			w.b = append(w.b, make([]byte, 16)...)
		}
	})
	w.chunk("MOGN", func(w *writer) { w.b = append(w.b, mogn...) })
	w.chunk("MOGI", func(w *writer) {
		for _, g := range r.Groups {
			w.u32(0x8)
			w.vec(-10, -10, -10, 10, 10, 10)
			w.u32(nameAt[g.Name])
		}
	})
	w.chunk("MOSB", func(w *writer) {
		w.b = append(w.b, r.Skybox...)
		w.b = append(w.b, 0, 0, 0, 0)
	})
	w.chunk("MOPV", func(w *writer) {
		for range r.Portals {
			w.vec(0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1)
		}
	})
	w.chunk("MOPT", func(w *writer) {
		for i := range r.Portals {
			w.u16(uint16(4 * i))
			w.u16(4)
			w.vec(0, 1, 0, 0)
		}
	})
	w.chunk("MOPR", func(w *writer) {
		for i := range r.Portals {
			w.u16(uint16(i))
			w.u16(0)
			w.u16(1)
			w.u16(0)
		}
	})
	w.chunk("MOVV", func(*writer) {})
	w.chunk("MOVB", func(*writer) {})
	w.chunk("MOLT", func(w *writer) {
		for _, l := range r.Lights {
			w.u8(l.Type)
			w.u8(1)
			w.u16(0)
			w.b = append(w.b, l.Color[:]...)
			w.vec(l.Position[:]...)
			w.f32(l.Intensity)
			w.vec(0, 0, 0, 0)
			w.vec(1, 5)
		}
	})
	w.chunk("MODS", func(w *writer) {
		for _, s := range r.Sets {
			var name [20]byte
			copy(name[:19], s.Name)
			w.b = append(w.b, name[:]...)
			w.u32(s.First)
			w.u32(s.Count)
			w.u32(0)
		}
	})
	w.chunk("MODN", func(w *writer) { w.b = append(w.b, modn...) })
	w.chunk("MODD", func(w *writer) {
		for _, d := range r.Doodads {
			w.u32(modelAt[d.Model])
			w.vec(d.Position[:]...)
			w.vec(d.Rotation[:]...)
			w.f32(d.Scale)
			w.b = append(w.b, d.Color[:]...)
		}
	})
	w.chunk("MFOG", func(w *writer) { w.b = append(w.b, make([]byte, 48)...) })
	return w.b
}

func (r *Root) group(i int) []byte {
	g := &r.Groups[i]
	w := &writer{}
	w.chunk("MVER", func(w *writer) { w.u32(17) })
	w.chunk("MOGP", func(w *writer) {
		w.u32(0) // the name offsets are the MOGI ones; the game reads those
		w.u32(0)
		flags := uint32(0x1)
		if g.Colors != nil {
			flags |= 0x4
		}
		if g.Liquid != nil {
			flags |= 0x1000
		}
		w.u32(flags)
		w.vec(-10, -10, -10, 10, 10, 10)
		w.u16(0)
		w.u16(0)
		w.u16(0)
		w.u16(0)
		w.u16(uint16(len(g.Batches)))
		w.u16(0)
		w.b = append(w.b, 0, 0, 0, 0)
		w.u32(0)
		w.u32(uint32(i))
		w.u32(0)
		w.u32(0)
		w.chunk("MOPY", func(w *writer) {
			for k := range g.Triangles {
				mat := uint8(0)
				if k < len(g.Materials) {
					mat = g.Materials[k]
				}
				w.u8(0x20)
				w.u8(mat)
			}
		})
		w.chunk("MOVI", func(w *writer) {
			for _, t := range g.Triangles {
				w.u16(t[0])
				w.u16(t[1])
				w.u16(t[2])
			}
		})
		w.chunk("MOVT", func(w *writer) {
			for _, v := range g.Vertices {
				w.vec(v[:]...)
			}
		})
		w.chunk("MONR", func(w *writer) {
			for _, v := range g.Normals {
				w.vec(v[:]...)
			}
		})
		for _, set := range g.UVs {
			w.chunk("MOTV", func(w *writer) {
				for _, uv := range set {
					w.vec(uv[:]...)
				}
			})
		}
		w.chunk("MOBA", func(w *writer) {
			for _, b := range g.Batches {
				for range 6 {
					w.u16(0)
				}
				w.u32(b.Start)
				w.u16(b.Count)
				w.u16(0)
				w.u16(uint16(max(len(g.Vertices)-1, 0)))
				w.u8(0)
				w.u8(b.Material)
			}
		})
		if g.Colors != nil {
			w.chunk("MOCV", func(w *writer) {
				for _, c := range g.Colors {
					w.b = append(w.b, c[:]...)
				}
			})
		}
		if l := g.Liquid; l != nil {
			w.chunk("MLIQ", func(w *writer) {
				w.u32(uint32(l.XTiles + 1))
				w.u32(uint32(l.YTiles + 1))
				w.u32(uint32(l.XTiles))
				w.u32(uint32(l.YTiles))
				w.vec(l.Corner[:]...)
				w.u16(0)
				for range (l.XTiles + 1) * (l.YTiles + 1) {
					w.u32(0)
					w.f32(l.Height)
				}
				for y := range l.YTiles {
					for x := range l.XTiles {
						if l.Empty[[2]int{x, y}] {
							w.u8(0x0F)
						} else {
							w.u8(0)
						}
					}
				}
			})
		}
	})
	return w.b
}
