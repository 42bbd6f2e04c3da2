package mpq

// sniffExt names the extension of a member with no known name from its first 8 bytes, as
// StormLib does (its table, in its order): ".xxx" when none fits or fewer than 8 bytes read.
func (a *Archive) sniffExt(bi int) string {
	n := &node{block: bi, unnamed: true}
	m, err := a.openNode(n)
	if err != nil {
		return ".xxx"
	}
	var head [8]byte
	if k, _ := (&File{m: m}).ReadAt(head[:], 0); k < len(head) {
		return ".xxx"
	}
	d0, d1 := le.Uint32(head[:]), le.Uint32(head[4:])
	for _, s := range sniffs {
		if d0&s.m0 == s.v0 && d1&s.m1 == s.v1 {
			return "." + s.ext
		}
	}
	return ".xxx"
}

// sniffs match the first two little-endian words of a member: (d0 & m0) == v0 and
// (d1 & m1) == v1.
var sniffs = []struct {
	v0, m0, v1, m1 uint32
	ext            string
}{
	{0x00005A4D, 0x0000FFFF, 0, 0, "exe"},
	{0x00000006, 0xFFFFFFFF, 0x00000001, 0xFFFFFFFF, "dc6"},
	{0x1A51504D, 0xFFFFFFFF, 0, 0, "mpq"},
	{0x46464952, 0xFFFFFFFF, 0, 0, "wav"},
	{0x324B4D53, 0xFFFFFFFF, 0, 0, "smk"},
	{0x694B4942, 0xFFFFFFFF, 0, 0, "bik"},
	{0x0801050A, 0xFFFFFFFF, 0, 0, "pcx"},
	{0x544E4F46, 0xFFFFFFFF, 0, 0, "fnt"},
	{0x6D74683C, 0xFFFFFFFF, 0, 0, "html"},
	{0x4D54483C, 0xFFFFFFFF, 0, 0, "html"},
	{0x216F6F57, 0xFFFFFFFF, 0, 0, "tbl"},
	{0x31504C42, 0xFFFFFFFF, 0, 0, "blp"},
	{0x32504C42, 0xFFFFFFFF, 0, 0, "blp"},
	{0x584C444D, 0xFFFFFFFF, 0, 0, "mdx"},
	{0x45505954, 0xFFFFFFFF, 0, 0, "pud"},
	{0x38464947, 0xFFFFFFFF, 0, 0, "gif"},
	{0x3032444D, 0xFFFFFFFF, 0, 0, "m2"},
	{0x43424457, 0xFFFFFFFF, 0, 0, "dbc"},
	{0x47585053, 0xFFFFFFFF, 0, 0, "bls"},
	{0xE0FFD8FF, 0xFFFFFFFF, 0, 0, "jpg"},
	{0x503B4449, 0xFFFFFFFF, 0x3B4C5857, 0xFFFFFFFF, "slk"},
	{0x61754C1B, 0xFFFFFFFF, 0, 0, "lua"},
	{0x20534444, 0xFFFFFFFF, 0, 0, "dds"},
	{0x43614C66, 0xFFFFFFFF, 0, 0, "flac"},
	{0x0000FBFF, 0x0000FFFF, 0, 0, "mp3"},
	{0x0000F3FF, 0x0000FFFF, 0, 0, "mp3"},
	{0x0000F2FF, 0x0000FFFF, 0, 0, "mp3"},
	{0x00334449, 0x00FFFFFF, 0, 0, "mp3"},
	{0x57334D48, 0xFFFFFFFF, 0, 0, "w3x"},
	{0x6F643357, 0xFFFFFFFF, 0, 0, "doo"},
	{0x21453357, 0xFFFFFFFF, 0, 0, "w3e"},
	{0x5733504D, 0xFFFFFFFF, 0, 0, "wpm"},
	{0x21475457, 0xFFFFFFFF, 0, 0, "wtg"},
}
