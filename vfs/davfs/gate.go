package davfs

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"
)

// The connections a server takes, so that a slow client never starves the others.
//
// A new connection holds no place until its first request has arrived whole: its header
// within readHeaderTimeout, its body within bodyGrace and then at minBodyRate. Until then it
// only waits, at most twice MaxConns of them at once and a quarter of those from one client
// (past either, the one waiting longest, of that client or of all, is closed), so that clients
// trickling their requests take nothing from those that send theirs at once. (Over TLS the
// bytes can only be read after the handshake, which the HTTP server does: a TLS connection
// takes its place when accepted, and is bound by what follows alone.)
//
// Places are MaxConns, at most a quarter of them one client's (one address; an IPv6 /64;
// this machine's own addresses have no share of their own). A connection past either bound
// makes room by closing the one that does least with its place: the one sending its next
// request for longest past slowAfter, else the one idle between requests for longest. A
// connection whose request is being answered is never closed for another: when every place
// is answering, the new one waits, at most readHeaderTimeout and with at most as many others
// waiting as there are places (a quarter of them one client's); past that it is told 503. A
// later request's body on a kept connection arrives at the same pace as the first's, and the
// bodies being received share maxBodies bytes.

const (
	slowAfter   = time.Second
	bodyGrace   = 5 * time.Second
	minBodyRate = 1 << 10 // bytes a second
	// maxStreams bounds the requests one HTTP/2 connection (over TLS) carries at once: each
	// may hold a body, and the gate counts connections.
	maxStreams = 8
)

// connState is where a connection with a place is in its life.
type connState uint8

const (
	sending   connState = iota // its request has not all arrived
	answering                  // its request is being answered
	idle                       // between requests
)

// gate is a listener that bounds the connections it gives out (see above).
type gate struct {
	ln             net.Listener
	max, perClient int
	plain          bool            // the server reads HTTP from the connections as they are, not TLS
	ready          chan *gatedConn // connections given a place, for Accept
	done           chan struct{}   // closed when the listener closes
	err            error           // why, once done is closed

	mu       sync.Mutex
	room     *sync.Cond // a place was given back, or the gate closed
	conns    map[*gatedConn]struct{}
	byClient map[string]int
	arriving map[*gatedConn]struct{} // connections whose first request is on its way
	waiting  map[string]int          // connections waiting for a place, by client ("" all)
	closed   bool
}

func newGate(ln net.Listener, limit int, plain bool) *gate {
	g := &gate{ln: ln, max: limit, perClient: max(1, limit/4), plain: plain, ready: make(chan *gatedConn), done: make(chan struct{}),
		conns: map[*gatedConn]struct{}{}, byClient: map[string]int{}, arriving: map[*gatedConn]struct{}{}, waiting: map[string]int{}}
	g.room = sync.NewCond(&g.mu)
	go g.acceptAll()
	return g
}

// arrivingShare is how many connections whose first request is on its way the gate keeps, in
// places (and in a client's share of them): such a connection costs a goroutine and what
// arrived of its request, and one sending at once is there for milliseconds.
const arrivingShare = 2

// gatedConn is a connection the gate accepted.
type gatedConn struct {
	net.Conn
	g      *gate
	client string // its address, "" when it has no share of its own (see clientOf)
	first  []byte // what arrived of it before it had a place, read again first
	// Guarded by g.mu.
	state   connState
	since   time.Time // when it came to its state
	placed  bool      // it holds a place
	removed bool      // it gave its place back
}

// acceptAll accepts connections until the listener is closed, each taking its place apart. A
// failed accept (too many open files, say) is retried after a pause, as the HTTP server would.
func (g *gate) acceptAll() {
	pause := time.Duration(0)
	for {
		c, err := g.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) || g.isClosed() {
				g.err = err
				close(g.done)
				return
			}
			pause = min(max(2*pause, 5*time.Millisecond), time.Second)
			time.Sleep(pause)
			continue
		}
		pause = 0
		go g.give(&gatedConn{Conn: c, g: g, client: clientOf(c.RemoteAddr()), since: time.Now()})
	}
}

func (g *gate) isClosed() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.closed
}

