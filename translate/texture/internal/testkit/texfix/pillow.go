package texfix

import (
	"bufio"
	"bytes"
	"fmt"
	"image"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Pillow returns a Python interpreter with Pillow (Debian's python3-pil), an independent
// decoder to compare with. Without one the test is skipped, except under CI, where it fails.
func Pillow(t testing.TB) string {
	t.Helper()
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(py, "-c", "import PIL.BlpImagePlugin, PIL.DdsImagePlugin").Run() == nil {
			return py
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("Pillow (Debian python3-pil) is needed under CI")
	}
	t.Skip("Pillow (python3-pil) not installed; skipping the comparison with an independent decoder")
	return ""
}

const pillowDump = `
import sys
from PIL import Image
for f in sys.argv[1:]:
    try:
        im = Image.open(f)
        im.load()
    except Exception as e:
        sys.stdout.write("error %s\n" % str(e).replace("\n", " "))
        continue
    mode = im.mode
    data = im.convert("RGBA").tobytes()
    sys.stdout.write("%d %d %s %d\n" % (im.size[0], im.size[1], mode, len(data)))
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()
`

// PillowImage is how Pillow decoded one file: its mode and its pixels as RGBA, or the error
// it raised.
type PillowImage struct {
	Mode string
	Img  *image.NRGBA
	Err  string
}

// PillowDecode decodes each file with Pillow through the interpreter py.
func PillowDecode(t testing.TB, py string, paths []string) []PillowImage {
	t.Helper()
	out, err := exec.Command(py, append([]string{"-c", pillowDump}, paths...)...).Output()
	if err != nil {
		t.Fatalf("Pillow: %v", err)
	}
	r := bufio.NewReader(bytes.NewReader(out))
	res := make([]PillowImage, len(paths))
	for i := range paths {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if msg, ok := strings.CutPrefix(line, "error "); ok {
			res[i].Err = strings.TrimSpace(msg)
			continue
		}
		var w, h, n int
		if _, err := fmt.Sscanf(strings.TrimSpace(line), "%d %d %s %d", &w, &h, &res[i].Mode, &n); err != nil {
			t.Fatalf("Pillow output %q: %v", line, err)
		}
		res[i].Img = image.NewNRGBA(image.Rect(0, 0, w, h))
		if _, err := io.ReadFull(r, res[i].Img.Pix); err != nil {
			t.Fatal(err)
		}
	}
	return res
}
