package codec

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"syscall"
)

// MaxSourceSize caps the size of any source or companion file read whole into memory.
const MaxSourceSize = 512 << 20

// RootFS returns the tree under root as a source's fs.FS: names are taken as the file system
// has them (a backslash is a character of a name; names need not be UTF-8), those that leave
// the root are refused (os.Root enforces the confinement, symlinks included), only regular files
// are read and none larger than MaxSourceSize, and nothing is opened in a way that could block
// (a FIFO where a file or folder is looked for answers at once).
func RootFS(root *os.Root) fs.FS { return rootFS{root} }

type rootFS struct{ root *os.Root }

// Open opens name for reading, without blocking.
func (r rootFS) Open(name string) (fs.File, error) {
	if !ValidName(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	return r.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// ReadFile reads the regular file name whole.
func (r rootFS) ReadFile(name string) ([]byte, error) {
	if !ValidName(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	return readFile(r.root, name, name)
}

// ReadDir lists the folder name, sorted by name.
func (r rootFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if !ValidName(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	d, err := r.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	if fi, err := d.Stat(); err != nil {
		return nil, err
	} else if !fi.IsDir() {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: syscall.ENOTDIR}
	}
	entries, err := d.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

// Clean turns a name written inside a model (slash- or backslash-separated) into a clean name
// relative to the root, and reports false for one that is absolute or leaves the root. It is
// the one check of references models make.
func Clean(ref string) (string, bool) {
	clean := path.Clean(strings.ReplaceAll(ref, "\\", "/"))
	if path.IsAbs(clean) || (len(clean) > 1 && clean[1] == ':') || leaves(clean) {
		return "", false
	}
	return clean, true
}

// leaves reports whether the cleaned relative path p climbs out of the folder it is taken from.
func leaves(p string) bool { return p == ".." || strings.HasPrefix(p, "../") }

// validName is fs.ValidPath without its demand for UTF-8, which file names need not be: a
// relative slash-separated path of elements other than "", "." and "..", or "." itself.
func ValidName(name string) bool {
	if name == "." {
		return true
	}
	for _, elem := range strings.Split(name, "/") {
		if elem == "" || elem == "." || elem == ".." {
			return false
		}
	}
	return true
}

// readFile reads clean from root, naming the file orig in errors. Only regular files are
// read, opened without blocking (a FIFO named as a model must not hang the reader).
func readFile(root *os.Root, clean, orig string) ([]byte, error) {
	f, err := root.OpenFile(clean, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: orig, Err: fmt.Errorf("not a regular file")}
	}
	if st.Size() > MaxSourceSize {
		return nil, &fs.PathError{Op: "read", Path: orig, Err: fmt.Errorf("%d bytes: %w", st.Size(), ErrTooLarge)}
	}
	data := make([]byte, st.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, &fs.PathError{Op: "read", Path: orig, Err: err}
	}
	return data, nil
}
