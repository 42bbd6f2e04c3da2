// Package pngenc writes the PNG documents modelfs serves beside each texture (NAME.EXT.png) and
// embeds in .glb files.
package pngenc

import (
	"bytes"
	"image"
	"image/png"
)

// encoder is shared: png.Encoder is safe for concurrent use when BufferPool is nil.
var encoder = png.Encoder{CompressionLevel: png.BestSpeed}

// Encode encodes img as PNG, deterministically: the same image gives the same bytes. An NRGBA
// image whose pixels are all opaque is written without an alpha channel.
func Encode(img image.Image) ([]byte, error) {
	var buf bytes.Buffer
	if err := encoder.Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
