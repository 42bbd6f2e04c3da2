package mpq

import (
	"io"
	"slices"
	"strings"
)

// Summary is what `modelfs info` tells of an archive.
type Summary struct {
	Members, Unnamed, Encrypted int
	Stored, Unpacked            int64 // bytes in the archive, and once decoded
	Compressions                []Compression
	Problems                    []error // members that could not be read, one error each
}

// Compression counts the sectors stored one way.
type Compression struct {
	Name    string // "zlib", "Huffman+ADPCM mono", "stored", …
	Sectors int
}

// Summary reads every member once, counting how its sectors are stored and noting the
// members that cannot be read.
func (a *Archive) Summary() Summary {
	var s Summary
	count := map[string]int{}
	for _, n := range a.members {
		s.Members++
		if n.unnamed {
			s.Unnamed++
		}
		b := a.blocks[n.block]
		s.Stored += int64(b.csize)
		s.Unpacked += int64(b.fsize)
		if b.flags&flagEncrypted != 0 {
			s.Encrypted++
		}
		m, err := a.openNode(n)
		if err != nil {
			s.Problems = append(s.Problems, err)
			continue
		}
		for _, name := range m.storage() {
			count[name]++
		}
		if _, err := io.Copy(io.Discard, io.NewSectionReader(&File{m: m}, 0, m.size)); err != nil {
			s.Problems = append(s.Problems, err)
		}
	}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range count {
			if !yield(k) {
				return
			}
		}
	}) {
		s.Compressions = append(s.Compressions, Compression{Name: name, Sectors: count[name]})
	}
	return s
}

// storage names how each of a member's units is stored.
func (m *member) storage() []string {
	switch {
	case m.size == 0:
		return nil
	case !m.compressed():
		return []string{"stored"}
	case m.single():
		if m.b.csize >= m.b.fsize {
			return []string{"stored"}
		}
		return []string{m.maskAt(m.start, 0)}
	}
	var out []string
	ss := m.sectorSize()
	for i := int64(0); i+1 < int64(len(m.sectors)) && i < m.sectorCount(); i++ {
		want := min(ss, m.size-i*ss)
		at, n, err := m.sectorSpan(i)
		switch {
		case err != nil:
			out = append(out, "unreadable")
		case n >= want:
			out = append(out, "stored")
		default:
			out = append(out, m.maskAt(at, i))
		}
	}
	return out
}

// maskAt names the compressions of unit i, at off, by its first byte.
func (m *member) maskAt(off, i int64) string {
	if m.b.flags&(flagImplode|flagCompress) == flagImplode {
		return "PKWARE implode"
	}
	var first [4]byte
	if _, err := m.a.r.ReadAt(first[:], off); err != nil {
		return "unreadable"
	}
	if m.encrypted() {
		decrypt(first[:], m.key+uint32(i))
	}
	return maskName(first[0])
}

func maskName(mask byte) string {
	if mask == compLZMA {
		return "LZMA"
	}
	var names []string
	for _, s := range stages {
		if mask&s.bit != 0 {
			names = append(names, s.name)
		}
	}
	if mask&^knownBits != 0 || len(names) == 0 {
		return "unknown compression"
	}
	slices.Reverse(names) // in the order they were applied
	return strings.Join(names, "+")
}
