package main

import (
	"os"
	"slices"
	"strings"
)

// The form mount.fuse3 runs for an fstab line of type fuse.modelfs — `modelfs SRC MNT -o
// OPTIONS` — mounts in the background: the process starts itself again (a Go program cannot
// fork), detached from the terminal, and exits once the mount answers, or with the reason it
// could not mount.

// daemonEnv marks the process started in the background; its value is the file descriptor of
// the pipe it reports on.
const daemonEnv = "MODELFS_BACKGROUND_FD"

// commands are the first words of the subcommand forms; anything else is the fstab form.
var commands = []string{"convert", "info", "mount", "serve", "cache", "help"}

// fstabArgs rewrites the fstab form `SRC MNT [-o OPTS] [-f] [-d] [-s]` into the mount
// command's arguments; ok is false for any other command line. -f keeps the mount in the
// foreground, -d also logs every request (debug), -s (single-threaded) is accepted and ignored.
func fstabArgs(args []string) (out []string, ok bool) {
	if len(args) < 2 || strings.HasPrefix(args[0], "-") || slices.Contains(commands, args[0]) {
		return nil, false
	}
	out = []string{"mount"}
	background := true
	for _, a := range args {
		switch a {
		case "-f":
			background = false
		case "-d":
			background = false
			out = append(out, "--debug")
		case "-s":
		default:
			out = append(out, a)
		}
	}
	if background {
		out = append(out, "--background")
	}
	return out, true
}

// backgroundReport is what a process started by startBackground tells its starter, once: nil
// when the mount answers, else why it could not mount. It does nothing in a process started
// otherwise.
type backgroundReport struct{ f *os.File }

func newBackgroundReport() *backgroundReport {
	if os.Getenv(daemonEnv) != "3" {
		return &backgroundReport{}
	}
	os.Unsetenv(daemonEnv)
	return &backgroundReport{f: os.NewFile(3, "background-status")}
}

func (b *backgroundReport) active() bool { return b.f != nil }

func (b *backgroundReport) done(err error) {
	if b.f == nil {
		return
	}
	if err == nil {
		b.f.WriteString("ok\n")
	} else {
		b.f.WriteString(err.Error() + "\n")
	}
	b.f.Close()
	b.f = nil
}
