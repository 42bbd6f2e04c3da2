package vfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"github.com/modelfs/modelfs/translate/codec"
)

// ErrReadOnly is what every operation that would change the tree fails with.
var ErrReadOnly = errors.New("read-only file system")

// errNotModel reports a virtual name whose source is missing or not a regular file.
var errNotModel = &fs.PathError{Op: "lookup", Path: "source", Err: fs.ErrNotExist}

// TranslationError is a model (or texture) that could not be translated: its source could not
// be read, decoded or encoded. Front ends serve it on the model's .gltf, .glb, .obj and .mtl as
// an I/O error — or, when the source itself was unreadable for a reason the reader can act on,
// as that reason (fs.ErrPermission, codec.ErrTooLarge, which the error wraps).
type TranslationError struct {
	Path string // the source, relative to the tree
	Err  error
}

func (e *TranslationError) Error() string { return e.Err.Error() }
func (e *TranslationError) Unwrap() error { return e.Err }

// escapeErr is the error os.Root reports for a name that leaves the root. It is not exported by
// package os, so it is found once by asking.
var escapeErr = sync.OnceValue(func() error {
	r, err := os.OpenRoot(os.TempDir())
	if err != nil {
		return nil
	}
	defer r.Close()
	_, err = r.Lstat("../modelfs-escape-probe")
	var pe *fs.PathError
	if errors.As(err, &pe) && !errors.Is(pe.Err, fs.ErrNotExist) {
		return pe.Err
	}
	return nil
})

// IsEscape reports whether err is the tree's refusal of a name that leads outside it.
func IsEscape(err error) bool {
	e := escapeErr()
	return e != nil && errors.Is(err, e)
}

// IsDataError reports whether err says a file's bytes are wrong: a format error, a variant no
// decoder reads, or a decoder that failed on them. A reader gets an I/O error.
func IsDataError(err error) bool {
	var (
		fmtErr *codec.FormatError
		unsErr *codec.UnsupportedError
		intErr *codec.InternalError
	)
	var readErr *ReadError
	return errors.As(err, &fmtErr) || errors.As(err, &unsErr) || errors.As(err, &intErr) || errors.As(err, &readErr)
}

// ReadError is a file whose bytes could not be read where they are stored: a damaged sector
// of an archive's member.
type ReadError struct {
	Path string
	Err  error
}

func (e *ReadError) Error() string { return fmt.Sprintf("%s: %v", e.Path, e.Err) }
func (e *ReadError) Unwrap() error { return e.Err }
