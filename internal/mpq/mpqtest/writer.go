// Package mpqtest writes MPQ archives for tests: every format's header, encrypted and plain
// members, sectors and single units, sector checksums, deletion markers, a listfile or none,
// and the prefixes (a map header, a user-data block) the reader must look past.
package mpqtest

import (
	"bytes"
	"compress/zlib"
	"crypto/md5"
	"encoding/binary"
	"hash/adler32"
	"math/bits"
	"slices"
	"strings"

	"github.com/modelfs/modelfs/internal/mpq/internal/crypt"
)

var le = binary.LittleEndian

// Member is one file to store.
type Member struct {
	Name string // '\'-separated, as archives name members
	Data []byte
	Zlib bool // compress each sector (or the unit) with zlib where that saves bytes
	// Compress, when set, compresses instead of zlib (Zlib must be set too): it returns a
	// sector as stored, its compression byte first.
	Compress     func(sector []byte) []byte
	Encrypt      bool
	FixKey       bool // adjust the key by position and size (with Encrypt)
	SingleUnit   bool
	SectorCRC    bool
	DeleteMarker bool // a marker hiding Name in earlier archives; Data is ignored
	Locale       uint16
	// Stored, when not nil, is written as the member's stored bytes as they are, and Size (when
	// not 0) as its size: for members that lie.
	Stored []byte
	Size   uint32
}

// Block is a block table entry, as Tamper sees it.
type Block struct {
	Pos                 uint64
	CSize, FSize, Flags uint32
	name                string // its member's, for the BET table's name hashes
}

// Archive describes an archive to write.
type Archive struct {
	Format      int    // 1 to 4; 0 means 1
	SectorShift uint16 // sectors of 512<<SectorShift bytes; 0 means 3 (4 KiB), the games' choice
	TinySectors bool   // sectors of 512 bytes (shift 0), for small archives with many sectors
	Members     []Member
	NoListfile  bool
	Prefix      int  // bytes of other data before the archive (a multiple of 512: a map header)
	UserData    bool // a user-data block before the header, naming where the header is
	HashCount   int  // hash table slots (a power of two); 0 picks one
	// Tamper, when set, may change the block table before it is written.
	Tamper func(blocks []Block)
	// HETBET writes HET and BET tables too (formats 3 and 4); NoClassic leaves out the hash
	// and block tables, so that a reader must use HET and BET.
	HETBET, NoClassic bool
	// TamperHET and TamperBET, when set, may change a HET or BET table's body (after its
	// 12-byte header, before it is enciphered).
	TamperHET, TamperBET func(body []byte)
}

const (
	flagCompress     = 0x00000200
	flagEncrypted    = 0x00010000
	flagFixKey       = 0x00020000
	flagSingleUnit   = 0x01000000
	flagDeleteMarker = 0x02000000
	flagSectorCRC    = 0x04000000
	flagExists       = 0x80000000
)

