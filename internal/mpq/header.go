package mpq

import (
	"fmt"
	"io"
)

const (
	sigArchive  = "MPQ\x1a"
	sigUserData = "MPQ\x1b"

	headerSizeV1 = 0x20
	headerSizeV2 = 0x2C
	headerSizeV3 = 0x44
	headerSizeV4 = 0xD0
)

// header is the archive header, widened to format 4's fields. Positions are relative to the
// header's own offset in the file (base).
type header struct {
	base          int64 // where the header starts in the file
	format        int   // 1 to 4
	sectorShift   uint16
	hashPos       uint64
	blockPos      uint64
	hiBlockPos    uint64
	hashCount     uint32
	blockCount    uint32
	hetPos        uint64
	betPos        uint64
	hetSize       uint64 // format 4 only; 0 when not given
	betSize       uint64
	archiveSize   uint64 // format 3 and later
	declaredFmt   uint16 // the version field as stored
	declaredSize  uint32 // the header size field as stored
	forcedFormat1 bool   // the header was read as format 1 whatever it claimed
}

// findHeader looks for the archive header at every 512-byte boundary, as the games do: after
// a Warcraft III map's own 512-byte header, after a user-data block, or anywhere in a file
// that carries an archive inside it.
func (a *Archive) findHeader() (header, error) {
	const chunk = 64 << 10 // scan in chunks: one read per 128 boundaries
	buf := make([]byte, chunk)
	for start := int64(0); start < a.size; start += chunk {
		n, err := a.r.ReadAt(buf, start)
		if n < len(buf) && err != nil && err != io.EOF {
			return header{}, a.errorf(start, err, "reading")
		}
		for i := 0; i+4 <= n; i += 512 {
			off := start + int64(i)
			switch string(buf[i : i+4]) {
			case sigArchive:
				if h, err := a.readHeader(off); err == nil {
					return h, nil
				} else {
					a.warn(err)
				}
			case sigUserData:
				if a.opts.Map {
					continue // Warcraft III ignores user data; protectors plant fake ones
				}
				// The user-data block names where its archive's header is.
				var ud [16]byte
				if _, err := a.r.ReadAt(ud[:], off); err != nil {
					continue
				}
				target := off + int64(le.Uint32(ud[8:]))
				if target > off && target%512 == 0 && target < a.size {
					var sig [4]byte
					if _, err := a.r.ReadAt(sig[:], target); err == nil && string(sig[:]) == sigArchive {
						if h, err := a.readHeader(target); err == nil {
							return h, nil
						}
					}
				}
			}
		}
	}
	return header{}, a.errorf(-1, nil, "no MPQ header at any 512-byte boundary")
}

// readHeader reads the header at off. A header whose version or size is out of range, and
// every Warcraft III map's header (the game reads only format 1's fields and protectors fill
// the rest with noise), is read as format 1.
func (a *Archive) readHeader(off int64) (header, error) {
	var b [headerSizeV4]byte
	n, _ := a.r.ReadAt(b[:], off)
	if n < headerSizeV1 {
		return header{}, a.errorf(off, nil, "header truncated: %d of %d bytes", n, headerSizeV1)
	}
	h := header{
		base:         off,
		declaredSize: le.Uint32(b[4:]),
		declaredFmt:  le.Uint16(b[12:]),
		sectorShift:  le.Uint16(b[14:]),
		hashPos:      uint64(le.Uint32(b[16:])),
		blockPos:     uint64(le.Uint32(b[20:])),
		hashCount:    le.Uint32(b[24:]),
		blockCount:   le.Uint32(b[28:]),
	}
	if h.declaredSize < headerSizeV1 {
		return header{}, a.errorf(off+4, nil, "header size %d is below the %d of format 1", h.declaredSize, headerSizeV1)
	}
	h.format = int(h.declaredFmt) + 1
	need := [...]uint32{0, headerSizeV1, headerSizeV2, headerSizeV3, headerSizeV4}
	if h.format > 4 || a.opts.Map || h.declaredSize < need[h.format] || uint32(n) < need[h.format] {
		h.forcedFormat1 = h.format != 1 || h.declaredSize != headerSizeV1
		h.format = 1
	}
	if a.opts.Map {
		// As Warcraft III reads a map: the low byte of the sector size, counts of 28 bits.
		h.sectorShift &= 0xFF
		h.hashCount &= 0x0FFFFFFF
		h.blockCount &= 0x0FFFFFFF
	}
	if h.format == 1 {
		// Format 1 positions are 32-bit and wrap; a header whose tables would start past the
		// end is a decoy, and the search goes on.
		for _, pos := range []uint64{h.hashPos, h.blockPos} {
			if int64(uint32(uint64(off)+pos)) > a.size {
				return header{}, a.errorf(off, nil, "a decoy header: its tables would start past the end")
			}
		}
	}
	if h.format >= 2 {
		h.hiBlockPos = le.Uint64(b[32:])
		h.hashPos |= uint64(le.Uint16(b[40:])) << 32
		h.blockPos |= uint64(le.Uint16(b[42:])) << 32
	}
	if h.format >= 3 {
		h.archiveSize = le.Uint64(b[44:])
		h.betPos = le.Uint64(b[52:])
		h.hetPos = le.Uint64(b[60:])
	}
	if h.format >= 4 {
		h.hetSize = le.Uint64(b[92:])
		h.betSize = le.Uint64(b[100:])
	}
	if h.sectorShift > maxSectorShift {
		return h, a.errorf(off+14, nil, "sector size 512<<%d is beyond the %d bytes this reader accepts", h.sectorShift, 512<<maxSectorShift)
	}
	return h, nil
}

// maxSectorShift caps the sector size (and so the memory one sector costs) at 16 MiB; the
// games use 4 KiB.
const maxSectorShift = 15

// storedSize is the size of the extended table at pos: given by a format 4 header, else (format
// 3) up to the next table, as StormLib derives it, the tables lying in the order HET, BET, hash
// table, block table, high block table; 0 when it cannot be told.
func (h header) storedSize(pos, given uint64) uint64 {
	if given != 0 {
		return given
	}
	next := uint64(0)
	for _, p := range []uint64{h.hetPos, h.betPos, h.hashPos, h.blockPos, h.hiBlockPos, h.archiveSize} {
		if p > pos && (next == 0 || p < next) {
			next = p
		}
	}
	if next == 0 {
		return 0
	}
	return next - pos
}

func (h header) String() string {
	return fmt.Sprintf("format %d at offset %d, sectors of %d bytes", h.format, h.base, 512<<h.sectorShift)
}
