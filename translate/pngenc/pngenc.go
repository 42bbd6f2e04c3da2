// Package pngenc writes the PNG documents modelfs serves beside each texture (NAME.EXT.png) and
// embeds in .glb files.
package pngenc

import (
	"bytes"
	"image"
	"image/png"
	"sync"
)

// pooled encodes small images. Its pool keeps the encoders' state, mostly a deflate compressor
// of about 1 MB, from one image to the next: a model's painted pictures are many small PNGs,
// whose cost was mostly making that compressor. A sync.Pool is safe for concurrent use. Large
// images go through encoder, which keeps nothing: a pooled state holds on to the last image's
// rows until it is reused.
var (
	pooled  = png.Encoder{CompressionLevel: png.BestSpeed, BufferPool: &bufferPool{}}
	encoder = png.Encoder{CompressionLevel: png.BestSpeed}
)

// pooledPixels is the largest image encoded with the pooled state.
const pooledPixels = 512 * 512

type bufferPool struct{ p sync.Pool }

func (b *bufferPool) Get() *png.EncoderBuffer {
	e, _ := b.p.Get().(*png.EncoderBuffer)
	return e
}

func (b *bufferPool) Put(e *png.EncoderBuffer) { b.p.Put(e) }

// Encode encodes img as PNG, deterministically: the same image gives the same bytes. An NRGBA
// image whose pixels are all opaque is written without an alpha channel.
func Encode(img image.Image) ([]byte, error) {
	var buf bytes.Buffer
	enc := &encoder
	if b := img.Bounds(); b.Dx()*b.Dy() <= pooledPixels {
		enc = &pooled
	}
	if err := enc.Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
