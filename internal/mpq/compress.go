package mpq

import (
	"bytes"
	"compress/bzip2"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/ulikunitz/xz/lzma"
)

// Compression bits of a sector's first byte.
const (
	compHuffman     = 0x01
	compZlib        = 0x02
	compPKWare      = 0x08
	compBzip2       = 0x10
	compLZMA        = 0x12 // a value of its own, never combined
	compSparse      = 0x20
	compADPCMMono   = 0x40
	compADPCMStereo = 0x80
)

// stages lists the compressions in the order a sector's are undone: the reverse of the order
// they were applied in (sparse and ADPCM work on the raw data, the others on what those made).
var stages = []struct {
	bit  byte
	name string
	undo func(in []byte, limit int) ([]byte, error)
}{
	{compBzip2, "bzip2", unBzip2},
	{compPKWare, "PKWARE implode", explode},
	{compZlib, "zlib", unZlib},
	{compHuffman, "Huffman", unHuffman},
	{compADPCMStereo, "ADPCM stereo", func(in []byte, limit int) ([]byte, error) { return unADPCM(in, limit, 2) }},
	{compADPCMMono, "ADPCM mono", func(in []byte, limit int) ([]byte, error) { return unADPCM(in, limit, 1) }},
	{compSparse, "sparse", unSparse},
}

const knownBits = compHuffman | compZlib | compPKWare | compBzip2 | compSparse | compADPCMMono | compADPCMStereo

// errOverrun is returned by a stage whose output would pass its limit: the sector's size
// is the most any stage may produce, which is what stops decompression bombs.
var errOverrun = errors.New("decompresses to more than the sector holds")

// errChecksum is what a stage returns with its whole output when only the stream's own
// checksum is wrong: zlib's Adler-32. The games and StormLib take such data (a Warcraft III
// map's listfile sector was seen so), and so does decompress, when the sector comes out at
// its size, with a note.
var errChecksum = errors.New("checksum of the compressed stream is wrong")

// decompress decodes one sector, which must come out at exactly want bytes. note, when not
// empty, says what was wrong with a sector taken all the same.
func decompress(in []byte, want int, imploded bool) (out []byte, note string, err error) {
	switch {
	case imploded:
		out, err = explode(in, want)
	case len(in) == 0:
		return nil, "", errors.New("empty sector")
	case in[0] == compLZMA:
		out, err = unLZMA(in[1:], want)
	case in[0]&^knownBits != 0:
		return nil, "", fmt.Errorf("unknown compression 0x%02x", in[0])
	default:
		mask, data := in[0], in[1:]
		for _, s := range stages {
			if mask&s.bit == 0 {
				continue
			}
			if data, err = s.undo(data, want); errors.Is(err, errChecksum) {
				note, err = s.name+": "+err.Error(), nil
			}
			if err != nil {
				return nil, "", fmt.Errorf("%s: %w", s.name, err)
			}
		}
		out = data
		if mask&(compADPCMMono|compADPCMStereo) != 0 && len(out) < want {
			// Samples are two bytes: an odd-sized sector ends in a byte ADPCM cannot
			// make, which StormLib leaves zero.
			out = append(out, make([]byte, want-len(out))...)
		}
	}
	if err != nil {
		return nil, "", err
	}
	if len(out) != want {
		return nil, "", fmt.Errorf("decompressed to %d bytes, want %d", len(out), want)
	}
	return out, note, nil
}

// readLimited reads r to its end, failing once it passes limit bytes.
func readLimited(r io.Reader, limit int) ([]byte, error) {
	out := make([]byte, 0, limit)
	for {
		if len(out) == cap(out) {
			var one [1]byte
			if n, _ := r.Read(one[:]); n > 0 {
				return nil, errOverrun
			}
			return out, nil
		}
		n, err := r.Read(out[len(out):cap(out)])
		out = out[:len(out)+n]
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err // what was read: a stage may take it (see errChecksum)
		}
	}
}

// zlibReaders keeps zlib readers for reuse: one costs some 40 KB to make (its window), and an
// archive's member is read a sector (4 KiB) at a time.
var zlibReaders sync.Pool

func unZlib(in []byte, limit int) ([]byte, error) {
	var r io.ReadCloser
	var err error
	if pooled, ok := zlibReaders.Get().(io.ReadCloser); ok {
		r, err = pooled, pooled.(zlib.Resetter).Reset(bytes.NewReader(in), nil)
	} else {
		r, err = zlib.NewReader(bytes.NewReader(in))
	}
	if err != nil {
		return nil, err
	}
	defer zlibReaders.Put(r)
	out, err := readLimited(r, limit)
	if errors.Is(err, zlib.ErrChecksum) {
		return out, errChecksum
	}
	return out, err
}

func unBzip2(in []byte, limit int) ([]byte, error) {
	return readLimited(bzip2.NewReader(bytes.NewReader(in)), limit)
}

// unLZMA reads an LZMA sector: a filter byte (0, none), the 5 bytes of LZMA properties, the
// uncompressed size (8 bytes, not trusted: the sector's size is) and the stream. StormLib 9.22
// wrote the properties over the filter byte; such sectors are read too.
func unLZMA(in []byte, want int) ([]byte, error) {
	if len(in) <= 14 {
		return nil, errors.New("LZMA: sector too short for its header")
	}
	props := in[1:6]
	if in[0] != 0 {
		props = in[0:5]
	}
	var hdr [13]byte
	copy(hdr[:5], props)
	le.PutUint64(hdr[5:], uint64(want))
	r, err := lzma.NewReader(io.MultiReader(bytes.NewReader(hdr[:]), bytes.NewReader(in[14:])))
	if err != nil {
		return nil, fmt.Errorf("LZMA: %w", err)
	}
	return readLimited(r, want)
}

// unSparse undoes the sparse coding: a big-endian size, then runs, each a byte saying either
// "n bytes follow" (high bit set, n = low bits + 1) or "n zero bytes" (n = low bits + 3).
func unSparse(in []byte, limit int) ([]byte, error) {
	if len(in) < 4 {
		return nil, errors.New("shorter than its size field")
	}
	size := int(uint32(in[0])<<24 | uint32(in[1])<<16 | uint32(in[2])<<8 | uint32(in[3]))
	if size > limit || size < 0 {
		return nil, errOverrun
	}
	out := make([]byte, 0, size)
	for i := 4; i < len(in) && len(out) < size; {
		b := in[i]
		i++
		if b&0x80 != 0 {
			n := min(int(b&0x7F)+1, len(in)-i, size-len(out))
			out = append(out, in[i:i+n]...)
			i += n
		} else {
			n := min(int(b&0x7F)+3, size-len(out))
			out = append(out, make([]byte, n)...)
		}
	}
	if len(out) < size {
		out = append(out, make([]byte, size-len(out))...)
	}
	return out, nil
}