// give waits for c's first request (on a plain connection), then for a place, and hands c to
// Accept; c is closed when it cannot have one.
func (g *gate) give(c *gatedConn) {
	whole := false
	if g.plain {
		if !g.arrive(c) {
			c.Conn.Close()
			return
		}
		var err error
		whole, err = c.readFirst()
		g.arrived(c)
		if err != nil {
			c.Conn.Close()
			return
		}
	}
	if !g.place(c, whole) {
		if g.plain && !g.isClosed() {
			c.Conn.SetWriteDeadline(time.Now().Add(time.Second))
			io.WriteString(c.Conn, "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
		}
		c.Conn.Close()
		return
	}
	select {
	case g.ready <- c:
	case <-g.done:
		c.Close()
	}
}

// arrive counts c among the connections whose first request is on its way, closing the one of
// its client (or of all) waiting longest when they are too many; false when the gate is closed.
func (g *gate) arrive(c *gatedConn) bool {
	var victim *gatedConn
	defer func() {
		if victim != nil {
			victim.Conn.Close() // its readFirst fails, and it is closed
		}
	}()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	ofClient := 0
	for o := range g.arriving {
		if c.client != "" && o.client == c.client {
			ofClient++
		}
	}
	mine := ofClient >= arrivingShare*g.perClient
	if mine || len(g.arriving) >= arrivingShare*g.max {
		for o := range g.arriving {
			if (!mine || o.client == c.client) && (victim == nil || o.since.Before(victim.since)) {
				victim = o
			}
		}
		delete(g.arriving, victim)
	}
	g.arriving[c] = struct{}{}
	return true
}

func (g *gate) arrived(c *gatedConn) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.arriving, c)
}

// readFirst reads the connection's first request whole, or as much of it as a request may
// have, keeping it to be read again; whole says it arrived whole. It fails when the request
// does not arrive in time.
func (c *gatedConn) readFirst() (whole bool, err error) {
	defer c.Conn.SetReadDeadline(time.Time{})
	start := time.Now()
	c.Conn.SetReadDeadline(start.Add(readHeaderTimeout))
	buf := make([]byte, 0, 4<<10)
	end := -1
	for end < 0 {
		if len(buf) >= maxHeaderBytes {
			c.first = buf
			return false, nil // the server refuses it
		}
		if buf, err = readMore(c.Conn, buf); err != nil {
			return false, err
		}
		end = headerEnd(buf)
	}
	req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(buf[:end])))
	if err != nil || req.ContentLength < 0 && len(req.TransferEncoding) > 0 || req.Header.Get("Expect") != "" {
		// The server answers it as it sees fit; a client that expects "100 Continue" sends
		// its body only once the server reads it (see received).
		c.first = buf
		return false, nil
	}
	want := end + int(min(max(req.ContentLength, 0), maxBody+1))
	bodyStart := time.Now()
	for len(buf) < want {
		got := int64(len(buf) - end)
		c.Conn.SetReadDeadline(bodyStart.Add(bodyGrace + time.Duration(got)*time.Second/minBodyRate))
		if buf, err = readMore(c.Conn, buf); err != nil {
			return false, err
		}
	}
	c.first = buf
	return true, nil
}

