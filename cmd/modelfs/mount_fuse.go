//go:build linux || darwin

package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelfs/modelfs/vfs/fusefs"
)

// Run mounts SRC on MNT and serves it in the foreground until a stop signal (then unmounts,
// retrying while the mount is busy) or until it is unmounted from outside.
func (c *mountCmd) Run(e *env) error {
	report := newBackgroundReport()
	if c.Background && !report.active() {
		return startBackground(e.args, e.stderr)
	}
	err := c.run(e, report)
	report.done(err) // when it failed before mounting
	return err
}

// run mounts and serves; report learns when the mount answers.
func (c *mountCmd) run(e *env, report *backgroundReport) error {
	opt, err := c.options()
	if err != nil {
		return err
	}
	if err := c.setup(&opt, e.stderr, opt.Debug); err != nil {
		return err
	}
	if report.active() {
		opt.Logger = backgroundLogger(opt.Debug)
	}
	log := opt.Logger

	listen := stopSignals
	if report.active() {
		// A background mount has no terminal: a SIGHUP is somebody's kill -HUP, which asks a
		// daemon to reload. There is nothing to reload; it is logged and the mount goes on.
		listen = func() (<-chan os.Signal, func()) { return daemonStopSignals(log) }
	}
	stop, unlisten := listen()
	defer unlisten()
	// A log written to a pipe whose reader has gone must not end the mount with SIGPIPE.
	signal.Ignore(syscall.SIGPIPE)
	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	defer signal.Stop(usr1)
	srv, err := fusefs.Mount(string(c.Src), string(c.Mnt), opt)
	if err != nil {
		return fmt.Errorf("cannot mount %s on %s: %w", string(c.Src), string(c.Mnt), err)
	}
	report.done(nil)
wait:
	for {
		select {
		case <-srv.Done():
			return nil // unmounted from outside; the server logged it
		case sig := <-stop:
			logStop(log, sig)
			break wait
		case <-usr1:
			logStats(log, srv.Stats())
		}
	}
	backoff := unmountBackoffMin
	for {
		err := srv.Unmount()
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EBUSY) {
			return err
		}
		log.Warn("mount is busy (open files or a shell inside?); retrying; stop again to unmount it lazily", "mountpoint", srv.MountPoint(), "in", backoff)
		select {
		case <-time.After(backoff):
		case <-stop:
			return forceStop(log, srv, stop)
		case <-srv.Done():
			return nil
		}
		backoff = min(2*backoff, unmountBackoffMax)
	}
}

// daemonStopSignals is stopSignals for a background mount: SIGHUP is logged and ignored.
func daemonStopSignals(log *slog.Logger) (<-chan os.Signal, func()) {
	in, out := make(chan os.Signal, 3), make(chan os.Signal, 3)
	signal.Notify(in, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-in:
				if sig == syscall.SIGHUP {
					log.Info("SIGHUP ignored: a background mount stops on SIGTERM or umount", "signal", sig)
					continue
				}
				out <- sig
			case <-done:
				return
			}
		}
	}()
	return out, func() { signal.Stop(in); close(done) }
}

// forceStop answers a second stop signal while the mount is busy: it detaches the mount at
// once (files still open keep reading) and waits for them to be closed; a third signal exits
// at once.
func forceStop(log *slog.Logger, srv *fusefs.Server, stop <-chan os.Signal) error {
	if err := srv.ForceUnmount(); err != nil {
		return fmt.Errorf("lazy unmount of %s: %w", srv.MountPoint(), err)
	}
	if fusefs.LazyKeepsOpenFiles {
		log.Warn("unmounted lazily: files still open keep reading until closed; stop again to exit now", "mountpoint", srv.MountPoint())
	} else {
		log.Warn("unmount forced (this system has no lazy unmount): files still open fail; stop again to exit now", "mountpoint", srv.MountPoint())
	}
	select {
	case <-srv.Done():
		return nil
	case <-stop:
		log.Warn("exiting with files of the mount still open: they fail from now on", "mountpoint", srv.MountPoint())
		return nil
	}
}
