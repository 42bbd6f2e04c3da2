package translate

import (
	"errors"
	"strings"
	"testing"

	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/scene"
)

func init() {
	// Test-only formats: one that panics, one that returns an inconsistent scene.
	codec.Register(codec.Format{
		Name: "test-panic", Description: "test format that panics", Exts: []string{".tpanic"},
		Match:  func(h []byte) bool { return strings.HasPrefix(string(h), "PANIC") },
		Decode: func(codec.Source) (*scene.Scene, error) { panic("boom") },
	})
	codec.Register(codec.Format{
		Name: "test-bad", Description: "test format with a bad scene", Exts: []string{".tbad"},
		Match: func(h []byte) bool { return strings.HasPrefix(string(h), "BADSCENE") },
		Decode: func(codec.Source) (*scene.Scene, error) {
			return &scene.Scene{Nodes: []scene.Node{{Name: "n", Parent: 7}}}, nil
		},
	})
}

func TestDecodeRecoversPanic(t *testing.T) {
	_, _, err := Decode(codec.Source{Name: "a/b.tpanic", Data: []byte("PANIC")})
	var ie *codec.InternalError
	if !errors.As(err, &ie) || ie.File != "a/b.tpanic" || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("err = %v; want InternalError naming the file", err)
	}
}

func TestDecodeValidates(t *testing.T) {
	_, _, err := Decode(codec.Source{Name: "c.tbad", Data: []byte("BADSCENE")})
	var fe *codec.FormatError
	var ve *scene.ValidationError
	if !errors.As(err, &fe) || !errors.As(err, &ve) || fe.Format != "test-bad" {
		t.Fatalf("err = %v; want FormatError wrapping a ValidationError", err)
	}
}

func TestKindOf(t *testing.T) {
	for _, k := range Kinds {
		if got, ok := KindOf("." + string(k)); !ok || got != k {
			t.Errorf("KindOf(.%s) = %v, %v", k, got, ok)
		}
	}
	if _, ok := KindOf(".fbx"); ok {
		t.Error("KindOf(.fbx) accepted")
	}
}
