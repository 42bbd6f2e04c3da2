package codec

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestCompanionFoldsCase(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"pmodel/P0.bnc":       "bones",
		"pmodel/p0.skc":       "skin",
		"Texture/NM001.TGA":   "pixels",
		"pmodel/exact.amb":    "exact",
		"pmodel/EXACT.amb":    "upper",
		"../outside-root.txt": "",
	} {
		p := filepath.Join(dir, "root", filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(filepath.Join(dir, "root"))
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	src := Source{Name: "pmodel/p0.skc", FS: RootFS(root)}
	for _, tc := range []struct{ ask, found, body string }{
		{"pmodel/p0.bnc", "pmodel/P0.bnc", "bones"},
		{"PMODEL/P0.BNC", "pmodel/P0.bnc", "bones"},
		{"texture/nm001.tga", "Texture/NM001.TGA", "pixels"},
		{"pmodel/exact.amb", "pmodel/exact.amb", "exact"}, // an exact match wins
		{`pmodel\p0.skc`, `pmodel\p0.skc`, "skin"},        // backslashes are separators
	} {
		found, data, err := src.Companion(tc.ask)
		if err != nil || found != tc.found || string(data) != tc.body {
			t.Errorf("Companion(%q) = %q, %q, %v; want %q, %q", tc.ask, found, data, err, tc.found, tc.body)
		}
	}
	for _, bad := range []string{"pmodel/p1.bnc", "../outside-root.txt", "/etc/passwd", "nodir/x"} {
		if _, _, err := src.Companion(bad); err == nil {
			t.Errorf("Companion(%q) succeeded", bad)
		}
	}
	if _, err := fs.ReadDir(RootFS(root), "../"); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("listing outside the root: %v", err)
	}
	if _, _, err := (Source{Name: "x"}).Companion("a"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no opener: %v", err)
	}
}

func TestResolveTexture(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{
		"Textures/SmileyGW.blp",
		"Units/Footman/Footman.blp",
		"Units/Footman/Footman.mdx",
		"meteor/pmodel/p0.skc",
		"meteor/texture/nm001b01.tga",
		"meteor/texture/NM001F01.JPG",
		"Creature/Rabbit/Rabbit.m2",
		"Creature/Rabbit/RabbitSkin.blp",
		// A Reforged map: HD and SD overlays, .tif references to .dds and .blp files.
		"maps/m.w3x/urn_diffuse.dds",
		"maps/m.w3x/urn_diffuse.blp",
		"maps/m.w3x/Units/Peon/Peon_Diffuse.blp",
		"maps/m.w3x/_HD.w3mod/Units/Peon/Peon_Diffuse.dds",
		"maps/m.w3x/_HD.w3mod/urn.mdx",
		"maps/m.w3x/Doodads/urn.mdx",
		"maps/m.w3x/peon.mdx",
		"maps/m.w3x/Textures/SmileyGW.blp", // the map's own copy of a game path
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	src := func(model string) Source {
		return Source{Name: model, FS: RootFS(root)}
	}
	for _, tc := range []struct{ model, ref, want, reason string }{
		{"Units/Footman/Footman.mdx", `Textures\SmileyGW.blp`, "Textures/SmileyGW.blp", ""},                                     // root-relative, backslashes
		{"Units/Footman/Footman.mdx", `TEXTURES\smileygw.BLP`, "Textures/SmileyGW.blp", ""},                                     // any case
		{"Units/Footman/Footman.mdx", "Footman.blp", "Units/Footman/Footman.blp", ""},                                           // the model's folder
		{"Units/Footman/Footman.mdx", `Units\Footman\Footman.tga`, "Units/Footman/Footman.blp", ""},                             // another extension
		{"meteor/pmodel/p0.skc", "nm001b01.tga", "meteor/texture/nm001b01.tga", ""},                                             // a sibling folder
		{"meteor/pmodel/p0.skc", "nm001f01.JPG", "meteor/texture/NM001F01.JPG", ""},                                             // sibling, any case
		{"meteor/pmodel/p0.skc", "nm001f01.tga", "meteor/texture/NM001F01.JPG", ""},                                             // .tga ↔ .jpg
		{"Units/Footman/Footman.mdx", `..\..\..\etc\passwd`, "", "leaving the root"},                                            // refused
		{"Units/Footman/Footman.mdx", `..\..\Textures\SmileyGW.blp`, "Textures/SmileyGW.blp", ""},                               // climbs, stays inside
		{"meteor/pmodel/p0.skc", `..\texture\nm001b01.tga`, "meteor/texture/nm001b01.tga", ""},                                  // climbs, stays inside
		{"meteor/pmodel/p0.skc", `..\..\..\texture\nm001b01.tga`, "", "leaving the root"},                                       // climbs out
		{"Units/Footman/Footman.mdx", "/etc/passwd", "", "absolute"},                                                            // refused
		{"Units/Footman/Footman.mdx", `C:\War3\x.blp`, "", "absolute"},                                                          // refused
		{"Units/Footman/Footman.mdx", `Textures\Missing.blp`, "", "not found"},                                                  // absent
		{"Units/Footman/Footman.mdx", "", "", "empty"},                                                                          // empty
		{"p0.skc", "nm001b01.tga", "", "serve the folder above it"},                                                             // a pmodel folder served alone
		{"maps/m.w3x/_HD.w3mod/urn.mdx", "urn_diffuse.tif", "maps/m.w3x/urn_diffuse.dds", ""},                                   // the map's root; .dds before .blp
		{"maps/m.w3x/Doodads/urn.mdx", "urn_diffuse.tif", "maps/m.w3x/urn_diffuse.dds", ""},                                     // from a folder of the map
		{"maps/m.w3x/_HD.w3mod/urn.mdx", `Units\Peon\Peon_Diffuse.tif`, "maps/m.w3x/_HD.w3mod/Units/Peon/Peon_Diffuse.dds", ""}, // the HD overlay first
		{"maps/m.w3x/peon.mdx", `Units\Peon\Peon_Diffuse.tif`, "maps/m.w3x/Units/Peon/Peon_Diffuse.blp", ""},                    // outside the overlay
	} {
		got, reason := src(tc.model).ResolveTexture(tc.ref)
		if got != tc.want || (tc.reason != "" && !strings.Contains(reason, tc.reason)) {
			t.Errorf("%s: ResolveTexture(%q) = %q, %q; want %q, %q", tc.model, tc.ref, got, reason, tc.want, tc.reason)
		}
	}
}

// RootFS takes a name as the file system has it: a backslash is part of it, and bytes that
// are not UTF-8 are kept.
func TestReadSourceExactNames(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{`back\slash.mdl`, "bad\xff.mdl"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
		root, err := os.OpenRoot(dir)
		if err != nil {
			t.Fatal(err)
		}
		got, err := fs.ReadFile(RootFS(root), name)
		root.Close()
		if err != nil || string(got) != name {
			t.Errorf("ReadFile(%q) = %q, %v", name, got, err)
		}
	}
}

// Companion reads and listings of a FIFO fail at once instead of waiting for a writer.
func TestRootReadersNeverBlockOnFIFOs(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	done := make(chan [2]error, 1)
	go func() {
		_, err1 := fs.ReadFile(RootFS(root), "pipe")
		_, err2 := fs.ReadDir(RootFS(root), "pipe")
		done <- [2]error{err1, err2}
	}()
	select {
	case errs := <-done:
		if errs[0] == nil || errs[1] == nil {
			t.Errorf("reading and listing a FIFO: %v", errs)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("blocked on a FIFO")
	}
}