// Bytes writes the archive.
func (a Archive) Bytes() []byte {
	format := max(a.Format, 1)
	shift := a.SectorShift
	if shift == 0 && !a.TinySectors {
		shift = 3
	}
	members := a.Members
	if !a.NoListfile {
		var names []string
		for _, m := range members {
			names = append(names, m.Name)
		}
		members = append(members[:len(members):len(members)], Member{Name: "(listfile)", Data: []byte(strings.Join(names, "\r\n") + "\r\n"), Zlib: true})
	}
	headerSize := [...]int{0, 0x20, 0x2C, 0x44, 0xD0}[format]

	var out bytes.Buffer
	out.Write(make([]byte, a.Prefix))
	if a.UserData {
		ud := make([]byte, 512)
		copy(ud, "MPQ\x1b")
		le.PutUint32(ud[4:], 512) // user data size
		le.PutUint32(ud[8:], 512) // the header follows this block
		le.PutUint32(ud[12:], 16)
		out.Write(ud)
	}
	base := out.Len()
	out.Write(make([]byte, headerSize))

	blocks := make([]Block, len(members))
	for i, m := range members {
		pos := uint64(out.Len() - base)
		if m.DeleteMarker {
			blocks[i] = Block{Pos: pos, Flags: flagExists | flagDeleteMarker, name: m.Name}
			continue
		}
		flags := uint32(flagExists)
		if m.Zlib {
			flags |= flagCompress
		}
		if m.SingleUnit {
			flags |= flagSingleUnit
		}
		if m.SectorCRC && m.Zlib && !m.SingleUnit {
			flags |= flagSectorCRC
		}
		if m.Encrypt {
			flags |= flagEncrypted
			if m.FixKey {
				flags |= flagFixKey
			}
		}
		size := uint32(len(m.Data))
		if m.Size != 0 {
			size = m.Size
		}
		key := crypt.FileKey(m.Name, pos, size, m.FixKey)
		data := m.Stored
		if data == nil {
			data = storeMember(m, flags, key, 512<<shift)
		}
		out.Write(data)
		blocks[i] = Block{Pos: pos, CSize: uint32(len(data)), FSize: size, Flags: flags, name: m.Name}
	}

	hashCount := a.HashCount
	if hashCount == 0 {
		hashCount = 4
		for hashCount < 2*len(members) {
			hashCount *= 2
		}
	}
	hashes := make([]byte, hashCount*16)
	for i := 0; i < hashCount; i++ {
		le.PutUint32(hashes[i*16+12:], 0xFFFFFFFF)
		le.PutUint32(hashes[i*16:], 0xFFFFFFFF)
		le.PutUint32(hashes[i*16+4:], 0xFFFFFFFF)
		le.PutUint32(hashes[i*16+8:], 0xFFFFFFFF)
	}
	for bi, m := range members {
		slot := int(crypt.Hash(m.Name, crypt.Index)) & (hashCount - 1)
		for le.Uint32(hashes[slot*16+12:]) != 0xFFFFFFFF {
			slot = (slot + 1) % hashCount
		}
		e := hashes[slot*16:]
		le.PutUint32(e, crypt.Hash(m.Name, crypt.NameA))
		le.PutUint32(e[4:], crypt.Hash(m.Name, crypt.NameB))
		le.PutUint16(e[8:], m.Locale)
		le.PutUint16(e[10:], 0)
		le.PutUint32(e[12:], uint32(bi))
	}
	crypt.Encrypt(hashes, crypt.Hash("(hash table)", crypt.Key))
	if a.Tamper != nil {
		a.Tamper(blocks)
	}
	blockBytes := make([]byte, len(blocks)*16)
	hiBytes := make([]byte, len(blocks)*2)
	for i, b := range blocks {
		e := blockBytes[i*16:]
		le.PutUint32(e, uint32(b.Pos))
		le.PutUint32(e[4:], b.CSize)
		le.PutUint32(e[8:], b.FSize)
		le.PutUint32(e[12:], b.Flags)
		le.PutUint16(hiBytes[i*2:], uint16(b.Pos>>32))
	}
	crypt.Encrypt(blockBytes, crypt.Hash("(block table)", crypt.Key))

	var hetPos, betPos uint64
	var het, bet []byte
	if a.HETBET && format >= 3 {
		var names []string
		for _, m := range members {
			names = append(names, m.Name)
		}
		het, bet = hetTable(names, a.TamperHET), betTable(blocks, a.TamperBET)
		hetPos = uint64(out.Len() - base)
		out.Write(het)
		betPos = uint64(out.Len() - base)
		out.Write(bet)
	}
	hashCount, blockCount := hashCount, len(blocks)
	var hashPos, blockPos, hiPos uint64
	if a.NoClassic {
		// No hash table; the block count stays, as StormLib checks BET's count against it.
		hashCount = 0
		hashes, blockBytes, hiBytes = nil, nil, nil
	} else {
		hashPos = uint64(out.Len() - base)
		out.Write(hashes)
		blockPos = uint64(out.Len() - base)
		out.Write(blockBytes)
		if format >= 2 {
			hiPos = uint64(out.Len() - base)
			out.Write(hiBytes)
		}
	}
	b := out.Bytes()
	h := b[base : base+headerSize]
	copy(h, "MPQ\x1a")
	le.PutUint32(h[4:], uint32(headerSize))
	le.PutUint32(h[8:], uint32(len(b)-base))
	le.PutUint16(h[12:], uint16(format-1))
	le.PutUint16(h[14:], shift)
	le.PutUint32(h[16:], uint32(hashPos))
	le.PutUint32(h[20:], uint32(blockPos))
	le.PutUint32(h[24:], uint32(hashCount))
	le.PutUint32(h[28:], uint32(blockCount))
	if format >= 2 {
		le.PutUint64(h[32:], hiPos)
	}
	if format >= 3 {
		le.PutUint64(h[0x2C:], uint64(len(b)-base))
		le.PutUint64(h[0x34:], betPos)
		le.PutUint64(h[0x3C:], hetPos)
	}
	if format >= 4 {
		le.PutUint64(h[0x44:], uint64(len(hashes)))
		le.PutUint64(h[0x4C:], uint64(len(blockBytes)))
		le.PutUint64(h[0x54:], uint64(len(hiBytes)))
		le.PutUint64(h[0x5C:], uint64(len(het)))
		le.PutUint64(h[0x64:], uint64(len(bet)))
		le.PutUint32(h[0x6C:], 0x4000) // raw chunk size
		sum := func(at int, data []byte) {
			if len(data) > 0 {
				s := md5.Sum(data)
				copy(h[at:], s[:])
			}
		}
		sum(0x70, blockBytes)
		sum(0x80, hashes)
		sum(0x90, hiBytes)
		sum(0xA0, bet)
		sum(0xB0, het)
		sum(0xC0, h[:0xC0])
	}
	return b
}

