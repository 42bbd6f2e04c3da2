//go:build linux || darwin

package fusefs

import (
	"context"
	"io/fs"
	"syscall"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/modelfs/modelfs/vfs"
)

// setStat fills out from a node's attributes: an entry of SRC's stat as it is; a document's,
// its source's with its own mode, size, mtime and one link; an archive's entry, the archive
// file's owner and time.
func setStat(out *fuse.Attr, st vfs.Stat) {
	if st.Sys != nil {
		setAttr(out, st.Sys)
		if st.Own {
			return
		}
	} else {
		*out = fuse.Attr{Owner: fuse.Owner{Uid: st.Uid, Gid: st.Gid}}
		out.SetTimes(nil, nil, &st.MTime)
	}
	out.Mode = fileType(st.Mode) | uint32(st.Mode.Perm())
	out.Size = uint64(st.Size)
	out.Blocks = (uint64(st.Size) + 511) / 512
	out.Nlink = 1
	out.Rdev = 0
	out.SetTimes(nil, &st.MTime, nil)
}

// setAttr fills out from an Lstat of SRC.
func setAttr(out *fuse.Attr, fi fs.FileInfo) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		out.FromStat(st)
	} else {
		*out = *fuse.ToAttr(fi)
	}
	out.Ino = 0 // the mount numbers its own inodes
}

// Getattr reports the node's attributes. A node whose entry of SRC was replaced since the
// lookup, or whose document's version was superseded, answers ESTALE: the kernel then looks
// the name up again, as a native file system would have found the new entry. With a handle
// open, a file shows what the handle reads, as fstat on a native file does after the name was
// given to another.
func (n *node) Getattr(ctx context.Context, f gofs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	if h, ok := f.(*fileHandle); ok {
		if st, err := h.f.Stat(); err == nil {
			setStat(&out.Attr, st)
			out.SetTimeout(n.m.attrTimeout)
			return 0
		}
	}
	ctx, answered := n.m.patient(ctx)
	defer answered()
	st, err := n.vn.Attr(ctx)
	if err != nil {
		return toErrno(err)
	}
	setStat(&out.Attr, st)
	out.SetTimeout(n.m.attrTimeout)
	return 0
}

// Readlink returns the symlink's target as stored.
func (n *linkNode) Readlink(ctx context.Context) ([]byte, syscall.Errno) {
	target, err := n.vn.Readlink()
	if err != nil {
		return nil, toErrno(err)
	}
	return []byte(target), 0
}

// fileType returns the S_IFMT bits of m.
func fileType(m fs.FileMode) uint32 {
	switch m.Type() {
	case fs.ModeDir:
		return syscall.S_IFDIR
	case fs.ModeSymlink:
		return syscall.S_IFLNK
	case fs.ModeNamedPipe:
		return syscall.S_IFIFO
	case fs.ModeSocket:
		return syscall.S_IFSOCK
	case fs.ModeDevice:
		return syscall.S_IFBLK
	case fs.ModeDevice | fs.ModeCharDevice:
		return syscall.S_IFCHR
	}
	return syscall.S_IFREG
}
