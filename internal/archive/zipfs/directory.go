package zipfs

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"time"
	"unicode/utf8"
)

// The archive's central directory, read once when it is opened, in pieces: every member's
// name, sizes and place, checked against one another and against the archive's length before
// a byte of a member is read. A member whose sizes cannot be true, or whose bytes overlap
// another's, is refused here: it is listed, at size 0, and opening it says why.

// Signatures and lengths of the records (APPNOTE.TXT 4.3).
const (
	sigLocal      = 0x04034b50
	sigCentral    = 0x02014b50
	sigEnd        = 0x06054b50
	sigEnd64      = 0x06064b50
	sigLocator64  = 0x07064b50
	sigDescriptor = 0x08074b50

	localLen     = 30
	centralLen   = 46
	endLen       = 22
	end64Len     = 56
	locator64Len = 20
)

// Compression methods read, and flags.
const (
	methodStore   = 0
	methodDeflate = 8

	flagEncrypted  = 1 << 0
	flagDescriptor = 1 << 3 // sizes and checksum follow the data
	flagUTF8       = 1 << 11
)

// deflateRatio is the most deflate can make of one byte: a match of 258 bytes coded in 2 bits.
// A member claiming more than that of its stored bytes claims what it cannot hold.
const deflateRatio = 1032

// entry is one member as the central directory describes it.
type entry struct {
	off    int64 // its local header, from the start of the archive
	limit  int64 // where the next member (or the central directory) starts: its bytes end before
	csize  uint64
	usize  uint64
	mtime  int64 // seconds since 1970, UTC
	crc    uint32
	method uint16
	flags  uint16
	bad    refusal
	other  int32 // with refusedOverlap, the node of the member whose bytes it shares
}

// refusal is why a member is not read.
type refusal uint8

const (
	refusedNone refusal = iota
	refusedEncrypted
	refusedMethod
	refusedStored   // stored, yet its sizes differ
	refusedTooLarge // larger than MaxMember
	refusedRatio    // more than it could be made of its bytes, or than the archive could hold
	refusedPastEnd  // its bytes run into the central directory or past the archive
	refusedOverlap  // its bytes are another member's
)

// directory is what the central directory says.
type directory struct {
	base    int64 // where the archive's offsets count from (data prepended: a self-extractor)
	start   int64 // of the central directory, from the start of the file
	size    int64
	records int64 // as the end record says; the directory's own length wins
}

// findEnd locates the end of central directory record (and its zip64 form) in the last
// 64 KiB of the archive.
func findEnd(r io.ReaderAt, size int64) (directory, error) {
	tail := min(size, endLen+0xffff)
	buf := make([]byte, tail)
	if _, err := r.ReadAt(buf, size-tail); err != nil && err != io.EOF {
		return directory{}, fmt.Errorf("reading the end of the archive: %w", err)
	}
	at := -1
	for i := len(buf) - endLen; i >= 0; i-- {
		if le.Uint32(buf[i:]) == sigEnd && i+endLen+int(le.Uint16(buf[i+20:])) <= len(buf) {
			at = i
			break
		}
	}
	if at < 0 {
		return directory{}, fmt.Errorf("no end of central directory record")
	}
	rec := buf[at:]
	endAt := size - tail + int64(at)
	d := directory{records: int64(le.Uint16(rec[10:])), size: int64(le.Uint32(rec[12:])), start: int64(le.Uint32(rec[16:]))}
	dirEnd := endAt
	if d.records == 0xffff || d.size == 0xffffffff || d.start == 0xffffffff {
		if at64, ok := find64(r, endAt); ok {
			var b [end64Len]byte
			if _, err := r.ReadAt(b[:], at64); err != nil {
				return directory{}, fmt.Errorf("reading the zip64 end record at %d: %w", at64, err)
			}
			d.records, d.size, d.start = int64(min(le.Uint64(b[32:]), 1<<62)), int64(min(le.Uint64(b[40:]), 1<<62)), int64(min(le.Uint64(b[48:]), 1<<62))
			dirEnd = at64
		}
	}
	if d.size > dirEnd || d.start > dirEnd-d.size {
		return directory{}, fmt.Errorf("central directory of %d bytes at %d runs past its end record at %d", d.size, d.start, dirEnd)
	}
	// Offsets count from the archive's start; data prepended to it (a self-extractor) shifts
	// them all, unless the directory is where the end record says.
	d.base = dirEnd - d.size - d.start
	if d.base > 0 {
		var b [4]byte
		if _, err := r.ReadAt(b[:], d.start); err == nil && le.Uint32(b[:]) == sigCentral {
			d.base = 0
		}
	}
	d.start += d.base
	return d, nil
}

