// Package davfs serves the tree core over WebDAV (golang.org/x/net/webdav), for the machines
// where FUSE does not mount: the same tree as the mount — its files, archives and virtual
// documents with exact sizes and the same bytes — read-only, with a plain HTML index for
// browsers.
package davfs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"strings"
	"syscall"
	"time"

	"golang.org/x/net/webdav"

	"github.com/modelfs/modelfs/vfs"
)

// Handler serves a tree over WebDAV.
type Handler struct {
	fs  *fileSystem
	dav *webdav.Handler
	log *slog.Logger
}

// New returns the handler serving the tree as shown. It logs what fails on the tree's logger.
func New(shown *vfs.Shown) *Handler {
	h := &Handler{fs: &fileSystem{shown: shown}, log: shown.Tree().Options().Logger}
	h.dav = &webdav.Handler{
		FileSystem: h.fs,
		LockSystem: webdav.NewMemLS(), // never reached: LOCK is refused before
		Logger: func(r *http.Request, err error) {
			if err != nil {
				h.logError(r, err)
			}
		},
	}
	return h
}

// readMethods are the methods served; every other one would change the tree, or is unknown.
const readMethods = "OPTIONS, GET, HEAD, PROPFIND"

// Limits on what a request may ask, so that no answer is much larger than an honest one.
const (
	maxPath      = 4096     // bytes of a path, as PATH_MAX
	maxBody      = 64 << 10 // bytes of a request body: a PROPFIND names a few properties
	maxProps     = 32       // properties a PROPFIND may name (allprop lists 9 of each entry)
	maxPropBytes = 512      // bytes of their names and namespaces, all together
)

