// Package pngenc writes the PNG documents modelfs serves beside each texture (NAME.EXT.png) and
// embeds in .glb files.
//
// It is a writer made for speed, since a large texture's PNG is what a listing of its folder
// waits for. It picks the smallest colour type that holds the image exactly: a palette for a
// paletted image (with its alpha as tRNS), grey or grey and alpha where every pixel is grey, RGB
// where every pixel is opaque, else RGBA. Palette and grey rows are stored unfiltered, colour
// rows with one fixed filter (see colourFilter), rather than trying every filter on every row as
// image/png does. The filtered rows are cut into pieces of about pieceBytes, each deflated on
// its own at the fastest level by as many goroutines as there are cores and written as its own
// IDAT chunk; the zlib checksum is combined from the pieces'. The pieces are cut by size alone,
// so the bytes do not depend on the number of cores: the same image gives the same file.
package pngenc

import (
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"hash/crc32"
	"image"
	"image/color"
	"image/draw"
	"runtime"
	"sync"

	"github.com/klauspost/compress/flate"
)

// Colour types (PNG's IHDR).
const (
	ctGray      = 0
	ctRGB       = 2
	ctPalette   = 3
	ctGrayAlpha = 4
	ctRGBA      = 6
)

// Row filters.
const (
	ftNone = 0
	ftUp   = 2
)

// pieceBytes is about how many bytes of filtered rows are deflated together: small enough to
// share a large image among cores, large enough that cutting the stream costs little (each
// piece starts without the previous one's history).
const pieceBytes = 1 << 20

// layout is how an image is written.
type layout struct {
	ct     byte
	bpp    int // bytes a pixel
	filter byte
	w, h   int
	// row writes row y's pixels (without the filter byte) into dst, which has w·bpp bytes.
	row        func(dst []byte, y int)
	plte, trns []byte
}

// Encode encodes img as PNG, deterministically: the same image gives the same bytes.
func Encode(img image.Image) ([]byte, error) {
	if b := img.Bounds(); b.Dx() <= 0 || b.Dy() <= 0 || b.Dx() >= 1<<31 || b.Dy() >= 1<<31 {
		return nil, fmt.Errorf("pngenc: an image of %d×%d pixels", b.Dx(), b.Dy())
	}
	return plan(img).encode(), nil
}

// plan chooses how img is written.
func plan(img image.Image) *layout {
	b := img.Bounds()
	l := &layout{w: b.Dx(), h: b.Dy()}
	switch m := img.(type) {
	case *image.Paletted:
		if len(m.Palette) > 0 && len(m.Palette) <= 256 {
			l.ct, l.bpp, l.filter = ctPalette, 1, ftNone
			l.palette(m.Palette)
			l.row = func(dst []byte, y int) {
				i := m.PixOffset(b.Min.X, b.Min.Y+y)
				copy(dst, m.Pix[i:i+l.w])
			}
			return l
		}
		return plan(toNRGBA(img))
	case *image.Gray:
		l.ct, l.bpp, l.filter = ctGray, 1, ftNone
		l.row = func(dst []byte, y int) {
			i := m.PixOffset(b.Min.X, b.Min.Y+y)
			copy(dst, m.Pix[i:i+l.w])
		}
		return l
	case *image.NRGBA:
		l.nrgba(m)
		return l
	}
	return plan(toNRGBA(img))
}

func toNRGBA(img image.Image) *image.NRGBA {
	b := img.Bounds()
	m := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(m, m.Rect, img, b.Min, draw.Src)
	return m
}

// palette sets PLTE and tRNS from p, tRNS cut after its last translucent entry. PLTE has 256
// entries, the ones past p black, so that no index is past it (which decoders refuse).
func (l *layout) palette(p color.Palette) {
	l.plte = make([]byte, 0, 3*256)
	trns := make([]byte, len(p))
	last := -1
	for i, c := range p {
		n := color.NRGBAModel.Convert(c).(color.NRGBA)
		l.plte = append(l.plte, n.R, n.G, n.B)
		trns[i] = n.A
		if n.A != 255 {
			last = i
		}
	}
	if last >= 0 {
		l.trns = trns[:last+1]
	}
	l.plte = l.plte[:3*256]
}

