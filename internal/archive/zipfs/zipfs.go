// Package zipfs registers zip archives (.zip, and Reforged's .w3mod when it is one) with
// package archive: the standard library's reader, with each member's size checked before it
// is read and names found regardless of case.
package zipfs

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync"

	"github.com/modelfs/modelfs/internal/archive"
)

// formatName is the name zip registers under.
const formatName = "zip"

// MaxMember bounds the size of a member read: a few bytes of a hostile archive can claim
// gigabytes.
const MaxMember = 1 << 30

func init() {
	archive.Register(archive.Format{
		Name: formatName,
		Exts: []string{".zip", ".w3mod"},
		// A local file header, or the end record of an empty archive.
		Match: func(head []byte) bool {
			return bytes.HasPrefix(head, []byte("PK\x03\x04")) || bytes.HasPrefix(head, []byte("PK\x05\x06"))
		},
		Open: open,
	})
}

// Archive is an opened zip archive.
type Archive struct {
	r    *zip.Reader
	name string

	foldOnce sync.Once
	fold     map[string]string // lower-cased path → the path, for every file and folder
}

func open(r io.ReaderAt, size int64, opt archive.Options) (archive.Archive, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: opt.Name, Err: fmt.Errorf("zip: %w", err)}
	}
	return &Archive{r: zr, name: opt.Name}, nil
}

// Open opens the member or folder name.
func (a *Archive) Open(name string) (fs.File, error) { return a.r.Open(name) }

// Stat describes name.
func (a *Archive) Stat(name string) (fs.FileInfo, error) { return fs.Stat(a.r, name) }

// ReadDir lists the folder name, sorted by name.
func (a *Archive) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(a.r, name) }

// ReadFile reads the member name, refusing one larger than MaxMember before reading it.
func (a *Archive) ReadFile(name string) ([]byte, error) {
	f, err := a.r.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("is a folder")}
	}
	if fi.Size() > MaxMember || fi.Size() < 0 {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("zip: member of %d bytes, more than the %d a member may have", fi.Size(), MaxMember)}
	}
	b := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("zip: %w", err)}
	}
	// The reader checks the checksum once the member's end is read.
	if n, err := f.Read(make([]byte, 1)); n != 0 || (err != nil && err != io.EOF) {
		if err == nil {
			err = fmt.Errorf("zip: member longer than its header says")
		}
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return b, nil
}

// FindFold resolves name, ignoring case where the exact name is absent.
func (a *Archive) FindFold(name string) (string, bool) {
	if !fs.ValidPath(name) {
		return "", false
	}
	if _, err := fs.Stat(a.r, name); err == nil {
		return name, true
	}
	a.foldOnce.Do(a.indexFold)
	p, ok := a.fold[strings.ToLower(name)]
	return p, ok
}

// indexFold maps every path of the archive, lower-cased, to the path (the first of those that
// differ only in case).
func (a *Archive) indexFold() {
	a.fold = map[string]string{}
	fs.WalkDir(a.r, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && p != "." {
			if _, dup := a.fold[strings.ToLower(p)]; !dup {
				a.fold[strings.ToLower(p)] = p
			}
		}
		return nil
	})
}

// Name is the archive's path, as archive.Options.Name gave it.
func (a *Archive) Name() string { return a.name }

// Close has nothing to close: archive.OpenFile closes the file.
func (a *Archive) Close() error { return nil }

// FormatName names the archive's format (see archive.Formatted).
func (a *Archive) FormatName() string { return formatName }
