package translate

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

// RootOpener returns an OpenFunc reading companions from inside root. Names are slash-separated
// and relative to root; "..", absolute names and symlinks leading outside root are refused
// (os.Root enforces the confinement).
func RootOpener(root *os.Root) OpenFunc {
	return func(name string) ([]byte, error) {
		return ReadFileIn(root, name)
	}
}

// RootLister returns a ListFunc listing directories inside root, refusing names that leave it.
func RootLister(root *os.Root) ListFunc {
	return func(dir string) ([]string, error) {
		clean := path.Clean(strings.ReplaceAll(dir, "\\", "/"))
		if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
			return nil, &fs.PathError{Op: "readdir", Path: dir, Err: fs.ErrPermission}
		}
		// Opened without blocking and checked: a FIFO where a folder is looked for must not
		// hang the reader.
		d, err := root.OpenFile(clean, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			return nil, err
		}
		defer d.Close()
		if fi, err := d.Stat(); err != nil {
			return nil, err
		} else if !fi.IsDir() {
			return nil, &fs.PathError{Op: "readdir", Path: dir, Err: syscall.ENOTDIR}
		}
		names, err := d.Readdirnames(-1)
		if err != nil {
			return nil, err
		}
		slices.Sort(names)
		return names, nil
	}
}

// ReadFileIn reads the file a reference inside a model names (slash- or backslash-separated,
// relative) from root, refusing files larger than MaxSourceSize and names that leave the root.
func ReadFileIn(root *os.Root, name string) ([]byte, error) {
	clean := path.Clean(strings.ReplaceAll(name, "\\", "/"))
	if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	return readFile(root, clean, name)
}

// ReadSource reads the file named name in root, exactly as named: a slash-separated path
// relative to root, in which a backslash is a character of a name (as Unix file systems have
// it). Files larger than MaxSourceSize are refused, and so are names that leave the root.
func ReadSource(root *os.Root, name string) ([]byte, error) {
	if !validName(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	return readFile(root, name, name)
}

// validName is fs.ValidPath without its demand for UTF-8, which file names need not be: a
// relative slash-separated path of elements other than "", "." and "..", or "." itself.
func validName(name string) bool {
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
