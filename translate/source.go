package translate

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
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
		entries, err := fs.ReadDir(root.FS(), clean)
		if err != nil {
			return nil, err
		}
		names := make([]string, len(entries))
		for i, e := range entries {
			names[i] = e.Name()
		}
		return names, nil
	}
}

// ReadFileIn reads name (slash-separated, relative) from root, refusing files larger than
// MaxSourceSize and names that leave the root.
func ReadFileIn(root *os.Root, name string) ([]byte, error) {
	clean := path.Clean(strings.ReplaceAll(name, "\\", "/"))
	if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	f, err := root.Open(clean)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("not a regular file")}
	}
	if st.Size() > MaxSourceSize {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%d bytes: %w", st.Size(), ErrTooLarge)}
	}
	data := make([]byte, st.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return data, nil
}
