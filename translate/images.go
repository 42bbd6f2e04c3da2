package translate

import (
	"bytes"
	"fmt"
	"image"
	_ "image/jpeg" // JPEG textures pass through; their headers are checked
	_ "image/png"  // likewise PNG
	"io"
	"slices"

	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/gltfenc"
	"github.com/modelfs/modelfs/translate/pngenc"

	"github.com/modelfs/modelfs/translate/scene"
)

// decodeTexture decodes a texture file, turning a decoder panic into an *codec.InternalError.
func decodeTexture(name string, data []byte) (img image.Image, err error) {
	f := codec.ImageFormat(name)
	if f == nil {
		return nil, &codec.UnsupportedError{File: name, Msg: "not a texture format modelfs reads"}
	}
	defer func() {
		if r := recover(); r != nil {
			img, err = nil, &codec.InternalError{File: name, Stage: "decode", Panic: r}
		}
		if err != nil {
			err = misnamed(name, data, err)
		}
	}()
	return f.DecodeImage(name, data)
}

// misnamed is the error of a texture file whose bytes did not decode (err): when they are a
// model's, one saying so.
func misnamed(name string, data []byte, err error) error {
	if m, ok := codec.ModelIn(data[:min(len(data), codec.SniffLen)]); ok {
		return &codec.UnsupportedError{File: name, Msg: fmt.Sprintf("a %s saved under a texture's name, not a %s texture", m.Description, codec.Ext(name))}
	}
	return err
}

// checkTexture makes every check decodeTexture makes short of decoding the pixels; the error
// for a file it refuses is the one decodeTexture gives.
func checkTexture(name string, data []byte) (err error) {
	f := codec.ImageFormat(name)
	if f == nil {
		return &codec.UnsupportedError{File: name, Msg: "not a texture format modelfs reads"}
	}
	defer func() {
		if r := recover(); r != nil {
			err = &codec.InternalError{File: name, Stage: "decode", Panic: r}
		}
		if err != nil {
			err = misnamed(name, data, err)
		}
	}()
	_, err = f.DecodeConfig(name, data)
	return err
}

// ConvertTexture decodes the texture file name (its bytes in data) and encodes it as PNG: the
// content of the mount's NAME.EXT.png.
func ConvertTexture(name string, data []byte) ([]byte, error) {
	img, err := decodeTexture(name, data)
	if err != nil {
		return nil, err
	}
	return pngenc.Encode(img)
}

// imageMIME returns the glTF MIME type of an image file modelfs passes through unchanged.
func imageMIME(name string) string {
	switch codec.Ext(name) {
	case ".png":
		return "image/png"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	}
	return ""
}

// imageFile is what one translation learnt of one image file, so that making several outputs
// from one scene reads, checks and decodes each file once.
type imageFile struct {
	data    []byte
	readErr error
	checked bool  // check holds the header check's result
	check   error // header check
	made    bool  // png and madeErr hold the embeddable image
	png     []byte
	mime    string
	madeErr error
	noted   bool // notes holds the codec's notes
	notes   []string
}

// imageFiles memoises imageFile by resolved name; nil means nothing is remembered.
type imageFiles map[string]*imageFile

// loadImages checks every resolved texture of s for the output kind: it reads the file through
// src and checks it as far as the output needs — to its header when the image is only referred
// to, decoded in full when the output embeds its bytes — so that a texture that cannot be shown
// gets ImageError and a warning, and its material is written without an image. Where the output
// embeds it, it also fills in Image and MIME: the file's own bytes for PNG and JPEG, a PNG
// translation for the others. A painted picture (a texture with a Look) is made only for the
// glTF kinds, the only ones that show it; the others check the file it is painted from.
func loadImages(src codec.Source, s *scene.Scene, kind Kind, opt EncodeOptions, memo imageFiles) {
	embed, paint := embeds(kind, opt), kind == GLTF || kind == GLB

	if src.FS == nil {
		return
	}
	for i := range s.Textures {
		t := &s.Textures[i]
		if paint && t.Look != nil && t.ImageError == "" && t.Image == nil && (t.Resolved != "" || t.Look.Glow != nil) {
			// A painted picture: every output embeds it, as no file holds it.
			img, err := memo.paint(src, t)
			if err != nil {
				t.ImageError = err.Error()
				s.Warnings = append(s.Warnings, fmt.Sprintf("texture %q (%s): no image: %v", t.Resolved, t.Look.Key(), err))
				continue
			}
			t.Image, t.MIME = img, "image/png"
			continue
		}
		if t.Resolved == "" || t.ImageError != "" || (t.Image != nil) {
			continue
		}
		img, mime, err := memo.load(src, t.Resolved, embed)
		if err != nil {
			t.ImageError = err.Error()
			s.Warnings = append(s.Warnings, fmt.Sprintf("texture %q: no image: %v", t.Resolved, err))
			continue
		}
		for _, n := range memo.notes(src, t.Resolved) {
			s.Warnings = append(s.Warnings, fmt.Sprintf("texture %q: %s", t.Resolved, n))
		}
		if embed {
			t.Image, t.MIME = img, mime
		}
	}
}