// find64 returns where the zip64 end record is, from the locator just before the end record:
// where the locator says, or where it is when the archive has data prepended (the locator
// counts from the archive's own start), just before the locator.
func find64(r io.ReaderAt, endAt int64) (int64, bool) {
	last := endAt - locator64Len - end64Len // where the record ends just before the locator
	if last < 0 {
		return 0, false
	}
	var b [locator64Len]byte
	if _, err := r.ReadAt(b[:], endAt-locator64Len); err != nil || le.Uint32(b[:]) != sigLocator64 {
		return 0, false
	}
	if at := le.Uint64(b[8:]); at <= uint64(last) && isEnd64(r, int64(at)) {
		return int64(at), true
	}
	return last, isEnd64(r, last)
}

// isEnd64 reports whether a zip64 end record starts at at.
func isEnd64(r io.ReaderAt, at int64) bool {
	var sig [4]byte
	_, err := r.ReadAt(sig[:], at)
	return err == nil && le.Uint32(sig[:]) == sigEnd64
}

// readDirectory reads every record of the central directory d of the archive a, placing each
// member in b's tree and its entry in a.entries.
func (a *Archive) readDirectory(d directory, b *builder) error {
	br := bufio.NewReaderSize(io.NewSectionReader(a.r, d.start, d.size), 64<<10)
	var fixed [centralLen]byte
	var name, extra []byte
	for at := d.start; at < d.start+d.size; {
		if _, err := io.ReadFull(br, fixed[:]); err != nil {
			return a.errorf(at, err, "central directory record %d", len(a.entries))
		}
		h := fixed[:]
		if le.Uint32(h) != sigCentral {
			return a.errorf(at, nil, "central directory record %d has no signature", len(a.entries))
		}
		nameLen, extraLen, commentLen := int(le.Uint16(h[28:])), int(le.Uint16(h[30:])), int(le.Uint16(h[32:]))
		name = grow(name, nameLen)
		extra = grow(extra, extraLen)
		if _, err := io.ReadFull(br, name); err != nil {
			return a.errorf(at, err, "central directory record %d", len(a.entries))
		}
		if _, err := io.ReadFull(br, extra); err != nil {
			return a.errorf(at, err, "central directory record %d", len(a.entries))
		}
		if _, err := br.Discard(commentLen); err != nil {
			return a.errorf(at, err, "central directory record %d", len(a.entries))
		}
		e := entry{
			flags:  le.Uint16(h[8:]),
			method: le.Uint16(h[10:]),
			mtime:  dosTime(le.Uint16(h[14:]), le.Uint16(h[12:])),
			crc:    le.Uint32(h[16:]),
			csize:  uint64(le.Uint32(h[20:])),
			usize:  uint64(le.Uint32(h[24:])),
			off:    int64(le.Uint32(h[42:])),
		}
		readExtra(&e, extra)
		e.off += d.base
		at += int64(centralLen + nameLen + extraLen + commentLen)
		raw := string(name)
		if e.flags&flagUTF8 != 0 && !utf8.ValidString(raw) {
			b.warn("member %q says its name is UTF-8, and it is not", raw)
		}
		elems, ok := splitName(raw)
		if !ok {
			if len(raw) > 0 && raw != "./" && raw != "/" {
				b.warn("member %q names no place inside the archive; left out", raw)
			}
			continue
		}
		if raw[len(raw)-1] == '/' || raw[len(raw)-1] == '\\' {
			b.add(raw, elems, -1)
			continue
		}
		a.entries = append(a.entries, e)
		b.add(raw, elems, int32(len(a.entries)-1))
	}
	return nil
}

// grow returns b resized to n bytes.
func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

