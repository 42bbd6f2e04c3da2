package mpq

import (
	"fmt"

	"github.com/modelfs/modelfs/internal/mpq/internal/crypt"
)

// Format 3 and 4 archives may carry HET and BET tables in place of (or beside) the hash and
// block tables: HET maps a 64-bit Jenkins hash of the name to an entry of BET, a bit-packed
// file table. Each starts with a 12-byte header (signature, version, size of what follows); what
// follows is enciphered with the key of "(hash table)" or "(block table)", and compressed
// like a sector when the stored size is smaller.

const (
	sigHET = 0x1A544548 // "HET\x1a"
	sigBET = 0x1A544542 // "BET\x1a"
)

// extTable reads an extended table at pos: its data after the 12-byte header, deciphered and
// decompressed.
func (a *Archive) extTable(what string, pos, stored uint64, sig uint32, keyName string) ([]byte, error) {
	start := a.hdr.base + int64(pos)
	if pos >= uint64(a.size) || start < 0 || start+12 > a.size {
		return nil, a.errorf(start, nil, "%s table at %d is past the end of the archive", what, start)
	}
	var h [12]byte
	if _, err := a.r.ReadAt(h[:], start); err != nil {
		return nil, a.errorf(start, err, "reading the %s table", what)
	}
	if le.Uint32(h[:]) != sig {
		return nil, a.errorf(start, nil, "%s table has no %s signature", what, what)
	}
	size := uint64(le.Uint32(h[8:]))
	if stored == 0 || stored > size+12 {
		stored = size + 12
	}
	if stored < 12 || stored-12 > uint64(a.size-start-12) || size > uint64(64*a.size)+1<<20 {
		return nil, a.errorf(start, nil, "%s table of %d bytes does not fit the archive", what, size)
	}
	b := make([]byte, stored-12)
	if _, err := a.r.ReadAt(b, start+12); err != nil {
		return nil, a.errorf(start, err, "reading the %s table", what)
	}
	decrypt(b, hashString(keyName, hashKey))
	if uint64(len(b)) < size {
		out, note, err := decompress(b, int(size), false)
		if err != nil {
			return nil, a.errorf(start, err, "%s table", what)
		}
		if note != "" {
			a.warn(a.errorf(start, nil, "%s table: %s; taken", what, note))
		}
		b = out
	}
	return b, nil
}

// bitArray reads fields of a bit-packed array.
type bitArray []byte

// get returns count bits (at most 64) at bit index i; bits past the end read as 0.
func (b bitArray) get(i uint64, count uint32) uint64 {
	var v uint64
	for k := uint32(0); k < count; k++ {
		bit := i + uint64(k)
		if bit/8 < uint64(len(b)) && b[bit/8]>>(bit%8)&1 != 0 {
			v |= 1 << k
		}
	}
	return v
}

// het is a read HET table.
type het struct {
	hashBits  uint32
	total     uint32
	nameHash1 []byte
	index     bitArray
	indexBits uint32
	byHash    map[uint64]int // the full name hash of each used slot → its block
}

// bet is a read BET table: the file table, and the second part of each name hash.
type bet struct {
	blocks    []block
	nameHash2 bitArray
	hash2Bits uint32
}

// readExtendedTables reads HET and BET into the archive's lookup and block tables.
func (a *Archive) readExtendedTables() error {
	hb, err := a.extTable("HET", a.hdr.hetPos, a.hdr.storedSize(a.hdr.hetPos, a.hdr.hetSize), sigHET, "(hash table)")
	if err != nil {
		return err
	}
	h, err := parseHET(hb)
	if err != nil {
		return a.errorf(a.hdr.base+int64(a.hdr.hetPos), err, "HET table")
	}
	bb, err := a.extTable("BET", a.hdr.betPos, a.hdr.storedSize(a.hdr.betPos, a.hdr.betSize), sigBET, "(block table)")
	if err != nil {
		return err
	}
	bt, err := parseBET(bb, uint64(a.size))
	if err != nil {
		return a.errorf(a.hdr.base+int64(a.hdr.betPos), err, "BET table")
	}
	a.het, a.bet = h, bt
	a.blocks = bt.blocks
	// Index the used slots by their full name hash (the first 8 bits from HET, the rest from
	// BET), so that a lookup costs no probe (of two slots with one hash, the first in the table).
	h.byHash = make(map[uint64]int)
	for slot, h1 := range h.nameHash1 {
		if h1 == 0 {
			continue
		}
		bi := h.index.get(uint64(slot)*uint64(h.indexBits), h.indexBits)
		if bi >= uint64(len(bt.blocks)) {
			continue
		}
		full := uint64(h1)<<(h.hashBits-8) | bt.nameHash2.get(bi*uint64(bt.hash2Bits), bt.hash2Bits)
		if _, ok := h.byHash[full]; !ok {
			h.byHash[full] = int(bi)
		}
	}
	return nil
}

