package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/modelfs/modelfs/cache"
	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/vfs"
)

// cacheCmd is `modelfs cache`: the persistent cache directory, outside a mount.
type cacheCmd struct {
	Warm  cacheWarmCmd  `cmd:"" help:"Translate a whole tree into the cache directory, so that a mount of it serves everything at once."`
	Stats cacheStatsCmd `cmd:"" help:"Show what the cache directory holds, and how the last mounts used it."`
	Clear cacheClearCmd `cmd:"" help:"Empty the cache directory."`
}

// cacheDirFlag is the --cache-dir flag the cache subcommands share with mount.
type cacheDirFlag struct {
	CacheDir pathArg `placeholder:"DIR" help:"The cache directory (default: $XDG_CACHE_HOME/modelfs, else ~/.cache/modelfs)."`
}

// dir returns the directory the flag names.
func (c cacheDirFlag) dir() (string, error) {
	d, err := cacheDir(string(c.CacheDir), os.Getenv, os.UserHomeDir)
	if err == nil && d == "" {
		err = &usageError{"--cache-dir off: the cache commands need a cache directory"}
	}
	return d, err
}

// cacheWarmCmd is `modelfs cache warm`.
type cacheWarmCmd struct {
	Src pathArg `arg:"" help:"The game tree to translate (as it will be mounted)."`
	cacheDirFlag
	DiskCache string            `name:"disk-cache-size" placeholder:"SIZE" help:"Budget of the cache directory, as for mount (default: the directory's, else 1GiB)."`
	Formats   []string          `default:"${kinds}" placeholder:"KIND" help:"Kinds to make, as for mount (default: all)."`
	Jobs      int               `short:"j" help:"Translations running at once (default: the number of CPUs)."`
	Decoder   map[string]string `name:"option" placeholder:"NAME=VALUE" help:"Decoder option, as for mount; a mount finds the cache's translations only with the same options."`
	Effects   string            `enum:",none,stand,all" default:"" placeholder:"WHICH" help:"${effects}"`
	Progress  string            `default:"auto" enum:"auto,bar,none" help:"Progress bar: auto (on a terminal), bar, none."`
}

// maxListedFailures bounds the failures the warm summary names one by one.
const maxListedFailures = 20

