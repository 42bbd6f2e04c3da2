//go:build linux

package fusefs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/modelfs/modelfs/internal/testkit/fixtures"
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

// Finding 12 of the third trust pass: one rule for textures that do not decode. Whatever stops
// a texture's bytes from decoding — damage, a compression modelfs does not read, a size beyond
// the decoders' limits, a model saved under a texture's name — its .png is the failure picture
// saying why; only a texture that is not read (past --max-source-size) fails with an errno.
func TestUndecodableTexturesOneRule(t *testing.T) {
	src := t.TempDir()
	crate, err := os.ReadFile(filepath.Join(sampleDir(t), "Units", "Crate.mdx"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(src, "huge.dds"), fixtures.DDSHeader("DXT1", 65536, 65536, 1, false))
	bc6 := append(fixtures.DDSHeader("DX10", 4, 4, 1, false), fixtures.DDSDX10Header(95, false)...) // BC6H_UF16
	writeFile(t, filepath.Join(src, "bc6.dds"), append(bc6, make([]byte, 16)...))
	writeFile(t, filepath.Join(src, "garbage.blp"), []byte("BLP2\x01\x00\x00\x00garbage"))
	writeFile(t, filepath.Join(src, "WoodItem.blp"), crate)
	writeFile(t, filepath.Join(src, "big.tga"), make([]byte, 64<<10))
	m := mountT(t, src, vfs.Options{MaxSourceSize: 32 << 10})
	for name, says := range map[string]string{
		"huge.dds":     "65536",
		"bc6.dds":      "BC6H",
		"garbage.blp":  "blp",
		"WoodItem.blp": "saved under a texture's name",
	} {
		st, err := os.Stat(m.path(name + ".png"))
		b, rerr := os.ReadFile(m.path(name + ".png"))
		if err != nil || rerr != nil || st.Size() != int64(len(b)) || !translate.IsFailurePNG(b) || !bytes.Contains(b, []byte(says)) {
			t.Errorf("%s.png: %v, %v, %d bytes; want the failure picture saying %q", name, err, rerr, len(b), says)
		}
	}
	if _, err := os.ReadFile(m.path("big.tga.png")); !errors.Is(err, syscall.EFBIG) {
		t.Errorf("big.tga.png, past --max-source-size: %v; want EFBIG", err)
	}
}
