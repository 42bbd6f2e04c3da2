//go:build unix

package cache

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// A folder is one folder of the cache directory, held open by its descriptor. Every file in it
// is reached by one name relative to that descriptor, never through a symlink (O_NOFOLLOW),
// never blocking on a FIFO (O_NONBLOCK), and is checked once open before anything else is done
// with it: a regular file with one link, or a folder no one else may write, owned by this
// process's user. So whoever else may write the cache directory (it may sit on a shared
// disk) can make the cache miss, never make the daemon read, write or delete anything outside
// it (see ErrUntrusted).
type folder struct {
	fdn  int // the folder's descriptor, held: every name is opened relative to it
	path string
	perm perms
	dev  uint64 // the file system of the cache directory: nothing on another is taken
}

// perms are the modes the cache makes its files and folders with; with inspect, folders are
// taken as they are (see sub).
type perms struct {
	file, dir uint32
	inspect   bool
}

// openTop opens the cache directory itself: the path the user gave, symlinks in it included.
func openTop(path string, p perms) (*folder, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	return &folder{fdn: fd, path: path, perm: p, dev: uint64(st.Dev)}, nil
}

// exclusive holds the folder's lock (flock) against every other process taking it, until the
// function it returns is called; where the file system has no such lock, it holds nothing.
func (d *folder) exclusive() (unlock func()) {
	if unix.Flock(d.fd(), unix.LOCK_EX) != nil {
		return func() {}
	}
	return func() { unix.Flock(d.fd(), unix.LOCK_UN) }
}

// owned reports whether the folder is this process's user's.
func (d *folder) owned() bool {
	var st unix.Stat_t
	return unix.Fstat(d.fd(), &st) == nil && int(st.Uid) == os.Geteuid()
}

func (d *folder) fd() int              { return d.fdn }
func (d *folder) close() error         { return unix.Close(d.fdn) }
func (d *folder) name(n string) string { return filepath.Join(d.path, n) }

func (d *folder) pathErr(op, name string, err error) error {
	return &fs.PathError{Op: op, Path: d.name(name), Err: err}
}

// untrusted is the error of name, found to be what the cache never makes.
func (d *folder) untrusted(name, why string) error {
	return &fs.PathError{Op: "check", Path: d.name(name), Err: fmt.Errorf("%w: %s", ErrUntrusted, why)}
}

