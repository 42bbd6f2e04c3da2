package mpq

import (
	"io"
	"io/fs"
	"sync"
	"time"
)

// member is what reading one member needs: where its units are and how they are stored.
type member struct {
	a       *Archive
	n       *node
	b       block
	start   int64 // absolute position of the member's data
	size    int64 // uncompressed size
	key     uint32
	sectors []uint32 // offsets of the sectors within the member, compressed members only
}

// openNode checks a member's block against the archive and reads its sector table.
func (a *Archive) openNode(n *node) (*member, error) {
	if n.block < 0 || n.block >= len(a.blocks) {
		return nil, a.memberErr(n, -1, nil, "no block %d", n.block)
	}
	b := a.blocks[n.block]
	m := &member{a: a, n: n, b: b, start: a.abs(b.pos), size: int64(b.fsize)}
	// Format 1 members are checked sector by sector: protectors give sizes that lie and
	// sectors at offsets that wrap.
	if m.start < 0 || m.start > a.size || a.hdr.format > 1 && (b.pos > uint64(a.size) || b.csize > uint64(a.size-m.start)) {
		return nil, a.memberErr(n, m.start, nil, "data (%d bytes at %d) lies past the end of the archive (%d bytes)", b.csize, m.start, a.size)
	}
	if !m.compressed() && !m.single() && b.fsize > b.csize {
		return nil, a.memberErr(n, m.start, nil, "stored as is, yet %d bytes from %d stored", b.fsize, b.csize)
	}
	if b.flags&flagPatch != 0 {
		return nil, a.memberErr(n, m.start, nil, "an incremental patch file; only its base in an earlier archive can be read")
	}
	if b.flags&flagEncrypted != 0 {
		if n.arcName != "" && !n.unnamed {
			m.key = fileKey(n.arcName, b.pos, uint32(b.fsize), b.flags&flagFixKey != 0)
		} else if k, ok := a.guessKeyOf(m); ok {
			m.key = k
		} else {
			return nil, a.memberErr(n, m.start, nil, "encrypted, and its name (the key) is not known")
		}
	}
	if m.compressed() && !m.single() && m.size > 0 {
		if m.sectors = a.tables.get(n.block, m.key); m.sectors == nil {
			if err := m.readSectorTable(); err != nil {
				return nil, err
			}
			a.tables.put(n.block, m.key, m.sectors)
		}
	}
	return m, nil
}

// sectorTables keeps the sector tables read, so that opening a big member again does not
// read its table again (a 50 MB member has 12,800 sectors). They are dropped all at once when
// they pass maxTableEntries.
type sectorTables struct {
	mu      sync.Mutex
	m       map[tableKey][]uint32
	entries int
}

// tableKey names a sector table: its block, and the key it was deciphered with (two names may
// reach one block).
type tableKey struct {
	block int
	key   uint32
}

const maxTableEntries = 4 << 20 // 16 MiB

func (t *sectorTables) get(block int, key uint32) []uint32 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.m[tableKey{block, key}]
}

func (t *sectorTables) put(block int, key uint32, table []uint32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil || t.entries+len(table) > maxTableEntries {
		t.m, t.entries = map[tableKey][]uint32{}, 0
	}
	t.m[tableKey{block, key}] = table
	t.entries += len(table)
}

func (a *Archive) memberErr(n *node, off int64, cause error, format string, args ...any) *Error {
	e := a.errorf(off, cause, format, args...)
	e.File = a.opts.Name + ":" + n.arcName
	return e
}

func (m *member) compressed() bool { return m.b.flags&(flagCompress|flagImplode) != 0 }
func (m *member) single() bool     { return m.b.flags&flagSingleUnit != 0 }
func (m *member) encrypted() bool  { return m.b.flags&flagEncrypted != 0 }
func (m *member) sectorSize() int64 {
	return int64(512) << m.a.hdr.sectorShift
}

// sectorCount is the number of sectors of the uncompressed member.
func (m *member) sectorCount() int64 {
	ss := m.sectorSize()
	return (m.size + ss - 1) / ss
}

