package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelfs/modelfs/internal/archive"
	_ "github.com/modelfs/modelfs/internal/archive/all" // the archive formats and games
	"github.com/modelfs/modelfs/internal/mpq"
)

// splitArchivePath finds an archive among a path's leading elements: for
// "Data/patch.MPQ/Creature/Rabbit/Rabbit.m2" it returns "Data/patch.MPQ" and the member
// "Creature/Rabbit/Rabbit.m2". A path that exists as it is never goes through an archive.
func splitArchivePath(in string) (arc, member string, ok bool) {
	if _, err := os.Lstat(in); err == nil {
		return "", "", false
	}
	parts := strings.Split(filepath.ToSlash(in), "/")
	for i := 1; i < len(parts); i++ {
		head := filepath.FromSlash(strings.Join(parts[:i], "/"))
		if !archive.IsArchiveName(head) {
			continue
		}
		if st, err := os.Stat(head); err == nil && st.Mode().IsRegular() {
			return head, strings.Join(parts[i:], "/"), true
		}
	}
	return "", "", false
}

// archiveOptions reads the --listfile files.
func archiveOptions(listfiles []string) (archive.Options, error) {
	var opts archive.Options
	for _, lf := range listfiles {
		b, err := os.ReadFile(lf)
		if err != nil {
			return opts, fmt.Errorf("--listfile: %w", err)
		}
		opts.ListFiles = append(opts.ListFiles, b)
	}
	return opts, nil
}

// openArchive opens an archive with more member names from listfiles.
func openArchive(name string, listfiles []string) (archive.Archive, error) {
	opts, err := archiveOptions(listfiles)
	if err != nil {
		return nil, err
	}
	return archive.OpenFile(name, opts)
}

// openGame opens the archives of a game's install or data folder, in load order; any that
// cannot be opened is an error.
func openGame(dir string, listfiles []string) ([]archive.Archive, error) {
	opts, err := archiveOptions(listfiles)
	if err != nil {
		return nil, err
	}
	arcs, skipped, err := archive.OpenGame(dir, opts)
	if err == nil && len(skipped) > 0 {
		for _, a := range arcs {
			a.Close()
		}
		err = skipped[0]
	}
	if err != nil {
		return nil, fmt.Errorf("--game: %w", err)
	}
	return arcs, nil
}

// printArchive writes a summary of an archive: its format, its members and how they are
// stored, and what could not be read.
func printArchive(e *env, name string, arc archive.Archive) {
	w := e.stdout
	a, ok := archive.Unwrap(arc).(*mpq.Archive)
	if !ok {
		s := otherSummary(name, arc)
		fmt.Fprintf(w, "%s: %s archive, %d members\n", name, s.Type, s.Members)
		for _, p := range s.Warnings {
			fmt.Fprintf(w, "  warning: %v\n", p)
		}
		return
	}
	s := a.Summary()
	fmt.Fprintf(w, "%s: MPQ archive, format %d, header at offset %d, sectors of %d bytes\n", name, a.Format(), a.Offset(), a.SectorSize())
	fmt.Fprintf(w, "  members %d (%d without a known name), %d bytes stored, %d bytes unpacked\n", s.Members, s.Unnamed, s.Stored, s.Unpacked)
	if s.Encrypted > 0 {
		fmt.Fprintf(w, "  encrypted %d\n", s.Encrypted)
	}
	for _, c := range s.Compressions {
		fmt.Fprintf(w, "  %-28s %d sectors\n", c.Name, c.Sectors)
	}
	for _, p := range s.Problems {
		fmt.Fprintf(w, "  unreadable: %v\n", p)
	}
	for _, p := range a.Warnings() {
		fmt.Fprintf(w, "  warning: %v\n", p)
	}
}

// otherArchiveInfo is what info tells of an archive of a format other than MPQ.
type otherArchiveInfo struct {
	Path     string   `json:"path"`
	Type     string   `json:"type"`
	Members  int      `json:"members"`
	Warnings []string `json:"warnings"` // members left out or refused
}

// otherSummary gathers what info tells of an archive of a format other than MPQ.
func otherSummary(name string, a archive.Archive) otherArchiveInfo {
	out := otherArchiveInfo{Path: name, Type: "unknown", Warnings: []string{}}
	if w, ok := archive.Unwrap(a).(interface{ Warnings() []error }); ok {
		for _, err := range w.Warnings() {
			out.Warnings = append(out.Warnings, err.Error())
		}
	}
	if f, ok := archive.Unwrap(a).(archive.Formatted); ok {
		out.Type = f.FormatName()
	}
	fs.WalkDir(a, ".", func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out.Members++
		}
		return nil
	})
	return out
}