// readExtra takes what the extra fields of a central record change: zip64 sizes and offset,
// and the modification time in seconds.
func readExtra(e *entry, extra []byte) {
	for len(extra) >= 4 {
		id, n := le.Uint16(extra), int(le.Uint16(extra[2:]))
		if n > len(extra)-4 {
			return
		}
		f := extra[4 : 4+n]
		extra = extra[4+n:]
		switch id {
		case 0x0001: // zip64: each field present only when its 32-bit one is all ones
			if e.usize == 0xffffffff && len(f) >= 8 {
				e.usize, f = le.Uint64(f), f[8:]
			}
			if e.csize == 0xffffffff && len(f) >= 8 {
				e.csize, f = le.Uint64(f), f[8:]
			}
			if e.off == 0xffffffff && len(f) >= 8 {
				e.off = int64(min(le.Uint64(f), 1<<62))
			}
		case 0x5455: // extended timestamp: flags, then the modification time when bit 0
			if len(f) >= 5 && f[0]&1 != 0 {
				e.mtime = int64(int32(le.Uint32(f[1:])))
			}
		}
	}
}

// dosTime is an MS-DOS date and time, taken as UTC (a zip does not say its zone).
func dosTime(date, tm uint16) int64 {
	return time.Date(int(date>>9)+1980, time.Month(date>>5&0xf), int(date&0x1f),
		int(tm>>11), int(tm>>5&0x3f), int(tm&0x1f)*2, 0, time.UTC).Unix()
}

// check refuses the members whose sizes cannot be true, and those whose bytes overlap another
// shown member's (the bomb of many members made of one stream), and sets every member's
// limit. Only the members the tree shows take part: a member a later one of its name hides is
// never read.
func (a *Archive) check(t *tree, d directory) {
	maxUnpacked := uint64(max(1<<20, min(MaxMember, 64*a.size)))
	shown := make([]int32, 0, len(a.entries))
	nodeOf := make(map[int32]int32, len(a.entries)) // entry → its node, for the overlaps' names
	for i := range t.nodes {
		if e := t.nodes[i].entry; e >= 0 {
			shown = append(shown, e)
			nodeOf[e] = int32(i)
		}
	}
	placed := shown[:0:0]
	for _, i := range shown {
		e := &a.entries[i]
		// Where its bytes lie first: a member whose bytes cannot be in the archive takes no
		// part in the overlaps, whatever else is wrong with it.
		if e.off < 0 || e.csize > uint64(d.start) || e.off > d.start-localLen-int64(e.csize) {
			e.bad = refusedPastEnd
			continue
		}
		placed = append(placed, i)
		switch {
		case e.flags&flagEncrypted != 0:
			e.bad = refusedEncrypted
		case e.method != methodStore && e.method != methodDeflate:
			e.bad = refusedMethod
		case e.method == methodStore && e.csize != e.usize:
			e.bad = refusedStored
		case e.usize > MaxMember:
			e.bad = refusedTooLarge
		case e.usize > maxUnpacked || e.method == methodDeflate && e.usize > deflateRatio*(e.csize+1):
			e.bad = refusedRatio
		}
	}
	// In the order of their places: each member's bytes end before the next one's header.
	// Where they do not, the archive says two things of the same bytes, and neither member
	// is read: one of them lies, or both are made of one stream (a zip bomb).
	slices.SortFunc(placed, func(x, y int32) int {
		return cmp.Or(cmp.Compare(a.entries[x].off, a.entries[y].off), cmp.Compare(x, y))
	})
	holder, reach := int32(-1), int64(0) // the member whose bytes reach farthest so far, and where to
	for k, i := range placed {
		e := &a.entries[i]
		e.limit = d.start
		if k+1 < len(placed) {
			e.limit = a.entries[placed[k+1]].off
		}
		if holder >= 0 && e.off < reach {
			e.bad, e.other = refusedOverlap, nodeOf[holder]
			if h := &a.entries[holder]; h.bad == refusedNone {
				h.bad, h.other = refusedOverlap, nodeOf[i]
			}
		}
		if end := e.off + minSpan(e); holder < 0 || end > reach {
			holder, reach = i, end
		}
	}
}

// minSpan is the fewest bytes the member e takes in the archive: a local header without a
// name, its stored bytes, and the shortest data descriptor when it has one.
func minSpan(e *entry) int64 {
	n := localLen + int64(e.csize)
	if e.flags&flagDescriptor != 0 {
		n += 12
	}
	return n
}

// le reads the archive's little-endian numbers.
var le = binary.LittleEndian