// storeMember lays out one member: a single unit, plain sectors, or a sector table and
// sectors (each compressed where that saves bytes), then checksums, then encryption.
func storeMember(m Member, flags, key uint32, sectorSize int) []byte {
	compress := m.Compress
	if compress == nil {
		compress = Zlib
	}
	if m.SingleUnit {
		data := m.Data
		if m.Zlib {
			if z := compress(m.Data); len(z) < len(m.Data) {
				data = z
			}
		}
		data = bytes.Clone(data)
		if m.Encrypt {
			crypt.Encrypt(data, key)
		}
		return data
	}
	var sectors [][]byte
	for off := 0; off < len(m.Data); off += sectorSize {
		s := bytes.Clone(m.Data[off:min(off+sectorSize, len(m.Data))])
		if m.Zlib {
			if z := compress(s); len(z) < len(s) {
				s = z
			}
		}
		sectors = append(sectors, s)
	}
	if !m.Zlib {
		var out []byte
		for i, s := range sectors {
			if m.Encrypt {
				crypt.Encrypt(s, key+uint32(i))
			}
			out = append(out, s...)
		}
		return out
	}
	entries := len(sectors) + 1
	crc := flags&flagSectorCRC != 0
	if crc {
		entries++
	}
	table := make([]byte, entries*4)
	var body []byte
	at := uint32(len(table))
	for i, s := range sectors {
		le.PutUint32(table[i*4:], at)
		if m.Encrypt {
			crypt.Encrypt(s, key+uint32(i))
		}
		body = append(body, s...)
		at += uint32(len(s))
	}
	le.PutUint32(table[len(sectors)*4:], at)
	if crc {
		for _, s := range sectors {
			body = le.AppendUint32(body, adler32.Checksum(s))
		}
		le.PutUint32(table[(len(sectors)+1)*4:], at+uint32(4*len(sectors)))
	}
	if m.Encrypt {
		crypt.Encrypt(table, key-1)
	}
	return append(table, body...)
}

