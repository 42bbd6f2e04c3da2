package davfs

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// Who asks: a request that passed basic authentication reads as the server's own user (what
// the server may read, it serves); any other reads as the tree's "others", as another user
// reads the mount: a file whose mode does not let others read it is not served, nor is
// anything below a folder they may not search.
type (
	authKey   struct{}
	publicKey struct{}
)

// withAuth marks ctx as a request that passed basic authentication.
func withAuth(ctx context.Context) context.Context { return context.WithValue(ctx, authKey{}, true) }

func authenticated(ctx context.Context) bool { return ctx.Value(authKey{}) != nil }

// public reports whether ctx is a request that reads as others.
func public(ctx context.Context) bool { return ctx.Value(publicKey{}) != nil }

// checkPropfind refuses a PROPFIND body naming more properties than any client asks for, or
// longer names: each is answered for every entry listed, so that 100,000 named properties
// made a response of 95 MB. An empty body (allprop) passes. A body encoding/xml cannot read is
// refused too: the WebDAV handler parses with a copy of its own that takes some such bodies,
// and they must not pass uncounted.
func checkPropfind(body []byte) error {
	d := xml.NewDecoder(bytes.NewReader(body))
	depth, inProp := 0, -1
	props, size := 0, 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("not XML this server reads: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			switch {
			case inProp >= 0 && depth == inProp+1:
				props++
				size += len(t.Name.Local) + len(t.Name.Space)
				if props > maxProps || size > maxPropBytes {
					return fmt.Errorf("more than %d properties, or names longer than %d bytes in all", maxProps, maxPropBytes)
				}
			case t.Name.Space == "DAV:" && (t.Name.Local == "prop" || t.Name.Local == "include"):
				inProp = depth
			}
		case xml.EndElement:
			if depth == inProp {
				inProp = -1
			}
			depth--
		}
	}
}

// lockEntry is what golang.org/x/net/webdav lists as every entry's supportedlock. This server
// takes no locks (OPTIONS says DAV: 1, LOCK answers 403): noLocks drops it from PROPFIND
// answers, which leaves supportedlock empty, "no locks", as RFC 4918 (15.10) has it.
const lockEntry = `<D:lockentry xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockentry>`

// noLocks passes a response through to w without lockEntry. It holds back the bytes that may
// begin one until the next write tells, and flush writes them at the end.
type noLocks struct {
	w    http.ResponseWriter
	held []byte
}

func (n *noLocks) Header() http.Header { return n.w.Header() }

func (n *noLocks) WriteHeader(code int) {
	n.w.Header().Del("Content-Length") // the body is shorter than the handler counted
	n.w.WriteHeader(code)
}

func (n *noLocks) Write(p []byte) (int, error) {
	b := append(n.held, p...)
	b = bytes.ReplaceAll(b, []byte(lockEntry), nil)
	keep := 0 // the longest end of b that begins lockEntry
	for k := min(len(b), len(lockEntry)-1); k > 0; k-- {
		if bytes.HasSuffix(b, []byte(lockEntry[:k])) {
			keep = k
			break
		}
	}
	n.held = append(n.held[:0], b[len(b)-keep:]...)
	if _, err := n.w.Write(b[:len(b)-keep]); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (n *noLocks) flush() {
	if len(n.held) > 0 {
		n.w.Write(n.held)
		n.held = nil
	}
}

// Ranges: at most maxRanges parts, and only while the parts and their headers take no more
// than the file would whole; else the whole file is sent. 20,000 ranges of one byte on a
// 25 KB file made a response of 2.8 MB.
const (
	maxRanges   = 16
	partHeaders = 100 // bytes a part of a multipart/byteranges body costs besides its data
)

// boundRanges rewrites the Range header of r, about a file of size bytes, before
// http.ServeContent answers it: overlapping and nearby ranges are merged (as RFC 9110, 14.2,
// lets a server), and when several remain that would cost more than the whole file, the
// header is dropped and the whole file is sent. It reads the header as ServeContent does
// (spaces around the parts, empty parts); one it cannot read is dropped too: the whole file
// is the answer to a range no one can read (RFC 9110, 14.2).
func boundRanges(r *http.Request, size int64) {
	h := r.Header.Get("Range")
	if h == "" {
		return
	}
	if !strings.HasPrefix(h, "bytes=") {
		r.Header.Del("Range")
		return
	}
	type span struct{ start, end int64 } // [start, end)
	var spans []span
	unreadable := func() { r.Header.Del("Range") }
	for part := range strings.SplitSeq(h[len("bytes="):], ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		a, b, ok := strings.Cut(part, "-")
		if !ok {
			unreadable()
			return
		}
		a, b = strings.TrimSpace(a), strings.TrimSpace(b)
		var s span
		switch {
		case a == "":
			n, err := strconv.ParseInt(b, 10, 64)
			if err != nil || n < 0 {
				unreadable()
				return
			}
			s = span{max(size-n, 0), size}
		default:
			start, err := strconv.ParseInt(a, 10, 64)
			if err != nil || start < 0 {
				unreadable()
				return
			}
			end := size
			if b != "" {
				e, err := strconv.ParseInt(b, 10, 64)
				if err != nil || e < start {
					unreadable()
					return
				}
				end = min(e+1, size)
			}
			if start >= size {
				continue // unsatisfiable; others may be
			}
			s = span{start, end}
		}
		if s.end > s.start {
			spans = append(spans, s)
		}
		if len(spans) > 4*maxRanges*maxRanges {
			r.Header.Del("Range") // no honest client asks this many
			return
		}
	}
	if len(spans) == 0 {
		return
	}
	slices.SortFunc(spans, func(x, y span) int { return int(x.start - y.start) })
	merged := spans[:1]
	for _, s := range spans[1:] {
		last := &merged[len(merged)-1]
		if s.start <= last.end+partHeaders {
			last.end = max(last.end, s.end)
			continue
		}
		merged = append(merged, s)
	}
	var cost int64
	for _, s := range merged {
		cost += s.end - s.start + partHeaders
	}
	if len(merged) > 1 && (len(merged) > maxRanges || cost > size) {
		r.Header.Del("Range")
		return
	}
	parts := make([]string, len(merged))
	for i, s := range merged {
		parts[i] = fmt.Sprintf("%d-%d", s.start, s.end-1)
	}
	r.Header.Set("Range", "bytes="+strings.Join(parts, ","))
}
