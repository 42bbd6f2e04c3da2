package codec

import (
	"errors"
	"fmt"
)

// FormatError reports a source file that could not be decoded: which file, as which format,
// where in it, and what was wrong.
type FormatError struct {
	Format string // registry name of the format, e.g. "mdx"
	File   string // the source path
	Offset int64  // byte offset of the problem, or -1 when not known
	Line   int    // 1-based line of the problem in a text format, or 0
	Msg    string
	Err    error // an underlying cause, if any
}

func (e *FormatError) Error() string {
	where := ""
	switch {
	case e.Line > 0:
		where = fmt.Sprintf(" line %d:", e.Line)
	case e.Offset >= 0:
		where = fmt.Sprintf(" offset %d (0x%x):", e.Offset, e.Offset)
	}
	msg := e.Msg
	if e.Err != nil {
		if msg != "" {
			msg += ": "
		}
		msg += e.Err.Error()
	}
	return fmt.Sprintf("%s: %s:%s %s", e.File, e.Format, where, msg)
}

// Unwrap returns the underlying cause.
func (e *FormatError) Unwrap() error { return e.Err }

// ErrUnknownFormat is wrapped by errors for sources that no registered format recognises.
var ErrUnknownFormat = errors.New("unknown model format")

// ErrTooLarge is wrapped by errors for sources or declared sizes beyond the decoder's limits.
var ErrTooLarge = errors.New("exceeds size limit")

// UnsupportedError reports a source that is not (or not yet) a model modelfs can read.
type UnsupportedError struct {
	File string
	Msg  string // what the file appears to be
}

func (e *UnsupportedError) Error() string { return e.File + ": " + e.Msg }

// Unwrap makes errors.Is(err, ErrUnknownFormat) hold.
func (e *UnsupportedError) Unwrap() error { return ErrUnknownFormat }

// InternalError reports a decoder or encoder bug caught at run time (a panic), so that one bad
// file never takes down the process.
type InternalError struct {
	File  string
	Stage string // "decode" or "encode"
	Panic any
}

func (e *InternalError) Error() string {
	return fmt.Sprintf("%s: internal error during %s: %v", e.File, e.Stage, e.Panic)
}

// The largest image any decoder makes: a width or height beyond MaxImageSide, or more than
// MaxImagePixels in all, is refused (wrapping ErrTooLarge) before its pixels are allocated.
const (
	MaxImageSide   = 16384
	MaxImagePixels = 8192 * 8192
)
