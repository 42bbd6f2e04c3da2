// Package mdxfmt holds what the MDX reader and the test writer share about the binary
// format: chunk tags, the track kinds of each object and the fixed record sizes.
package mdxfmt

import (
	"encoding/binary"

	"github.com/modelfs/modelfs/translate/wc3"
)

// Version is the MDX version of classic Warcraft III (Reign of Chaos, The Frozen Throne).
const Version = 800

// Reforged versions: 900 adds geoset LOD and names, TANG and SKIN, material shader names and
// layer emissive gain and fresnel fields; 1000 is read like 900; 1100 drops the shader name and
// gives each layer a list of textures by slot; 1200 adds a light field.
const (
	V900   = 900
	V1000  = 1000
	V1100  = 1100
	V1200  = 1200
	Newest = V1200
)

// KnownVersion reports whether v is a version the reader reads as its own layout.
func KnownVersion(v uint32) bool {
	switch v {
	case Version, V900, V1000, V1100, V1200:
		return true
	}
	return false
}

// Fixed sizes of records, in bytes.
const (
	SizeMODL     = 372
	SizeSequence = 132
	SizeTexture  = 268
	SizeExtent   = 28
	SizeNode     = 96 // size, name[80], objectId, parentId, flags
	SizeTrackHdr = 16 // tag, nKeys, interpolation, globalSeq
	// MinGeoset is the smallest possible geoset: size, eight empty arrays, material,
	// selection group and flags, extent, extent count, empty UVAS.
	MinGeoset = 4 + 8*8 + 12 + SizeExtent + 4 + 8
)

// Tag4 packs a four-character tag the way it sits in the file (little-endian uint32).
func Tag4(s string) uint32 { return binary.LittleEndian.Uint32([]byte(s)) }

// Top-level chunk tags.
var (
	TagMDLX = Tag4("MDLX")
	TagVERS = Tag4("VERS")
	TagMODL = Tag4("MODL")
	TagSEQS = Tag4("SEQS")
	TagGLBS = Tag4("GLBS")
	TagMTLS = Tag4("MTLS")
	TagTEXS = Tag4("TEXS")
	TagTXAN = Tag4("TXAN")
	TagGEOS = Tag4("GEOS")
	TagGEOA = Tag4("GEOA")
	TagBONE = Tag4("BONE")
	TagLITE = Tag4("LITE")
	TagHELP = Tag4("HELP")
	TagATCH = Tag4("ATCH")
	TagPIVT = Tag4("PIVT")
	TagPREM = Tag4("PREM")
	TagPRE2 = Tag4("PRE2")
	TagRIBB = Tag4("RIBB")
	TagCAMS = Tag4("CAMS")
	TagEVTS = Tag4("EVTS")
	TagCLID = Tag4("CLID")
	TagBPOS = Tag4("BPOS")
	TagFAFX = Tag4("FAFX")
	TagCORN = Tag4("CORN")
)

// KnownTag reports whether tag is a top-level chunk of a version the reader knows.
func KnownTag(tag uint32) bool {
	switch tag {
	case TagVERS, TagMODL, TagSEQS, TagGLBS, TagMTLS, TagTEXS, TagTXAN, TagGEOS, TagGEOA, TagBONE, TagLITE,
		TagHELP, TagATCH, TagPIVT, TagPREM, TagPRE2, TagRIBB, TagCAMS, TagEVTS, TagCLID, TagBPOS, TagFAFX, TagCORN:
		return true
	}
	return false
}

// Tags inside objects.
var (
	TagLAYS = Tag4("LAYS")
	TagVRTX = Tag4("VRTX")
	TagNRMS = Tag4("NRMS")
	TagPTYP = Tag4("PTYP")
	TagPCNT = Tag4("PCNT")
	TagPVTX = Tag4("PVTX")
	TagGNDX = Tag4("GNDX")
	TagMTGC = Tag4("MTGC")
	TagMATS = Tag4("MATS")
	TagUVAS = Tag4("UVAS")
	TagUVBS = Tag4("UVBS")
	TagKEVT = Tag4("KEVT")
	TagTANG = Tag4("TANG")
	TagSKIN = Tag4("SKIN")
)