// nrgba plans an NRGBA image: grey and opaque are found in one pass.
func (l *layout) nrgba(m *image.NRGBA) {
	b := m.Rect
	opaque, grey := true, true
	for y := b.Min.Y; y < b.Max.Y && (opaque || grey); y++ {
		i := m.PixOffset(b.Min.X, y)
		px := m.Pix[i : i+4*l.w]
		for j := 0; j+3 < len(px); j += 4 {
			p := px[j : j+4 : j+4]
			if p[3] != 255 {
				opaque = false
			}
			if p[0] != p[1] || p[1] != p[2] {
				grey = false
			}
		}
	}
	rowAt := func(y int) []byte {
		i := m.PixOffset(b.Min.X, b.Min.Y+y)
		return m.Pix[i : i+4*l.w]
	}
	switch {
	case grey && opaque:
		l.ct, l.bpp, l.filter = ctGray, 1, ftNone
		l.row = func(dst []byte, y int) {
			src := rowAt(y)
			for x := range dst {
				dst[x] = src[4*x]
			}
		}
	case grey:
		l.ct, l.bpp, l.filter = ctGrayAlpha, 2, ftNone
		l.row = func(dst []byte, y int) {
			src := rowAt(y)
			for x := 0; x < l.w; x++ {
				dst[2*x], dst[2*x+1] = src[4*x], src[4*x+3]
			}
		}
	case opaque:
		l.ct, l.bpp, l.filter = ctRGB, 3, colourFilter
		l.row = func(dst []byte, y int) {
			src := rowAt(y)
			for x := 0; x < l.w; x++ {
				s := src[4*x : 4*x+3 : 4*x+3]
				d := dst[3*x : 3*x+3 : 3*x+3]
				d[0], d[1], d[2] = s[0], s[1], s[2]
			}
		}
	default:
		l.ct, l.bpp, l.filter = ctRGBA, 4, colourFilter
		l.row = func(dst []byte, y int) { copy(dst, rowAt(y)) }
	}
}

// colourFilter is the one filter colour rows get. Up costs a subtraction a byte and, on the
// large-texture fixture, compressed smaller than image/png's choice among all five per row.
const colourFilter = ftUp

// piece is one run of rows, filtered and deflated.
type piece struct {
	y0, y1 int
	out    []byte
	adler  uint32
	raw    int
}

// encode writes the file.
func (l *layout) encode() []byte {
	stride := 1 + l.w*l.bpp
	rows := max(1, pieceBytes/stride)
	var pieces []*piece
	for y := 0; y < l.h; y += rows {
		pieces = append(pieces, &piece{y0: y, y1: min(l.h, y+rows)})
	}
	if len(pieces) == 1 { // a small picture (a model's painted ones): no goroutine
		l.deflate(pieces[0], true, stride)
	} else {
		l.deflateAll(pieces, stride)
	}

	size := 8 + 25 + 12 + 2 + 4 // signature, IHDR, IEND, the zlib header and checksum
	if l.plte != nil {
		size += 12 + len(l.plte)
	}
	if l.trns != nil {
		size += 12 + len(l.trns)
	}
	for _, p := range pieces {
		size += 12 + len(p.out)
	}
	out := make([]byte, 0, size)
	out = append(out, "\x89PNG\r\n\x1a\n"...)
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(l.w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(l.h))
	ihdr[8], ihdr[9] = 8, l.ct
	out = chunk(out, "IHDR", ihdr[:])
	if l.plte != nil {
		out = chunk(out, "PLTE", l.plte)
	}
	if l.trns != nil {
		out = chunk(out, "tRNS", l.trns)
	}
	// The zlib stream: its header with the first piece, the checksum with the last.
	adler := uint32(1)
	for i, p := range pieces {
		var head, tail []byte
		if i == 0 {
			head = []byte{0x78, 0x01}
		}
		adler = adlerCombine(adler, p.adler, int64(p.raw))
		if i == len(pieces)-1 {
			tail = binary.BigEndian.AppendUint32(nil, adler)
		}
		out = chunk(out, "IDAT", head, p.out, tail)
		p.out = nil
	}
	return chunk(out, "IEND", nil)
}

// deflateAll deflates the pieces on as many goroutines as there are cores.
func (l *layout) deflateAll(pieces []*piece, stride int) {
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(len(pieces), runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				l.deflate(pieces[i], i == len(pieces)-1, stride)
			}
		}()
	}
	for i := range pieces {
		work <- i
	}
	close(work)
	wg.Wait()
}

