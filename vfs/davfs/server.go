package davfs

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Options says how Serve listens and whom it lets in.
type Options struct {
	Addr     string // host:port to listen on; default DefaultAddr
	User     string // the user name basic authentication asks for; none when empty
	Password string // that user's password
	CertFile string // TLS certificate (PEM); with KeyFile, the server speaks HTTPS
	KeyFile  string // its private key (PEM)
	// AllowAnonymous lets a server without User listen on an address other machines reach:
	// anyone there may read what every user of this machine may.
	AllowAnonymous bool
	// IdleTimeout closes a keep-alive connection idle this long; default DefaultIdleTimeout.
	IdleTimeout time.Duration
	// MaxConns bounds the connections served at once, a quarter of them from one client; past
	// it the connection doing least with its place is closed (see gate), else more wait to be
	// accepted. Default DefaultMaxConns.
	MaxConns int
	// WriteStall closes a connection whose client has taken nothing of the answer for this
	// long, so that a client that stops reading gives its connection back; default
	// DefaultWriteStall.
	WriteStall time.Duration
}

// Defaults of Options.
const (
	DefaultIdleTimeout = time.Minute
	DefaultMaxConns    = 256
	DefaultWriteStall  = time.Minute
)

// The server's other limits: a client has readHeaderTimeout to send its request line and
// headers, and its body at a pace of its own (see received), and at most maxHeaderBytes of
// headers. No write timeout for a whole answer: a slow client may take its time over a large
// model, as long as it takes some of it every WriteStall (see stallGuard).
const (
	readHeaderTimeout = 10 * time.Second
	maxHeaderBytes    = 64 << 10
)

// DefaultAddr is where Serve listens by default: this machine only.
const DefaultAddr = "127.0.0.1:8080"

// WithDefaults fills in the defaults and refuses what would be unsafe: basic authentication
// without TLS on an address other machines reach would send the password in clear.
func (o Options) WithDefaults() (Options, error) {
	if o.Addr == "" {
		o.Addr = DefaultAddr
	}
	if o.IdleTimeout == 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.MaxConns == 0 {
		o.MaxConns = DefaultMaxConns
	}
	if o.WriteStall == 0 {
		o.WriteStall = DefaultWriteStall
	}
	host, _, err := net.SplitHostPort(o.Addr)
	if err != nil {
		return o, fmt.Errorf("--addr %q: %v", o.Addr, err)
	}
	if (o.CertFile == "") != (o.KeyFile == "") {
		return o, errors.New("--cert and --key go together")
	}
	if o.User != "" && o.Password == "" {
		return o, errors.New("--user needs a password (--password-file, or MODELFS_PASSWORD in the environment)")
	}
	if o.User != "" && o.CertFile == "" && !Loopback(host) {
		return o, fmt.Errorf("--user on %s: basic authentication without TLS would send the password in clear to the network; give --cert and --key, or listen on localhost", o.Addr)
	}
	if o.User == "" && !Loopback(host) && !o.AllowAnonymous {
		return o, fmt.Errorf("--addr %s without --user: anyone who reaches this machine could read the tree; give --user (with --cert and --key), or --allow-anonymous to serve it to all", o.Addr)
	}
	return o, nil
}

// Loopback reports whether host names only this machine.
func Loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Serve answers h's requests on ln until ctx is done, then lets the requests in flight finish
// (for up to ten seconds) and returns.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, opt Options) error {
	opt, err := opt.WithDefaults()
	if err != nil {
		return err
	}
	ln = newGate(ln, opt.MaxConns, opt.CertFile == "")
	// A request's body is received once it passed authentication (which needs its header
	// alone): no one without the password gets a byte of memory for a body.
	h = received(h)
	if opt.User != "" {
		h = basicAuth(h, opt.User, opt.Password)
	}
	h = stallGuard(h, opt.WriteStall)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: readHeaderTimeout, IdleTimeout: opt.IdleTimeout,
		MaxHeaderBytes: maxHeaderBytes, ConnState: connStateHook, ConnContext: connContext,
		HTTP2: &http.HTTP2Config{MaxConcurrentStreams: maxStreams}}
	done := make(chan error, 1)
	go func() {
		if opt.CertFile != "" {
			done <- srv.ServeTLS(ln, opt.CertFile, opt.KeyFile)
		} else {
			done <- srv.Serve(ln)
		}
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// basicAuth lets through the requests that carry user's name and password.
func basicAuth(h http.Handler, user, password string) http.Handler {
	want := sha256.Sum256([]byte(user + "\x00" + password))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, p, ok := r.BasicAuth()
		got := sha256.Sum256([]byte(u + "\x00" + p))
		if !ok || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Basic realm="modelfs", charset="UTF-8"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r.WithContext(withAuth(r.Context())))
	})
}

// stallChunk is how much of an answer is written under one write deadline.
const stallChunk = 64 << 10

// stallGuard writes h's answers in pieces of stallChunk, each with a deadline stall from its
// start: a client that takes nothing for that long loses its connection, which gives its place
// among the MaxConns back, however large the answer. The deadline is lifted when the answer
// is done (the idle timeout governs a kept-alive connection).
func stallGuard(h http.Handler, stall time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		defer rc.SetWriteDeadline(time.Time{})
		h.ServeHTTP(&stallWriter{ResponseWriter: w, rc: rc, stall: stall}, r)
	})
}

type stallWriter struct {
	http.ResponseWriter
	rc    *http.ResponseController
	stall time.Duration
}

func (s *stallWriter) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		k := min(len(p), stallChunk)
		s.rc.SetWriteDeadline(time.Now().Add(s.stall))
		w, err := s.ResponseWriter.Write(p[:k])
		n += w
		if err != nil {
			return n, err
		}
		p = p[k:]
	}
	return n, nil
}

// Unwrap lets http.ResponseController reach the connection.
func (s *stallWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }
