package mdl

// sniffLen is how much of the head Looks examines.
const sniffLen = 4096

// Looks reports whether head (the first bytes of a file) looks like an MDL text model: text
// (after an optional UTF-8 byte order mark, white space and // comments) in which a
// `Version {` block or a FormatVersion keyword appears, in any letter case. Binary data, such
// as a Quake or Half-Life .mdl (IDPO, IDST), gives false.
func Looks(head []byte) bool {
	if len(head) > sniffLen {
		head = head[:sniffLen]
	}
	if len(head) >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF {
		head = head[3:]
	}
	for i := 0; i < len(head); {
		c := head[i]
		switch {
		case c == '\n' || c == '\r' || c == ' ' || c == '\t' || c == ',' || c == '\f' || c == '\v':
			i++
		case c == '/' && i+1 < len(head) && head[i+1] == '/':
			for i < len(head) && head[i] != '\n' {
				i++
			}
		case c == '"':
			i++
			for i < len(head) && head[i] != '"' && head[i] != '\n' {
				i++
			}
			i++
		case c < 0x20 || c == 0x7f:
			return false // control bytes: binary, not MDL text
		case identChar[c] && !(c >= '0' && c <= '9'):
			j := i
			for j < len(head) && identChar[head[j]] {
				j++
			}
			switch keyword(head[i:j]) {
			case kwFormatVersion:
				return true
			case kwVersion:
				k := j
				for k < len(head) && (head[k] == ' ' || head[k] == '\t' || head[k] == '\r' || head[k] == '\n') {
					k++
				}
				if k < len(head) && head[k] == '{' {
					return true
				}
			}
			i = j
		case c >= 0x80:
			// Non-ASCII text outside strings and comments is not MDL.
			return false
		default:
			i++
		}
	}
	return false
}
