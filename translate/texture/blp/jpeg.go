package blp

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"io"
	"slices"

	"github.com/modelfs/modelfs/translate/texture/internal/texerr"
)

// adobeAPP14 is an Adobe APP14 segment with colour transform 0 ("unknown": no YCbCr
// conversion). With it image/jpeg accepts a 4-component stream and returns an *image.CMYK whose
// bytes are the stored components inverted (255 − v); without it, it refuses the stream.
var adobeAPP14 = []byte{0xFF, 0xEE, 0, 14, 'A', 'd', 'o', 'b', 'e', 0, 100, 0, 0, 0, 0, 0}

// jpegStream is a JPEG BLP's level 0 as one JPEG stream, checked (checkJPEG).
type jpegStream struct {
	hdr, mip []byte // the shared JPEG header and the level's own bytes
	ncomp    int    // components the stream's frame header declares
}

// checkJPEG checks a JPEG-compressed BLP up to its entropy-coded data: level 0 is the shared
// JPEG header followed by the level's bytes, and their frame header must declare a size the
// data can hold.
func checkJPEG(name string, data []byte, h Header) (jpegStream, error) {
	hs := h.dataStart
	if hs+4 > len(data) {
		return jpegStream{}, texerr.Errorf(FormatName, name, int64(len(data)), "JPEG header size truncated")
	}
	hdrLen := uint64(binary.LittleEndian.Uint32(data[hs:]))
	if uint64(hs+4)+hdrLen > uint64(len(data)) {
		return jpegStream{}, texerr.Errorf(FormatName, name, int64(hs), "JPEG header of %d bytes runs past the end of the file (%d bytes)", hdrLen, len(data))
	}
	hdr := data[hs+4 : hs+4+int(hdrLen)]
	mip, err := h.level0(name, data, 0)
	if err != nil {
		return jpegStream{}, err
	}
	// An empty shared header (some tools write one) leaves each level a whole JPEG of its own.
	start := hdr
	if len(start) == 0 {
		start = mip
	}
	if len(start) < 2 || start[0] != 0xFF || start[1] != 0xD8 {
		return jpegStream{}, texerr.Errorf(FormatName, name, int64(hs+4), "JPEG data does not start with SOI")
	}
	cfg, err := jpeg.DecodeConfig(io.MultiReader(bytes.NewReader(hdr), bytes.NewReader(mip)))
	if err != nil {
		return jpegStream{}, texerr.Wrap(FormatName, name, int64(hs+4), err, "JPEG")
	}
	if err := texerr.CheckSize(FormatName, name, int64(hs+4), uint64(cfg.Width), uint64(cfg.Height)); err != nil {
		return jpegStream{}, err
	}
	ncomp := 3
	switch cfg.ColorModel {
	case color.CMYKModel:
		ncomp = 4
	case color.GrayModel:
		ncomp = 1
	}
	// Every 8×8 block of every component costs at least one bit of entropy-coded data (its DC
	// code), so a stream shorter than that is truncated: refuse it before image/jpeg allocates
	// the whole image.
	blocks := uint64((cfg.Width+7)/8) * uint64((cfg.Height+7)/8)
	if uint64(len(mip))*8 < blocks*uint64(ncomp) {
		return jpegStream{}, texerr.Errorf(FormatName, name, int64(h.mipOffset), "JPEG data of %d bytes is too short for a %d×%d image", len(mip), cfg.Width, cfg.Height)
	}
	return jpegStream{hdr: hdr, mip: mip, ncomp: ncomp}, nil
}

// decodeJPEG decodes the checked stream j of a JPEG-compressed BLP. Blizzard's encoder stores
// four components, B, G, R, A, with no APP14 marker.
func decodeJPEG(name string, h Header, j jpegStream) (image.Image, error) {
	stream := make([]byte, 0, len(adobeAPP14)+len(j.hdr)+len(j.mip))
	stream = append(append(stream, j.hdr...), j.mip...) // starts with SOI (checkJPEG)
	if j.ncomp == 4 {
		// Insert the APP14 segment right after SOI.
		stream = slices.Insert(stream, 2, adobeAPP14...)
	}
	img, err := jpeg.Decode(bytes.NewReader(stream))
	if err != nil {
		return nil, texerr.Wrap(FormatName, name, int64(h.mipOffset), err, "JPEG")
	}
	if c, ok := img.(*image.CMYK); ok {
		return cmykToNRGBA(c, h.AlphaBits != 0), nil
	}
	// Not Blizzard's 4-component layout: take the colours as image/jpeg decodes them.
	out := image.NewNRGBA(img.Bounds().Sub(img.Bounds().Min))
	draw.Draw(out, out.Rect, img, img.Bounds().Min, draw.Src)
	return out, nil
}

// cmykToNRGBA turns image/jpeg's CMYK view of a B, G, R, A stream into NRGBA in place: the CMYK
// bytes are 255 − B, 255 − G, 255 − R, 255 − A. Without alpha, A is 255.
func cmykToNRGBA(c *image.CMYK, alpha bool) *image.NRGBA {
	w, h := c.Rect.Dx(), c.Rect.Dy()
	for y := range h {
		row := c.Pix[y*c.Stride : y*c.Stride+4*w]
		for i := 0; i+3 < len(row); i += 4 {
			p := row[i : i+4 : i+4]
			b, g, r, a := 255-p[0], 255-p[1], 255-p[2], 255-p[3]
			if !alpha {
				a = 255
			}
			p[0], p[1], p[2], p[3] = r, g, b, a
		}
	}
	return &image.NRGBA{Pix: c.Pix, Stride: c.Stride, Rect: image.Rect(0, 0, w, h)}
}
