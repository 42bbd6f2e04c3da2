package zipfs

import (
	"bufio"
	"bytes"
	"container/list"
	"errors"
	"hash/crc32"
	"io"
	"io/fs"
	"sync"
	"time"

	"github.com/klauspost/compress/flate"

	"github.com/modelfs/modelfs/internal/archive"
)

// Reading members. An open member is a stream over its bytes: a deflated one is inflated as
// far as the reads ask, into a window that keeps the last window bytes made, so that reads a
// little out of order (the kernel's read-ahead) are served from it; a read before the window
// starts the stream again. A stored one reads from the archive where it asks. Whatever reads
// a member from its start to its end has its size and checksum checked at the end, and so has
// every whole read (readAll).

const (
	window    = 512 << 10 // bytes of a deflated member kept behind its stream
	chunk     = 16 << 10  // inflated at a time
	firstRead = 1 << 20   // the most a whole read allocates before its bytes arrive
)

// stateCost is what one stream's state holds: its window, the inflater's own window and
// tables, and the buffer of stored bytes it reads through.
const stateCost = window + 48<<10 + 32<<10

// budget bounds the memory the streams of every open member take at once: beyond it the
// least recently read stream lets its state go and starts again when read next. (A variable
// for the tests.)
var budget = &streams{limit: 64 << 20}

// member is an open member.
type member struct {
	a    *Archive
	i    int32 // its node
	e    *entry
	data int64 // where its stored bytes start

	mu  sync.Mutex
	off int64 // where Read reads next
	err error // what a read met: every read after it fails alike
	// In-order checking, for stored members: the bytes read from the start so far.
	seq int64
	crc uint32
	st  *stream // a deflated member's stream; nil until read, or taken back by the budget
	el  *list.Element
	// used is when the stream was read last (guarded by budget.mu)
	used time.Time
	// empty: a member of no bytes was found to be so
	empty bool
}

// stream is a deflated member's place in its bytes.
type stream struct {
	in     *bufio.Reader
	fr     io.ReadCloser
	win    *[window]byte // the last bytes made: byte x at win[x%window]
	pos    int64         // bytes made
	filled int64         // of them, how many the window holds
	crc    uint32
}

// openMember opens the member node i, its local header checked.
func (a *Archive) openMember(i int32) (*member, error) {
	e := &a.entries[a.t.nodes[i].entry]
	if err := a.refusal(i); err != nil {
		return nil, err
	}
	data, err := a.dataOffset(i, e)
	if err != nil {
		return nil, err
	}
	return &member{a: a, i: i, e: e, data: data}, nil
}

// dataOffset reads the local header of the member node i, checks it against the central
// directory and the next member's place, and returns where the member's bytes start.
func (a *Archive) dataOffset(i int32, e *entry) (int64, error) {
	var h [localLen]byte
	if _, err := a.r.ReadAt(h[:], e.off); err != nil {
		return 0, a.memberErr(i, e.off, err, "reading its local header")
	}
	if le.Uint32(h[:]) != sigLocal {
		return 0, a.memberErr(i, e.off, nil, "no local header where the central directory says")
	}
	flags, method := le.Uint16(h[6:]), le.Uint16(h[8:])
	crc, csize, usize := le.Uint32(h[14:]), le.Uint32(h[18:]), le.Uint32(h[22:])
	data := e.off + localLen + int64(le.Uint16(h[26:])) + int64(le.Uint16(h[28:]))
	end := data + int64(e.csize)
	if e.flags&flagDescriptor != 0 {
		end += 12
	}
	if end > e.limit {
		return 0, a.memberErr(i, e.off, nil, "its %d stored bytes at %d run into the next member's (at %d)", e.csize, data, e.limit)
	}
	if method != e.method {
		return 0, a.memberErr(i, e.off, nil, "its local header says method %d, the central directory %d", method, e.method)
	}
	if flags&flagDescriptor == 0 && e.flags&flagDescriptor == 0 && csize != 0xffffffff && usize != 0xffffffff &&
		(uint64(csize) != e.csize || uint64(usize) != e.usize || crc != e.crc) {
		return 0, a.memberErr(i, e.off, nil, "its local header says %d bytes from %d stored (checksum %08x), the central directory %d from %d (%08x)",
			usize, csize, crc, e.usize, e.csize, e.crc)
	}
	return data, nil
}

