package davfs

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelfs/modelfs/internal/testkit/corpus"
	"github.com/modelfs/modelfs/translate"
	_ "github.com/modelfs/modelfs/translate/all" // every source format
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/vfs"
)

// sampleTree copies the sample tree into a fresh directory and returns it.
func sampleTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(corpus.RepoRoot(t), "testdata", "sample"))); err != nil {
		t.Fatal(err)
	}
	return dir
}

// serve serves src over WebDAV on a loopback port.
func serve(t testing.TB, src string, opt vfs.Options) *httptest.Server {
	t.Helper()
	dir, archive := vfs.SplitSource(src)
	tree, err := vfs.Open(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	shown, err := tree.Shown(archive)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(New(shown))
	t.Cleanup(func() { srv.Close(); tree.Close() })
	return srv
}

func do(t *testing.T, method, url string, hdr map[string]string, body string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// translated is what convert writes for the model or texture src of the tree root.
func translated(t *testing.T, root, src string, kind translate.Kind) []byte {
	t.Helper()
	r, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	data, err := r.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	if kind == translate.PNG {
		if out, err = translate.ConvertTexture(src, data); err != nil {
			// A texture that does not decode serves the picture saying why.
			return translate.FailureDocument(kind, src, "texture", err)
		}
	} else {
		out, err = translate.Translate(codec.Source{Name: src, Data: data, FS: codec.RootFS(r)}, kind,
			translate.EncodeOptions{MTLName: filepath.Base(src) + ".mtl"})
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// GET serves the bytes convert writes, whole and in ranges, with an ETag from the content key
// that a conditional request honours; HEAD gives the exact length.
func TestGet(t *testing.T) {
	src := sampleTree(t)
	srv := serve(t, src, vfs.Options{CacheDir: t.TempDir()})
	for _, kind := range []translate.Kind{translate.GLTF, translate.GLB, translate.OBJ, translate.MTL, translate.JSON} {
		want := translated(t, src, "Units/Swinger.mdx", kind)
		url := srv.URL + "/Units/Swinger.mdx." + string(kind)
		resp, got := do(t, "GET", url, nil, "")
		if resp.StatusCode != 200 || !bytes.Equal(got, want) {
			t.Fatalf("%s: %s, %d bytes, want %d", kind, resp.Status, len(got), len(want))
		}
		if kind == translate.GLB { // kept in pieces: the texture's PNG is its own document
			r := fmt.Sprintf("bytes=10-%d", len(want)-10)
			if resp, got := do(t, "GET", url, map[string]string{"Range": r}, ""); resp.StatusCode != http.StatusPartialContent || !bytes.Equal(got, want[10:len(want)-9]) {
				t.Errorf("%s: range %s: %s, %d bytes", kind, r, resp.Status, len(got))
			}
		}
		etag := resp.Header.Get("ETag")
		if etag == "" || resp.Header.Get("Last-Modified") == "" {
			t.Errorf("%s: no ETag or Last-Modified: %v", kind, resp.Header)
		}
		resp, _ = do(t, "HEAD", url, nil, "")
		if resp.ContentLength != int64(len(want)) {
			t.Errorf("%s: HEAD says %d bytes, want %d", kind, resp.ContentLength, len(want))
		}
		resp, got = do(t, "GET", url, map[string]string{"Range": "bytes=10-99"}, "")
		if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(got, want[10:100]) {
			t.Errorf("%s: range: %s, %q", kind, resp.Status, got)
		}
		resp, _ = do(t, "GET", url, map[string]string{"If-None-Match": etag}, "")
		if resp.StatusCode != http.StatusNotModified {
			t.Errorf("%s: If-None-Match: %s", kind, resp.Status)
		}
	}
	want := translated(t, src, "Textures/Crate.blp", translate.PNG)
	if resp, got := do(t, "GET", srv.URL+"/Textures/Crate.blp.png", nil, ""); resp.StatusCode != 200 || !bytes.Equal(got, want) || resp.Header.Get("Content-Type") != "image/png" {
		t.Errorf("texture: %s, %s, %d bytes, want %d", resp.Status, resp.Header.Get("Content-Type"), len(got), len(want))
	}
	raw, _ := os.ReadFile(filepath.Join(src, "Units", "Crate.mdl"))
	if resp, got := do(t, "GET", srv.URL+"/Units/Crate.mdl", map[string]string{"Range": "bytes=-20"}, ""); resp.StatusCode != http.StatusPartialContent || !bytes.Equal(got, raw[len(raw)-20:]) {
		t.Errorf("source range: %s %q", resp.Status, got)
	}
	for _, missing := range []string{"/Units/Nope.mdx.gltf", "/Units/Crate.mdl.txt", "/Units/Crate.mdl/x", "/../etc/passwd", "/Units/Crate.mdl.gltf.json"} {
		if resp, _ := do(t, "GET", srv.URL+missing, nil, ""); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %s, want 404", missing, resp.Status)
		}
	}
}

// PROPFIND lists the same names as the mount with exact sizes, and refuses a listing of the
// whole tree at once.
func TestPropfind(t *testing.T) {
	src := sampleTree(t)
	srv := serve(t, src, vfs.Options{CacheDir: t.TempDir()})
	resp, body := do(t, "PROPFIND", srv.URL+"/Units/", map[string]string{"Depth": "1"}, "")
	if resp.StatusCode != http.StatusMultiStatus {
		t.Fatalf("PROPFIND: %s", resp.Status)
	}
	for _, kind := range []translate.Kind{translate.GLTF, translate.GLB, translate.JSON} {
		want := translated(t, src, "Units/Crate.mdx", kind)
		entry := fmt.Sprintf("<D:href>/Units/Crate.mdx.%s</D:href>", kind)
		i := bytes.Index(body, []byte(entry))
		if i < 0 {
			t.Fatalf("listing lacks %s:\n%s", entry, body)
		}
		size := fmt.Sprintf("<D:getcontentlength>%d</D:getcontentlength>", len(want))
		if end := bytes.Index(body[i:], []byte("</D:response>")); !bytes.Contains(body[i:i+end], []byte(size)) {
			t.Errorf("%s: want %s in %s", entry, size, body[i:i+end])
		}
	}
	for _, depth := range []string{"infinity", ""} {
		hdr := map[string]string{}
		if depth != "" {
			hdr["Depth"] = depth
		}
		if resp, body := do(t, "PROPFIND", srv.URL+"/", hdr, ""); resp.StatusCode != http.StatusForbidden || !bytes.Contains(body, []byte("propfind-finite-depth")) {
			t.Errorf("Depth %q: %s", depth, resp.Status)
		}
	}
}

// Every method that writes is refused, and the source tree is unchanged afterwards.
func TestReadOnly(t *testing.T) {
	src := sampleTree(t)
	before := snapshot(t, src)
	srv := serve(t, src, vfs.Options{})
	dest := map[string]string{"Destination": srv.URL + "/Units/Moved.mdl", "Overwrite": "T"}
	for _, c := range []struct {
		method, path string
		hdr          map[string]string
		body         string
	}{
		{"PUT", "/Units/New.mdl", nil, "Model {}"},
		{"PUT", "/Units/Crate.mdl", nil, "overwritten"},
		{"PUT", "/Units/Crate.mdl.gltf", nil, "{}"},
		{"DELETE", "/Units/Crate.mdl", nil, ""},
		{"DELETE", "/Units", nil, ""},
		{"MKCOL", "/NewFolder", nil, ""},
		{"MOVE", "/Units/Crate.mdl", dest, ""},
		{"COPY", "/Units/Crate.mdl", dest, ""},
		{"PROPPATCH", "/Units/Crate.mdl", nil, `<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><x xmlns="urn:x">1</x></D:prop></D:set></D:propertyupdate>`},
		{"LOCK", "/Units/Crate.mdl", nil, `<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockinfo>`},
		{"UNLOCK", "/Units/Crate.mdl", map[string]string{"Lock-Token": "<opaquelocktoken:x>"}, ""},
		{"POST", "/Units/Crate.mdl", nil, "x"},
	} {
		resp, _ := do(t, c.method, srv.URL+c.path, c.hdr, c.body)
		if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("%s %s: %s, want 403 or 405", c.method, c.path, resp.Status)
		}
	}
	resp, _ := do(t, "OPTIONS", srv.URL+"/", nil, "")
	if resp.Header.Get("DAV") != "1" || strings.Contains(resp.Header.Get("Allow"), "PUT") {
		t.Errorf("OPTIONS: DAV %q, Allow %q", resp.Header.Get("DAV"), resp.Header.Get("Allow"))
	}
	if after := snapshot(t, src); after != before {
		t.Errorf("the source tree changed:\n%s\nbefore:\n%s", after, before)
	}
}

// snapshot describes every file of dir: name, mode, size, time and content hash.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %v %d %d", p, fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		if fi.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, " %x", data)
		}
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// A browser's GET of a folder gets an HTML index linking every entry; a folder without its
// slash is redirected to it.
func TestIndex(t *testing.T) {
	src := sampleTree(t)
	srv := serve(t, src, vfs.Options{})
	resp, body := do(t, "GET", srv.URL+"/Units/", nil, "")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("index: %s %s", resp.Status, resp.Header.Get("Content-Type"))
	}
	for _, want := range []string{`href="Crate.mdx.gltf"`, `href="Crate.mdl"`, `href="../"`} {
		if !bytes.Contains(body, []byte(want)) {
			t.Errorf("index lacks %s:\n%s", want, body)
		}
	}
	// A document's size shows once known: not before (drawing the page translates nothing).
	if !bytes.Contains(body, []byte(`Crate.mdx.gltf</a></td><td class="n">—`)) {
		t.Errorf("a document not translated yet shows a size:\n%s", body)
	}
	if resp, doc := do(t, "GET", srv.URL+"/Units/Crate.mdx.gltf", nil, ""); resp.StatusCode != 200 {
		t.Fatal(resp.Status)
	} else {
		_, body = do(t, "GET", srv.URL+"/Units/", nil, "")
		if want := fmt.Sprintf(`Crate.mdx.gltf</a></td><td class="n">%d<`, len(doc)); !bytes.Contains(body, []byte(want)) {
			t.Errorf("index lacks %s once it was read:\n%s", want, body)
		}
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	r, err := client.Get(srv.URL + "/Units")
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusMovedPermanently || r.Header.Get("Location") != "/Units/" {
		t.Errorf("folder without slash: %s to %q", r.Status, r.Header.Get("Location"))
	}
}

// A model that does not translate serves its error document as .json and documents saying why
// as its other kinds; the rest of the tree serves on.
func TestBrokenModel(t *testing.T) {
	src := sampleTree(t)
	if err := os.WriteFile(filepath.Join(src, "Units", "Broken.mdx"), []byte("MDLXVERS\x04\x00\x00\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := serve(t, src, vfs.Options{})
	resp, body := do(t, "GET", srv.URL+"/Units/Broken.mdx.gltf", nil, "")
	if resp.StatusCode != 200 || !bytes.Contains(body, []byte(`"error: mdx:`)) {
		t.Errorf("broken .gltf: %s %q", resp.Status, body)
	}
	resp, body = do(t, "GET", srv.URL+"/Units/Broken.mdx.json", nil, "")
	if resp.StatusCode != 200 || !bytes.Contains(body, []byte(`"error"`)) {
		t.Errorf("broken .json: %s %q", resp.Status, body)
	}
	if resp, _ := do(t, "GET", srv.URL+"/Units/Crate.mdx.gltf", nil, ""); resp.StatusCode != 200 {
		t.Errorf("a good model after a broken one: %s", resp.Status)
	}
}

// Basic authentication lets in the user with the password only; it is refused without TLS
// beyond localhost.
func TestAuth(t *testing.T) {
	for _, c := range []struct {
		opt Options
		ok  bool
	}{
		{Options{}, true},
		{Options{User: "artist", Password: "pw"}, true},
		{Options{Addr: "0.0.0.0:8080", User: "artist", Password: "pw"}, false},
		{Options{Addr: "[::]:8080", User: "artist", Password: "pw", CertFile: "c", KeyFile: "k"}, true},
		{Options{Addr: "192.0.2.1:8080"}, false}, // anonymous beyond localhost: opt in
		{Options{Addr: ":8080"}, false},
		{Options{Addr: "[::]:8080"}, false},
		{Options{Addr: "0.0.0.0:8080", AllowAnonymous: true}, true},
		{Options{Addr: "localhost:8080"}, true},
		{Options{User: "artist"}, false},
		{Options{CertFile: "c"}, false},
		{Options{Addr: "nowhere"}, false},
	} {
		if _, err := c.opt.WithDefaults(); (err == nil) != c.ok {
			t.Errorf("%+v: %v", c.opt, err)
		}
	}
	src := sampleTree(t)
	tree, err := vfs.Open(src, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	srv := httptest.NewServer(basicAuth(topHandler(t, tree), "artist", "secret"))
	defer srv.Close()
	for _, c := range []struct {
		user, pw string
		status   int
	}{{"artist", "secret", 200}, {"artist", "wrong", 401}, {"", "", 401}, {"other", "secret", 401}} {
		req, _ := http.NewRequestWithContext(context.Background(), "GET", srv.URL+"/Units/Crate.mdl", nil)
		if c.user != "" {
			req.SetBasicAuth(c.user, c.pw)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("%s:%s: %s, want %d", c.user, c.pw, resp.Status, c.status)
		}
	}
}

// An archive that cannot be opened (truncated, not an MPQ) is served as the plain file it is;
// a name below it is not there.
func TestBadArchive(t *testing.T) {
	src := sampleTree(t)
	junk := []byte("MPQ\x1a truncated")
	if err := os.WriteFile(filepath.Join(src, "Broken.mpq"), junk, 0o644); err != nil {
		t.Fatal(err)
	}
	srv := serve(t, src, vfs.Options{})
	if resp, got := do(t, "GET", srv.URL+"/Broken.mpq", nil, ""); resp.StatusCode != 200 || !bytes.Equal(got, junk) {
		t.Errorf("bad archive: %s %q", resp.Status, got)
	}
	if resp, _ := do(t, "GET", srv.URL+"/Broken.mpq/Units/x.mdx", nil, ""); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a name inside a bad archive: %s", resp.Status)
	}
	resp, body := do(t, "PROPFIND", srv.URL+"/", map[string]string{"Depth": "1"}, "")
	if resp.StatusCode != http.StatusMultiStatus || !bytes.Contains(body, []byte("<D:href>/Broken.mpq</D:href>")) {
		t.Errorf("listing: %s\n%s", resp.Status, body)
	}
}

// topHandler is the handler serving tree from SRC's folder.
func topHandler(t *testing.T, tree *vfs.Tree) *Handler {
	t.Helper()
	shown, err := tree.Shown("")
	if err != nil {
		t.Fatal(err)
	}
	return New(shown)
}
