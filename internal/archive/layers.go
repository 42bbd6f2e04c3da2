package archive

import (
	"errors"
	"io/fs"
	"slices"
	"strings"
)

// Layers is a read-only fs.FS that looks in each of its layers in turn: a name is the first
// layer's that has it, and a folder lists the names of all of them (the first layer's spelling
// of a name wins, case ignored). It is how a map's models find the game's textures after the
// map's own files, without copying the game's tree for every map.
type Layers []fs.FS

// Open opens name in the first layer that has it.
func (l Layers) Open(name string) (fs.File, error) {
	var first error
	for _, fsys := range l {
		f, err := fsys.Open(name)
		if err == nil {
			return f, nil
		}
		if first == nil || !errors.Is(err, fs.ErrNotExist) {
			first = err
		}
	}
	if first == nil {
		first = &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return nil, first
}

// Stat describes name as the first layer that has it.
func (l Layers) Stat(name string) (fs.FileInfo, error) {
	var first error
	for _, fsys := range l {
		fi, err := fs.Stat(fsys, name)
		if err == nil {
			return fi, nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, first
}

// ReadFile reads name from the first layer that has it.
func (l Layers) ReadFile(name string) ([]byte, error) {
	var first error
	for _, fsys := range l {
		b, err := fs.ReadFile(fsys, name)
		if err == nil {
			return b, nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, first
}

// FindFold resolves name in the first layer where it resolves, ignoring case where the exact
// element is absent.
func (l Layers) FindFold(name string) (string, bool) {
	for _, fsys := range l {
		if f, ok := fsys.(interface {
			FindFold(string) (string, bool)
		}); ok {
			if found, ok := f.FindFold(name); ok {
				return found, true
			}
		} else if _, err := fs.Stat(fsys, name); err == nil {
			return name, true
		}
	}
	return "", false
}

// ReadDir lists name in every layer that has it, merged and sorted.
func (l Layers) ReadDir(name string) ([]fs.DirEntry, error) {
	var out []fs.DirEntry
	seen := map[string]bool{}
	found := false
	var first error
	for _, fsys := range l {
		ents, err := fs.ReadDir(fsys, name)
		if err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		found = true
		for _, e := range ents {
			if k := strings.ToLower(e.Name()); !seen[k] {
				seen[k] = true
				out = append(out, e)
			}
		}
	}
	if !found {
		return nil, first
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, nil
}
