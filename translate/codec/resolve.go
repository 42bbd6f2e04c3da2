package codec

import (
	"path"
	"slices"
	"strings"
)

// textureExts are the image extensions tried, in order, when a texture's named file is absent:
// games rename between BLP, TGA and JPEG freely (a model naming x.tga may ship x.jpg), and
// Warcraft III Reforged models name their art pipeline's .tif while the game ships .dds (or, in
// SD, .blp) with the same stem, which it finds in this order.
var textureExts = []string{".dds", ".blp", ".tga", ".png", ".jpg", ".jpeg"}

// ResolveTexture finds the file a model's texture reference names, the way the games do: the
// reference is taken relative to the root of the tree first (MPQ paths like
// Textures\SmileyGW.blp) — for a model inside a Warcraft III map, to the map's root (see
// mapRoot) before that — then to the model's folder, then to the folders beside the model's (Meteor Blade keeps
// textures in a texture folder next to pmodel); each with the named extension first, then the
// other image extensions. Matching ignores case and accepts backslashes. A reference
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
	} else if root, overlay, ok := mapRoot(modelDir); ok {
		// A map's files are named from the map's root, and the game takes them before its
		// own (the tree's root may hold the game's files); Reforged looks in the map's
		// _HD.w3mod (or _SD.w3mod) overlay first when the model is in it.
		var first []string
		if overlay != "" {
			first = append(first, path.Join(root, overlay, clean))
		}
		first = append(first, path.Join(root, clean))
		candidates = append(append(first, candidates...), path.Join(root, path.Base(clean)))
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

// mapRoot returns the root of the Warcraft III map dir is in — the folder (or archive) named
// *.w3x or *.w3m, or the folder holding a *.w3mod overlay — and the overlay dir is in, if any.
func mapRoot(dir string) (root, overlay string, ok bool) {
	parts := strings.Split(dir, "/")
	for i := len(parts) - 1; i >= 0; i-- {
		p := strings.ToLower(parts[i])
		switch {
		case strings.HasSuffix(p, ".w3mod"):
			root, overlay, ok = path.Join(parts[:i]...), parts[i], true
			if root == "" {
				root = "."
			}
			return root, overlay, ok
		case strings.HasSuffix(p, ".w3x") || strings.HasSuffix(p, ".w3m"):
			return path.Join(parts[:i+1]...), "", true
		}
	}
	return "", "", false
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
