package mpq

import "strings"

// isUnnamed tells whether a member's name was made up by buildTree.
func isUnnamed(n *node) bool { return n.unnamed }

// sniffExt guesses an unnamed member's extension from its first bytes.
func (a *Archive) sniffExt(bi int) string {
	n := &node{arcName: "", block: bi, unnamed: true}
	m, err := a.openNode(n)
	if err != nil {
		return ".xxx"
	}
	var head [16]byte
	k, _ := (&File{m: m}).ReadAt(head[:], 0)
	b := head[:k]
	for _, s := range sniffs {
		if strings.HasPrefix(string(b), s.magic) {
			return s.ext
		}
	}
	return ".xxx"
}

var sniffs = []struct{ magic, ext string }{
	{"MDLX", ".mdx"},
	{"MD20", ".m2"},
	{"MD21", ".m2"},
	{"BLP1", ".blp"},
	{"BLP2", ".blp"},
	{"RIFF", ".wav"},
	{"ID3", ".mp3"},
	{"\x89PNG", ".png"},
	{"\xff\xd8\xff", ".jpg"},
	{"DDS ", ".dds"},
	{"MPQ\x1a", ".mpq"},
	{"HM3W", ".w3x"},
	{"SKIN", ".skin"},
	{"REVM", ".adt"},
	{"WDBC", ".dbc"},
	{"W3E!", ".w3e"},
}
