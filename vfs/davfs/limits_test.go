package davfs

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelfs/modelfs/vfs"
)

// windowsPropfind is the body the Windows WebDAV redirector sends to list a folder: the
// largest PROPFIND an honest client sends.
const windowsPropfind = `<?xml version="1.0" encoding="utf-8" ?><D:propfind xmlns:D="DAV:"><D:prop xmlns:Z="urn:schemas-microsoft-com:"><D:creationdate/><D:displayname/><D:getcontentlength/><D:getcontenttype/><D:getetag/><D:getlastmodified/><D:resourcetype/><Z:Win32CreationTime/><Z:Win32LastAccessTime/><Z:Win32LastModifiedTime/><Z:Win32FileAttributes/></D:prop></D:propfind>`

// A PROPFIND answer is bounded by what the request may name: at most twice the largest honest
// answer of the same folder, and a body naming 100,000 properties is refused.
func TestPropfindBounded(t *testing.T) {
	srv := serve(t, sampleTree(t), vfs.Options{})
	depth1 := map[string]string{"Depth": "1"}
	honest := 0
	for _, body := range []string{"", windowsPropfind, `<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>`} {
		resp, b := do(t, "PROPFIND", srv.URL+"/Units/", depth1, body)
		if resp.StatusCode != http.StatusMultiStatus {
			t.Fatalf("honest PROPFIND: %s", resp.Status)
		}
		honest = max(honest, len(b))
	}
	// The most a request within the limits can name: maxProps properties, names and
	// namespaces of maxPropBytes in all, each in a namespace of its own.
	var props strings.Builder
	per := maxPropBytes / maxProps
	for i := range maxProps {
		local := fmt.Sprintf("p%0*d", per/2-1, i)
		ns := fmt.Sprintf("u:%0*d", per/2-2, i)
		props.WriteString(fmt.Sprintf(`<%s xmlns="%s"/>`, local, ns))
	}
	crafted := `<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop>` + props.String() + `</D:prop></D:propfind>`
	resp, b := do(t, "PROPFIND", srv.URL+"/Units/", depth1, crafted)
	if resp.StatusCode != http.StatusMultiStatus {
		t.Fatalf("PROPFIND within the limits: %s", resp.Status)
	}
	if len(b) > 2*honest {
		t.Errorf("PROPFIND naming %d properties: %d bytes, more than twice the largest honest answer (%d)", maxProps, len(b), honest)
	}
	t.Logf("largest honest answer %d bytes; the most the limits allow %d (%.2f×)", honest, len(b), float64(len(b))/float64(honest))
	// Past the limits.
	var many strings.Builder
	for i := range 100000 {
		fmt.Fprintf(&many, "<x%d/>", i)
	}
	for _, body := range []string{
		`<?xml version="1.0"?><D:propfind xmlns:D="DAV:" xmlns:x="u:"><D:prop>` + many.String() + `</D:prop></D:propfind>`,
		`<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop>` + strings.Repeat(`<a xmlns="u:x"/>`, maxProps+1) + `</D:prop></D:propfind>`,
		`<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop><` + strings.Repeat("n", maxPropBytes) + ` xmlns="u:"/></D:prop></D:propfind>`,
		// XML encoding/xml refuses and the WebDAV handler's own parser takes: not uncounted.
		`<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop><a:b:c/>` + strings.Repeat("<x/>", 10000) + `</D:prop></D:propfind>`,
	} {
		start := time.Now()
		resp, b := do(t, "PROPFIND", srv.URL+"/Units/", depth1, body)
		if resp.StatusCode != http.StatusBadRequest || len(b) > 1024 {
			t.Errorf("a PROPFIND of %d bytes past the limits: %s, %d bytes", len(body), resp.Status, len(b))
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("refusing it took %v", d)
		}
	}
	// No lock is advertised: LOCK is refused.
	_, b = do(t, "PROPFIND", srv.URL+"/Units/Crate.mdl", map[string]string{"Depth": "0"}, "")
	if strings.Contains(string(b), "lockentry") || !strings.Contains(string(b), "supportedlock") {
		t.Errorf("supportedlock should be there and empty:\n%s", b)
	}
}

