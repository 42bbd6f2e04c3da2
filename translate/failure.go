package translate

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"strings"
	"unicode/utf8"

	"github.com/modelfs/modelfs/translate/gltfenc"
	"github.com/modelfs/modelfs/translate/objenc"
	"github.com/modelfs/modelfs/translate/pngenc"
	"github.com/modelfs/modelfs/translate/scene"
)

// FailureDocument is the document of kind served in place of one that could not be made from
// the source at path (format, when known, is its registry name): a file that says why, in the
// place a user or a tool looks, instead of an I/O error that says nothing.
//   - .gltf and .glb: a valid glTF whose only node, an empty one, is named after the error
//     (Blender's outliner shows it; the file's own name is left out, as the name is short) and
//     carries the whole message in its extras;
//   - .obj and .mtl: comment lines;
//   - .json: ErrorDocument;
//   - .png: a magenta and black checkerboard (the usual "missing texture" picture) whose tEXt
//     chunk holds the message.
//
// The same arguments always give the same bytes.
func FailureDocument(kind Kind, path, format string, err error) []byte {
	msg := "unknown error"
	if err != nil {
		msg = err.Error()
	}
	switch kind {
	case GLTF, GLB:
		s := &scene.Scene{
			Source: scene.Source{Path: path, Format: format},
			Nodes: []scene.Node{{
				Name:     nodeName("error: " + strings.TrimPrefix(msg, path+": ")),
				Parent:   -1,
				Rotation: [4]float32{0, 0, 0, 1},
				Scale:    [3]float32{1, 1, 1},
				Extras:   scene.Extras{"error": msg, "source": path},
			}},
		}
		b, err := gltfenc.Encode(s, gltfenc.Options{Binary: kind == GLB})
		if err != nil {
			panic("translate: failure document: " + err.Error()) // a fixed shape that always encodes
		}
		return b
	case OBJ, MTL:
		return objenc.EncodeFailure(path, format, msg, kind == MTL)
	case PNG:
		return failurePNG(path, msg)
	}
	return ErrorDocument(path, format, err)
}

// maxNodeName is the longest object name Blender keeps (63 bytes); the rest of the message is in
// the node's extras.
const maxNodeName = 63

// nodeName cuts s to maxNodeName bytes on a character boundary.
func nodeName(s string) string {
	if len(s) <= maxNodeName {
		return s
	}
	n := maxNodeName
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// failurePNG is a 64×64 checkerboard of 8-pixel magenta and black squares with the message in a
// tEXt chunk ("Comment", Latin-1 as PNG asks: other characters become '?').
func failurePNG(path, msg string) []byte {
	img := image.NewPaletted(image.Rect(0, 0, 64, 64), color.Palette{color.RGBA{A: 255}, color.RGBA{R: 255, B: 255, A: 255}})
	for y := range 64 {
		for x := range 64 {
			img.Pix[y*img.Stride+x] = uint8((x/8 + y/8) % 2)
		}
	}
	b, err := pngenc.Encode(img)
	if err != nil {
		panic("translate: failure picture: " + err.Error())
	}
	text := latin1(path + ": " + msg)
	chunk := binary.BigEndian.AppendUint32(nil, uint32(len(failureText)-4+len(text)))
	chunk = append(chunk, failureText...)
	chunk = append(chunk, text...)
	chunk = binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE(chunk[4:]))
	// After the signature (8 bytes) and IHDR (25), before the picture's data.
	const at = 8 + 25
	return bytes.Join([][]byte{b[:at], chunk, b[at:]}, nil)
}

// failureText starts the tEXt chunk of a failure picture; the pictures of textures carry none.
const failureText = "tEXtComment\x00modelfs could not convert "

// IsFailurePNG reports whether b is a picture FailureDocument made.
func IsFailurePNG(b []byte) bool {
	const at = 8 + 25 + 4 // the chunk's type, after the signature, IHDR and the length
	return len(b) > at && bytes.HasPrefix(b[at:], []byte(failureText))
}

// latin1 keeps the printable Latin-1 characters of s (a tEXt chunk's encoding) and makes every
// other one '?'.
func latin1(s string) []byte {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		switch {
		case r >= 0x20 && r < 0x7f, r >= 0xa0 && r <= 0xff:
			b = append(b, byte(r))
		default:
			b = append(b, '?')
		}
	}
	return b
}
