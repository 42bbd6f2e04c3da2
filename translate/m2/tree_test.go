package m2_test

import "io/fs"

// tree wraps a source's tree for tests: it notes the files read through it, and refuses to list
// folders when noList is set.
type tree struct {
	fs.FS
	opened *[]string
	noList bool
}

func (t tree) ReadFile(name string) ([]byte, error) {
	b, err := fs.ReadFile(t.FS, name)
	if err == nil && t.opened != nil {
		*t.opened = append(*t.opened, name)
	}
	return b, err
}

func (t tree) ReadDir(name string) ([]fs.DirEntry, error) {
	if t.noList {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrPermission}
	}
	return fs.ReadDir(t.FS, name)
}
