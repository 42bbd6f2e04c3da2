//go:build linux

package fusefs

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelfs/modelfs/vfs"
)

// statUnderTimer is a C program that stats every path of the file argv[2] while a 1 ms interval
// timer sends it SIGALRM, its handler installed with SA_RESTART when argv[1] is "restart". It
// prints each stat that failed, then a line "stats N signals S". The paths are read before the
// timer starts, so that only the stats meet the signals. (C: a Go program's handlers always
// have SA_RESTART, and os.Stat retries EINTR itself.)
const statUnderTimer = `
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>

static volatile sig_atomic_t signals;
static void on_alarm(int sig) { (void)sig; signals++; }

int main(int argc, char **argv) {
	if (argc != 3) return 2;
	FILE *in = fopen(argv[2], "r");
	if (!in) { perror(argv[2]); return 2; }
	static char paths[1 << 22];
	size_t n = fread(paths, 1, sizeof paths - 1, in);
	fclose(in);
	paths[n] = 0;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	if (strcmp(argv[1], "restart") == 0) sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = {{0, 1000}, {0, 1000}};
	setitimer(ITIMER_REAL, &it, NULL);
	int stats = 0;
	for (char *p = strtok(paths, "\n"); p; p = strtok(NULL, "\n")) {
		struct stat st;
		stats++;
		if (stat(p, &st) != 0) printf("%s: %s\n", p, strerror(errno));
	}
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	printf("stats %d signals %d\n", stats, (int)signals);
	return 0;
}
`

// bashUnderChildren stats every path of the file $1 with bash's [[ -f ]] while a background
// child of the shell exits beside each one (SIGCHLD), printing each path not found.
const bashUnderChildren = `while IFS= read -r p; do : & [[ -f $p ]] || echo "missing: $p"; done < "$1"; wait`

// coldFiles is how many cold documents each signal source stats.
const coldFiles = 1000

// A caller that gets a signal while the file it stats is being translated waits for the
// translation, as on a disk file system: no cold file fails for a signal the caller survived.
// Each source of signals stats 1,000 cold documents on a mount of its own, each translation
// taking some milliseconds, so that nearly every stat meets a signal.
func TestSignalsDoNotFailColdFiles(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		skipOrFail(t, "no C compiler for the signal helper: %v", err)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		skipOrFail(t, "no bash: %v", err)
	}
	work := t.TempDir()
	helper := filepath.Join(work, "stat-under-timer")
	if err := os.WriteFile(helper+".c", []byte(statUnderTimer), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cc, "-O2", "-o", helper, helper+".c").CombinedOutput(); err != nil {
		t.Fatalf("building the helper: %v\n%s", err, out)
	}
	src := filepath.Join(work, "src")
	crate := filepath.Join(sampleDir(t), "Units", "Crate.mdx")
	texture := filepath.Join(sampleDir(t), "Textures", "Crate.blp")
	var rels []string
	for i := range coldFiles {
		if i%5 == 4 {
			rel := fmt.Sprintf("t%04d.blp", i)
			copyFile(t, texture, filepath.Join(src, rel))
			rels = append(rels, rel+".png")
			continue
		}
		rel := fmt.Sprintf("m%04d.mdx", i)
		copyFile(t, crate, filepath.Join(src, rel))
		rels = append(rels, rel+".glb")
	}
	copyFile(t, texture, filepath.Join(src, "Textures", "Crate.blp"))

	for _, c := range []struct {
		name string
		run  func(list string) ([]byte, error)
	}{
		{"SIGALRM every 1ms with SA_RESTART", func(list string) ([]byte, error) {
			return exec.Command(helper, "restart", list).Output()
		}},
		{"SIGALRM every 1ms without SA_RESTART", func(list string) ([]byte, error) {
			return exec.Command(helper, "norestart", list).Output()
		}},
		{"bash with a background child exiting beside each stat", func(list string) ([]byte, error) {
			return exec.Command(bash, "-c", bashUnderChildren, "bash", list).Output()
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Each translation takes a few milliseconds, so that the stat waiting for it
			// meets the signals.
			m := mountT(t, src, vfs.Options{OnTranslate: func(string) { time.Sleep(3 * time.Millisecond) }})
			var list strings.Builder
			for _, rel := range rels {
				list.WriteString(m.path(rel) + "\n")
			}
			listFile := filepath.Join(t.TempDir(), "paths")
			if err := os.WriteFile(listFile, []byte(list.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := c.run(listFile)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			var failed []string
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				if line != "" && !strings.HasPrefix(line, "stats ") {
					failed = append(failed, line)
				}
			}
			if len(failed) > 0 {
				t.Errorf("%d of %d cold files failed under signals; the first: %s", len(failed), len(rels), strings.Join(failed[:min(len(failed), 5)], "; "))
			}
			if got := m.translations(); got < coldFiles {
				t.Errorf("%d translations: the files were not all cold", got)
			}
			if i := strings.LastIndex(string(out), "stats "); i >= 0 {
				t.Log(strings.TrimSpace(string(out[i:])))
			}
		})
	}
}

// A caller killed while it waits for a translation is let go at once, not when the translation
// ends; the translation goes on, and the next caller gets its document.
func TestKilledCallerIsLetGo(t *testing.T) {
	src := t.TempDir()
	copyFile(t, filepath.Join(sampleDir(t), "Units", "Crate.mdx"), filepath.Join(src, "Crate.mdx"))
	started, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	m := mountT(t, src, vfs.Options{OnTranslate: func(string) {
		once.Do(func() { close(started) })
		<-release
	}})
	cmd := exec.Command("stat", m.path("Crate.mdx.glb"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		close(release)
		t.Fatal("the stat did not start a translation")
	}
	cmd.Process.Kill()
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		close(release)
		t.Fatal("a caller killed while waiting for a translation was not let go")
	}
	close(release)
	if fi, err := os.Stat(m.path("Crate.mdx.glb")); err != nil || fi.Size() == 0 {
		t.Errorf("after the killed caller: %v, %v", fi, err)
	}
	if got := m.translations(); got != 1 {
		t.Errorf("%d translations; want 1: the translation went on for the next caller", got)
	}
}

func TestStatusDying(t *testing.T) {
	for _, c := range []struct {
		status string
		dying  bool
	}{
		{"Name:\tcat\nState:\tS (sleeping)\nSigPnd:\t0000000000000000\nShdPnd:\t0000000000000000\n", false},
		{"Name:\tcat\nState:\tS (sleeping)\nSigPnd:\t0000000000000100\nShdPnd:\t0000000000000000\n", true},
		{"Name:\tcat\nState:\tD (disk sleep)\nSigPnd:\t0000000000000000\nShdPnd:\t0000000000000100\n", true},
		{"Name:\tcat\nState:\tS (sleeping)\nSigPnd:\t0000000000002000\nShdPnd:\t0000000000000000\n", false}, // SIGALRM
		{"Name:\tcat\nState:\tZ (zombie)\n", true},
		{"Name:\tcat\nState:\tX (dead)\n", true},
	} {
		if got := statusDying([]byte(c.status)); got != c.dying {
			t.Errorf("statusDying(%q) = %v", c.status, got)
		}
	}
}
