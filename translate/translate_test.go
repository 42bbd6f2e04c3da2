package translate

import (
	"errors"
	"strings"
	"testing"

	"github.com/modelfs/modelfs/translate/scene"
)

func init() {
	// Test-only formats: one that panics, one that returns an inconsistent scene.
	Register(Format{
		Name: "test-panic", Description: "test format that panics", Exts: []string{".tpanic"},
		Match:  func(h []byte) bool { return strings.HasPrefix(string(h), "PANIC") },
		Decode: func(Source) (*scene.Scene, error) { panic("boom") },
	})
	Register(Format{
		Name: "test-bad", Description: "test format with a bad scene", Exts: []string{".tbad"},
		Match: func(h []byte) bool { return strings.HasPrefix(string(h), "BADSCENE") },
		Decode: func(Source) (*scene.Scene, error) {
			return &scene.Scene{Nodes: []scene.Node{{Name: "n", Parent: 7}}}, nil
		},
	})
}

func TestSniff(t *testing.T) {
	tests := []struct {
		name, file, head string
		want             string // format name, or "" for an error
		errHas           string
	}{
		{"by content", "x.tpanic", "PANIC!", "test-panic", ""},
		{"content beats extension", "x.tbad", "PANIC!", "test-panic", ""},
		{"empty", "x.tbad", "", "", "empty file"},
		{"quake", "x.tbad", "IDPO\x06\x00", "", "Quake model"},
		{"half-life", "x.tbad", "IDST\x0a\x00", "", "Half-Life"},
		{"md21", "x.tbad", "MD21....", "", "MD21"},
		{"garbage names the expected format", "x.tbad", "hello", "", "not a test format with a bad scene"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Sniff(tc.file, []byte(tc.head))
			if tc.want != "" {
				if err != nil || f.Name != tc.want {
					t.Fatalf("Sniff = %v, %v; want %s", f, err, tc.want)
				}
				return
			}
			var ue *UnsupportedError
			if !errors.As(err, &ue) || !errors.Is(err, ErrUnknownFormat) {
				t.Fatalf("Sniff error = %v; want *UnsupportedError", err)
			}
			if !strings.Contains(err.Error(), tc.errHas) || !strings.Contains(err.Error(), tc.file) {
				t.Fatalf("error %q lacks %q or the file name", err, tc.errHas)
			}
		})
	}
}

func TestDecodeRecoversPanic(t *testing.T) {
	_, _, err := Decode(Source{Name: "a/b.tpanic", Data: []byte("PANIC")})
	var ie *InternalError
	if !errors.As(err, &ie) || ie.File != "a/b.tpanic" || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("err = %v; want InternalError naming the file", err)
	}
}

func TestDecodeValidates(t *testing.T) {
	_, _, err := Decode(Source{Name: "c.tbad", Data: []byte("BADSCENE")})
	var fe *FormatError
	var ve *scene.ValidationError
	if !errors.As(err, &fe) || !errors.As(err, &ve) || fe.Format != "test-bad" {
		t.Fatalf("err = %v; want FormatError wrapping a ValidationError", err)
	}
}

func TestFormatErrorText(t *testing.T) {
	for _, tc := range []struct {
		err  *FormatError
		want string
	}{
		{&FormatError{Format: "mdx", File: "a.mdx", Offset: 16, Msg: "bad"}, "a.mdx: mdx: offset 16 (0x10): bad"},
		{&FormatError{Format: "mdl", File: "a.mdl", Offset: -1, Line: 3, Msg: "bad"}, "a.mdl: mdl: line 3: bad"},
		{&FormatError{Format: "mdl", File: "a.mdl", Offset: -1, Msg: "bad", Err: errors.New("cause")}, "a.mdl: mdl: bad: cause"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q; want %q", got, tc.want)
		}
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
