package codec

import (
	"path"
	"slices"
	"strings"
)

// textureExts are the image extensions tried, in order, when a texture's named file is absent:
// games rename between BLP, TGA and JPEG freely (a model naming x.tga may ship x.jpg).
var textureExts = []string{".blp", ".tga", ".png", ".jpg", ".jpeg", ".dds"}

// ResolveTexture finds the file a model's texture reference names, the way the games do: the
// reference is taken relative to the root of the tree first (MPQ paths like
// Textures\SmileyGW.blp), then to the model's folder, then to the folders beside it (Meteor
// Blade keeps textures in a texture folder next to pmodel); each with the named extension first,
// then the other image extensions. Matching ignores case and accepts backslashes. A reference
// that climbs with ".." is taken from the model's folder only, and must stay inside the root.
// It returns the file's path relative to the root, or "" with a reason when nothing matches or
// the reference tries to leave the root (absolute paths are refused).
func (src Source) ResolveTexture(ref string) (resolved, reason string) {
	if ref == "" {
		return "", "empty texture path"
	}
	clean := strings.ReplaceAll(strings.TrimSpace(ref), "\\", "/")
	if path.IsAbs(clean) || (len(clean) > 1 && clean[1] == ':') {
		return "", "absolute texture path refused: " + ref
	}
	clean = path.Clean(clean)
	modelDir := path.Dir(src.Name)
	candidates := []string{clean, path.Join(modelDir, clean), path.Join(modelDir, path.Base(clean))}
	if leaves(clean) {
		// Relative to the model's folder, then: inside the root, or refused.
		if leaves(path.Join(modelDir, clean)) {
			return "", "texture path leaving the root refused: " + ref
		}
		candidates = candidates[1:]
	}
	if src.FS == nil {
		return "", "no directory access to look for " + ref
	}
	base := path.Base(clean)
	var tried []string
	try := func(p string) (string, bool) {
		p = path.Clean(p)
		if leaves(p) || slices.Contains(tried, p) {
			return "", false
		}
		tried = append(tried, p)
		return src.findImage(p)
	}
	for _, p := range candidates {
		if found, ok := try(p); ok {
			return found, ""
		}
	}
	// The folders beside the model's are listed only when nothing nearer matched, so that a
	// model whose texture is found nearer does not depend on its parent folder's listing.
	if parent := path.Dir(modelDir); modelDir != "." {
		if siblings, err := src.ReadDir(parent); err == nil {
			for _, sib := range siblings {
				if found, ok := try(path.Join(parent, sib, base)); ok {
					return found, ""
				}
			}
		}
	}
	if modelDir == "." && !strings.Contains(clean, "/") {
		// A Meteor Blade pmodel folder served alone: its textures are in texture/ beside it.
		return "", "texture not found: " + ref + " (the model is at the top of the tree served, so the folders beside its own are out of reach: serve the folder above it)"
	}
	return "", "texture not found: " + ref
}

// findImage looks for p, then p with each other image extension, ignoring case.
func (src Source) findImage(p string) (string, bool) {
	if found, ok := src.FindFold(p); ok {
		return found, true
	}
	stem := strings.TrimSuffix(p, path.Ext(p))
	for _, ext := range textureExts {
		if strings.EqualFold(ext, path.Ext(p)) {
			continue
		}
		if found, ok := src.FindFold(stem + ext); ok {
			return found, true
		}
	}
	return "", false
}
