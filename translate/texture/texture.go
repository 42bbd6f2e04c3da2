// Package texture decodes the textures that game models name — BLP1, BLP2, DDS and TGA — and
// encodes them as PNG, the format glTF viewers and Blender read.
//
// Decode picks a codec by content (the "BLP1"/"BLP2" and "DDS " magics) or, for TGA, which has
// no magic, by the ".tga" extension plus the checks of its header; the codecs live in the
// sub-packages blp, dds and tga, in the style of Go's image packages. Every decoding error is a
// *codec.FormatError, and sizes beyond MaxPixels are refused (wrapping codec.ErrTooLarge) before
// anything large is allocated. Only mip level 0 is decoded.
package texture

import (
	"bytes"
	"image"
	"path"
	"strings"

	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/texture/blp"
	"github.com/modelfs/modelfs/translate/texture/dds"
	"github.com/modelfs/modelfs/translate/texture/internal/texerr"
	"github.com/modelfs/modelfs/translate/texture/tga"
)

// MaxPixels is the largest width×height Decode accepts.
const MaxPixels = texerr.MaxPixels

// MaxSide is the largest width or height Decode accepts.
const MaxSide = texerr.MaxSide

// FormatName is the format named in errors for data no codec recognises.
const FormatName = "texture"

// Extensions returns the file extensions (lower case, with the dot) whose files Decode reads.
func Extensions() []string { return []string{".blp", ".dds", ".tga"} }

// Handles reports whether name has one of the extensions Decode reads, ignoring case.
func Handles(name string) bool {
	ext := strings.ToLower(path.Ext(strings.ReplaceAll(name, `\`, "/")))
	for _, e := range Extensions() {
		if ext == e {
			return true
		}
	}
	return false
}

// Format returns the codec that Decode would use for data named name: "blp", "dds", "tga", or ""
// when none applies.
func Format(name string, data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("BLP1")) || bytes.HasPrefix(data, []byte("BLP2")):
		return blp.FormatName
	case bytes.HasPrefix(data, []byte(dds.Magic)):
		return dds.FormatName
	case strings.EqualFold(path.Ext(strings.ReplaceAll(name, `\`, "/")), ".blp"):
		return blp.FormatName // to report what is wrong with it
	case strings.EqualFold(path.Ext(strings.ReplaceAll(name, `\`, "/")), ".dds"):
		return dds.FormatName
	case strings.EqualFold(path.Ext(strings.ReplaceAll(name, `\`, "/")), ".tga") || hasTGAFooter(data):
		return tga.FormatName
	}
	return ""
}

// hasTGAFooter reports whether data ends with the TGA 2.0 footer signature.
func hasTGAFooter(data []byte) bool {
	return bytes.HasSuffix(data, []byte("TRUEVISION-XFILE.\x00"))
}

// Decode decodes the texture data, named name (its extension matters for TGA, which has no
// magic number), to an image: *image.NRGBA, *image.Paletted for a paletted BLP whose colours
// with their alpha fit a palette, or *image.Gray for 8-bit greyscale TGA.
func Decode(name string, data []byte) (img image.Image, err error) {
	defer func() {
		if p := recover(); p != nil {
			img, err = nil, &codec.InternalError{File: name, Stage: "decode", Panic: p}
		}
	}()
	switch Format(name, data) {
	case blp.FormatName:
		return blp.Decode(name, data)
	case dds.FormatName:
		return dds.Decode(name, data)
	case tga.FormatName:
		return tga.Decode(name, data)
	}
	return nil, texerr.Wrap(FormatName, name, 0, codec.ErrUnknownFormat, "not a BLP, DDS or TGA texture")
}

// DecodeConfig makes every check Decode makes of data named name short of decoding its pixels,
// and returns the image's size (see blp.DecodeConfig and tga.DecodeConfig for the little it
// leaves to Decode). It is what a document that only refers to the image needs.
func DecodeConfig(name string, data []byte) (cfg image.Config, err error) {
	defer func() {
		if p := recover(); p != nil {
			cfg, err = image.Config{}, &codec.InternalError{File: name, Stage: "decode", Panic: p}
		}
	}()
	switch Format(name, data) {
	case blp.FormatName:
		return blp.DecodeConfig(name, data)
	case dds.FormatName:
		return dds.DecodeConfig(name, data)
	case tga.FormatName:
		return tga.DecodeConfig(name, data)
	}
	return image.Config{}, texerr.Wrap(FormatName, name, 0, codec.ErrUnknownFormat, "not a BLP, DDS or TGA texture")
}

// Notes returns what the texture data named name departs from its format in, where the
// decoder goes on as the game does (see blp.Notes); nil for none.
func Notes(name string, data []byte) []string {
	if Format(name, data) == blp.FormatName {
		return blp.Notes(name, data)
	}
	return nil
}
