package archive

import (
	"strings"
	"unicode/utf8"
)

// NulSubstitute is what a NUL in a member's name is shown as: no file system path carries a
// NUL, and a name listed with one could not be looked up. The member is read by its own name.
const NulSubstitute = "\u2400" // ␀

// ShownName is the name a member's path element is shown as, in every format: a NUL as
// NulSubstitute, and an element that is not UTF-8 (a map or mod made under a Windows code
// page) with each byte as the character of that number (Latin-1), which every path can carry,
// the same in listings and lookups. Should that give the name of another member (one named so
// in UTF-8), the format leaves one of them out with a warning.
func ShownName(p string) string {
	if !utf8.ValidString(p) {
		var b strings.Builder
		for i := 0; i < len(p); i++ {
			b.WriteRune(rune(p[i]))
		}
		p = b.String()
	}
	if strings.IndexByte(p, 0) < 0 {
		return p
	}
	return strings.ReplaceAll(p, "\x00", NulSubstitute)
}