// Zlib stores a sector compressed with zlib (compression byte 0x02).
func Zlib(b []byte) []byte {
	var buf bytes.Buffer
	buf.WriteByte(0x02)
	w, _ := zlib.NewWriterLevel(&buf, zlib.BestCompression)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// Sparse stores a sector in the sparse coding (0x20): runs of zeros taken out.
func Sparse(b []byte) []byte { return append([]byte{0x20}, sparse(b)...) }

// SparseZlib stores a sector sparse-coded, then zlib-compressed (0x22).
func SparseZlib(b []byte) []byte {
	z := Zlib(sparse(b))
	z[0] = 0x22
	return z
}

// sparse codes b: its size (big-endian), then runs of zeros (3 to 130) and of other bytes
// (1 to 128), each after a byte saying which and how long.
func sparse(b []byte) []byte {
	out := []byte{byte(len(b) >> 24), byte(len(b) >> 16), byte(len(b) >> 8), byte(len(b))}
	for i := 0; i < len(b); {
		z := 0
		for i+z < len(b) && b[i+z] == 0 && z < 130 {
			z++
		}
		if z >= 3 {
			out = append(out, byte(z-3))
			i += z
			continue
		}
		j := i
		for j < len(b) && j-i < 128 && !(j+2 < len(b) && b[j] == 0 && b[j+1] == 0 && b[j+2] == 0) {
			j++
		}
		out = append(out, 0x80|byte(j-i-1))
		out = append(out, b[i:j]...)
		i = j
	}
	return out
}

// extTable wraps a HET or BET body: signature, version 1, size, then the body enciphered with
// the key of the table it stands in for.
func extTable(sig string, body []byte, keyName string, tamper func([]byte)) []byte {
	if tamper != nil {
		tamper(body)
	}
	out := append([]byte(sig), 1, 0, 0, 0)
	out = le.AppendUint32(out, uint32(len(body)))
	enc := bytes.Clone(body)
	crypt.Encrypt(enc, crypt.Hash(keyName, crypt.Key))
	return append(out, enc...)
}

// bitWriter packs fields least significant bit first.
type bitWriter []byte

func (w bitWriter) put(at uint64, n int, v uint64) {
	for k := 0; k < n; k++ {
		if v>>k&1 != 0 {
			w[(at+uint64(k))/8] |= 1 << ((at + uint64(k)) % 8)
		}
	}
}

// hetTable makes the HET table of names (file i is block i): 64-bit name hashes, slots a third
// more than the files, each holding the top 8 bits of its name's hash and the file's index.
func hetTable(names []string, tamper func([]byte)) []byte {
	n := len(names)
	total := max(n*4/3, n+1)
	indexBits := max(bits.Len(uint(n)), 1)
	indexBytes := (total*indexBits + 7) / 8
	hash1 := make([]byte, total)
	index := make(bitWriter, indexBytes)
	for i, name := range names {
		h := crypt.Jenkins64(name) | 1<<63
		slot := int(h % uint64(total))
		for hash1[slot] != 0 {
			slot = (slot + 1) % total
		}
		hash1[slot] = byte(h >> 56)
		index.put(uint64(slot*indexBits), indexBits, uint64(i))
	}
	body := le.AppendUint32(nil, uint32(32+total+indexBytes))
	for _, v := range []int{n, total, 64, indexBits, 0, indexBits, indexBytes} {
		body = le.AppendUint32(body, uint32(v))
	}
	body = append(body, hash1...)
	body = append(body, index...)
	return extTable("HET\x1a", body, "(hash table)", tamper)
}

// betTable makes the BET table of blocks: each block's position, sizes and flags (as an index
// into the distinct flags) packed in as few bits as they need, and the low 56 bits of each
// name's hash.
func betTable(blocks []Block, tamper func([]byte)) []byte {
	var flags []uint32
	var maxPos uint64
	var maxSize, maxCSize uint32
	for _, b := range blocks {
		if !slices.Contains(flags, b.Flags) {
			flags = append(flags, b.Flags)
		}
		maxPos, maxSize, maxCSize = max(maxPos, b.Pos), max(maxSize, b.FSize), max(maxCSize, b.CSize)
	}
	posBits, sizeBits, csizeBits := bits.Len64(maxPos), bits.Len32(maxSize), bits.Len32(maxCSize)
	flagBits := bits.Len(uint(len(flags) - 1))
	entryBits := posBits + sizeBits + csizeBits + flagBits
	table := make(bitWriter, (len(blocks)*entryBits+7)/8)
	for i, b := range blocks {
		at := uint64(i * entryBits)
		table.put(at, posBits, b.Pos)
		table.put(at+uint64(posBits), sizeBits, uint64(b.FSize))
		table.put(at+uint64(posBits+sizeBits), csizeBits, uint64(b.CSize))
		table.put(at+uint64(posBits+sizeBits+csizeBits), flagBits, uint64(slices.Index(flags, b.Flags)))
	}
	hashes := make(bitWriter, (len(blocks)*56+7)/8)
	for i, b := range blocks {
		hashes.put(uint64(i*56), 56, crypt.Jenkins64(b.name)&(1<<56-1))
	}
	fields := []int{0, len(blocks), 0x10, entryBits,
		0, posBits, posBits + sizeBits, posBits + sizeBits + csizeBits, entryBits,
		posBits, sizeBits, csizeBits, flagBits, 0,
		56, 0, 56, len(hashes), len(flags)}
	var body []byte
	for _, v := range fields {
		body = le.AppendUint32(body, uint32(v))
	}
	for _, f := range flags {
		body = le.AppendUint32(body, f)
	}
	body = append(body, table...)
	body = append(body, hashes...)
	le.PutUint32(body, uint32(len(body)))
	return extTable("BET\x1a", body, "(block table)", tamper)
}
