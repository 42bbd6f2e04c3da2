package vfs

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"sync"

	"github.com/modelfs/modelfs/cache"
	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
)

// A .glb embeds the PNGs of its textures, which are the textures' own documents too (the
// NAME.EXT.png files). So that a texture twenty models embed is held once, in memory and in the
// disk tier, the .glb is kept as a pieced document: its own bytes, and for each PNG it embeds
// a reference to the texture version whose document it is. A read puts the pieces back
// together, finding each PNG in the memory tier, the disk tier or, when both have let it go,
// by translating the texture again (the same bytes: the key names the texture's content).
//
// The stored form, which the tiers hold in place of the document:
//
//	magic | uvarint size | uvarint count | count × piece
//	piece: 0 | uvarint n | n bytes                        bytes of the document itself
//	       1 | string name | key (32 bytes) | uvarint n  the PNG of texture name's version key

// piecedMagic starts a stored pieced document. No document of a kind that may be pieced starts
// so (a .glb starts with "glTF").
const piecedMagic = "modelfs\x01"

// maxPieces bounds the pieces of one stored document, far above what a model embeds.
const maxPieces = 1 << 16

// Doc is the content of a virtual document as the tiers give it: its bytes, in one piece or in
// several laid one after another (a .glb and the PNGs it embeds, which are its textures' own
// documents), each piece the tier's own memory (translate.Doc is an encoder's output, before
// the tiers). The bytes are shared and must not be changed.
type Doc struct {
	pieces [][]byte
	size   int64
}

// wholeDoc is the Doc of one slice.
func wholeDoc(b []byte) Doc { return Doc{pieces: [][]byte{b}, size: int64(len(b))} }

// Size is the document's length.
func (d Doc) Size() int64 { return d.size }

// Bytes returns the document in one slice: its one piece, or its pieces joined in new memory.
func (d Doc) Bytes() []byte {
	if len(d.pieces) == 1 {
		return d.pieces[0]
	}
	return bytes.Join(d.pieces, nil)
}

// Slice returns the n bytes at off (fewer at the end) without copying them when they lie in
// one piece; ok is false when they do not.
func (d Doc) Slice(off, n int64) (b []byte, ok bool) {
	if off < 0 || n < 0 {
		return nil, false
	}
	if off >= d.size {
		return nil, true
	}
	n = min(n, d.size-off)
	for _, p := range d.pieces {
		if off >= int64(len(p)) {
			off -= int64(len(p))
			continue
		}
		if off+n <= int64(len(p)) {
			return p[off : off+n], true
		}
		return nil, false
	}
	return nil, true
}

// errOffset is the error of a read or write at a negative offset.
var errOffset = errors.New("vfs: negative offset")