// readAll reads the member node i whole: its memory grows as its bytes arrive, from at most
// firstRead, and it is an error when they are not the size and checksum the archive gives.
func (a *Archive) readAll(i int32) ([]byte, error) {
	m, err := a.openMember(i)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	size := int64(m.e.usize)
	buf := bytes.NewBuffer(make([]byte, 0, min(size, firstRead)))
	var r io.Reader = io.NewSectionReader(a.r, m.data, int64(m.e.csize))
	if m.e.method == methodDeflate {
		fr := inflater(bufio.NewReaderSize(r, 32<<10))
		defer flatePool.Put(fr)
		r = fr
	}
	if _, err := buf.ReadFrom(io.LimitReader(r, size+1)); err != nil {
		return nil, m.readErr(err, int64(buf.Len()))
	}
	if err := m.verify(int64(buf.Len()), crc32.ChecksumIEEE(buf.Bytes()), 0); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// readErr is the error of a stream that failed after made bytes.
func (m *member) readErr(err error, made int64) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return m.a.memberErr(m.i, m.data, nil, "its stored bytes end after %d of its %d bytes", made, m.e.usize)
	}
	return m.a.memberErr(m.i, m.data, err, "after %d of its %d bytes", made, m.e.usize)
}

// verify checks a member read to its end: made bytes (one more than its size when the stream
// went on past it) whose checksum is crc, and the data descriptor when it has one. extra is
// what the stream made past the end, read apart.
func (m *member) verify(made int64, crc uint32, extra int) error {
	e := m.e
	switch {
	case made > int64(e.usize) || extra > 0:
		return m.a.memberErr(m.i, m.data, nil, "its stored bytes make more than its %d bytes", e.usize)
	case made < int64(e.usize):
		return m.a.memberErr(m.i, m.data, nil, "its stored bytes end after %d of its %d bytes", made, e.usize)
	case crc != e.crc:
		return m.a.memberErr(m.i, m.data, nil, "checksum %08x, where the archive says %08x", crc, e.crc)
	}
	if e.flags&flagDescriptor == 0 {
		return nil
	}
	at := m.data + int64(e.csize)
	var d [24]byte
	n, _ := m.a.r.ReadAt(d[:min(int64(len(d)), e.limit-at)], at)
	b := d[:n]
	if len(b) >= 4 && le.Uint32(b) == sigDescriptor {
		b = b[4:]
	}
	ok := len(b) >= 4 && le.Uint32(b) == e.crc
	if ok && len(b) >= 12 && (uint64(le.Uint32(b[4:])) != e.csize || uint64(le.Uint32(b[8:])) != e.usize) {
		// The sizes may be 8 bytes each (zip64), which the archive does not say.
		ok = len(b) >= 20 && le.Uint64(b[4:]) == e.csize && le.Uint64(b[12:]) == e.usize
	}
	if !ok {
		return m.a.memberErr(m.i, at, nil, "its data descriptor does not say the checksum %08x and sizes %d and %d of the central directory", e.crc, e.csize, e.usize)
	}
	return nil
}

func (m *member) Stat() (fs.FileInfo, error) { fi := m.a.info(m.i); return &fi, nil }

// Close lets the member's stream go; reads after it fail.
func (m *member) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	budget.drop(m)
	m.err = fs.ErrClosed
	return nil
}

// Read reads on from where the last Read ended.
func (m *member) Read(p []byte) (int, error) {
	off := m.where()
	n, err := m.ReadAt(p, off)
	m.Seek(off+int64(n), io.SeekStart)
	return n, err
}

// where is where Read reads next.
func (m *member) where() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.off
}

// Seek sets where Read reads next.
func (m *member) Seek(offset int64, whence int) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch whence {
	case io.SeekCurrent:
		offset += m.off
	case io.SeekEnd:
		offset += int64(m.e.usize)
	}
	if offset < 0 {
		return 0, &fs.PathError{Op: "seek", Path: m.a.t.path(m.i), Err: fs.ErrInvalid}
	}
	m.off = offset
	return offset, nil
}

// ReadAt reads len(p) bytes at off.
func (m *member) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, &fs.PathError{Op: "read", Path: m.a.t.path(m.i), Err: fs.ErrInvalid}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return 0, m.err
	}
	size := int64(m.e.usize)
	if size == 0 && !m.empty {
		// Nothing to read, and still its stored bytes must make nothing, with its checksum.
		if _, err := m.a.readAll(m.i); err != nil {
			m.err = err
			return 0, err
		}
		m.empty = true
	}
	if off >= size {
		return 0, io.EOF
	}
	want := len(p)
	p = p[:min(int64(len(p)), size-off)]
	var n int
	var err error
	if m.e.method == methodStore {
		n, err = m.readStored(p, off)
	} else {
		n, err = m.inflateAt(p, off)
	}
	if err != nil {
		m.err = err
		return n, err
	}
	if n < want {
		return n, io.EOF
	}
	return n, nil
}

// readStored reads a stored member's bytes where they are, checking them when read in order
// to the end.
func (m *member) readStored(p []byte, off int64) (int, error) {
	n, err := m.a.r.ReadAt(p, m.data+off)
	if n < len(p) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return n, m.readErr(err, off+int64(n))
	}
	if off == m.seq {
		m.crc = crc32.Update(m.crc, crc32.IEEETable, p)
		m.seq += int64(n)
		if m.seq == int64(m.e.usize) {
			return n, m.verify(m.seq, m.crc, 0)
		}
	}
	return n, nil
}