// readSectorTable reads and checks the offsets of a compressed member's sectors: one more
// than there are sectors (the end of the last), and one more again when sector checksums
// follow the data.
func (m *member) readSectorTable() error {
	n := m.sectorCount() + 1
	if m.b.flags&flagSectorCRC != 0 {
		n++
	}
	if n*4 > int64(m.b.csize) && m.a.hdr.format > 1 || n*4 > m.a.size-m.start {
		return m.a.memberErr(m.n, m.start, nil, "sector table of %d entries is larger than the member's %d stored bytes", n, m.b.csize)
	}
	raw := make([]byte, n*4)
	if _, err := m.a.r.ReadAt(raw, m.start); err != nil {
		return m.a.memberErr(m.n, m.start, err, "reading the sector table")
	}
	if m.encrypted() {
		decrypt(raw, m.key-1)
	}
	m.sectors = make([]uint32, n)
	for i := range m.sectors {
		m.sectors[i] = le.Uint32(raw[i*4:])
	}
	if m.a.hdr.format == 1 {
		return nil // each sector is checked when read (see sectorSpan)
	}
	last := m.sectorCount()
	for i := int64(0); i < last; i++ {
		if m.sectors[i] > m.sectors[i+1] || uint64(m.sectors[i+1]) > m.b.csize {
			return m.a.memberErr(m.n, m.start+i*4, nil, "sector %d spans %d to %d, outside the member's %d stored bytes", i, m.sectors[i], m.sectors[i+1], m.b.csize)
		}
	}
	return nil
}

// sectorSpan is where compressed sector i lies in the file. In format 1, offsets are 32-bit
// and wrap, as the games compute them; a sector longer than twice the sector size or past the
// end of the file is refused.
func (m *member) sectorSpan(i int64) (at, n int64, err error) {
	if m.a.hdr.format > 1 {
		return m.start + int64(m.sectors[i]), int64(m.sectors[i+1] - m.sectors[i]), nil
	}
	at = m.a.abs(m.b.pos + uint64(m.sectors[i]))
	n = int64(m.sectors[i+1] - m.sectors[i]) // uint32 arithmetic: wraps as the games' does
	if n > 2*m.sectorSize() || at+n > m.a.size {
		return 0, 0, m.a.memberErr(m.n, m.start+i*4, nil, "sector %d (%d bytes at %d) lies outside the archive", i, n, at)
	}
	return at, n, nil
}

// guessKeyOf recovers the key of an encrypted member with no known name.
func (a *Archive) guessKeyOf(m *member) (uint32, bool) {
	if !m.compressed() || m.single() {
		return 0, false
	}
	n := m.sectorCount() + 1
	var enc [8]byte
	if _, err := a.r.ReadAt(enc[:], m.start); err != nil {
		return 0, false
	}
	max := uint32(min(m.b.csize, 1<<32-1))
	for _, entries := range []int64{n, n + 1} {
		if k, ok := guessKey(enc[:], uint32(entries*4), max); ok {
			return k, true
		}
	}
	return 0, false
}

// unit reads and decodes unit i (a sector, or the whole of a single-unit member).
// buf, for plain sectors, has room for one.
func (m *member) unit(i int64, buf []byte) ([]byte, error) {
	ss := m.sectorSize()
	if m.single() {
		ss = m.size
	}
	want := min(ss, m.size-i*ss)
	if limit := m.a.unitLimit(); want > limit {
		return nil, m.a.memberErr(m.n, m.start, nil, "a sector of %d bytes is more than this reader decodes at once (%d)", want, limit)
	}
	var raw []byte
	var at int64
	switch {
	case m.single():
		at = m.start
		if m.b.csize > uint64(m.a.size-at) {
			return nil, m.a.memberErr(m.n, at, nil, "%d stored bytes run past the end of the archive", m.b.csize)
		}
		raw = make([]byte, m.b.csize)
	case m.compressed():
		var n int64
		var err error
		if at, n, err = m.sectorSpan(i); err != nil {
			return nil, err
		}
		raw = make([]byte, n)
	default:
		at = m.a.abs(m.b.pos + uint64(i*ss))
		if uint64(i*ss+want) > m.b.csize || at+want > m.a.size {
			return nil, m.a.memberErr(m.n, at, nil, "sector %d lies past the member's %d stored bytes", i, m.b.csize)
		}
		raw = buf[:want]
	}
	if _, err := m.a.r.ReadAt(raw, at); err != nil {
		return nil, m.a.memberErr(m.n, at, err, "reading sector %d", i)
	}
	if m.encrypted() {
		decrypt(raw, m.key+uint32(i))
	}
	if !m.compressed() || int64(len(raw)) >= want {
		if int64(len(raw)) < want {
			return nil, m.a.memberErr(m.n, at, nil, "sector %d holds %d of %d bytes", i, len(raw), want)
		}
		return raw[:want], nil
	}
	// Where both are set, the compression byte wins, as in StormLib.
	out, note, err := decompress(raw, int(want), m.b.flags&(flagImplode|flagCompress) == flagImplode)
	if err != nil {
		return nil, m.a.memberErr(m.n, at, err, "sector %d", i)
	}
	if note != "" {
		m.a.noteRead(m.n, m.a.memberErr(m.n, at, nil, "sector %d: %s; taken, as the game takes it", i, note))
	}
	return out, nil
}

