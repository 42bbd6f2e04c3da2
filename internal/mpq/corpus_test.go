package mpq_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/modelfs/modelfs/internal/mpq"
	"github.com/modelfs/modelfs/internal/testkit/corpus"
	"github.com/modelfs/modelfs/internal/testkit/stormlib"
)

func openFile(t testing.TB, name string, opts mpq.Options) *mpq.Archive {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	opts.Name = name
	a, err := mpq.Open(f, st.Size(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestCorpusArchives checks the real archives against StormLib: the same member names as
// smpq -l, the same bytes as smpq -x.
func TestCorpusArchives(t *testing.T) {
	files := corpus.Files(t, "archives", ".mpq", ".w3x", ".w3m")
	if len(files) == 0 {
		t.Fatal("no archives in the corpus")
	}
	for _, name := range files {
		t.Run(filepath.Base(name), func(t *testing.T) {
			a := openFile(t, name, mpq.Options{})
			for _, w := range a.Warnings() {
				t.Log("warning:", w)
			}
			sameAsStormLib(t, a, name)
		})
	}
}

// sameAsStormLib checks that the archive a, read from file, has the members smpq -l lists
// and that each reads as smpq -x extracts it.
func sameAsStormLib(t *testing.T, a *mpq.Archive, file string, extra ...string) {
	t.Helper()
	want := stormlib.List(t, file, extra...)
	got := a.Members()
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("members differ from smpq -l:\n got %d %q\nwant %d %q", len(got), got, len(want), want)
	}
	dir := stormlib.Extract(t, file, extra...)
	for _, m := range got {
		ref, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(m)))
		if err != nil {
			t.Errorf("%s: smpq did not extract it: %v", m, err)
			continue
		}
		b, err := fs.ReadFile(a, m)
		if err != nil {
			t.Errorf("%s: %v", m, err)
			continue
		}
		if !bytes.Equal(b, ref) {
			t.Errorf("%s: %d bytes differ from smpq -x (%d bytes)", m, len(b), len(ref))
		}
	}
}
