package gltfjson

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/modelfs/modelfs/translate/internal/scratch"
	"github.com/qmuntal/gltf"
)

// The JSON text is written in scratch memory taken from a pool, then copied into the output,
// which always is a fresh allocation the caller owns (or written out in parts, WriteTo).

// maxPooledJSON is the largest scratch JSON buffer kept for reuse, so that one huge model does
// not pin its scratch memory for the life of the process.
const maxPooledJSON = 16 << 20

var jsonPool = scratch.Pool{Limit: maxPooledJSON}

// DataURIPrefix starts the buffer's data URI in .gltf output.
const DataURIPrefix = "data:application/octet-stream;base64,"

// glb container constants (glTF 2.0 spec, "Binary glTF Layout").
const (
	glbMagic     = 0x46546c67 // "glTF"
	glbVersion   = 2
	glbChunkJSON = 0x4e4f534a // "JSON"
	glbChunkBIN  = 0x004e4942 // "BIN\0"
	glbHeaderLen = 12         // magic, version, length
	glbChunkHead = 8          // chunk length, chunk type
)

// Write serialises doc as a .gltf (with its first buffer's Data as a data URI) or, with binary,
// a .glb (that buffer as its BIN chunk): exactly the bytes qmuntal/gltf's encoder writes, for
// the documents it supports (Writable), and an error for the others.
func Write(doc *gltf.Document, binary bool) (out []byte, err error) {
	return WriteParts(doc, binary, nil)
}

// WriteParts is Write of a document whose first buffer is its Data followed by the parts of
// tail, which are written from where they are rather than first copied into one buffer (the
// images a .glb embeds).
func WriteParts(doc *gltf.Document, binary bool, tail [][]byte) (out []byte, err error) {
	err = writeDoc(doc, binary, false, tail, func(parts ...[]byte) error {
		if !binary {
			out = parts[0] // new memory, not scratch: copying it again cost a .gltf's size
			return nil
		}
		out = join(parts)
		return nil
	})
	return out, err
}

// WriteTo is Write into w: a .glb goes out part by part, and a .gltf's base64 text piece by
// piece, never assembled in memory. A write error is returned as it is.
func WriteTo(w io.Writer, doc *gltf.Document, binary bool) error {
	return WritePartsTo(w, doc, binary, nil)
}

// WritePartsTo is WriteParts into w, as WriteTo writes.
func WritePartsTo(w io.Writer, doc *gltf.Document, binary bool, tail [][]byte) error {
	return writeDoc(doc, binary, true, tail, func(parts ...[]byte) error {
		for _, p := range parts {
			if _, err := w.Write(p); err != nil {
				return err
			}
		}
		return nil
	})
}

// WritePartsFunc is WriteParts handing the output's parts, in order, to use: the parts of tail
// as they are, the others scratch memory that use must not keep (but a .gltf's one part, new
// memory).
func WritePartsFunc(doc *gltf.Document, binary bool, tail [][]byte, use func(parts [][]byte) error) error {
	return writeDoc(doc, binary, false, tail, func(parts ...[]byte) error { return use(parts) })
}

// join returns the parts as one new slice of their total length.
func join(parts [][]byte) []byte {
	if len(parts) == 1 {
		return bytes.Clone(parts[0])
	}
	// bytes.Join makes one allocation of the exact total without zeroing it first, then copies
	// each part once.
	return bytes.Join(parts, nil)
}

