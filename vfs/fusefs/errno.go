//go:build linux || darwin

package fusefs

import (
	"context"
	"errors"
	"io/fs"
	"syscall"

	"github.com/modelfs/modelfs/vfs"
)

// toErrno is the one place where the mount's errors become errnos.
func toErrno(err error) syscall.Errno {
	if err == nil {
		return 0
	}
	var fe *vfs.TranslationError
	if errors.As(err, &fe) {
		// A model that cannot be translated reads as an I/O error, except where the source
		// itself was unreadable for a reason the reader can act on.
		switch {
		case errors.Is(fe.Err, fs.ErrPermission):
			return syscall.EACCES
		case errors.Is(fe.Err, vfs.ErrTooLarge):
			return syscall.EFBIG
		}
		return syscall.EIO
	}
	var errno syscall.Errno
	switch {
	case errors.Is(err, vfs.ErrReadOnly):
		return syscall.EROFS
	case errors.Is(err, vfs.ErrStale):
		return syscall.ESTALE
	case errors.Is(err, vfs.ErrNoAttr):
		return noAttr
	case vfs.IsDataError(err):
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
	case errors.Is(err, vfs.ErrTooLarge):
		return syscall.EFBIG
	case vfs.IsEscape(err):
		return syscall.EACCES
	}
	return syscall.EIO
}