// headerEnd returns where a request's header ends in buf (after its blank line, CRLF or a bare
// LF as the server takes it), or -1.
func headerEnd(buf []byte) int {
	for i := bytes.IndexByte(buf, '\n'); i >= 0; {
		rest := buf[i+1:]
		switch {
		case bytes.HasPrefix(rest, []byte("\r\n")):
			return i + 3
		case bytes.HasPrefix(rest, []byte("\n")):
			return i + 2
		}
		j := bytes.IndexByte(rest, '\n')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return -1
}

// readMore appends what one read of r gives to buf.
func readMore(r io.Reader, buf []byte) ([]byte, error) {
	if len(buf) == cap(buf) {
		buf = append(buf, 0)[:len(buf)]
	}
	n, err := r.Read(buf[len(buf):cap(buf)])
	buf = buf[:len(buf)+n]
	if n > 0 {
		return buf, nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	return buf, err
}

// Read reads what arrived before the connection had its place first.
func (c *gatedConn) Read(p []byte) (int, error) {
	if len(c.first) > 0 {
		n := copy(p, c.first)
		c.first = c.first[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

// place gives c a place, making room for it (as above) or waiting until there is; whole says
// its request has arrived whole. False when the gate closed, when too many wait already, or
// when none came in time.
func (g *gate) place(c *gatedConn, whole bool) bool {
	var victims []*gatedConn
	defer func() {
		for _, v := range victims {
			v.Conn.Close()
		}
	}()
	g.mu.Lock()
	defer g.mu.Unlock()
	deadline := time.Now().Add(readHeaderTimeout)
	waiting := false
	defer func() {
		if waiting {
			g.waiting[""]--
			if c.client != "" {
				if g.waiting[c.client]--; g.waiting[c.client] <= 0 {
					delete(g.waiting, c.client)
				}
			}
		}
	}()
	for {
		switch {
		case g.closed:
			return false
		case c.client != "" && g.byClient[c.client] >= g.perClient:
			if v := g.evict(func(o *gatedConn) bool { return o.client == c.client }); v != nil {
				victims = append(victims, v)
				continue
			}
		case len(g.conns) >= g.max:
			if v := g.evict(nil); v != nil {
				victims = append(victims, v)
				continue
			}
		default:
			g.conns[c] = struct{}{}
			g.byClient[c.client]++
			// A request that arrived whole is as good as answered; any other (over TLS, it has
			// not begun) is being sent, until the server says.
			c.placed, c.state, c.since = true, sending, time.Now()
			if whole {
				c.state = answering
			}
			return true
		}
		if !waiting {
			if g.waiting[""] >= g.max || c.client != "" && g.waiting[c.client] >= g.perClient {
				return false
			}
			waiting = true
			g.waiting[""]++
			if c.client != "" {
				g.waiting[c.client]++
			}
		}
		if !time.Now().Before(deadline) {
			return false
		}
		g.waitLocked(slowAfter / 10)
	}
}

// waitLocked waits until a place is given back, or d passes (a connection may have become
// slow meanwhile). g.mu is held.
func (g *gate) waitLocked(d time.Duration) {
	t := time.AfterFunc(d, func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		g.room.Broadcast()
	})
	defer t.Stop()
	g.room.Wait()
}

// evict takes the place, and returns for closing, of the connection among those keep accepts
// (all when nil) that does least with it: the one sending its request for longest past
// slowAfter, else the one idle for longest; nil when none can go. g.mu is held.
func (g *gate) evict(keep func(*gatedConn) bool) *gatedConn {
	now := time.Now()
	rank := func(c *gatedConn) int {
		switch {
		case c.state == sending && now.Sub(c.since) >= slowAfter:
			return 0
		case c.state == idle:
			return 1
		}
		return -1
	}
	var best *gatedConn
	for c := range g.conns {
		r := rank(c)
		if r < 0 || keep != nil && !keep(c) {
			continue
		}
		if best == nil || r < rank(best) || r == rank(best) && c.since.Before(best.since) {
			best = c
		}
	}
	if best != nil {
		g.removeLocked(best)
	}
	return best
}

// removeLocked gives c's place back. g.mu is held.
func (g *gate) removeLocked(c *gatedConn) {
	if !c.placed || c.removed {
		return
	}
	c.removed = true
	delete(g.conns, c)
	if g.byClient[c.client]--; g.byClient[c.client] <= 0 {
		delete(g.byClient, c.client)
	}
	g.room.Broadcast()
}

// Accept returns the next connection given a place.
func (g *gate) Accept() (net.Conn, error) {
	select {
	case c := <-g.ready:
		return c, nil
	case <-g.done:
		return nil, g.err
	}
}

// Addr is the listener's address.
func (g *gate) Addr() net.Addr { return g.ln.Addr() }

// Close closes the listener, and the connections whose first request is on its way; those
// waiting for a place give up.
func (g *gate) Close() error {
	for _, c := range g.shut() {
		c.Conn.Close()
	}
	return g.ln.Close()
}

// shut marks the gate closed, wakes who waits for a place, and returns the connections whose
// first request is on its way.
func (g *gate) shut() []*gatedConn {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	g.room.Broadcast()
	var out []*gatedConn
	for c := range g.arriving {
		out = append(out, c)
	}
	return out
}

// Close closes the connection and gives its place back.
func (c *gatedConn) Close() error {
	c.g.remove(c)
	return c.Conn.Close()
}

// remove gives c's place back.
func (g *gate) remove(c *gatedConn) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.removeLocked(c)
}

// set moves c to state s.
func (c *gatedConn) set(s connState) {
	c.g.mu.Lock()
	defer c.g.mu.Unlock()
	c.state, c.since = s, time.Now()
}

// clientOf is the client a connection comes from, as its share of places is counted: its
// address without the port, an IPv6 address's /64 (one host's whole prefix), and "" for this
// machine's own addresses, which every local client shares (a reverse proxy, or the default
// of serving localhost alone): they have no share of their own.
func clientOf(a net.Addr) string {
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		host = a.String()
	}
	ip := net.ParseIP(host)
	switch {
	case ip == nil:
		return host
	case ip.IsLoopback():
		return ""
	case ip.To4() == nil:
		return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
	}
	return ip.String()
}

// gatedOf returns the gate's connection under c (a TLS connection's too), or nil.
func gatedOf(c net.Conn) *gatedConn {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	gc, _ := c.(*gatedConn)
	return gc
}

// connStateHook follows the server's connections: a request that begins to arrive is
// sending, and once answered its connection is idle.
func connStateHook(c net.Conn, s http.ConnState) {
	gc := gatedOf(c)
	if gc == nil {
		return
	}
	switch s {
	case http.StateActive:
		gc.set(sending)
	case http.StateIdle:
		gc.set(idle)
	}
}

type connKey struct{}

// connContext gives each request its connection.
func connContext(ctx context.Context, c net.Conn) context.Context {
	if gc := gatedOf(c); gc != nil {
		return context.WithValue(ctx, connKey{}, gc)
	}
	return ctx
}

// maxBodies bounds the bytes of the request bodies being received at once (each counted at
// the most it may be, maxBody): HTTP/2 carries several requests on one connection.
const maxBodies = 256 * maxBody

// bodies is what the bodies being received hold.
var bodies = semaphore.NewWeighted(maxBodies)

// received reads a request's body before h answers it, at least minBodyRate after bodyGrace
// and at most maxBody, within the bodies' budget, then marks its connection answering. The
// answer has no read deadline, however long a translation takes: one passing would end the
// request.
func received(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		if r.Body != nil && r.Body != http.NoBody {
			ctx, cancel := context.WithTimeout(r.Context(), bodyGrace)
			err := bodies.Acquire(ctx, maxBody)
			cancel()
			if err != nil {
				w.Header().Set("Connection", "close")
				w.Header().Set("Retry-After", "1")
				http.Error(w, "too many requests' bodies on their way; try again", http.StatusServiceUnavailable)
				return
			}
			p := &paced{r: r.Body, rc: rc, start: time.Now()}
			body, err := io.ReadAll(io.LimitReader(p, maxBody+1))
			bodies.Release(maxBody)
			if err != nil {
				w.Header().Set("Connection", "close")
				http.Error(w, fmt.Sprintf("the request's body did not arrive (%d bytes in %v; at least %d bytes a second after %v)",
					p.n, time.Since(p.start).Round(time.Millisecond), minBodyRate, bodyGrace), http.StatusRequestTimeout)
				return
			}
			if len(body) > maxBody {
				w.Header().Set("Connection", "close")
				http.Error(w, fmt.Sprintf("a request body is at most %d bytes", maxBody), http.StatusRequestEntityTooLarge)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		rc.SetReadDeadline(time.Time{})
		if gc, _ := r.Context().Value(connKey{}).(*gatedConn); gc != nil {
			gc.set(answering)
		}
		h.ServeHTTP(w, r)
	})
}

// paced reads a body with a read deadline that moves with what arrived.
type paced struct {
	r     io.Reader
	rc    *http.ResponseController
	start time.Time
	n     int64
}

func (p *paced) Read(b []byte) (int, error) {
	p.rc.SetReadDeadline(p.start.Add(bodyGrace + time.Duration(p.n)*time.Second/minBodyRate))
	k, err := p.r.Read(b)
	p.n += int64(k)
	return k, err
}