// ServeHTTP answers one request.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Server", "modelfs")
	if strings.ContainsRune(r.URL.Path, 0) || len(r.URL.Path) > maxPath {
		http.Error(w, fmt.Sprintf("a path holds no NUL and is at most %d bytes", maxPath), http.StatusBadRequest)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if !authenticated(r.Context()) {
		r = r.WithContext(context.WithValue(r.Context(), publicKey{}, true))
	}
	switch r.Method {
	case http.MethodOptions:
		// Class 1 only: without locking, Windows and macOS mount the share read-only.
		w.Header().Set("Allow", readMethods)
		w.Header().Set("DAV", "1")
		w.Header().Set("MS-Author-Via", "DAV")
		w.WriteHeader(http.StatusOK)
	case http.MethodGet, http.MethodHead:
		h.get(w, r)
	case "PROPFIND":
		if d := r.Header.Get("Depth"); d != "0" && d != "1" {
			// A listing of the whole tree would translate every model in it.
			w.Header().Set("Content-Type", "application/xml; charset=utf-8")
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `<?xml version="1.0" encoding="utf-8"?>`+"\n"+`<D:error xmlns:D="DAV:"><D:propfind-finite-depth/></D:error>`+"\n")
			return
		}
		body, err := io.ReadAll(r.Body)
		if err == nil {
			err = checkPropfind(body)
		}
		if err != nil {
			http.Error(w, "PROPFIND: "+err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		lw := &noLocks{w: w}
		h.dav.ServeHTTP(lw, r)
		lw.flush()
	case http.MethodPut, http.MethodDelete, http.MethodPost, http.MethodPatch, "MKCOL", "MOVE", "COPY", "PROPPATCH", "LOCK", "UNLOCK":
		w.Header().Set("Allow", readMethods)
		http.Error(w, "modelfs serves a read-only tree", http.StatusForbidden)
	default:
		w.Header().Set("Allow", readMethods)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// get answers GET and HEAD: a file or document with ranges and conditional requests, or a
// folder's HTML index.
func (h *Handler) get(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	n, err := h.fs.resolve(ctx, r.URL.Path)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if n.IsDir() {
		defer n.Release()
		if !strings.HasSuffix(r.URL.Path, "/") {
			// The cleaned path: "//Units/" would be read as the host Units.
			http.Redirect(w, r, (&url.URL{Path: path.Clean("/"+r.URL.Path) + "/"}).EscapedPath(), http.StatusMovedPermanently)
			return
		}
		if err := n.Readable(ctx); err != nil {
			h.fail(w, r, err)
			return
		}
		h.index(w, r, n)
		return
	}
	f, err := open(ctx, n)
	if err != nil {
		n.Release()
		h.fail(w, r, err)
		return
	}
	defer f.Close()
	w.Header().Set("ETag", f.fi.a.Tag)
	w.Header().Set("Content-Type", contentType(f.fi.a.Name))
	boundRanges(r, f.fi.a.Size)
	http.ServeContent(w, r, f.fi.a.Name, f.fi.a.MTime, f)
}

var indexPage = template.Must(template.New("index").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>body{font-family:sans-serif}td{padding:0 1em}td.n{text-align:right}</style></head>
<body><h1>{{.Title}}</h1>
<table><tr><th>Name</th><th>Size</th><th>Modified</th></tr>
{{if .Parent}}<tr><td><a href="../">../</a></td><td></td><td></td></tr>
{{end}}{{range .Entries}}<tr><td><a href="{{.Href}}">{{.Name}}</a></td><td class="n">{{.Size}}</td><td>{{.Time}}</td></tr>
{{end}}</table></body></html>
`))

// index writes a folder's listing as a plain HTML page: names, sizes and times. A document's
// size shows when a cache knows it, else a dash: documents are made when read, not to draw a
// page.
func (h *Handler) index(w http.ResponseWriter, r *http.Request, n *vfs.Node) {
	type row struct{ Href, Name, Size, Time string }
	ents, err := n.Entries()
	if err != nil {
		h.fail(w, r, err)
		return
	}
	rows := make([]row, 0, len(ents))
	for _, e := range ents {
		ro := row{Href: (&url.URL{Path: e.Name}).EscapedPath(), Name: e.Name}
		if strings.Contains(e.Name, ":") { // keep a name like "a:b" relative
			ro.Href = "./" + ro.Href
		}
		if e.Virtual {
			ro.Size = "—"
			if size, ok := n.KnownSize(e.Name); ok {
				ro.Size = fmt.Sprint(size)
			}
		} else {
			if child, err := n.Child(e.Name); err == nil {
				if a, err := child.Stat(r.Context(), false); err == nil {
					if a.Mode.IsDir() {
						ro.Href += "/"
						ro.Name += "/"
					} else {
						ro.Size = fmt.Sprint(a.Size)
					}
					ro.Time = a.MTime.UTC().Format(time.DateTime)
				}
				child.Release()
			}
		}
		rows = append(rows, ro)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if r.Method == http.MethodHead {
		return
	}
	indexPage.Execute(w, struct {
		Title   string
		Parent  bool
		Entries []row
	}{"Index of " + n.Path(), n.Path() != "/", rows})
}

// fail answers a request that failed with err: the one place where errors become HTTP
// statuses. What the server cannot serve (a model that does not translate, an unreadable
// sector) is logged here, once per request.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	status := Status(err)
	if status >= 500 {
		h.logError(r, err)
	}
	http.Error(w, fmt.Sprintf("%s: %v", path.Clean("/"+r.URL.Path), err), status)
}

func (h *Handler) logError(r *http.Request, err error) {
	if errors.Is(err, context.Canceled) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, vfs.ErrReadOnly) {
		return
	}
	h.log.Warn("webdav", "method", r.Method, "path", r.URL.Path, "err", err)
}

// Status returns the HTTP status for an error of the tree.
func Status(err error) int {
	var te *vfs.TranslationError
	switch {
	case errors.As(err, &te) && errors.Is(te.Err, fs.ErrPermission):
		return http.StatusForbidden
	case errors.Is(err, vfs.ErrTooLarge):
		return http.StatusInsufficientStorage
	case errors.As(err, &te):
		return http.StatusInternalServerError
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR), vfs.IsEscape(err):
		return http.StatusNotFound
	case errors.Is(err, fs.ErrPermission), errors.Is(err, vfs.ErrReadOnly):
		return http.StatusForbidden
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}