// chunk appends a PNG chunk whose data is the parts one after another.
func chunk(out []byte, tag string, parts ...[]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out = binary.BigEndian.AppendUint32(out, uint32(n))
	start := len(out)
	out = append(out, tag...)
	for _, p := range parts {
		out = append(out, p...)
	}
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out[start:]))
}

// deflaters keeps compressors, about 1 MB of state each, from one piece to the next; rawBufs
// the pieces' filtered rows.
var (
	deflaters = sync.Pool{New: func() any {
		w, _ := flate.NewWriter(nil, flate.BestSpeed)
		return w
	}}
	rawBufs, outBufs sync.Pool
)

// fixedBuf is an io.Writer into a slice made large enough for anything deflate writes, so that
// it never grows (growing left garbage of twice the output).
type fixedBuf struct{ b []byte }

func (f *fixedBuf) Write(p []byte) (int, error) {
	f.b = append(f.b, p...)
	return len(p), nil
}

// deflateBound is more than deflate writes for n bytes at any level: stored blocks cost 5 bytes
// in 65535, and the flush or final block a few more.
func deflateBound(n int) int { return n + n/16000*5 + 64 }

// deflate filters and deflates p's rows: a stream ended by a flush (a byte-aligned empty
// block), or for the last piece a final block, so that the pieces join into one stream.
func (l *layout) deflate(p *piece, last bool, stride int) {
	n := (p.y1 - p.y0) * stride
	raw, _ := rawBufs.Get().(*[]byte)
	if raw == nil || cap(*raw) < n {
		b := make([]byte, n)
		raw = &b
	}
	rows := (*raw)[:n]
	prev := make([]byte, stride-1)
	cur := make([]byte, stride-1)
	if p.y0 > 0 && l.filter != ftNone {
		l.row(prev, p.y0-1)
	}
	for y := p.y0; y < p.y1; y++ {
		dst := rows[(y-p.y0)*stride : (y-p.y0+1)*stride]
		dst[0] = l.filter
		if l.filter == ftNone {
			l.row(dst[1:], y)
			continue
		}
		l.row(cur, y)
		filterRow(dst[1:], cur, prev, l.filter, y == 0)
		prev, cur = cur, prev
	}
	p.adler, p.raw = adler32.Checksum(rows), n
	out, _ := outBufs.Get().(*fixedBuf)
	if out == nil || cap(out.b) < deflateBound(n) {
		out = &fixedBuf{b: make([]byte, 0, deflateBound(n))}
	}
	out.b = out.b[:0]
	w := deflaters.Get().(*flate.Writer)
	w.Reset(out)
	w.Write(rows) // a fixedBuf does not fail
	if last {
		w.Close()
	} else {
		w.Flush()
	}
	w.Reset(nil)
	deflaters.Put(w)
	rawBufs.Put(raw)
	// Kept at its length until the file is assembled; the scratch goes back for the next piece.
	p.out = append([]byte(nil), out.b...)
	outBufs.Put(out)
}

// filterRow writes cur filtered by f (Up) against prev, the row above; the first row has none
// above, so Up stores it as it is.
func filterRow(dst, cur, prev []byte, f byte, first bool) {
	if f != ftUp || first {
		copy(dst, cur)
		return
	}
	for i := range cur {
		dst[i] = cur[i] - prev[i]
	}
}

// adlerMod is Adler-32's modulus.
const adlerMod = 65521

// adlerCombine returns the Adler-32 of A followed by B from a (A's), b (B's) and B's length.
// The running sum of B's bytes starts, after A, from a's low half rather than 1, which adds
// (aLow − 1) to B's high half once per byte of B.
func adlerCombine(a, b uint32, lenB int64) uint32 {
	aLo, aHi := uint64(a&0xffff), uint64(a>>16)
	bLo, bHi := uint64(b&0xffff), uint64(b>>16)
	n := uint64(lenB % adlerMod)
	lo := (aLo + bLo + adlerMod - 1) % adlerMod
	hi := (aHi + bHi + n*((aLo+adlerMod-1)%adlerMod)) % adlerMod
	return uint32(hi<<16 | lo)
}