// Run warms the cache.
func (c *cacheWarmCmd) Run(e *env) error {
	dir, err := c.dir()
	if err != nil {
		return err
	}
	opt := vfs.Options{CacheDir: dir}
	if opt.DiskCacheBytes, err = diskBudget(c.DiskCache); err != nil {
		return err
	}
	if opt.Kinds, err = parseKinds(c.Formats); err != nil {
		return err
	}
	if c.Jobs < 0 {
		return &usageError{fmt.Sprintf("--jobs: %d is negative", c.Jobs)}
	}
	if err := withEffects(&c.Decoder, c.Effects); err != nil {
		return err
	}
	if err := checkDecoderOptions(c.Decoder); err != nil {
		return err
	}
	opt.DecoderOptions = c.Decoder

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var bar *progressbar.ProgressBar
	showBar := c.Progress == "bar" || (c.Progress == "auto" && isTerminal(e.stderr))
	var failures []vfs.WarmEvent
	start := time.Now()
	st, err := vfs.Warm(ctx, string(c.Src), opt, c.Jobs, func(ev vfs.WarmEvent) {
		if ev.Err != nil {
			failures = append(failures, ev)
		}
		if !showBar {
			return
		}
		if bar == nil {
			bar = newBar(e.stderr, ev.Total, "translating")
		}
		bar.Set(ev.Done)
	})
	if bar != nil {
		bar.Finish()
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	elapsed := time.Since(start).Round(10 * time.Millisecond)
	fmt.Fprintf(e.stdout, "%d models and textures of %s in %s: %d translated, %d already in the cache, %d failed\n",
		st.Sources, string(c.Src), elapsed, st.Translations, max(int64(st.Sources)-st.Translations, 0), st.Failed)
	slices.SortFunc(failures, func(a, b vfs.WarmEvent) int { return strings.Compare(a.Path, b.Path) })
	for i, f := range failures {
		if i == maxListedFailures {
			fmt.Fprintf(e.stdout, "  … and %d more\n", len(failures)-i)
			break
		}
		fmt.Fprintf(e.stdout, "  %s: %v\n", f.Path, f.Err)
	}
	if errors.Is(err, context.Canceled) {
		return errors.New("interrupted")
	}
	if st.Failed > 0 {
		return &warmFailed{st.Failed}
	}
	return nil
}

// warmFailed reports a warm some of whose models could not be translated (their documents,
// error documents included, are in the cache all the same).
type warmFailed struct{ n int }

func (e *warmFailed) Error() string {
	return fmt.Sprintf("%d models or textures could not be translated", e.n)
}

// newBar returns the progress bar of the commands that work through a whole tree.
func newBar(w io.Writer, total int, what string) *progressbar.ProgressBar {
	return progressbar.NewOptions(total, progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(what), progressbar.OptionShowCount(),
		progressbar.OptionShowIts(), progressbar.OptionSetItsString("files"),
		progressbar.OptionSetPredictTime(true), progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish())
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// cacheStatsCmd is `modelfs cache stats`.
type cacheStatsCmd struct {
	cacheDirFlag
}

// Run prints the summary.
func (c *cacheStatsCmd) Run(e *env) error {
	dir, err := c.dir()
	if err != nil {
		return err
	}
	d, err := cache.OpenDisk(cache.DiskOptions{Dir: dir, Inspect: true})
	if errors.Is(err, cache.ErrNotCacheDir) {
		if _, serr := os.Stat(dir); errors.Is(serr, os.ErrNotExist) {
			fmt.Fprintf(e.stdout, "%s: no cache yet\n", dir)
			return nil
		}
	}
	if err != nil {
		return err
	}
	defer d.Close()
	st := d.Stats()
	fmt.Fprintf(e.stdout, "%s: %d entries, %s on disk\n", dir, st.Entries, humanBytes(st.Bytes))
	for _, name := range d.States() {
		if !strings.HasPrefix(name, "mount-") {
			continue
		}
		b, err := d.ReadState(name)
		var rec vfs.MountRecord
		if err != nil || json.Unmarshal(b, &rec) != nil {
			continue
		}
		fmt.Fprintf(e.stdout, "last mount of %s (on %s), %s to %s:\n", rec.Src, rec.MountPoint,
			rec.Started.Format(time.DateTime), rec.Ended.Format(time.DateTime))
		fmt.Fprintf(e.stdout, "  %d models and textures taken from the cache, %d translated (%d failed)", rec.Reused, rec.Translations, rec.Failures)
		if n := rec.Translations + rec.Reused; n > 0 {
			fmt.Fprintf(e.stdout, ": a hit rate of %.0f %%", 100*float64(rec.Reused)/float64(n))
		}
		fmt.Fprintln(e.stdout)
		fmt.Fprintf(e.stdout, "  documents read: %d from memory, %d from the cache directory\n", rec.MemoryHits, rec.DiskReads)
	}
	return nil
}

// humanBytes writes n in binary units.
func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// cacheClearCmd is `modelfs cache clear`.
type cacheClearCmd struct {
	cacheDirFlag
}

// Run empties the cache directory.
func (c *cacheClearCmd) Run(e *env) error {
	dir, err := c.dir()
	if err != nil {
		return err
	}
	d, err := cache.OpenDisk(cache.DiskOptions{Dir: dir, Inspect: true})
	if err != nil {
		return err
	}
	defer d.Close()
	before := d.Stats()
	if err := d.Clear(); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s: removed %d entries (%s)\n", dir, before.Entries, humanBytes(before.Bytes))
	return nil
}

// parseKinds reads a --formats list.
func parseKinds(formats []string) ([]translate.Kind, error) {
	if len(formats) == 0 {
		return nil, &usageError{"--formats: name at least one of gltf, glb, obj, mtl, json, png"}
	}
	var kinds []translate.Kind
	for _, f := range formats {
		k, ok := translate.KindOf(strings.ToLower(strings.TrimSpace(f)))
		if !ok {
			return nil, &usageError{fmt.Sprintf("--formats: unknown kind %q (want gltf, glb, obj, mtl, json or png)", f)}
		}
		kinds = append(kinds, k)
	}
	if _, err := (vfs.Options{Kinds: kinds}).WithDefaults(); err != nil {
		return nil, &usageError{"--formats: " + err.Error()}
	}
	return kinds, nil
}