// sub opens the folder name in d, making it first with create. A folder of this user whose
// mode lets others write, or read where the cache's modes do not, is put right (a cache made by
// an older modelfs had 0755 folders); one of another user, or a symlink, is refused.
func (d *folder) sub(name string, create bool) (*folder, error) {
	// O_DIRECTORY refuses a FIFO before its open could block.
	const flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	fd, err := unix.Openat(d.fd(), name, flags, 0)
	if err == unix.ENOENT && create {
		if err := unix.Mkdirat(d.fd(), name, d.perm.dir); err != nil && err != unix.EEXIST {
			return nil, d.pathErr("mkdir", name, err)
		}
		fd, err = unix.Openat(d.fd(), name, flags, 0)
	}
	if err != nil {
		if err == unix.ELOOP || err == unix.ENOTDIR {
			return nil, d.untrusted(name, "not a folder (a symlink or a file)")
		}
		return nil, d.pathErr("open", name, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, d.pathErr("stat", name, err)
	}
	if int(st.Uid) != os.Geteuid() {
		unix.Close(fd)
		return nil, d.untrusted(name, fmt.Sprintf("a folder of uid %d, not of this process's %d", st.Uid, os.Geteuid()))
	}
	if uint64(st.Dev) != d.dev {
		// Another file system mounted there (a FUSE mount of someone else's) could claim
		// any owner, and block any read.
		unix.Close(fd)
		return nil, d.untrusted(name, "a folder on another file system (a mount point)")
	}
	if perm := uint32(st.Mode) & 0o7777; perm != d.perm.dir && !d.perm.inspect {
		if err := unix.Fchmod(fd, d.perm.dir); err != nil {
			unix.Close(fd)
			return nil, d.pathErr("chmod", name, err)
		}
	}
	return &folder{fdn: fd, path: d.name(name), perm: d.perm, dev: d.dev}, nil
}

// walk opens the folder at the slash path rel below d, a folder at a time, each checked as
// sub checks it.
func (d *folder) walk(rel string) (*folder, error) {
	cur := d
	for i, name := range strings.Split(rel, "/") {
		next, err := cur.sub(name, false)
		if i > 0 {
			cur.close()
		}
		if err != nil {
			return nil, err
		}
		cur = next
	}
	return cur, nil
}

// openStepwise opens the file at the slash path rel below d, as open does, a folder at a time.
func (d *folder) openStepwise(rel string, flag int) (*os.File, int64, error) {
	dir, name := path.Split(rel)
	if dir == "" {
		return d.open(name, flag)
	}
	sub, err := d.walk(path.Clean(dir))
	if err != nil {
		return nil, 0, err
	}
	defer sub.close()
	return sub.open(name, flag)
}

// checkFile refuses an open file that is not a regular file of this user with one link, on the
// cache directory's file system; it returns the file's size.
func (d *folder) checkFile(name string, fd int) (int64, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return 0, d.pathErr("stat", name, err)
	}
	switch {
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		return 0, d.untrusted(name, "not a regular file (a FIFO, a socket or a device)")
	case int(st.Uid) != os.Geteuid():
		return 0, d.untrusted(name, fmt.Sprintf("a file of uid %d, not of this process's %d", st.Uid, os.Geteuid()))
	case st.Nlink != 1:
		return 0, d.untrusted(name, fmt.Sprintf("a file with %d links", st.Nlink))
	case uint64(st.Dev) != d.dev:
		return 0, d.untrusted(name, "a file on another file system")
	}
	// A file another mount made for its group (--cache-group-read), or an older modelfs made
	// looser, is put right: this mount's modes hold for everything it uses.
	if perm := uint32(st.Mode) & 0o7777; perm&^d.perm.file != 0 && !d.perm.inspect {
		if err := unix.Fchmod(fd, perm&d.perm.file); err != nil {
			return 0, d.pathErr("chmod", name, err)
		}
	}
	return st.Size, nil
}

// open opens the file name in d with flag (O_RDONLY, or O_WRONLY|O_APPEND|O_CREAT, say),
// checks it, and returns it with its size.
func (d *folder) open(name string, flag int) (*os.File, int64, error) {
	fd, err := unix.Openat(d.fd(), name, flag|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, d.perm.file)
	if err != nil {
		return nil, 0, d.openErr(name, err)
	}
	return d.take(name, fd, flag)
}

// openErr is the error of a failed open of name.
func (d *folder) openErr(name string, err error) error {
	switch err {
	case unix.ELOOP:
		return d.untrusted(name, "a symlink")
	case unix.ENXIO: // a FIFO opened for writing with no reader
		return d.untrusted(name, "a FIFO or a socket")
	case unix.EXDEV:
		return d.untrusted(name, "on another file system (a mount point)")
	}
	return d.pathErr("open", name, err)
}

// take checks the file just opened as fd (with flag) and makes it an *os.File.
func (d *folder) take(name string, fd, flag int) (*os.File, int64, error) {
	size, err := d.checkFile(name, fd)
	if err != nil {
		unix.Close(fd)
		return nil, 0, err
	}
	// A regular file reads and writes blocking whatever the flag says; without it, os.NewFile
	// leaves the file out of the poller, which takes no regular file anyway.
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFL, flag&unix.O_APPEND); err != nil {
		unix.Close(fd)
		return nil, 0, d.pathErr("open", name, err)
	}
	return os.NewFile(uintptr(fd), d.name(name)), size, nil
}

// create makes the file name in d, which must not exist, open for reading and writing.
func (d *folder) create(name string) (*os.File, error) { return d.createMode(name, d.perm.file) }