// ReadAt implements io.ReaderAt.
func (d Doc) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errOffset
	}
	n := 0
	for _, q := range d.pieces {
		if len(p) == n {
			break
		}
		if off >= int64(len(q)) {
			off -= int64(len(q))
			continue
		}
		n += copy(p[n:], q[off:])
		off = 0
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// WriteTo writes the document to w.
func (d Doc) WriteTo(w io.Writer) (int64, error) { return d.WriteFrom(w, 0) }

// WriteFrom writes the document from off on to w, from where its bytes are.
func (d Doc) WriteFrom(w io.Writer, off int64) (int64, error) {
	if off < 0 {
		return 0, errOffset
	}
	var n int64
	for _, p := range d.pieces {
		if off >= int64(len(p)) {
			off -= int64(len(p))
			continue
		}
		m, err := w.Write(p[off:])
		n += int64(m)
		if err != nil {
			return n, err
		}
		off = 0
	}
	return n, nil
}

// Equal reports whether b holds the document's bytes.
func (d Doc) Equal(b []byte) bool {
	if int64(len(b)) != d.size {
		return false
	}
	for _, p := range d.pieces {
		if !bytes.Equal(p, b[:len(p)]) {
			return false
		}
		b = b[len(p):]
	}
	return true
}

// Reader returns a reader of the document.
func (d Doc) Reader() *io.SectionReader { return io.NewSectionReader(d, 0, d.size) }

// sharedPNG is a texture's PNG a translation embedded: the texture and its version's key.
type sharedPNG struct {
	name string
	key  cache.Key
	size int
}

// sharing is the textures' PNGs a model's translation embedded as their own versions' (see
// sharedPNG), by where their bytes are: a document that embeds one is kept pieced.
type sharing struct {
	mu   sync.Mutex
	pngs map[*byte]sharedPNG
}

// note notes that png is the PNG of the texture version s.
func (sh *sharing) note(png []byte, s sharedPNG) {
	if len(png) == 0 {
		return
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.pngs == nil {
		sh.pngs = map[*byte]sharedPNG{}
	}
	sh.pngs[&png[0]] = s
}

// sharedOf reports whether p is a texture's PNG the translation embedded.
func (sh *sharing) sharedOf(p []byte) (sharedPNG, bool) {
	if len(p) == 0 {
		return sharedPNG{}, false
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	s, ok := sh.pngs[&p[0]]
	return s, ok && s.size == len(p)
}

// piecedForm is the stored form of doc, whose pieces that are texture PNGs shared identifies,
// and the document d it gives, whose other pieces are b's own memory (so that a caller holding
// d does not hold the encoder's copy beside the tier's); ok is false when no piece is shared,
// and the document is kept whole.
func piecedForm(doc translate.Doc, shared func([]byte) (sharedPNG, bool)) (b []byte, d Doc, ok bool) {
	refs, size := 0, len(piecedMagic)+2*binary.MaxVarintLen64
	for _, p := range doc {
		if s, ok := shared(p); ok {
			refs++
			size += 1 + 2*binary.MaxVarintLen64 + len(s.name) + len(s.key)
		} else {
			size += 1 + binary.MaxVarintLen64 + len(p)
		}
	}
	if refs == 0 || len(doc) > maxPieces {
		return nil, Doc{}, false
	}
	b = make([]byte, 0, size)
	b = append(b, piecedMagic...)
	b = binary.AppendUvarint(b, uint64(doc.Len()))
	b = binary.AppendUvarint(b, uint64(len(doc)))
	at := make([]int, len(doc)) // where each piece of its own starts in b; -1 for a shared one
	for i, p := range doc {
		if s, ok := shared(p); ok {
			b = append(b, 1)
			b = appendString(b, s.name)
			b = append(b, s.key[:]...)
			b = binary.AppendUvarint(b, uint64(len(p)))
			at[i] = -1
			continue
		}
		b = append(b, 0)
		b = binary.AppendUvarint(b, uint64(len(p)))
		at[i] = len(b)
		b = append(b, p...)
	}
	d = Doc{pieces: make([][]byte, len(doc)), size: int64(doc.Len())}
	for i, p := range doc {
		if at[i] >= 0 {
			p = b[at[i] : at[i]+len(p) : at[i]+len(p)]
		}
		d.pieces[i] = p
	}
	return b, d, true
}

// isPieced reports whether b, as a tier holds it, is a stored pieced document.
func isPieced(b []byte) bool { return bytes.HasPrefix(b, []byte(piecedMagic)) }

// mayBePieced reports whether the documents of kind may be kept pieced: those that embed PNGs,
// whose bytes never start with piecedMagic. A document of another kind is always whole, so
// that one of its bytes cannot be taken for a stored form.
func mayBePieced(kind translate.Kind) bool { return kind == translate.GLB }

// piecedSize is the length of the document b stores, when b is a stored pieced document.
func piecedSize(b []byte) (int64, bool) {
	if !isPieced(b) {
		return 0, false
	}
	d := decoder{b: b[len(piecedMagic):]}
	n := d.uvarint()
	return int64(n), !d.bad && n <= 1<<62
}

// storedSize is the length of the document b stores.
func storedSize(b []byte) int64 {
	if n, ok := piecedSize(b); ok {
		return n
	}
	return int64(len(b))
}

// docOf puts the document of kind b stores back together; ok is false when a piece it refers
// to can no longer be had (ctx ended while its texture was translated again), or b is damaged.
func (f *Tree) docOf(ctx context.Context, sp space, kind translate.Kind, b []byte) (Doc, bool) {
	if !mayBePieced(kind) || !isPieced(b) {
		return wholeDoc(b), true
	}
	d := decoder{b: b[len(piecedMagic):]}
	size := d.uvarint()
	n := d.count(2)
	if d.bad || n > maxPieces {
		return Doc{}, false
	}
	doc := Doc{pieces: make([][]byte, 0, n)}
	for range n {
		switch d.byte() {
		case 0:
			m := d.uvarint()
			if d.bad || m > uint64(len(d.b)) {
				return Doc{}, false
			}
			doc.pieces = append(doc.pieces, d.b[:m:m])
			d.b = d.b[m:]
		case 1:
			s := sharedPNG{name: d.string()}
			if len(d.b) < len(s.key) {
				return Doc{}, false
			}
			d.b = d.b[copy(s.key[:], d.b):]
			m := d.uvarint()
			if d.bad {
				return Doc{}, false
			}
			png, ok := f.pngOf(ctx, sp, s, m)
			if !ok {
				return Doc{}, false
			}
			doc.pieces = append(doc.pieces, png)
		default:
			return Doc{}, false
		}
		doc.size += int64(len(doc.pieces[len(doc.pieces)-1]))
	}
	if d.bad || len(d.b) != 0 || uint64(doc.size) != size {
		return Doc{}, false
	}
	return doc, true
}

// pngOf returns the PNG of the texture version s, a source of sp, n bytes long: from the
// memory tier, the disk tier, or the texture's translation when the texture is still that
// version.
func (f *Tree) pngOf(ctx context.Context, sp space, s sharedPNG, n uint64) ([]byte, bool) {
	if !codec.ValidName(s.name) || !codec.IsTextureName(s.name) {
		return nil, false // a damaged entry: nothing else is looked at
	}
	mk := memKey(versionID(s.key, nil), translate.PNG)
	if b, ok := f.mem.Get(mk); ok && !translate.IsFailurePNG(b) {
		return b, uint64(len(b)) == n
	}
	if f.disk != nil {
		if e, err := f.disk.Get(s.key); err == nil {
			b, err := e.Read(kindName(translate.PNG))
			e.Close()
			if err != nil {
				f.diskError(err)
			} else if uint64(len(b)) == n && !translate.IsFailurePNG(b) {
				f.memPut(mk, b)
				return b, true
			}
		} else {
			f.diskError(err)
		}
	}
	v, doc, err := f.getIn(ctx, sp, s.name, nil, translate.PNG, needBytes)
	if err != nil || v.key != s.key || uint64(doc.size) != n || len(doc.pieces) != 1 {
		return nil, false
	}
	return doc.pieces[0], true
}