// Ranges are merged and bounded: 20,000 ranges of one byte answer no more than the file.
func TestRangesBounded(t *testing.T) {
	src := sampleTree(t)
	data := make([]byte, 25000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	if err := os.WriteFile(filepath.Join(src, "blob.bin"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	srv := serve(t, src, vfs.Options{})
	var r strings.Builder
	r.WriteString("bytes=")
	for i := range 20000 {
		if i > 0 {
			r.WriteByte(',')
		}
		fmt.Fprintf(&r, "%d-%d", i, i)
	}
	resp, b := do(t, "GET", srv.URL+"/blob.bin", map[string]string{"Range": r.String()}, "")
	if len(b) > 2*len(data) || resp.StatusCode/100 != 2 {
		t.Errorf("20,000 one-byte ranges: %s, %d bytes for a file of %d", resp.Status, len(b), len(data))
	}
	// Written as net/http reads them too: spaces around the dash, empty parts.
	var spaced strings.Builder
	spaced.WriteString("bytes=")
	for i := range 20000 {
		fmt.Fprintf(&spaced, "%d -%d, ,", 2*i, 2*i)
	}
	resp, b = do(t, "GET", srv.URL+"/blob.bin", map[string]string{"Range": spaced.String()}, "")
	if len(b) > 2*len(data) || resp.StatusCode/100 != 2 {
		t.Errorf("20,000 spaced ranges: %s, %d bytes for a file of %d", resp.Status, len(b), len(data))
	}
	// Far apart, a few ranges are parts of their own; together, one.
	for _, c := range []struct {
		rng, ctype string
		n          int
	}{
		{"bytes=0-9,20000-20009", "multipart/byteranges", -1},
		{"bytes=0-9,5-30", "application/octet-stream", 31},
		{"bytes=-10", "application/octet-stream", 10},
		{"bytes=100-", "application/octet-stream", len(data) - 100},
	} {
		resp, b := do(t, "GET", srv.URL+"/blob.bin", map[string]string{"Range": c.rng}, "")
		if resp.StatusCode != http.StatusPartialContent || !strings.HasPrefix(resp.Header.Get("Content-Type"), c.ctype) || c.n >= 0 && len(b) != c.n {
			t.Errorf("%s: %s %s, %d bytes", c.rng, resp.Status, resp.Header.Get("Content-Type"), len(b))
		}
	}
	if resp, _ := do(t, "GET", srv.URL+"/blob.bin", map[string]string{"Range": "bytes=30000-"}, ""); resp.StatusCode != http.StatusRequestedRangeNotSatisfiable {
		t.Errorf("a range past the end: %s", resp.Status)
	}
}

// Paths with NUL or longer than PATH_MAX get 400; a redirect to a folder is never
// protocol-relative.
func TestPathLimits(t *testing.T) {
	srv := serve(t, sampleTree(t), vfs.Options{})
	for _, p := range []string{"/Units/%00", "/" + strings.Repeat("a", 70000)} {
		if resp, _ := do(t, "GET", srv.URL+p, nil, ""); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("GET of %.30s…: %s, want 400", p, resp.Status)
		}
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, p := range []string{"//Units", "/Units", "/./Units"} {
		req, _ := http.NewRequest("GET", srv.URL, nil)
		req.URL.Path, req.URL.RawPath = p, ""
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusMovedPermanently || loc != "/Units/" {
			t.Errorf("GET %s: %s to %q, want a redirect to /Units/", p, resp.Status, loc)
		}
	}
}

// Anonymous clients read what others may read in SRC; a client that passed basic
// authentication reads as the server's user.
func TestAnonymousModes(t *testing.T) {
	src := sampleTree(t)
	chmod := func(rel string, mode os.FileMode) {
		if err := os.Chmod(filepath.Join(src, rel), mode); err != nil {
			t.Fatal(err)
		}
	}
	copyIn := func(from, to string) {
		b, err := os.ReadFile(filepath.Join(src, from))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Dir(filepath.Join(src, to)), 0o755)
		if err := os.WriteFile(filepath.Join(src, to), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyIn("Units/Crate.mdl", "Private/Own.mdl")
	chmod("Private/Own.mdl", 0o600)
	copyIn("Units/Crate.mdl", "Closed/Crate.mdl")
	chmod("Textures/Crate.blp", 0o600) // Crate's texture: its documents are its owner's alone
	// A link in an open folder to a readable file in a folder others may not enter.
	copyIn("Units/Crate.mdl", "Closed/Readable.mdl")
	if err := os.Symlink("../Closed/Readable.mdl", filepath.Join(src, "Units", "Link.mdl")); err != nil {
		t.Fatal(err)
	}
	chmod("Closed", 0o700)
	dir, _ := vfs.SplitSource(src)
	tree, err := vfs.Open(dir, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	h := topHandler(t, tree)
	anon := httptest.NewServer(h)
	defer anon.Close()
	auth := httptest.NewServer(basicAuth(h, "artist", "pw"))
	defer auth.Close()
	for _, c := range []struct {
		path string
		anon int
	}{
		{"/Units/Crate.mdl", 200},
		{"/Units/Crate.mdl.glb", 403},
		{"/Units/Swinger.mdl.glb", 200},
		{"/Textures/Crate.blp.png", 403},
		{"/Private/Own.mdl", 403},
		{"/Private/Own.mdl.glb", 403},
		{"/Closed/Crate.mdl", 403},
		{"/Closed/", 403},
		{"/Units/Link.mdl", 403},
	} {
		if resp, _ := do(t, "GET", anon.URL+c.path, nil, ""); resp.StatusCode != c.anon {
			t.Errorf("anonymous GET %s: %s, want %d", c.path, resp.Status, c.anon)
		}
		req, _ := http.NewRequest("GET", auth.URL+c.path, nil)
		req.SetBasicAuth("artist", "pw")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("authenticated GET %s: %s, want 200", c.path, resp.Status)
		}
	}
	// A folder others may not enter is listed as itself, without what it holds (ls -ld).
	if resp, b := do(t, "PROPFIND", anon.URL+"/Closed/", map[string]string{"Depth": "1"}, ""); strings.Contains(string(b), "Crate") {
		t.Errorf("anonymous PROPFIND of a folder others may not enter: %s\n%s", resp.Status, b)
	}
}

// Idle keep-alive connections close after the idle timeout, and connections beyond the cap
// wait until one closes.
func TestConnectionLimits(t *testing.T) {
	dir := sampleTree(t)
	tree := openTree(t, dir)
	start := func(opt Options) string { return startServer(t, tree, opt) }
	get := func(c net.Conn) error {
		fmt.Fprintf(c, "GET /Units/Crate.mdl HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		return resp.Body.Close()
	}
	dial := func(addr string) net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}

	// An idle keep-alive connection is closed by the server.
	c := dial(start(Options{IdleTimeout: 300 * time.Millisecond}))
	if err := get(c); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	if n, err := c.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Errorf("an idle connection read %d bytes, %v; want it closed (EOF) by the idle timeout", n, err)
	}

	// A client that stops reading a large answer loses its connection after the stall: the
	// only connection the server takes is free again for the next client.
	big := make([]byte, 32<<20)
	if err := os.WriteFile(filepath.Join(dir, "big.bin"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	stallAddr := start(Options{MaxConns: 1, WriteStall: 300 * time.Millisecond})
	stalled := dial(stallAddr)
	fmt.Fprintf(stalled, "GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n") // and reads nothing
	next := dial(stallAddr)
	served := make(chan error, 1)
	go func() { served <- get(next) }()
	select {
	case err := <-served:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a client that stopped reading kept the only connection")
	}

	// Past the bound, a new connection makes room by closing the one idle longest.
	addr := start(Options{MaxConns: 2})
	a, b := dial(addr), dial(addr)
	if get(a) != nil || get(b) != nil {
		t.Fatal("the first two connections were not served")
	}
	time.Sleep(10 * time.Millisecond) // b idle after a
	third := dial(addr)
	got := make(chan error, 1)
	go func() { got <- get(third) }()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a third connection was not served")
	}
	a.SetReadDeadline(time.Now().Add(30 * time.Second))
	if n, err := a.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Errorf("the connection idle longest read %d bytes, %v; want it closed for the third", n, err)
	}
	if err := get(b); err != nil {
		t.Errorf("the other idle connection: %v", err)
	}
}

// openTree opens the tree at dir for the test.
func openTree(t *testing.T, dir string) *vfs.Tree {
	t.Helper()
	tree, err := vfs.Open(dir, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tree.Close)
	return tree
}

// startServer serves tree with opt on a port of localhost until the test ends, and returns
// its address.
func startServer(t *testing.T, tree *vfs.Tree, opt Options) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	h := topHandler(t, tree)
	go func() { done <- Serve(ctx, ln, h, opt) }()
	t.Cleanup(func() { cancel(); <-done })
	return ln.Addr().String()
}

// Finding 4 of the third trust pass: 300 clients trickling PROPFIND bodies (more than the
// places) starve no one: a GET beside them is answered at once, and each of them is cut once
// its body is late.
func TestSlowClientsStarveNoOne(t *testing.T) {
	addr := startServer(t, openTree(t, sampleTree(t)), Options{})

	const slow = 300
	cut := make(chan time.Duration, slow)
	for range slow {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "PROPFIND /Units/ HTTP/1.1\r\nHost: x\r\nDepth: 1\r\nContent-Length: 1000\r\n\r\n<")
		go func() {
			start := time.Now()
			for {
				time.Sleep(200 * time.Millisecond)
				if _, err := c.Write([]byte(" ")); err != nil {
					break
				}
				c.SetReadDeadline(time.Now().Add(time.Millisecond))
				if _, err := c.Read(make([]byte, 1)); err == io.EOF || err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
					break
				}
				if time.Since(start) > time.Minute {
					break
				}
			}
			cut <- time.Since(start)
		}()
	}
	time.Sleep(1500 * time.Millisecond) // the trickling clients are slow by now
	start := time.Now()
	resp, err := http.Get("http://" + addr + "/Units/Crate.mdl")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	t.Logf("a GET beside %d trickling clients answered in %v", slow, took)
	if resp.StatusCode != http.StatusOK || took > bodyGrace {
		t.Errorf("a GET beside %d trickling clients: %s after %v", slow, resp.Status, took)
	}
	var longest time.Duration
	for range slow {
		longest = max(longest, <-cut)
	}
	t.Logf("the trickling clients were cut after %v at most", longest)
	if longest > bodyGrace+5*time.Second {
		t.Errorf("a trickling client kept its connection %v", longest)
	}
}