// createMode is create with the mode perm.
func (d *folder) createMode(name string, perm uint32) (*os.File, error) {
	fd, err := unix.Openat(d.fd(), name, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, perm)
	if err != nil {
		return nil, d.pathErr("create", name, err)
	}
	return os.NewFile(uintptr(fd), d.name(name)), nil
}

// remove removes the file name in d (a symlink itself, never what it leads to).
func (d *folder) remove(name string) error {
	if err := unix.Unlinkat(d.fd(), name, 0); err != nil {
		return d.pathErr("remove", name, err)
	}
	return nil
}

// removeAll removes name in d and, when it is a folder, everything in it, following no symlink.
func (d *folder) removeAll(name string) error {
	var st unix.Stat_t
	if err := unix.Fstatat(d.fd(), name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		if err == unix.ENOENT {
			return nil
		}
		return d.pathErr("stat", name, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return d.remove(name)
	}
	if uint64(st.Dev) != d.dev {
		return d.untrusted(name, "a folder on another file system (a mount point): not entered")
	}
	fd, err := unix.Openat(d.fd(), name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return d.pathErr("open", name, err)
	}
	sub := &folder{fdn: fd, path: d.name(name), perm: d.perm, dev: d.dev}
	names, err := sub.names()
	var first error
	for _, n := range names {
		if err := sub.removeAll(n); err != nil && first == nil {
			first = err
		}
	}
	sub.close()
	if err := unix.Unlinkat(d.fd(), name, unix.AT_REMOVEDIR); err != nil && first == nil {
		first = d.pathErr("remove", name, err)
	}
	return errors.Join(err, first)
}

// rename moves the file name in d to newName in to, replacing what was there (a symlink itself,
// never what it leads to).
func (d *folder) rename(name string, to *folder, newName string) error {
	if err := unix.Renameat(d.fd(), name, to.fd(), newName); err != nil {
		return &os.LinkError{Op: "rename", Old: d.name(name), New: to.name(newName), Err: err}
	}
	return nil
}

// names returns the names in d.
func (d *folder) names() ([]string, error) {
	fd, err := unix.Openat(d.fd(), ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, d.pathErr("open", ".", err)
	}
	f := os.NewFile(uintptr(fd), d.path)
	defer f.Close()
	return f.Readdirnames(-1)
}

// entry is what lstat tells of a name in a folder.
type entry struct {
	regular, dir bool
	owned        bool // this process's user's, with one link if a file
	size, disk   int64
	mtime        time.Time
	perm         uint32 // its permission bits
}

// lstat looks at name in d without following it.
func (d *folder) lstat(name string) (entry, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(d.fd(), name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return entry{}, d.pathErr("lstat", name, err)
	}
	e := entry{
		regular: st.Mode&unix.S_IFMT == unix.S_IFREG,
		dir:     st.Mode&unix.S_IFMT == unix.S_IFDIR,
		owned:   int(st.Uid) == os.Geteuid(),
		size:    st.Size,
		mtime:   time.Unix(st.Mtim.Unix()),
		perm:    uint32(st.Mode) & 0o7777,
	}
	if e.regular && st.Nlink != 1 {
		e.owned = false
	}
	e.disk = max(int64(st.Blocks)*512, blocks(st.Size))
	return e, nil
}

// sameFile reports whether name in d is the open file f.
func (d *folder) sameFile(name string, f *os.File) bool {
	var a, b unix.Stat_t
	if unix.Fstat(int(f.Fd()), &a) != nil || unix.Fstatat(d.fd(), name, &b, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return false
	}
	return a.Dev == b.Dev && a.Ino == b.Ino
}

// touch sets the times of the open file f to now: an entry's last use.
func touch(f *os.File) {
	now := time.Now()
	tv := []unix.Timeval{unix.NsecToTimeval(now.UnixNano()), unix.NsecToTimeval(now.UnixNano())}
	unix.Futimes(int(f.Fd()), tv)
}