// prepare does at once, for every kind of kinds, the work on each image file of s that needs
// its bytes — reading and checking it, its notes, painting it and translating it to PNG where
// a kind shows it so — then lets go of the bytes of the files translated: a model naming eleven
// textures of 4096 pixels holds their PNGs (which a mount shares with the textures' own
// documents) while its kinds are made, not the files as well.
func (memo imageFiles) prepare(src codec.Source, s *scene.Scene, kinds []Kind, opt EncodeOptions) {
	if src.FS == nil {
		return
	}
	embed := slices.ContainsFunc(kinds, func(k Kind) bool { return embeds(k, opt) })
	paint := slices.Contains(kinds, GLTF) || slices.Contains(kinds, GLB)
	last := map[string]int{} // the last texture naming each file
	for i, t := range s.Textures {
		if t.ImageError == "" && t.Image == nil && t.Resolved != "" {
			last[t.Resolved] = i
		}
	}
	for i := range s.Textures {
		t := &s.Textures[i]
		if t.ImageError != "" || t.Image != nil {
			continue
		}
		if t.Resolved != "" {
			memo.load(src, t.Resolved, false) // reads it, as every kind will
			memo.notes(src, t.Resolved)
		}
		// As loadImages goes on for each kind.
		switch {
		case paint && t.Look != nil && (t.Resolved != "" || t.Look.Glow != nil):
			memo.paint(src, t)
		case embed && t.Resolved != "":
			memo.load(src, t.Resolved, true)
		}
		if f := memo[t.Resolved]; f != nil && last[t.Resolved] == i && imageMIME(t.Resolved) == "" && f.checked && (f.made || !embed) {
			f.data = nil // what is left to do with it is done
		}
	}
}

// notes returns the codec's notes on the image file name, which load has read.
func (memo imageFiles) notes(src codec.Source, name string) []string {
	c := codec.ImageFormat(name)
	if c == nil || c.Notes == nil || imageMIME(name) != "" {
		return nil
	}
	f := memo[name]
	if f == nil {
		data, err := src.ReadFile(name)
		if err != nil {
			return nil
		}
		return c.Notes(name, data)
	}
	if !f.noted && f.data != nil {
		f.noted, f.notes = true, c.Notes(name, f.data)
	}
	return f.notes
}

// load returns the image file name as an output needs it (see loadImages).
func (memo imageFiles) load(src codec.Source, name string, embed bool) ([]byte, string, error) {
	f := memo[name]
	if f == nil {
		f = &imageFile{}
		f.data, f.readErr = src.ReadFile(name)
		if memo != nil {
			memo[name] = f
		}
	}
	if f.readErr != nil {
		return nil, "", f.readErr
	}
	if mime := imageMIME(name); mime != "" {
		if !f.checked {
			f.checked = true
			if _, _, err := image.DecodeConfig(bytes.NewReader(f.data)); err != nil {
				f.check = &codec.FormatError{Format: mime, File: name, Offset: -1, Msg: "unreadable image", Err: err}
			}
		}
		return f.data, mime, f.check
	}
	if !embed {
		if !f.checked {
			f.checked, f.check = true, checkTexture(name, f.data)
		}
		return nil, "", f.check
	}
	if !f.made {
		f.made, f.mime = true, "image/png"
		if src.Texture != nil {
			f.png, f.madeErr = src.Texture(name, f.data)
		} else {
			f.png, f.madeErr = ConvertTexture(name, f.data)
		}
	}
	return f.png, f.mime, f.madeErr
}

// Output encodes a decoded scene as kind, first checking its textures (and, for .glb, which
// embeds them, loading their images). It is the one place outputs are made, for
// `modelfs convert` and the mount alike.
func Output(src codec.Source, s *scene.Scene, kind Kind, opt EncodeOptions) ([]byte, error) {
	loadImages(src, s, kind, opt, nil)
	return Encode(s, kind, opt)
}

// OutputTo writes what Output returns to w, a .glb or .gltf without assembling it in memory first. A
// write error is returned as it is.
func OutputTo(w io.Writer, src codec.Source, s *scene.Scene, kind Kind, opt EncodeOptions) (err error) {
	loadImages(src, s, kind, opt, nil)
	if kind != GLB && kind != GLTF {
		out, err := Encode(s, kind, opt)
		if err != nil {
			return err
		}
		_, err = w.Write(out)
		return err
	}
	defer func() {
		if r := recover(); r != nil {
			err = &codec.InternalError{File: s.Source.Path, Stage: "encode", Panic: r}
		}
	}()
	return gltfenc.EncodeTo(w, s, gltfenc.Options{Binary: kind == GLB, EmbedImages: opt.EmbedImages})
}

// embeds reports whether the output kind carries its images.
func embeds(kind Kind, opt EncodeOptions) bool {
	return kind == GLB || (kind == GLTF && opt.EmbedImages)
}

// Outputs makes every kind of kinds from one decoded scene: out[i] and errs[i] are what Output
// of kinds[i] gives for a scene just decoded, byte for byte, while each image file is read,
// checked and decoded once for all of them. The scene is left as it was given.
func Outputs(src codec.Source, s *scene.Scene, kinds []Kind, opt EncodeOptions) (out [][]byte, errs []error) {
	out, errs = make([][]byte, len(kinds)), make([]error, len(kinds))
	OutputsFunc(src, s, kinds, opt, func(i int, doc Doc, err error) { out[i], errs[i] = doc.Bytes(), err })
	return out, errs
}

// OutputsFunc is Outputs handing each document to yield as soon as it is made, in pieces (see
// Doc), so that a caller storing them one by one holds one at a time. Every file the outputs
// read through src is read before the first call of yield.
func OutputsFunc(src codec.Source, s *scene.Scene, kinds []Kind, opt EncodeOptions, yield func(i int, doc Doc, err error)) {
	textures, warnings := slices.Clone(s.Textures), len(s.Warnings)
	memo := imageFiles{}
	memo.prepare(src, s, kinds, opt)
	for i, kind := range kinds {
		loadImages(src, s, kind, opt, memo)
		doc, err := encodeDoc(s, kind, opt)
		copy(s.Textures, textures) // as decoded, for the next kind
		s.Warnings = s.Warnings[:warnings]
		yield(i, doc, err)
	}
}