// writeDoc writes doc as a .gltf or .glb, handing the output's parts in order to emit (which
// must not keep a .glb's: they are scratch memory; a .gltf is one part, new memory emit may
// keep, unless pieces asks for it in pieces of scratch memory). A document holding what the
// writer does not write (see Writable), or a value JSON cannot hold, is an error: the encoder
// makes neither.
func writeDoc(doc *gltf.Document, binary, pieces bool, tail [][]byte, emit func(parts ...[]byte) error) error {
	if !Writable(doc) {
		return errors.New("gltfjson: the document holds parts the writer does not write")
	}
	var data []byte
	hasBin := len(doc.Buffers) > 0
	if !hasBin && len(tail) > 0 {
		return errors.New("gltfjson: buffer parts without a buffer")
	}
	if hasBin {
		b := doc.Buffers[0]
		data = b.Data
		if len(tail) > 0 && !binary {
			data = slices.Concat(append([][]byte{data}, tail...)...) // base64 takes it whole
			tail = nil
		}
		n := len(data)
		for _, p := range tail {
			n += len(p)
		}
		if binary {
			if n < b.ByteLength {
				return fmt.Errorf("gltfenc: buffer of %d bytes, %d declared", n, b.ByteLength)
			}
			if len(tail) == 0 {
				data = data[:b.ByteLength]
			} else if n != b.ByteLength {
				return fmt.Errorf("gltfenc: buffer parts of %d bytes, %d declared", n, b.ByteLength)
			}
		}
	}
	scratch := jsonPool.Get(0)
	if binary {
		// Room for the file header and the JSON chunk header, filled in once the length is known.
		scratch = append(scratch, make([]byte, glbHeaderLen+glbChunkHead)...)
	}
	js, at, err := appendDocument(scratch, doc, binary)
	if err != nil {
		jsonPool.Put(scratch)
		return err
	}
	switch {
	case binary:
		js, err = glbParts(js, append([][]byte{data}, tail...), hasBin, emit)
	case pieces && at >= 0:
		err = gltfParts(js, at, data, emit)
	default:
		err = emit(assembleGLTF(js, at, data))
	}
	jsonPool.Put(js)
	return err
}

// glbParts emits the parts of a .glb made of js — the JSON text after room for the file and
// JSON chunk headers, which are filled in here — padded with spaces, and, when hasBin, a BIN
// chunk holding the parts of bin one after another, padded with zeros. It returns js, extended
// by its padding, and emit's error.
func glbParts(js []byte, bin [][]byte, hasBin bool, emit func(parts ...[]byte) error) ([]byte, error) {
	for len(js)%4 != 0 {
		js = append(js, ' ') // the header is 20 bytes, so the JSON chunk ends 4-aligned too
	}
	paddedJSON := len(js) - glbHeaderLen - glbChunkHead
	total := len(js)
	binLen := 0
	for _, p := range bin {
		binLen += len(p)
	}
	binPadded := align4(binLen)
	if hasBin {
		total += glbChunkHead + binPadded
	}
	le := binary.LittleEndian
	le.PutUint32(js[0:], glbMagic)
	le.PutUint32(js[4:], glbVersion)
	le.PutUint32(js[8:], uint32(total))
	le.PutUint32(js[12:], uint32(paddedJSON))
	le.PutUint32(js[16:], glbChunkJSON)
	if !hasBin {
		return js, emit(js)
	}
	var head [glbChunkHead]byte
	le.PutUint32(head[0:], uint32(binPadded))
	le.PutUint32(head[4:], glbChunkBIN)
	var zeros [3]byte
	parts := append([][]byte{js, head[:]}, bin...)
	return js, emit(append(parts, zeros[:binPadded-binLen])...)
}

// base64Piece is the bytes of a buffer whose base64 text gltfParts emits at once: a multiple
// of 24 (three bytes to four characters, and encodeBase64's step), so that the pieces' text is
// the whole buffer's.
const base64Piece = 24 << 13

// gltfParts emits a .gltf made of js with the base64 text of data at at, the text in pieces
// of scratch memory, so that a convert to .gltf never holds the whole text (a third larger
// than the buffer).
func gltfParts(js []byte, at int, data []byte, emit func(parts ...[]byte) error) error {
	if err := emit(js[:at]); err != nil {
		return err
	}
	text := make([]byte, base64.StdEncoding.EncodedLen(min(base64Piece, len(data))))
	for len(data) > 0 {
		n := min(base64Piece, len(data))
		m := base64.StdEncoding.EncodedLen(n)
		encodeBase64(text[:m], data[:n])
		if err := emit(text[:m]); err != nil {
			return err
		}
		data = data[n:]
	}
	return emit(js[at:])
}

// assembleGLTF returns a new .gltf: js with the base64 text of data inserted at at (no insertion
// when at is negative).
func assembleGLTF(js []byte, at int, data []byte) []byte {
	if at < 0 {
		return bytes.Clone(js)
	}
	n := base64.StdEncoding.EncodedLen(len(data))
	// The text is encoded straight into the output: zeroing the new memory costs less than
	// encoding into scratch memory and copying that.
	out := make([]byte, len(js)+n)
	copy(out, js[:at])
	encodeBase64(out[at:at+n], data)
	copy(out[at+n:], js[at:])
	return out
}

// align4 rounds n up to a multiple of 4.
func align4(n int) int { return (n + 3) &^ 3 }
