package all_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/modelfs/modelfs/internal/testkit/corpus"
	"github.com/modelfs/modelfs/translate"
)

// TestOutputsAsAlone makes every kind of every sample and corpus model from one decoded scene
// with translate.Outputs and checks each against the kind translated alone — also with the
// model's textures broken in the ways a header check and a full decode tell apart, so that
// what one kind learns of an image never leaks into another.
func TestOutputsAsAlone(t *testing.T) {
	t.Run("samples", func(t *testing.T) { checkOutputs(t, sampleModels(t)) })
	t.Run("corpus", func(t *testing.T) {
		var models []model
		for _, sub := range []string{"wc3", "wow", "wow-classic", "meteor"} {
			models = append(models, modelsUnder(t, filepath.Join(corpus.Dir(t), sub))...)
		}
		checkOutputs(t, models)
	})
	t.Run("broken textures", func(t *testing.T) {
		root := t.TempDir()
		sample := filepath.Join(corpus.RepoRoot(t), "testdata", "sample")
		for _, rel := range []string{"Units/Crate.mdl", "Units/Swinger.mdl", "ReplaceableTextures/TeamColor/TeamColor00.blp"} {
			copyTo(t, filepath.Join(sample, rel), filepath.Join(root, rel))
		}
		// The crate's BLP is cut inside its pixels: the header check passes, decoding fails.
		crate, err := os.ReadFile(filepath.Join(sample, "Textures/Crate.blp"))
		if err != nil {
			t.Fatal(err)
		}
		writeTo(t, filepath.Join(root, "Textures/Crate.blp"), crate[:len(crate)-100])
		// The swinger's texture is not an image at all: both fail alike.
		writeTo(t, filepath.Join(root, "Textures/Swinger.tga"), []byte("not a TGA"))
		checkOutputs(t, modelsUnder(t, root))
	})
}

func checkOutputs(t *testing.T, models []model) {
	kinds := append(slices.Clone(translate.Kinds), translate.GLTF) // a kind twice, too
	for _, m := range models {
		src := load(t, m)
		opt := translate.EncodeOptions{MTLName: filepath.Base(m.name) + ".mtl"}
		s, _, err := translate.Decode(src)
		if err != nil {
			continue // a model that fails to decode has no outputs to compare
		}
		out, errs := translate.Outputs(src, s, kinds, opt)
		for i, kind := range kinds {
			want, werr := translate.Translate(src, kind, opt)
			if (werr == nil) != (errs[i] == nil) || !bytes.Equal(out[i], want) {
				t.Errorf("%s → %s: from one scene %d bytes (%v), alone %d bytes (%v)", m.name, kind, len(out[i]), errs[i], len(want), werr)
			}
		}
		s.Release()
	}
}

func copyTo(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	writeTo(t, to, data)
}

func writeTo(t *testing.T, to string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
