package objenc

import (
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/modelfs/modelfs/translate/scene"
)

// safeName makes s usable as one OBJ/MTL name token: whitespace, control characters, '#'
// (which starts a comment) and invalid UTF-8 bytes each become '_'.
func safeName(s string) string {
	ok := true
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if badNameRune(r, n) {
			ok = false
			break
		}
		i += n
	}
	if ok {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if badNameRune(r, n) {
			b = append(b, '_')
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return string(b)
}

func badNameRune(r rune, n int) bool {
	return (r == utf8.RuneError && n == 1) || r == '#' || unicode.IsSpace(r) || unicode.IsControl(r) ||
		unicode.Is(unicode.Cf, r)
}

// uniqueNames returns a safe, unique name for each raw name, in order: an empty name becomes
// fallback followed by its position, and a name already taken gets the first free suffix
// "_2", "_3", … . Earlier names keep their spelling, so the result is deterministic.
func uniqueNames(raw []string, fallback string) []string {
	out := make([]string, len(raw))
	used := make(map[string]bool, len(raw))
	// next is, per name taken, the suffix to try first: every one below it is taken (a WMO
	// places one model's meshes under one name 65,536 times; counting from 2 each time was
	// quadratic).
	next := map[string]int{}
	for i, r := range raw {
		n := safeName(r)
		if n == "" {
			n = fallback + strconv.Itoa(i)
		}
		if used[n] {
			k := max(next[n], 2)
			for used[n+"_"+strconv.Itoa(k)] {
				k++
			}
			next[n] = k + 1
			n += "_" + strconv.Itoa(k)
		}
		used[n] = true
		out[i] = n
	}
	return out
}

// defaultMaterial is the name given to the material that meshes without one use.
const defaultMaterial = "default"

// materialNames returns the OBJ/MTL name of every material of s and, when some mesh has no
// material, the name of an extra plain material for it (else ""). Both the OBJ and the MTL
// encoder call it, so their names always agree.
func materialNames(s *scene.Scene) (names []string, def string) {
	raw := make([]string, len(s.Materials), len(s.Materials)+1)
	for i := range s.Materials {
		raw[i] = s.Materials[i].Name
	}
	if needsDefault(s) {
		raw = append(raw, defaultMaterial)
	}
	names = uniqueNames(raw, "material")
	if len(names) > len(s.Materials) {
		def = names[len(s.Materials)]
		names = names[:len(s.Materials)]
	}
	return names, def
}

func needsDefault(s *scene.Scene) bool {
	for i := range s.Meshes {
		if m := s.Meshes[i].Material; m < 0 || m >= len(s.Materials) {
			return true
		}
	}
	return false
}

// commentText makes s fit on one comment line: invalid UTF-8 and control characters become '?'.
func commentText(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			b = append(b, '?')
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return string(b)
}

// fileText makes a file name fit on its statement line: invalid UTF-8 and control characters
// become '_'. Spaces are kept; common importers read the rest of the line as the name.
func fileText(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			b = append(b, '_')
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return string(b)
}
