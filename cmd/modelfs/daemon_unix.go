//go:build linux || darwin

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"log/syslog"
	"os"
	"os/exec"
	"syscall"
)

// startBackground starts this program again with args in the background and waits until it
// reports that the mount answers (nil) or why it could not mount.
func startBackground(args []string, stderr io.Writer) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		w.Close()
		return err
	}
	defer null.Close()
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), daemonEnv+"=3")
	cmd.ExtraFiles = []*os.File{w}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, null, null
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	w.Close()
	if err != nil {
		return err
	}
	msg, _ := io.ReadAll(r)
	if string(msg) == "ok\n" {
		cmd.Process.Release()
		return nil
	}
	cmd.Wait()
	if len(msg) == 0 {
		return fmt.Errorf("the background mount exited without mounting (%v)", cmd.ProcessState)
	}
	return errors.New(string(bytes.TrimSpace(msg)))
}

// backgroundLogger logs to the system log (the journal), which outlives the terminal the
// mount was started from, or nowhere when there is none.
func backgroundLogger(debug bool) *slog.Logger {
	w, err := syslog.New(syslog.LOG_INFO|syslog.LOG_DAEMON, "modelfs")
	if err != nil {
		return slog.New(slog.DiscardHandler)
	}
	level := slog.LevelInfo
	if debug {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}
