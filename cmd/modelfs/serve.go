package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strings"

	"github.com/modelfs/modelfs/vfs"
	"github.com/modelfs/modelfs/vfs/davfs"
)

// serveCmd is `modelfs serve`: the tree served over a network protocol instead of mounted.
type serveCmd struct {
	Webdav webdavCmd `cmd:"" name:"webdav" help:"Serve a game tree read-only over WebDAV (HTTP), for Windows Explorer, macOS Finder, davfs2, gvfs, rclone or a browser: the same files as the mount (foreground; stop with Ctrl-C)."`
}

// webdavCmd is `modelfs serve webdav`.
type webdavCmd struct {
	Src pathArg `arg:"" help:"The game tree to serve: a model folder, a game's data folder (its MPQ archives merged in load order), or one archive (.mpq .w3x .w3m)."`

	Addr         string  `default:"127.0.0.1:8080" placeholder:"HOST:PORT" help:"Address to listen on (default: 127.0.0.1:8080, this machine only; :8080 for every interface, with --user or --allow-anonymous)."`
	Anonymous    bool    `name:"allow-anonymous" help:"Serve without --user on an address other machines reach: anyone there reads what every user of this machine may."`
	User         string  `placeholder:"NAME" help:"Ask for this user name and a password (HTTP basic authentication); beyond localhost only with --cert and --key."`
	PasswordFile pathArg `placeholder:"FILE" help:"File whose first line is the password for --user (default: MODELFS_PASSWORD in the environment)."`
	Cert         pathArg `placeholder:"FILE" help:"TLS certificate (PEM), to serve HTTPS; with --key."`
	Key          pathArg `placeholder:"FILE" help:"TLS private key (PEM) of --cert."`
	Debug        bool    `help:"Log every request that fails."`
	treeFlags
}

// davOptions turns the flags into the server's options, reading the password.
func (c *webdavCmd) davOptions(getenv func(string) string) (davfs.Options, error) {
	o := davfs.Options{Addr: c.Addr, User: c.User, CertFile: string(c.Cert), KeyFile: string(c.Key), AllowAnonymous: c.Anonymous}
	if c.User != "" {
		if c.PasswordFile != "" {
			b, err := readSecretFile(string(c.PasswordFile))
			if err != nil {
				return o, &usageError{"--password-file: " + err.Error()}
			}
			o.Password, _, _ = strings.Cut(strings.TrimRight(string(b), "\r\n"), "\n")
			o.Password = strings.TrimRight(o.Password, "\r")
		} else {
			o.Password = getenv("MODELFS_PASSWORD")
		}
	}
	o, err := o.WithDefaults()
	if err != nil {
		return o, &usageError{err.Error()}
	}
	return o, nil
}

// Run serves SRC until a stop signal.
func (c *webdavCmd) Run(e *env) error {
	dav, err := c.davOptions(os.Getenv)
	if err != nil {
		return err
	}
	var opt vfs.Options
	if err := c.treeFlags.options(&opt); err != nil {
		return err
	}
	if err := c.setup(&opt, e.stderr, c.Debug); err != nil {
		return err
	}
	src, archive := vfs.SplitSource(string(c.Src))
	tree, err := vfs.Open(src, opt)
	if err != nil {
		return err
	}
	defer tree.Close()
	shown, err := tree.Shown(archive)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", dav.Addr)
	if err != nil {
		return err
	}
	scheme := "http"
	if dav.CertFile != "" {
		scheme = "https"
	}
	url := fmt.Sprintf("%s://%s/", scheme, ln.Addr())
	opt.Logger.Info("serving", "src", tree.Src(), "url", url, "auth", dav.User != "")
	if dav.AllowAnonymous && dav.User == "" {
		opt.Logger.Warn("serving without a password beyond this machine (--allow-anonymous): anyone who reaches it reads what every user here may", "addr", dav.Addr)
	}
	tree.Record(url)
	stop, unlisten := stopSignals()
	defer unlisten()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case sig := <-stop:
			logStop(opt.Logger, sig)
			cancel()
		case <-ctx.Done():
		}
	}()
	err = davfs.Serve(ctx, ln, davfs.New(shown), dav)
	opt.Logger.Info("stopped", "url", url)
	return err
}

// maxSecretFile bounds what --password-file reads.
const maxSecretFile = 64 << 10

// readSecretFile reads a password file, which others must not be able to read: a password
// anyone on the machine may read protects nothing (ssh refuses such keys alike).
func readSecretFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", name)
	}
	if fi.Mode().Perm()&0o077 != 0 && runtime.GOOS != "windows" {
		return nil, fmt.Errorf("%s: mode %v lets others read or change it; chmod 600 %s", name, fi.Mode().Perm(), name)
	}
	return io.ReadAll(io.LimitReader(f, maxSecretFile))
}
