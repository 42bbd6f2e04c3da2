package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelfs/modelfs/internal/mpq/mpqtest"
	"github.com/modelfs/modelfs/internal/testkit/fixtures"
)

// mapAndGame writes a map holding a model whose texture only the game's archive has.
func mapAndGame(t *testing.T) (dir, game string) {
	crate, tex, err := fixtures.CrateFiles()
	if err != nil {
		t.Fatal(err)
	}
	dir, game = t.TempDir(), t.TempDir()
	mp := mpqtest.Archive{Prefix: 512, Members: []mpqtest.Member{{Name: "Units\\Crate.mdx", Data: crate, Zlib: true}}}.Bytes()
	copy(mp, "HM3W") // a map's own header before the archive
	if err := os.WriteFile(filepath.Join(dir, "Crate.w3x"), mp, 0o644); err != nil {
		t.Fatal(err)
	}
	war3 := mpqtest.Archive{Members: []mpqtest.Member{{Name: "Textures\\Crate.blp", Data: tex, Zlib: true}}}.Bytes()
	if err := os.WriteFile(filepath.Join(game, "war3.mpq"), war3, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, game
}

// TestArchiveCommands: info summarises an archive; convert takes a member path through an
// archive, and with --game finds the stock texture in the game's archives.
func TestArchiveCommands(t *testing.T) {
	dir, game := mapAndGame(t)
	arc := filepath.Join(dir, "Crate.w3x")
	code, out, errs := runCLI(t, "info", arc)
	if code != exitOK {
		t.Fatalf("info: exit %d: %s", code, errs)
	}
	for _, want := range []string{"MPQ archive, format 1", "header at offset 512", "members 1", "zlib"} {
		if !strings.Contains(out, want) {
			t.Errorf("info output lacks %q:\n%s", want, out)
		}
	}
	member := filepath.Join(arc, "Units", "Crate.mdx")
	if code, out, errs := runCLI(t, "info", member); code != exitOK || !strings.Contains(out, "Units/Crate.mdx") {
		t.Errorf("info of a member: exit %d: %s%s", code, out, errs)
	}
	without, with := filepath.Join(t.TempDir(), "a.glb"), filepath.Join(t.TempDir(), "b.glb")
	if code, _, errs := runCLI(t, "convert", member, "-o", without); code != exitOK {
		t.Fatalf("convert: exit %d: %s", code, errs)
	}
	if code, _, errs := runCLI(t, "convert", "--game", game, member, "-o", with); code != exitOK {
		t.Fatalf("convert --game: exit %d: %s", code, errs)
	}
	a, _ := os.ReadFile(without)
	b, _ := os.ReadFile(with)
	if bytes.Contains(a, []byte("image/png")) || !bytes.Contains(b, []byte("image/png")) {
		t.Error("the texture should be found in the game's archive with --game, and only then")
	}
	if code, _, errs := runCLI(t, "convert", filepath.Join(arc, "Units", "Nope.mdx"), "-o", without); code == exitOK || !strings.Contains(errs, "Nope.mdx") {
		t.Errorf("a missing member: exit %d: %s", code, errs)
	}
}