func parseHET(b []byte) (*het, error) {
	if len(b) < 32 {
		return nil, fmt.Errorf("header truncated")
	}
	h := &het{
		total:     le.Uint32(b[8:]),
		hashBits:  le.Uint32(b[12:]),
		indexBits: le.Uint32(b[16:]),
	}
	indexTableSize := uint64(le.Uint32(b[28:]))
	if h.hashBits < 8 || h.hashBits > 64 || h.indexBits > 32 {
		return nil, fmt.Errorf("hash of %d bits, index of %d bits", h.hashBits, h.indexBits)
	}
	rest := b[32:]
	if uint64(h.total) > uint64(len(rest)) || uint64(h.total)+indexTableSize > uint64(len(rest)) {
		return nil, fmt.Errorf("%d slots and an index of %d bytes do not fit its %d bytes", h.total, indexTableSize, len(rest))
	}
	h.nameHash1 = rest[:h.total]
	h.index = bitArray(rest[h.total : uint64(h.total)+indexTableSize])
	return h, nil
}

func parseBET(b []byte, archiveSize uint64) (*bet, error) {
	if len(b) < 76 {
		return nil, fmt.Errorf("header truncated")
	}
	u := func(i int) uint32 { return le.Uint32(b[i*4:]) }
	count, entryBits := u(1), u(3)
	idxPos, idxSize, idxCmp, idxFlag := u(4), u(5), u(6), u(7)
	cntPos, cntSize, cntCmp, cntFlag := u(9), u(10), u(11), u(12)
	hash2Total := u(14)
	hashArraySize := uint64(u(17))
	flagCount := u(18)
	for _, c := range []uint32{cntPos, cntSize, cntCmp, cntFlag, hash2Total} {
		if c > 64 {
			return nil, fmt.Errorf("a field of %d bits", c)
		}
	}
	rest := b[76:]
	if uint64(flagCount)*4 > uint64(len(rest)) {
		return nil, fmt.Errorf("%d flags do not fit", flagCount)
	}
	flags := make([]uint32, flagCount)
	for i := range flags {
		flags[i] = le.Uint32(rest[i*4:])
	}
	rest = rest[flagCount*4:]
	// Every field must lie inside an entry, and an entry must have bits: else a count could
	// ask for blocks no table holds.
	if entryBits == 0 || entryBits > 256 {
		return nil, fmt.Errorf("entries of %d bits", entryBits)
	}
	for _, f := range [][2]uint32{{idxPos, cntPos}, {idxSize, cntSize}, {idxCmp, cntCmp}, {idxFlag, cntFlag}} {
		if uint64(f[0])+uint64(f[1]) > uint64(entryBits) {
			return nil, fmt.Errorf("a field of %d bits at bit %d of entries of %d bits", f[1], f[0], entryBits)
		}
	}
	tableBytes := (uint64(count)*uint64(entryBits) + 7) / 8
	if tableBytes > uint64(len(rest)) || uint64(count) > archiveSize/16+1 {
		return nil, fmt.Errorf("%d entries of %d bits do not fit", count, entryBits)
	}
	table := bitArray(rest[:tableBytes])
	rest = rest[tableBytes:]
	hashArraySize = min(hashArraySize, uint64(len(rest)))
	bt := &bet{blocks: make([]block, count), nameHash2: bitArray(rest[:hashArraySize]), hash2Bits: hash2Total}
	for i := range bt.blocks {
		base := uint64(i) * uint64(entryBits)
		blk := block{
			pos:   table.get(base+uint64(idxPos), cntPos),
			fsize: table.get(base+uint64(idxSize), cntSize),
			csize: table.get(base+uint64(idxCmp), cntCmp),
		}
		if fi := table.get(base+uint64(idxFlag), cntFlag); fi < uint64(len(flags)) {
			blk.flags = flags[fi]
		}
		if blk.fsize > 1<<32-1 || blk.csize > archiveSize {
			blk.flags &^= flagExists // sizes no archive of this length can hold
		}
		bt.blocks[i] = blk
	}
	return bt, nil
}

// lookupHET finds the block of a name through the HET table.
func (a *Archive) lookupHET(name string) (int, bool) {
	h := a.het
	and := ^uint64(0)
	if h.hashBits < 64 {
		and = 1<<h.hashBits - 1
	}
	bi, ok := h.byHash[crypt.Jenkins64(name)&and|1<<(h.hashBits-1)]
	return bi, ok
}
