package mpq

import "io"

// Block flags.
const (
	flagImplode      = 0x00000100 // PKWARE-imploded, without a compression byte
	flagCompress     = 0x00000200 // each sector starts with a byte naming its compressions
	flagEncrypted    = 0x00010000
	flagFixKey       = 0x00020000 // the key is adjusted by the member's position and size
	flagPatch        = 0x00100000 // an incremental patch of a file in an earlier archive
	flagSingleUnit   = 0x01000000 // one unit, no sectors
	flagDeleteMarker = 0x02000000 // hides the same name in earlier archives of a chain
	flagSectorCRC    = 0x04000000
	flagExists       = 0x80000000
)

// Hash table entries whose block index means "never used" (a probe stops) or "deleted" (a
// probe goes on).
const (
	hashFree    = 0xFFFFFFFF
	hashDeleted = 0xFFFFFFFE
)

type hashEntry struct {
	nameA, nameB uint32
	locale       uint16
	block        uint32
}

type block struct {
	pos          uint64 // relative to the header
	csize, fsize uint64
	flags        uint32
}

// tableBytes reads count entries of size bytes at pos (relative to the header) and deciphers
// them with the key of the table's name. Protected maps give counts that run past the end:
// what is missing reads as zeros, deciphered with the rest (as the games read it, which makes
// it entries that match nothing), up to four times the archive; beyond that the table is cut.
func (a *Archive) tableBytes(what string, pos uint64, count uint64, size int, keyName string) ([]byte, error) {
	start := a.abs(pos)
	if pos >= uint64(a.size)+1<<32 || start >= a.size || start < 0 {
		if count == 0 {
			return nil, nil
		}
		return nil, a.errorf(start, nil, "%s at %d is past the end of the archive (%d bytes)", what, start, a.size)
	}
	if limit := uint64(4*a.size+64<<10) / uint64(size); count > limit {
		a.warn(a.errorf(start, nil, "%s of %d entries is far larger than the archive; read %d", what, count, limit))
		count = limit
	}
	b := make([]byte, count*uint64(size))
	n, err := a.r.ReadAt(b, start)
	if n < len(b) {
		if err != nil && err != io.EOF {
			return nil, a.errorf(start, err, "reading the %s", what)
		}
		a.warn(a.errorf(start, nil, "%s of %d entries runs past the end of the archive: %d entries read", what, count, n/size))
	}
	if keyName != "" {
		decrypt(b, hashString(keyName, hashKey))
	}
	return b, nil
}

// readClassicTables reads the hash table, the block table and (format 2 and later) the high
// 16 bits of each block's position.
func (a *Archive) readClassicTables() error {
	hb, err := a.tableBytes("hash table", a.hdr.hashPos, uint64(a.hdr.hashCount), 16, "(hash table)")
	if err != nil {
		return err
	}
	a.hashes = make([]hashEntry, len(hb)/16)
	a.names = make(map[[2]uint32]bool)
	for i := range a.hashes {
		e := hb[i*16:]
		a.hashes[i] = hashEntry{nameA: le.Uint32(e), nameB: le.Uint32(e[4:]), locale: le.Uint16(e[8:]), block: le.Uint32(e[12:])}
		if a.opts.Map && a.hashes[i].block < hashDeleted {
			a.hashes[i].block &= 0x0FFFFFFF
		}
		if a.hashes[i].block < hashDeleted {
			a.names[[2]uint32{a.hashes[i].nameA, a.hashes[i].nameB}] = true
		}
	}
	bb, err := a.tableBytes("block table", a.hdr.blockPos, uint64(a.hdr.blockCount), 16, "(block table)")
	if err != nil {
		return err
	}
	a.blocks = make([]block, len(bb)/16)
	for i := range a.blocks {
		e := bb[i*16:]
		a.blocks[i] = block{pos: uint64(le.Uint32(e)), csize: uint64(le.Uint32(e[4:])), fsize: uint64(le.Uint32(e[8:])), flags: le.Uint32(e[12:])}
		if a.opts.Map {
			a.blocks[i].flags &^= flagSingleUnit | flagPatch // flags Warcraft III does not know
		}
	}
	if a.hdr.hiBlockPos != 0 {
		hi, err := a.tableBytes("high block table", a.hdr.hiBlockPos, uint64(len(a.blocks)), 2, "")
		if err != nil {
			a.warn(err)
		}
		for i := 0; i < len(hi)/2; i++ {
			a.blocks[i].pos |= uint64(le.Uint16(hi[i*2:])) << 32
		}
	}
	return nil
}

// lookup finds the block of a name through the hash table, preferring the neutral locale.
func (a *Archive) lookup(name string) (int, bool) {
	if a.het != nil {
		return a.lookupHET(name)
	}
	n := uint32(len(a.hashes))
	na, nb := hashString(name, hashNameA), hashString(name, hashNameB)
	// A name no slot holds is answered at once: a protected map's table may have no free
	// slot to stop a probe, and a listfile of a million names would walk it a million times.
	if n == 0 || !a.names[[2]uint32{na, nb}] {
		return 0, false
	}
	declared := a.hdr.hashCount
	start := hashString(name, hashIndex)
	if declared&(declared-1) == 0 {
		start &= declared - 1
	} else {
		start %= declared
	}
	found := -1
	for i := uint32(0); i < n; i++ {
		e := a.hashes[(start+i)%n]
		if e.block == hashFree {
			break
		}
		if e.nameA == na && e.nameB == nb && e.block != hashDeleted && int(e.block) < len(a.blocks) {
			if e.locale == 0 {
				return int(e.block), true
			}
			if found < 0 {
				found = int(e.block)
			}
		}
	}
	return found, found >= 0
}
