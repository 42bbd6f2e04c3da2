package vfs

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"sync"
	"syscall"

	"github.com/modelfs/modelfs/translate/codec"
)

// errReadOnly is what every mutating operation fails with.
var errReadOnly = errors.New("read-only file system")

// errNotModel reports a virtual name whose source is missing or not a regular file.
var errNotModel = &fs.PathError{Op: "lookup", Path: "source", Err: fs.ErrNotExist}

// failure is a model that could not be translated: its source could not be read, decoded or
// encoded. It reaches readers of the model's .gltf, .glb, .obj and .mtl as EIO.
type failure struct {
	path string
	err  error
}

func (e *failure) Error() string { return e.err.Error() }
func (e *failure) Unwrap() error { return e.err }

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

// toErrno is the one place where errors become errnos.
func toErrno(err error) syscall.Errno {
	if err == nil {
		return 0
	}
	var fe *failure
	if errors.As(err, &fe) {
		// A model that cannot be translated reads as an I/O error, except where the source
		// itself was unreadable for a reason the reader can act on.
		switch {
		case errors.Is(fe.err, fs.ErrPermission):
			return syscall.EACCES
		case errors.Is(fe.err, codec.ErrTooLarge):
			return syscall.EFBIG
		}
		return syscall.EIO
	}
	var (
		fmtErr *codec.FormatError
		unsErr *codec.UnsupportedError
		intErr *codec.InternalError
		errno  syscall.Errno
	)
	switch {
	case errors.Is(err, errReadOnly):
		return syscall.EROFS
	case errors.As(err, &fmtErr), errors.As(err, &unsErr), errors.As(err, &intErr):
		return syscall.EIO
	case errors.Is(err, context.Canceled):
		return syscall.EINTR
	case errors.Is(err, context.DeadlineExceeded):
		return syscall.ETIMEDOUT
	case errors.As(err, &errno):
		return errno
	case errors.Is(err, fs.ErrNotExist):
		return syscall.ENOENT
	case errors.Is(err, fs.ErrPermission):
		return syscall.EACCES
	case errors.Is(err, fs.ErrExist):
		return syscall.EEXIST
	case errors.Is(err, codec.ErrTooLarge):
		return syscall.EFBIG
	case escapeErr() != nil && errors.Is(err, escapeErr()):
		return syscall.EACCES
	}
	return syscall.EIO
}
