package m2

import (
	"cmp"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/scene"
)

// maxSkinVariants caps the skins a model offers as variants: a folder holding dozens of
// textures is a shared texture folder, not a creature's skins, and every variant is one more
// texture to decode and embed.
const maxSkinVariants = 16

// skinNote is what a guessed skin texture's extras say of it.
const skinNote = "the model names no file for this slot; this one beside the model is the likeliest"

// skinCandidates lists the files that may fill a creature-skin slot (texture types 11–13,
// which the game fills from its database by a bare name in the model's folder): the .blp files
// in the model's own folder that the model does not name itself, best first, relative to the
// root. The ranking follows how creature skins are named in the game data:
//
//  1. the stem is the model's name plus "Skin" (RabbitSkin), the usual first skin;
//  2. the stem starts with that (RabbitSkinBrown, RabbitSkin2);
//  3. the stem starts with the model's name (RabbitBrown);
//  4. the stem holds "skin" anywhere (BrownSkin);
//  5. the rest, the longer the prefix shared with the model's name the better.
//
// Ties go to the first name in case-insensitive order (then byte order), so the result does
// not depend on how the folder lists its entries. It returns nil without a listing.
func skinCandidates(src codec.Source, named []string) []string {
	if src.FS == nil {
		return nil
	}
	dir := path.Dir(src.Name)
	entries, err := src.ReadDir(dir)
	if err != nil {
		return nil
	}
	model := strings.ToLower(strings.TrimSuffix(path.Base(src.Name), path.Ext(src.Name)))
	type cand struct {
		full, lower string
		class, pre  int
	}
	var cs []cand
	for _, e := range entries {
		if !strings.EqualFold(path.Ext(e), ".blp") {
			continue
		}
		full := path.Join(dir, e)
		if slices.ContainsFunc(named, func(n string) bool { return strings.EqualFold(n, full) }) {
			continue
		}
		stem := strings.ToLower(strings.TrimSuffix(e, path.Ext(e)))
		c := cand{full: full, lower: stem}
		switch {
		case stem == model+"skin":
			c.class = 1
		case strings.HasPrefix(stem, model+"skin"):
			c.class = 2
		case strings.HasPrefix(stem, model):
			c.class = 3
		case strings.Contains(stem, "skin"):
			c.class = 4
		default:
			c.class = 5
			for c.pre < len(stem) && c.pre < len(model) && stem[c.pre] == model[c.pre] {
				c.pre++
			}
		}
		cs = append(cs, c)
	}
	slices.SortFunc(cs, func(a, b cand) int {
		return cmp.Or(cmp.Compare(a.class, b.class), cmp.Compare(b.pre, a.pre),
			strings.Compare(a.lower, b.lower), strings.Compare(a.full, b.full))
	})
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.full
	}
	return out
}

// guessSkins fills the creature-skin slots the model leaves for the game's database with the
// files beside it (skinCandidates), marked as guesses. When the model uses one slot and its
// folder holds several candidates, each becomes a variant (glTF KHR_materials_variants), the
// best one the default; with two or three slots (a body and its accessories, which names do not
// pair reliably) each slot gets the best file not yet taken.
func guessSkins(src codec.Source, s *scene.Scene) {
	var named []string
	for _, t := range s.Textures {
		if t.Path != "" {
			named = append(named, strings.ReplaceAll(t.Path, "\\", "/"))
		}
	}
	var slots []int // the distinct slot types left empty, in ascending order
	for _, t := range s.Textures {
		if t.Path == "" && t.Replaceable >= 11 && t.Replaceable <= 13 && !slices.Contains(slots, t.Replaceable) {
			slots = append(slots, t.Replaceable)
		}
	}
	if len(slots) == 0 {
		return
	}
	slices.Sort(slots)
	cands := skinCandidates(src, named)
	if len(slots) == 1 && len(cands) > 1 {
		skinVariants(s, slots[0], cands)
		return
	}
	for i, slot := range slots {
		if i >= len(cands) {
			break
		}
		fillSlot(s, slot, cands[i])
	}
}

// fillSlot gives every empty texture of slot type the file, as a guess.
func fillSlot(s *scene.Scene, slot int, file string) {
	for i := range s.Textures {
		if t := &s.Textures[i]; t.Path == "" && t.Replaceable == slot {
			t.Path, t.Guess = file, true
			t.Extras["guessNote"] = skinNote
		}
	}
}

// skinVariants makes each candidate skin a variant of the model: the slot's textures show the
// first, and every other candidate gets copies of those textures and of the materials using
// them, which the meshes drawn with those materials list per variant.
func skinVariants(s *scene.Scene, slot int, cands []string) {
	if len(cands) > maxSkinVariants {
		s.Warnings = append(s.Warnings, "creature skin: "+strconv.Itoa(len(cands))+" candidate files beside the model; the first "+
			strconv.Itoa(maxSkinVariants)+" are offered as variants")
		cands = cands[:maxSkinVariants]
	}
	var texs []int // the slot's textures
	for i := range s.Textures {
		if t := &s.Textures[i]; t.Path == "" && t.Replaceable == slot {
			texs = append(texs, i)
		}
	}
	fillSlot(s, slot, cands[0])
	var mats []int // the materials showing the slot
	for i := range s.Materials {
		if slices.Contains(texs, s.Materials[i].Texture) {
			mats = append(mats, i)
		}
	}
	// matFor[k][v] is the material standing for mats[k] in variant v.
	matFor := make([][]int, len(mats))
	for k, m := range mats {
		matFor[k] = make([]int, len(cands))
		matFor[k][0] = m
	}
	s.Variants = make([]string, len(cands))
	for v, file := range cands {
		s.Variants[v] = strings.TrimSuffix(path.Base(file), path.Ext(file))
		if v == 0 {
			continue
		}
		texFor := map[int]int{} // slot texture → its copy for this variant
		for _, ti := range texs {
			t := s.Textures[ti]
			t.Path = file
			t.Extras = maps.Clone(t.Extras)
			s.Textures = append(s.Textures, t)
			texFor[ti] = len(s.Textures) - 1
		}
		for k, m := range mats {
			mat := s.Materials[m]
			mat.Name += " " + s.Variants[v]
			mat.Texture = texFor[mat.Texture]
			mat.Flags = slices.Clone(mat.Flags)
			mat.Extras = maps.Clone(mat.Extras)
			if mat.Extras == nil {
				mat.Extras = scene.Extras{}
			}
			mat.Extras["variant"] = s.Variants[v]
			s.Materials = append(s.Materials, mat)
			matFor[k][v] = len(s.Materials) - 1
		}
	}
	for i := range s.Meshes {
		if k := slices.Index(mats, s.Meshes[i].Material); k >= 0 {
			s.Meshes[i].VariantMaterials = matFor[k]
		}
	}
}
