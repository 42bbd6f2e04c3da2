package texfix

import (
	"errors"
	"image"
	"runtime"
	"testing"

	"github.com/modelfs/modelfs/translate/codec"
)

// CheckRefusals requires decode to refuse every input of bad with a *codec.FormatError naming
// format and the input's name, allocating no more than 16 bytes per input byte plus 64 KiB
// (the decoders' fixed tables and image/jpeg's state).
func CheckRefusals(t *testing.T, format string, bad map[string][]byte, decode func(name string, data []byte) error) {
	t.Helper()
	for name, data := range bad {
		var ms0, ms1 runtime.MemStats
		runtime.ReadMemStats(&ms0)
		err := decode(name, data)
		runtime.ReadMemStats(&ms1)
		var fe *codec.FormatError
		if !errors.As(err, &fe) {
			t.Errorf("%s: got %T %v, want a *codec.FormatError", name, err, err)
			continue
		}
		t.Logf("%s: %v", name, err)
		if fe.Format != format || fe.File != name {
			t.Errorf("%s: error names %q/%q", name, fe.Format, fe.File)
		}
		if alloc := ms1.TotalAlloc - ms0.TotalAlloc; alloc > 16*uint64(len(data))+64<<10 {
			t.Errorf("%s: %d bytes of input, %d bytes allocated", name, len(data), alloc)
		}
	}
}

// CheckFuzzResult checks what a decoder made of one fuzz input: an error must be a
// *codec.FormatError; an image needs a header that reads too and, when sized, gives the
// image's size.
func CheckFuzzResult(t *testing.T, img image.Image, err error, header func() (w, h int, sized bool, err error)) {
	t.Helper()
	if err != nil {
		var fe *codec.FormatError
		if !errors.As(err, &fe) {
			t.Fatalf("error %T %v is not a FormatError", err, err)
		}
		return
	}
	w, h, sized, err := header()
	if err != nil {
		t.Fatalf("Decode succeeded where DecodeHeader fails: %v", err)
	}
	if b := img.Bounds(); sized && (b.Dx() != w || b.Dy() != h) {
		t.Fatalf("image %v for a %d×%d header", b, w, h)
	}
}
