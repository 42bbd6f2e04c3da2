// Package stormlib runs StormLib's command-line tool, smpq, for tests: the reference reader
// the archive reader is checked against, and the reference writer of archives in every
// compression.
package stormlib

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Binary returns smpq's path; it skips the test when smpq is missing, or fails it under CI.
func Binary(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("smpq")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("stormlib: %v (CI needs it: apt-get install smpq)", err)
		}
		t.Skip("stormlib: smpq not found (apt-get install smpq)")
	}
	return p
}

// Run runs smpq with args in dir and returns what it printed.
func Run(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := Try(t, dir, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Try is Run for a command that may fail: StormLib 9.22 aborts on some combinations it is
// asked to write.
func Try(t testing.TB, dir string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(Binary(t), args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("smpq %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// List returns the member names smpq lists for an archive, with '/' separators as smpq
// prints them.
func List(t testing.TB, archive string, extra ...string) []string {
	t.Helper()
	args := append([]string{"-l"}, extra...)
	out := Run(t, ".", append(args, archive)...)
	var names []string
	for _, line := range strings.Split(out, "\n") {
		// "    size date time name": the name is everything after the third field.
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		rest := line
		for k := 0; k < 3; k++ {
			rest = strings.TrimLeft(rest, " ")
			rest = rest[strings.IndexByte(rest, ' '):]
		}
		names = append(names, strings.TrimLeft(rest, " "))
	}
	return names
}

// Extract extracts every member of archive into a new temporary folder and returns it.
func Extract(t testing.TB, archive string, extra ...string) string {
	t.Helper()
	abs, err := filepath.Abs(archive)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	args := append([]string{"-x", "-q"}, extra...)
	Run(t, dir, append(args, abs)...)
	return dir
}
