// Package texerr holds what the texture decoders share: their size limits and the constructors
// of the *codec.FormatError values they return.
package texerr

import (
	"fmt"

	"github.com/modelfs/modelfs/translate/codec"
)

// MaxSide is the largest width or height a decoder accepts.
const MaxSide = codec.MaxImageSide

// MaxPixels is the largest width×height a decoder accepts, checked before any pixel buffer is
// allocated.
const MaxPixels = codec.MaxImagePixels

// Errorf returns a FormatError for file in the given format at offset off (-1 when unknown).
func Errorf(format, file string, off int64, msg string, args ...any) error {
	return &codec.FormatError{Format: format, File: file, Offset: off, Msg: fmt.Sprintf(msg, args...)}
}

// Wrap returns a FormatError for file in the given format at offset off with cause err.
func Wrap(format, file string, off int64, err error, msg string, args ...any) error {
	return &codec.FormatError{Format: format, File: file, Offset: off, Msg: fmt.Sprintf(msg, args...), Err: err}
}

// CheckSize returns a FormatError wrapping codec.ErrTooLarge (or a plain one for a zero
// size) unless 0 < w, h ≤ MaxSide and w×h ≤ MaxPixels.
func CheckSize(format, file string, off int64, w, h uint64) error {
	switch {
	case w == 0 || h == 0:
		return Errorf(format, file, off, "empty image (%d×%d)", w, h)
	case w > MaxSide || h > MaxSide || w*h > MaxPixels:
		return Wrap(format, file, off, codec.ErrTooLarge, "image of %d×%d pixels (at most %d a side and %d in all)", w, h, MaxSide, MaxPixels)
	}
	return nil
}
