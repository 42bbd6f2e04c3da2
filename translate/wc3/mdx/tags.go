package mdx

import (
	"encoding/binary"

	"github.com/modelfs/modelfs/translate/wc3"
)

// tag4 packs a four-character tag the way it sits in the file (little-endian uint32).
func tag4(s string) uint32 { return binary.LittleEndian.Uint32([]byte(s)) }

// Top-level chunk tags.
var (
	tagMDLX = tag4("MDLX")
	tagVERS = tag4("VERS")
	tagMODL = tag4("MODL")
	tagSEQS = tag4("SEQS")
	tagGLBS = tag4("GLBS")
	tagMTLS = tag4("MTLS")
	tagTEXS = tag4("TEXS")
	tagTXAN = tag4("TXAN")
	tagGEOS = tag4("GEOS")
	tagGEOA = tag4("GEOA")
	tagBONE = tag4("BONE")
	tagLITE = tag4("LITE")
	tagHELP = tag4("HELP")
	tagATCH = tag4("ATCH")
	tagPIVT = tag4("PIVT")
	tagPREM = tag4("PREM")
	tagPRE2 = tag4("PRE2")
	tagRIBB = tag4("RIBB")
	tagCAMS = tag4("CAMS")
	tagEVTS = tag4("EVTS")
	tagCLID = tag4("CLID")
)

// knownTag reports whether tag is a top-level chunk this reader knows.
func knownTag(tag uint32) bool {
	switch tag {
	case tagVERS, tagMODL, tagSEQS, tagGLBS, tagMTLS, tagTEXS, tagTXAN, tagGEOS, tagGEOA, tagBONE, tagLITE,
		tagHELP, tagATCH, tagPIVT, tagPREM, tagPRE2, tagRIBB, tagCAMS, tagEVTS, tagCLID:
		return true
	}
	return false
}

// Tags inside objects.
var (
	tagLAYS = tag4("LAYS")
	tagVRTX = tag4("VRTX")
	tagNRMS = tag4("NRMS")
	tagPTYP = tag4("PTYP")
	tagPCNT = tag4("PCNT")
	tagPVTX = tag4("PVTX")
	tagGNDX = tag4("GNDX")
	tagMTGC = tag4("MTGC")
	tagMATS = tag4("MATS")
	tagUVAS = tag4("UVAS")
	tagUVBS = tag4("UVBS")
	tagKEVT = tag4("KEVT")
)

// kind describes one animated property: its tag, how many values a key holds and whether the
// values are stored as integers.
type kind struct {
	tag   uint32
	name  string
	width int
	isInt bool
}

func k(name string, width int) kind { return kind{tag4(name), name, width, false} }

// Track kinds, in the order Encode writes them within each object.
var (
	kKMTF = kind{tag4("KMTF"), "KMTF", 1, true}
	kKMTA = k("KMTA", 1)
	kKTAT = k("KTAT", 3)
	kKTAR = k("KTAR", 4)
	kKTAS = k("KTAS", 3)
	kKGAO = k("KGAO", 1)
	kKGAC = k("KGAC", 3)
	kKGTR = k("KGTR", 3)
	kKGRT = k("KGRT", 4)
	kKGSC = k("KGSC", 3)
	kKLAS = k("KLAS", 1)
	kKLAE = k("KLAE", 1)
	kKLAC = k("KLAC", 3)
	kKLAI = k("KLAI", 1)
	kKLBI = k("KLBI", 1)
	kKLBC = k("KLBC", 3)
	kKLAV = k("KLAV", 1)
	kKATV = k("KATV", 1)
	kKPEE = k("KPEE", 1)
	kKPEG = k("KPEG", 1)
	kKPLN = k("KPLN", 1)
	kKPLT = k("KPLT", 1)
	kKPEL = k("KPEL", 1)
	kKPES = k("KPES", 1)
	kKPEV = k("KPEV", 1)
	kKP2S = k("KP2S", 1)
	kKP2R = k("KP2R", 1)
	kKP2L = k("KP2L", 1)
	kKP2G = k("KP2G", 1)
	kKP2E = k("KP2E", 1)
	kKP2N = k("KP2N", 1)
	kKP2W = k("KP2W", 1)
	kKP2V = k("KP2V", 1)
	kKRHA = k("KRHA", 1)
	kKRHB = k("KRHB", 1)
	kKRAL = k("KRAL", 1)
	kKRCO = k("KRCO", 3)
	kKRTX = kind{tag4("KRTX"), "KRTX", 1, true}
	kKRVS = k("KRVS", 1)
	kKCTR = k("KCTR", 3)
	kKCRL = k("KCRL", 1)
	kKTTR = k("KTTR", 3)
)

// foreignWidth gives the value width of every track tag known in any object kind or any
// version (Reforged extras included), so a track found in the wrong place can be skipped by its
// exact size.
var foreignWidth = func() map[uint32]int {
	m := map[uint32]int{}
	for _, x := range []kind{kKMTF, kKMTA, kKTAT, kKTAR, kKTAS, kKGAO, kKGAC, kKGTR, kKGRT,
		kKGSC, kKLAS, kKLAE, kKLAC, kKLAI, kKLBI, kKLBC, kKLAV, kKATV, kKPEE, kKPEG, kKPLN,
		kKPLT, kKPEL, kKPES, kKPEV, kKP2S, kKP2R, kKP2L, kKP2G, kKP2E, kKP2N, kKP2W, kKP2V,
		kKRHA, kKRHB, kKRAL, kKRCO, kKRTX, kKRVS, kKCTR, kKCRL, kKTTR} {
		m[x.tag] = x.width
	}
	// Version 900/1000 additions: layer emissive gain and fresnel, popcorn emitters.
	for name, w := range map[string]int{"KMTE": 1, "KFC3": 3, "KFCA": 1, "KFTC": 1,
		"KPPA": 1, "KPPC": 3, "KPPE": 1, "KPPL": 1, "KPPS": 1, "KPPV": 1} {
		m[tag4(name)] = w
	}
	return m
}()

// slot binds a track kind to the field of the object being read or written.
type slot struct {
	kind
	dst **wc3.Track
}
