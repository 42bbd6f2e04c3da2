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
}

// DefaultAddr is where Serve listens by default: this machine only.
const DefaultAddr = "127.0.0.1:8080"

// WithDefaults fills in the defaults and refuses what would be unsafe: basic authentication
// without TLS on an address other machines reach would send the password in clear.
func (o Options) WithDefaults() (Options, error) {
	if o.Addr == "" {
		o.Addr = DefaultAddr
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
	if opt.User != "" {
		h = basicAuth(h, opt.User, opt.Password)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 30 * time.Second}
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
		h.ServeHTTP(w, r)
	})
}
