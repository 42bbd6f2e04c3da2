package codec

import (
	"errors"
	"strings"
	"testing"

	"github.com/modelfs/modelfs/translate/scene"
)

func init() {
	// Test-only formats, registered in this package's test binary only.
	Register(Format{
		Name: "test-a", Description: "test format A", Exts: []string{".ta"},
		Match:  func(h []byte) bool { return strings.HasPrefix(string(h), "AAAA") },
		Decode: func(Source) (*scene.Scene, error) { return &scene.Scene{}, nil },
	})
	Register(Format{
		Name: "test-b", Description: "test format B", Exts: []string{".tb"},
		Match:  func(h []byte) bool { return strings.HasPrefix(string(h), "BBBB") },
		Decode: func(Source) (*scene.Scene, error) { return &scene.Scene{}, nil },
		Options: []Option{{Name: "level", Help: "1 or 2", Check: func(v string) error {
			if v != "1" && v != "2" {
				return errors.New("want 1 or 2")
			}
			return nil
		}}},
	})
	Register(Format{Name: "test-img", Description: "test image", Exts: []string{".timg"}})
}

func TestSniff(t *testing.T) {
	tests := []struct {
		name, file, head string
		want             string // format name, or "" for an error
		errHas           string
	}{
		{"by content", "x.ta", "AAAA!", "test-a", ""},
		{"content beats extension", "x.tb", "AAAA!", "test-a", ""},
		{"empty", "x.tb", "", "", "empty file"},
		{"quake", "x.tb", "IDPO\x06\x00", "", "Quake model"},
		{"half-life", "x.tb", "IDST\x0a\x00", "", "Half-Life"},
		{"md21", "x.tb", "MD21....", "", "MD21"},
		{"garbage names the expected format", "x.tb", "hello", "", "not a test format B"},
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

// Models and textures are told apart by what their formats decode.
func TestNames(t *testing.T) {
	if !IsModelName("a/x.TA") || IsModelName("x.timg") || !IsTextureName("x.timg") || IsTextureName("x.ta") {
		t.Error("model and texture names mixed up")
	}
	if ImageFormat("y.timg") == nil || ImageFormat("y.ta") != nil {
		t.Error("ImageFormat")
	}
}

// Options are checked against what the formats declare.
func TestCheckOptions(t *testing.T) {
	for _, tc := range []struct {
		kv   map[string]string
		want string // "" for no error
	}{
		{map[string]string{"level": "2"}, ""},
		{map[string]string{"level": "3"}, "test-b option level=\"3\": want 1 or 2"},
		{map[string]string{"lod": "1"}, "unknown decoder option \"lod\""},
		{nil, ""},
	} {
		err := CheckOptions(tc.kv)
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%v: %v; want %q", tc.kv, err, tc.want)
		}
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