// inflateAt serves len(p) bytes at off from the stream: from its window, making more as
// needed; from a new stream when off lies before the window.
func (m *member) inflateAt(p []byte, off int64) (int, error) {
	if m.st == nil {
		budget.take(m)
	} else {
		budget.touch(m)
	}
	s := m.st
	if off < s.pos-s.filled {
		s.restart(m)
	}
	served := 0
	for {
		served += s.copyOut(p[served:], off+int64(served))
		if served == len(p) {
			return served, nil
		}
		if err := s.produce(m); err != nil {
			return served, err
		}
	}
}

// copyOut copies what the window holds of the bytes at off into p.
func (s *stream) copyOut(p []byte, off int64) int {
	if off < s.pos-s.filled || off >= s.pos {
		return 0
	}
	n := 0
	for n < len(p) && off < s.pos {
		at := off % window
		k := copy(p[n:], s.win[at:min(window, at+(s.pos-off))])
		n += k
		off += int64(k)
	}
	return n
}

// produce inflates the next chunk into the window; at the member's end it checks it.
func (s *stream) produce(m *member) error {
	size := int64(m.e.usize)
	at := s.pos % window
	buf := s.win[at : at+min(chunk, window-at, size-s.pos)]
	n, err := io.ReadFull(s.fr, buf)
	s.crc = crc32.Update(s.crc, crc32.IEEETable, buf[:n])
	s.pos += int64(n)
	s.filled = min(s.filled+int64(n), window)
	if err != nil {
		return m.readErr(err, s.pos)
	}
	if s.pos < size {
		return nil
	}
	var one [1]byte
	k, err := s.fr.Read(one[:])
	if err != nil && err != io.EOF {
		return m.readErr(err, s.pos)
	}
	return m.verify(s.pos, s.crc, k)
}

// restart starts the stream at the member's first byte.
func (s *stream) restart(m *member) {
	s.in.Reset(io.NewSectionReader(m.a.r, m.data, int64(m.e.csize)))
	s.fr.(flate.Resetter).Reset(s.in, nil)
	s.pos, s.filled, s.crc = 0, 0, 0
}

// flatePool keeps inflaters for reuse: one costs some 40 KB to make.
var flatePool sync.Pool

// inflater returns an inflater reading r.
func inflater(r io.Reader) io.ReadCloser {
	if fr, ok := flatePool.Get().(io.ReadCloser); ok {
		fr.(flate.Resetter).Reset(r, nil)
		return fr
	}
	return flate.NewReader(r)
}

// streams is the budget of the streams' states, and which was read last.
type streams struct {
	mu    sync.Mutex
	lru   list.List // of *member with a stream, the most recently read first
	held  int64
	limit int64
}

// take gives m, which has none, a stream at its start, letting go of the least recently read
// others' while the budget is passed. m.mu is held.
func (b *streams) take(m *member) {
	s := &stream{win: windowPool.Get().(*[window]byte), in: bufio.NewReaderSize(nil, 32<<10)}
	s.in.Reset(io.NewSectionReader(m.a.r, m.data, int64(m.e.csize)))
	s.fr = inflater(s.in)
	m.st = s
	b.mu.Lock()
	defer b.mu.Unlock()
	m.el, m.used = b.lru.PushFront(m), time.Now()
	b.held += stateCost
	archive.Charge(stateCost)
	// Past the budget, the streams read least recently let their state go, but only those
	// not read for a while: taking one from a reader in the middle of a member would make it
	// start again at every read (more readers than the budget holds would inflate each member
	// over and over). With none idle, the budget is passed: the readers themselves bound it.
	now := time.Now()
	for el := b.lru.Back(); el != nil && b.held > b.limit; {
		v := el.Value.(*member)
		prev := el.Prev()
		if v != m && now.Sub(v.used) >= idleAfter && v.mu.TryLock() {
			b.release(v)
			v.mu.Unlock()
		}
		el = prev
	}
}

// touch notes that m was read. m.mu is held.
func (b *streams) touch(m *member) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.lru.MoveToFront(m.el)
	m.used = time.Now()
}

// idleAfter is how long a stream goes unread before the budget may take it back. (A variable
// for the tests.)
var idleAfter = 2 * time.Second

// drop lets go of m's stream, if it has one. m.mu is held.
func (b *streams) drop(m *member) {
	if m.st == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.release(m)
}

// release lets go of m's stream; b.mu and m.mu are held.
func (b *streams) release(m *member) {
	b.lru.Remove(m.el)
	b.held -= stateCost
	archive.Charge(-stateCost)
	windowPool.Put(m.st.win)
	flatePool.Put(m.st.fr)
	m.st, m.el = nil, nil
}

// windowPool keeps streams' windows for reuse.
var windowPool = sync.Pool{New: func() any { return new([window]byte) }}