// unitLimit caps what one unit (a sector, or a single-unit member) may decode to: 1 MiB, or
// 64 times the archive up to 1 GiB, so that a size that lies cannot ask for more memory than
// the archive could plausibly hold.
func (a *Archive) unitLimit() int64 {
	return max(1<<20, min(1<<30, 64*a.size))
}

// File is an open member. ReadAt decodes only the sectors a read covers, keeping the last
// few decoded.
type File struct {
	m   *member
	mu  sync.Mutex
	off int64
	// cache holds recently decoded units, the most recent first.
	cache [cacheUnits]cachedUnit
}

const cacheUnits = 4

type cachedUnit struct {
	i    int64
	data []byte
}

// Read reads from the current offset.
func (f *File) Read(p []byte) (int, error) {
	off := f.offset()
	n, err := f.ReadAt(p, off)
	f.setOffset(off + int64(n))
	return n, err
}

func (f *File) offset() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.off
}

func (f *File) setOffset(off int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.off = off
}

// Seek sets the offset of the next Read.
func (f *File) Seek(offset int64, whence int) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch whence {
	case io.SeekCurrent:
		offset += f.off
	case io.SeekEnd:
		offset += f.m.size
	}
	if offset < 0 {
		return 0, &fs.PathError{Op: "seek", Path: f.m.n.path, Err: fs.ErrInvalid}
	}
	f.off = offset
	return offset, nil
}

// ReadAt reads len(p) bytes at off.
func (f *File) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, &fs.PathError{Op: "read", Path: f.m.n.path, Err: fs.ErrInvalid}
	}
	ss := f.m.sectorSize()
	if f.m.single() {
		ss = max(f.m.size, 1)
	}
	// One read at a time per File: the cache's buffers are reused.
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for n < len(p) && off < f.m.size {
		i := off / ss
		data, err := f.decoded(i)
		if err != nil {
			return n, err
		}
		c := copy(p[n:], data[off-i*ss:])
		n += c
		off += int64(c)
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// decoded returns unit i, from the cache or decoded into the oldest entry's memory.
func (f *File) decoded(i int64) ([]byte, error) {
	for k, c := range f.cache {
		if c.data != nil && c.i == i {
			copy(f.cache[1:k+1], f.cache[:k])
			f.cache[0] = c
			return c.data, nil
		}
	}
	// Plain sectors are read into the oldest entry's memory; decompression makes its own.
	var buf []byte
	if !f.m.single() && !f.m.compressed() {
		unit := min(f.m.sectorSize(), f.m.size, f.m.a.unitLimit())
		if buf = f.cache[cacheUnits-1].data; int64(cap(buf)) < unit {
			buf = make([]byte, 0, unit)
		}
	}
	data, err := f.m.unit(i, buf[:cap(buf)])
	if err != nil {
		return nil, err
	}
	copy(f.cache[1:], f.cache[:cacheUnits-1])
	f.cache[0] = cachedUnit{i: i, data: data}
	return data, nil
}

// Close releases nothing: a File holds no descriptor of its own.
func (f *File) Close() error { return nil }

// Stat describes the member.
func (f *File) Stat() (fs.FileInfo, error) { return fileInfo{f.m.n, f.m.size}, nil }

type fileInfo struct {
	n    *node
	size int64
}

func (fi fileInfo) Name() string {
	if fi.n.path == "." {
		return "."
	}
	return fi.n.name
}
func (fi fileInfo) Size() int64 { return fi.size }
func (fi fileInfo) Mode() fs.FileMode {
	if fi.n.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (fi fileInfo) ModTime() time.Time { return time.Time{} }
func (fi fileInfo) IsDir() bool        { return fi.n.dir }
func (fi fileInfo) Sys() any           { return nil }