// Kind describes one animated property: its tag, how many values a key holds and whether the
// values are stored as integers.
type Kind struct {
	Tag   uint32
	Name  string
	Width int
	IsInt bool // values stored as integers
}

func k(name string, width int) Kind { return Kind{Tag4(name), name, width, false} }

// Track kinds, in the order the writer puts them within each object.
var (
	KMTF = Kind{Tag4("KMTF"), "KMTF", 1, true}
	KMTA = k("KMTA", 1)
	KTAT = k("KTAT", 3)
	KTAR = k("KTAR", 4)
	KTAS = k("KTAS", 3)
	KGAO = k("KGAO", 1)
	KGAC = k("KGAC", 3)
	KGTR = k("KGTR", 3)
	KGRT = k("KGRT", 4)
	KGSC = k("KGSC", 3)
	KLAS = k("KLAS", 1)
	KLAE = k("KLAE", 1)
	KLAC = k("KLAC", 3)
	KLAI = k("KLAI", 1)
	KLBI = k("KLBI", 1)
	KLBC = k("KLBC", 3)
	KLAV = k("KLAV", 1)
	KATV = k("KATV", 1)
	KPEE = k("KPEE", 1)
	KPEG = k("KPEG", 1)
	KPLN = k("KPLN", 1)
	KPLT = k("KPLT", 1)
	KPEL = k("KPEL", 1)
	KPES = k("KPES", 1)
	KPEV = k("KPEV", 1)
	KP2S = k("KP2S", 1)
	KP2R = k("KP2R", 1)
	KP2L = k("KP2L", 1)
	KP2G = k("KP2G", 1)
	KP2E = k("KP2E", 1)
	KP2N = k("KP2N", 1)
	KP2W = k("KP2W", 1)
	KP2V = k("KP2V", 1)
	KRHA = k("KRHA", 1)
	KRHB = k("KRHB", 1)
	KRAL = k("KRAL", 1)
	KRCO = k("KRCO", 3)
	KRTX = Kind{Tag4("KRTX"), "KRTX", 1, true}
	KRVS = k("KRVS", 1)
	KCTR = k("KCTR", 3)
	KCRL = k("KCRL", 1)
	KTTR = k("KTTR", 3)
	KMTE = k("KMTE", 1)
	KFC3 = k("KFC3", 3)
	KFCA = k("KFCA", 1)
	KFTC = k("KFTC", 1)
)

// ForeignWidth gives the value width of every track tag known in any object kind or any
// version (Reforged extras included), so a track found in the wrong place can be skipped by its
// exact size.
var ForeignWidth = func() map[uint32]int {
	m := map[uint32]int{}
	for _, x := range []Kind{KMTF, KMTA, KTAT, KTAR, KTAS, KGAO, KGAC, KGTR, KGRT,
		KGSC, KLAS, KLAE, KLAC, KLAI, KLBI, KLBC, KLAV, KATV, KPEE, KPEG, KPLN,
		KPLT, KPEL, KPES, KPEV, KP2S, KP2R, KP2L, KP2G, KP2E, KP2N, KP2W, KP2V,
		KRHA, KRHB, KRAL, KRCO, KRTX, KRVS, KCTR, KCRL, KTTR, KMTE, KFC3, KFCA, KFTC} {
		m[x.Tag] = x.Width
	}
	// Version 900/1000 additions: popcorn emitters.
	for name, w := range map[string]int{"KPPA": 1, "KPPC": 3, "KPPE": 1, "KPPL": 1, "KPPS": 1, "KPPV": 1} {
		m[Tag4(name)] = w
	}
	return m
}()

// ShapeLayout gives what a collision shape of type t stores after its type: how many vertices
// and whether a bounds radius follows. ok is false for an unknown type.
func ShapeLayout(t uint32) (vertices int, radius, ok bool) {
	switch t {
	case wc3.ShapeBox, wc3.ShapePlane:
		return 2, false, true
	case wc3.ShapeSphere:
		return 1, true, true
	case wc3.ShapeCylinder:
		return 2, true, true
	}
	return 0, false, false
}
