//go:build linux

package fusefs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/vfs"
)

// TestTextures checks the PNG beside every texture, and that a texture which fails to decode
// costs only its own image: EIO on its .png with one log line, while the model that uses it still
// opens, without the image, and says so in its .json.
func TestTextures(t *testing.T) { bothTiers(t, testTextures) }

func testTextures(t *testing.T, opt vfs.Options) {
	src := sampleTree(t)
	m := mountT(t, src, opt)

	ents, err := os.ReadDir(m.path("Textures"))
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, e := range ents {
		listed = append(listed, e.Name())
	}
	for _, want := range []string{"Crate.blp", "Crate.blp.png", "Swinger.tga", "Swinger.tga.png"} {
		if !slices.Contains(listed, want) {
			t.Errorf("Textures/ lists %v; want %s in it", listed, want)
		}
	}
	for _, rel := range []string{"Textures/Crate.blp", "Textures/Swinger.tga", "ReplaceableTextures/TeamColor/TeamColor00.blp"} {
		raw, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		want, err := translate.ConvertTexture(rel, raw)
		if err != nil {
			t.Fatal(err)
		}
		got := mustRead(t, m.path(rel+".png"))
		if !bytes.Equal(got, want) || !bytes.HasPrefix(got, []byte("\x89PNG")) {
			t.Errorf("%s.png: %d bytes, not the converted texture (%d bytes)", rel, len(got), len(want))
		}
		if st, err := os.Stat(m.path(rel + ".png")); err != nil || st.Size() != int64(len(want)) {
			t.Errorf("stat %s.png: %v, size %v; want %d", rel, err, st, len(want))
		}
	}

	// Break the crate's texture: its .png is the failure picture, the crate still opens without
	// an image.
	writeFile(t, filepath.Join(src, "Textures/Crate.blp"), []byte("BLP2\x01\x00\x00\x00garbage"))
	eventually(t, "the broken texture is seen", func() error {
		b, err := os.ReadFile(m.path("Textures/Crate.blp.png"))
		if err != nil || !translate.IsFailurePNG(b) {
			return fmt.Errorf("Crate.blp.png reads %d bytes, %v; want the failure picture", len(b), err)
		}
		if st, err := os.Stat(m.path("Textures/Crate.blp.png")); err != nil || st.Size() != int64(len(b)) {
			return fmt.Errorf("stat Crate.blp.png: %v, %v; want %d bytes", st, err, len(b))
		}
		return nil
	})
	for _, kind := range translate.Kinds {
		if _, err := os.ReadFile(m.path("Units/Crate.mdx." + string(kind))); err != nil {
			t.Errorf("Crate.mdx.%s with a broken texture: %v", kind, err)
		}
	}
	var doc struct {
		Textures []struct {
			Resolved   *string
			Image      *string
			ImageError string
		}
	}
	if err := json.Unmarshal(mustRead(t, m.path("Units/Crate.mdx.json")), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Textures) != 1 || doc.Textures[0].Image != nil || doc.Textures[0].ImageError == "" {
		t.Errorf("Crate.mdx.json textures %+v; want the texture reported without an image", doc.Textures)
	}
	if n := m.logs.count(slog.LevelWarn, "texture failed to decode"); n != 1 {
		t.Errorf("%d log lines for the broken texture; want 1", n)
	}
}
