package translate

import (
	"bytes"
	"fmt"
	"image"
	_ "image/jpeg" // JPEG textures pass through; their headers are checked
	_ "image/png"  // likewise PNG
	"slices"
	"sync"

	"github.com/modelfs/modelfs/translate/scene"
)

// ImageCodec is the texture support the texture package registers: the lower-case extensions it
// reads (".blp", ".tga"), a decoder, and a deterministic PNG encoder.
type ImageCodec struct {
	Exts      []string
	Decode    func(name string, data []byte) (image.Image, error)
	EncodePNG func(img image.Image) ([]byte, error)
}

var (
	imgMu    sync.RWMutex
	imgCodec *ImageCodec
)

// RegisterImages installs the texture codec; the texture package calls it from its init function.
func RegisterImages(c ImageCodec) {
	imgMu.Lock()
	defer imgMu.Unlock()
	c.Exts = slices.Clone(c.Exts)
	imgCodec = &c
}

func codec() *ImageCodec {
	imgMu.RLock()
	defer imgMu.RUnlock()
	return imgCodec
}

// IsTextureName reports whether name is a texture file that modelfs offers as NAME.EXT.png.
func IsTextureName(name string) bool {
	c := codec()
	return c != nil && slices.Contains(c.Exts, Ext(name))
}

// decodeTexture decodes a texture file, turning a decoder panic into an *InternalError.
func decodeTexture(name string, data []byte) (img image.Image, err error) {
	c := codec()
	if c == nil || !IsTextureName(name) {
		return nil, &UnsupportedError{File: name, Msg: "not a texture format modelfs reads"}
	}
	defer func() {
		if r := recover(); r != nil {
			img, err = nil, &InternalError{File: name, Stage: "decode", Panic: r}
		}
	}()
	return c.Decode(name, data)
}

// ConvertTexture decodes the texture file name (its bytes in data) and encodes it as PNG: the
// content of the mount's NAME.EXT.png.
func ConvertTexture(name string, data []byte) ([]byte, error) {
	img, err := decodeTexture(name, data)
	if err != nil {
		return nil, err
	}
	return codec().EncodePNG(img)
}

// imageMIME returns the glTF MIME type of an image file modelfs passes through unchanged.
func imageMIME(name string) string {
	switch Ext(name) {
	case ".png":
		return "image/png"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	}
	return ""
}

// LoadImages checks every resolved texture of s: it reads the file through src and decodes it
// (PNG and JPEG only to their headers), so that a texture that cannot be shown gets ImageError
// and a warning, and its material is written without an image. With embed, it also fills in
// Image and MIME: the file's own bytes for PNG and JPEG, a PNG translation for the others.
func LoadImages(src Source, s *scene.Scene, embed bool) {
	if src.Open == nil {
		return
	}
	for i := range s.Textures {
		t := &s.Textures[i]
		if t.Resolved == "" || t.ImageError != "" || (t.Image != nil) {
			continue
		}
		img, mime, err := loadImage(src, t.Resolved, embed)
		if err != nil {
			t.ImageError = err.Error()
			s.Warnings = append(s.Warnings, fmt.Sprintf("texture %q: no image: %v", t.Resolved, err))
			continue
		}
		if embed {
			t.Image, t.MIME = img, mime
		}
	}
}

func loadImage(src Source, name string, embed bool) ([]byte, string, error) {
	data, err := src.Open(name)
	if err != nil {
		return nil, "", err
	}
	if mime := imageMIME(name); mime != "" {
		if _, _, err := image.DecodeConfig(bytes.NewReader(data)); err != nil {
			return nil, "", &FormatError{Format: mime, File: name, Offset: -1, Msg: "unreadable image", Err: err}
		}
		return data, mime, nil
	}
	img, err := decodeTexture(name, data)
	if err != nil || !embed {
		return nil, "", err
	}
	png, err := codec().EncodePNG(img)
	return png, "image/png", err
}

// Output encodes a decoded scene as kind, first checking its textures (and, for .glb, which
// embeds them, loading their images). It is the one place outputs are made, for
// `modelfs convert` and the mount alike.
func Output(src Source, s *scene.Scene, kind Kind, opt EncodeOptions) ([]byte, error) {
	LoadImages(src, s, kind == GLB || (kind == GLTF && opt.EmbedImages))
	return Encode(s, kind, opt)
}