// A client that sends "Expect: 100-continue" sends its body once the server asks for it: the
// gate does not wait for the body first.
func TestExpectContinue(t *testing.T) {
	c, err := net.Dial("tcp", startServer(t, openTree(t, sampleTree(t)), Options{}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body := `<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>`
	fmt.Fprintf(c, "PROPFIND /Units/ HTTP/1.1\r\nHost: x\r\nDepth: 1\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n", len(body))
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	br := bufio.NewReader(c)
	line, err := br.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "HTTP/1.1 100") {
		t.Fatalf("before the body: %q, %v; want 100 Continue", line, err)
	}
	br.ReadString('\n') // the blank line after it
	fmt.Fprint(c, body)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusMultiStatus {
		t.Fatalf("PROPFIND: %v, %v", resp, err)
	}
}

// failingListener fails its first Accept with an error that is not a timeout (too many open
// files), then accepts as ln does.
type failingListener struct {
	net.Listener
	failed bool
}

func (l *failingListener) Accept() (net.Conn, error) {
	if !l.failed {
		l.failed = true
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	return l.Listener.Accept()
}

// The gate's own edges: a failed accept is retried; past the places, at most as many wait as
// there are places (the others are told 503 at once); a request whose lines end in a bare LF is
// answered; a server shutting down closes the connections still sending their first request;
// and without the password a body is never read.
func TestGateEdges(t *testing.T) {
	tree := openTree(t, sampleTree(t))
	get := func(addr string) (*http.Response, error) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			return nil, err
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(30 * time.Second))
		fmt.Fprintf(c, "GET /Units/Crate.mdl HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
		}
		return resp, err
	}

	t.Run("accept fails once", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- Serve(ctx, &failingListener{Listener: ln}, topHandler(t, tree), Options{}) }()
		defer func() { cancel(); <-done }()
		if resp, err := get(ln.Addr().String()); err != nil || resp.StatusCode != http.StatusOK {
			t.Errorf("a GET after a failed accept: %v, %v", resp, err)
		}
	})

	t.Run("waiting bounded", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "big.bin"), make([]byte, 32<<20), 0o644)
		addr := startServer(t, openTree(t, dir), Options{MaxConns: 1, WriteStall: time.Minute})
		stalled, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer stalled.Close()
		fmt.Fprintf(stalled, "GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n") // the one place, answering, read by no one
		time.Sleep(200 * time.Millisecond)
		codes := make(chan int, 4)
		for range 4 {
			go func() {
				c, err := net.Dial("tcp", addr)
				if err != nil {
					codes <- 0
					return
				}
				defer c.Close()
				c.SetDeadline(time.Now().Add(30 * time.Second))
				fmt.Fprintf(c, "GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
				resp, err := http.ReadResponse(bufio.NewReader(c), nil)
				if err != nil {
					codes <- -1
					return
				}
				codes <- resp.StatusCode
			}()
		}
		refused := 0
		for range 3 { // one waits for the place, the other three are refused at once
			if <-codes == http.StatusServiceUnavailable {
				refused++
			}
		}
		if refused != 3 {
			t.Errorf("%d of the connections past the one waiting were told 503", refused)
		}
	})

	t.Run("bare LF", func(t *testing.T) {
		c, err := net.Dial("tcp", startServer(t, tree, Options{}))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(30 * time.Second))
		fmt.Fprintf(c, "GET /Units/Crate.mdl HTTP/1.1\nHost: x\n\n")
		if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err != nil || resp.StatusCode != http.StatusOK {
			t.Errorf("a request of bare LFs: %v, %v", resp, err)
		}
	})

	t.Run("shutdown", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- Serve(ctx, ln, topHandler(t, tree), Options{}) }()
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "GET /Units/Cr") // and no more
		time.Sleep(100 * time.Millisecond)
		cancel()
		<-done
		c.SetReadDeadline(time.Now().Add(3 * time.Second))
		if _, err := c.Read(make([]byte, 1)); err != io.EOF {
			t.Errorf("a connection still sending its request after the shutdown: %v; want it closed", err)
		}
	})

	t.Run("TLS", func(t *testing.T) {
		certFile, keyFile, pool := selfSigned(t)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			done <- Serve(ctx, ln, topHandler(t, tree), Options{CertFile: certFile, KeyFile: keyFile, User: "artist", Password: "pw"})
		}()
		defer func() { cancel(); <-done }()
		client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}}
		defer client.CloseIdleConnections()
		for _, method := range []string{"GET", "PROPFIND"} {
			req, _ := http.NewRequest(method, "https://"+ln.Addr().String()+"/Units/", strings.NewReader(""))
			req.SetBasicAuth("artist", "pw")
			req.Header.Set("Depth", "1")
			resp, err := client.Do(req)
			if err != nil {
				t.Fatalf("%s over TLS: %v", method, err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode >= 300 || resp.ProtoMajor != 2 {
				t.Errorf("%s over TLS: %s, %s", method, resp.Status, resp.Proto)
			}
		}
	})

	t.Run("no body before the password", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			done <- Serve(ctx, ln, topHandler(t, tree), Options{User: "artist", Password: "pw"})
		}()
		defer func() { cancel(); <-done }()
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		// Expect lets the header through the gate alone: the body never comes.
		fmt.Fprintf(c, "PROPFIND /Units/ HTTP/1.1\r\nHost: x\r\nDepth: 1\r\nExpect: 100-continue\r\nContent-Length: 60000\r\n\r\n")
		c.SetReadDeadline(time.Now().Add(3 * time.Second))
		if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err != nil || resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("a PROPFIND without the password: %v, %v; want 401 before its body", resp, err)
		}
	})
}

// selfSigned writes a certificate for 127.0.0.1 and its key, and returns their files and a
// pool trusting it.
func selfSigned(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "modelfs test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}
