//go:build !unix

package cache

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// A folder is one folder of the cache directory (see folder_unix.go). Here it is an os.Root,
// which keeps every name inside the cache directory; this system has no owners or links the
// cache could check, so the cache directory must be one only this user can write.
type folder struct {
	r    *os.Root
	path string
	perm perms
}

type perms struct {
	file, dir uint32
	inspect   bool
}

func (d *folder) owned() bool { return true }

// exclusive holds nothing: the systems without owners and links have no folder locks here.
func (d *folder) exclusive() (unlock func()) { return func() {} }

func (d *folder) createMode(name string, perm uint32) (*os.File, error) {
	return d.r.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, fs.FileMode(perm))
}

func openTop(path string, p perms) (*folder, error) {
	r, err := os.OpenRoot(path)
	if err != nil {
		return nil, err
	}
	return &folder{r: r, path: path, perm: p}, nil
}

func (d *folder) close() error         { return d.r.Close() }
func (d *folder) name(n string) string { return filepath.Join(d.path, n) }
func (d *folder) untrusted(name, why string) error {
	return &fs.PathError{Op: "check", Path: d.name(name), Err: fmt.Errorf("%w: %s", ErrUntrusted, why)}
}

func (d *folder) sub(name string, create bool) (*folder, error) {
	if create {
		if err := d.r.Mkdir(name, fs.FileMode(d.perm.dir)); err != nil && !os.IsExist(err) {
			return nil, err
		}
	}
	fi, err := d.r.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, d.untrusted(name, "not a folder")
	}
	r, err := d.r.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	return &folder{r: r, path: d.name(name), perm: d.perm}, nil
}

func (d *folder) open(name string, flag int) (*os.File, int64, error) {
	if fi, err := d.r.Lstat(name); err == nil && !fi.Mode().IsRegular() {
		return nil, 0, d.untrusted(name, "not a regular file")
	}
	f, err := d.r.OpenFile(name, flag, fs.FileMode(d.perm.file))
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = d.untrusted(name, "not a regular file")
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

// openBeneath opens the file at the slash path rel below d, as open does.
func (d *folder) openBeneath(rel string, flag int) (*os.File, int64, error) {
	dir, name := filepath.Split(filepath.FromSlash(rel))
	if dir == "" {
		return d.open(name, flag)
	}
	sub, err := d.sub(filepath.Clean(dir), false)
	if err != nil {
		return nil, 0, err
	}
	defer sub.close()
	return sub.open(name, flag)
}

func (d *folder) create(name string) (*os.File, error) {
	return d.r.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, fs.FileMode(d.perm.file))
}

func (d *folder) remove(name string) error    { return d.r.Remove(name) }
func (d *folder) removeAll(name string) error { return d.r.RemoveAll(name) }

func (d *folder) rename(name string, to *folder, newName string) error {
	return os.Rename(d.name(name), to.name(newName))
}

func (d *folder) names() ([]string, error) {
	f, err := d.r.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

type entry struct {
	regular, dir bool
	owned        bool
	size, disk   int64
	mtime        time.Time
	perm         uint32
}

func (d *folder) lstat(name string) (entry, error) {
	fi, err := d.r.Lstat(name)
	if err != nil {
		return entry{}, err
	}
	return entry{regular: fi.Mode().IsRegular(), dir: fi.IsDir(), owned: true, size: fi.Size(),
		disk: blocks(fi.Size()), mtime: fi.ModTime()}, nil
}

func (d *folder) sameFile(name string, f *os.File) bool {
	a, err1 := f.Stat()
	b, err2 := d.r.Lstat(name)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

func touch(f *os.File) {
	now := time.Now()
	os.Chtimes(f.Name(), now, now)
}
