package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/modelfs/modelfs/cache"
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/vfs"
)

// mountCmd is `modelfs mount`.
type mountCmd struct {
	Src pathArg `arg:"" help:"The game tree to show: a model folder, a game's data folder (its MPQ archives merged in load order), or one archive (.mpq .w3x .w3m)."`
	Mnt pathArg `arg:"" help:"The directory to mount it on."`

	Options    []string `short:"o" placeholder:"OPT" help:"Mount options, comma-separated or repeated: allow_other, debug; ro, default_permissions, nosuid, nodev are always on; rw is refused."`
	Debug      bool     `help:"Log every FUSE request and reply."`
	Background bool     `help:"Mount in the background: exit once the mount answers (with the reason when it cannot mount), logging to the system log. The fstab form (modelfs SRC MNT -o …) does so unless given -f."`
	treeFlags
}

// treeFlags are the flags of the tree every front end serves (mount, serve webdav): its
// caches, the kinds it shows, how it reads archives and decoders' options.
type treeFlags struct {
	CacheSize   string            `default:"256MiB" placeholder:"SIZE" help:"Memory for translated documents, e.g. 256MiB, 512M, 1G (K, M, G, T and KiB … are powers of 1024; KB, MB … of 1000). Default: 256MiB."`
	CacheDir    pathArg           `placeholder:"DIR" help:"Directory of the persistent cache, kept across mounts and shareable between them (default: $XDG_CACHE_HOME/modelfs, else ~/.cache/modelfs; off: none)."`
	CacheGroup  bool              `name:"cache-group-read" help:"Let the members of the daemon's group read the cache directory (entries 0640 in 0750 folders; default: the daemon's user alone, 0600 in 0700)."`
	DiskCache   string            `name:"disk-cache-size" placeholder:"SIZE" help:"Budget of the persistent cache directory, least recently used entries removed beyond it (at least 4MiB); the directory remembers it for the mounts and warms that name none (default: the directory's, else 1GiB)."`
	Formats     []string          `default:"${kinds}" placeholder:"KIND" help:"Virtual files shown, comma-separated: ${model_kinds} beside each model, ${texture_kinds} beside each texture (default: all)."`
	Parallel    int               `help:"Translations running at once, at most 256 (default: the number of CPUs)."`
	MaxSource   string            `name:"max-source-size" default:"128MiB" placeholder:"SIZE" help:"Largest model, texture or companion file read; larger ones are refused with an error naming the limit (at least 1MiB, at most 512MiB; default: 128MiB)."`
	MemoryLimit string            `placeholder:"SIZE" help:"Soft limit on the process's memory, given to the Go runtime, which collects garbage harder as it gets close (default: the cache size plus 48MiB; off turns it off; GOMEMLIMIT in the environment wins)."`
	Archives    string            `default:"auto" enum:"auto,folders,merged,off" help:"How MPQ archives in SRC show: folders (each as a folder of its own name, holding its members), merged (SRC's archives as one tree in the game's load order), auto (merged for a game's data folder, else folders), off (plain files)."`
	ListFiles   []string          `name:"listfile" placeholder:"FILE" help:"More member names for archives whose own (listfile) is missing or incomplete; repeatable."`
	Game        pathArg           `placeholder:"DIR" help:"A game's install or data folder whose archives the models of an archive (a map) find their stock textures in, after the archive's own files."`
	Decoder     map[string]string `name:"option" placeholder:"NAME=VALUE" help:"Decoder option, repeatable: ${options}."`
	Effects     string            `enum:",none,stand,all" default:"" placeholder:"WHICH" help:"${effects}"`
}

// stopSignals returns the channel a stop request arrives on and a function that stops listening.
// SIGINT and SIGTERM stop the mount, and so does SIGHUP, which a terminal that closes sends to
// the mount running in it: left to Go's default it would end the process without unmounting,
// and every reader of the mount would get ENOTCONN. A SIGHUP ignored when the program started
// (nohup) stays ignored. Tests replace it.
var stopSignals = func() (<-chan os.Signal, func()) {
	c := make(chan os.Signal, 3)
	signal.Notify(c, syscall.SIGINT, syscall.SIGTERM)
	if !signal.Ignored(syscall.SIGHUP) {
		signal.Notify(c, syscall.SIGHUP)
	}
	return c, func() { signal.Stop(c) }
}

// logStop logs why the mount stops.
func logStop(log *slog.Logger, sig os.Signal) {
	if sig == syscall.SIGHUP {
		log.Info("hung up (the terminal closed?): unmounting", "signal", sig)
		return
	}
	log.Info("stop requested: unmounting", "signal", sig)
}

// unmountBackoff bounds the wait between unmount attempts while the mount is busy.
const (
	unmountBackoffMin = 100 * time.Millisecond
	unmountBackoffMax = 2 * time.Second
)

// options turns the command line into mount options. It does nothing else, so that the flag
// grammar can be tested without mounting. -o carries, besides the FUSE options, every tree flag
// as key=value (cache_size=1G, cache_dir=/srv/cache, formats=gltf+json …) for fstab, and
// accepts and ignores the options mount(8) and mount.fuse3 pass to every file system.
func (c *mountCmd) options() (vfs.Options, error) {
	opt := vfs.Options{Debug: c.Debug}
	for _, o := range c.Options {
		key, value, hasValue := strings.Cut(strings.TrimSpace(o), "=")
		switch {
		case key == "":
		case hasValue:
			if err := c.treeFlags.set(key, value); err != nil {
				return opt, err
			}
		case ignoredMountOption(key):
		case key == "allow_other":
			opt.AllowOther = true
		case key == "debug":
			opt.Debug = true
		case key == "cache_group_read":
			c.CacheGroup = true
		case key == "rw":
			return opt, &usageError{"-o rw: modelfs is read-only (use ro, or leave it out)"}
		default:
			return opt, &usageError{fmt.Sprintf("-o %s: unknown mount option (known: allow_other, debug, and the tree flags as key=value: cache_size=, cache_dir=, cache_group_read, disk_cache_size=, formats=, parallel=, max_source_size=, memory_limit=, archives=, listfile=, game=, option=NAME=VALUE)", o)}
		}
	}
	return opt, c.treeFlags.options(&opt)
}

// ignoredMountOption reports whether o is an option that mount(8), mount.fuse3 or an fstab line
// pass to every file system and that changes nothing here: the mount is always read-only,
// nosuid and nodev, and libfuse 3 dropped nonempty (a mount point need not be empty).
func ignoredMountOption(o string) bool {
	switch o {
	case "ro", "default_permissions", "nosuid", "nodev", "suid", "dev", "exec", "noexec", "auto", "noauto",
		"user", "users", "nouser", "owner", "group", "_netdev", "nofail", "defaults", "atime", "noatime",
		"relatime", "strictatime", "nodiratime", "diratime", "async", "sync", "nonempty", "allow_root":
		return true
	}
	return strings.HasPrefix(o, "x-") || strings.HasPrefix(o, "comment=")
}

// set sets the tree flag key (as -o spells it: cache_size, formats …) to value. In formats, +
// or : separates the kinds (a comma would end the option).
func (c *treeFlags) set(key, value string) error {
	switch key {
	case "cache_size":
		c.CacheSize = value
	case "cache_dir":
		c.CacheDir = pathArg(value)
	case "disk_cache_size":
		c.DiskCache = value
	case "formats":
		c.Formats = strings.FieldsFunc(value, func(r rune) bool { return r == '+' || r == ':' })
	case "parallel":
		n, err := strconv.Atoi(value)
		if err != nil {
			return &usageError{fmt.Sprintf("-o parallel=%s: not a number", value)}
		}
		c.Parallel = n
	case "max_source_size":
		c.MaxSource = value
	case "memory_limit":
		c.MemoryLimit = value
	case "archives":
		switch value {
		case "auto", "folders", "merged", "off":
		default:
			return &usageError{fmt.Sprintf("-o archives=%s: want auto, folders, merged or off", value)}
		}
		c.Archives = value
	case "listfile":
		c.ListFiles = append(c.ListFiles, value)
	case "game":
		c.Game = pathArg(value)
	case "option":
		name, v, ok := strings.Cut(value, "=")
		if !ok {
			return &usageError{fmt.Sprintf("-o option=%s: want option=NAME=VALUE", value)}
		}
		if c.Decoder == nil {
			c.Decoder = map[string]string{}
		}
		c.Decoder[name] = v
	case "effects":
		c.Effects = value
	case "fsname", "subtype":
		// Names mount.fuse3 may pass; the mount names itself.
	default:
		return &usageError{fmt.Sprintf("-o %s=%s: unknown mount option", key, value)}
	}
	return nil
}

// options fills opt with what the tree flags ask for.
func (c *treeFlags) options(opt *vfs.Options) error {
	size, err := parseSize(c.CacheSize)
	if err != nil {
		return &usageError{"--cache-size: " + err.Error()}
	}
	if size < minCacheBytes {
		return &usageError{fmt.Sprintf("--cache-size: %s is below the minimum of 16MiB", c.CacheSize)}
	}
	opt.CacheBytes = size
	if _, err := c.memoryLimit(size, func(string) string { return "" }); err != nil {
		return err
	}
	if opt.MaxSourceSize, err = parseSize(c.MaxSource); err != nil {
		return &usageError{"--max-source-size: " + err.Error()}
	}
	if opt.MaxSourceSize < 1<<20 || opt.MaxSourceSize > codec.MaxSourceSize {
		return &usageError{fmt.Sprintf("--max-source-size: %s is not between 1MiB and 512MiB", c.MaxSource)}
	}
	if opt.CacheDir, err = cacheDir(string(c.CacheDir), os.Getenv, os.UserHomeDir); err != nil {
		return err
	}
	if opt.DiskCacheBytes, err = diskBudget(c.DiskCache); err != nil {
		return err
	}
	opt.CacheGroupRead = c.CacheGroup
	if opt.Kinds, err = parseKinds(c.Formats); err != nil {
		return err
	}
	if c.Parallel < 0 || c.Parallel > vfs.MaxParallelLimit {
		return &usageError{fmt.Sprintf("--parallel: %d is not between 1 and %d", c.Parallel, vfs.MaxParallelLimit)}
	}
	opt.MaxParallel = c.Parallel
	if err := withEffects(&c.Decoder, c.Effects); err != nil {
		return err
	}
	if err := checkDecoderOptions(c.Decoder); err != nil {
		return err
	}
	opt.DecoderOptions = c.Decoder
	opt.Archives = vfs.ArchiveMode(c.Archives)
	opt.Game = string(c.Game)
	for _, lf := range c.ListFiles {
		b, err := os.ReadFile(lf)
		if err != nil {
			return &usageError{"--listfile: " + err.Error()}
		}
		opt.ListFiles = append(opt.ListFiles, b)
	}
	return nil
}

// setup gives opt a logger writing to w (debug lines too with debug) and gives the Go runtime
// the memory limit the flags ask for.
func (c *treeFlags) setup(opt *vfs.Options, w io.Writer, debugLog bool) error {
	level := slog.LevelInfo
	if debugLog {
		level = slog.LevelDebug
	}
	opt.Logger = slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
	limit, err := c.memoryLimit(opt.CacheBytes, os.Getenv)
	if err != nil {
		return err
	}
	if limit > 0 {
		debug.SetMemoryLimit(limit)
	}
	return nil
}

// cacheDir returns the persistent cache directory the --cache-dir flag asks for: the flag's
// own, or "" for "off", or else $XDG_CACHE_HOME/modelfs, or else ~/.cache/modelfs, as the XDG
// base directory specification has it.
func cacheDir(flag string, getenv func(string) string, home func() (string, error)) (string, error) {
	switch {
	case strings.EqualFold(flag, "off"):
		return "", nil
	case flag != "":
		return flag, nil
	case filepath.IsAbs(getenv("XDG_CACHE_HOME")):
		return filepath.Join(getenv("XDG_CACHE_HOME"), "modelfs"), nil
	}
	h, err := home()
	if err != nil || h == "" {
		return "", &usageError{"--cache-dir: no home directory to keep the cache in; name one, or off"}
	}
	return filepath.Join(h, ".cache", "modelfs"), nil
}

// diskBudget reads a --disk-cache-size flag: 0 when it is not given (the directory's own).
func diskBudget(flag string) (int64, error) {
	if flag == "" {
		return 0, nil
	}
	n, err := parseSize(flag)
	if err != nil {
		return 0, &usageError{"--disk-cache-size: " + err.Error()}
	}
	if n < cache.MinDiskBytes {
		return 0, &usageError{fmt.Sprintf("--disk-cache-size: %s is below the minimum of 4MiB", flag)}
	}
	return n, nil
}

// minCacheBytes is the smallest --cache-size: below it a single model's documents do not fit.
const minCacheBytes = 16 << 20

// minMemoryLimit is the smallest --memory-limit: the runtime and the mount's own state need it.
const minMemoryLimit = 64 << 20

// memoryHeadroom is what the default memory limit allows beyond the cache: the translations in
// flight, the runtime and the file system's own state.
const memoryHeadroom = 48 << 20

// memoryLimit returns the soft memory limit to give the Go runtime for a cache of cacheBytes,
// or 0 for none. Without a limit the collector lets the heap grow to twice what is live, so a
// full cache would cost about twice its size in memory.
func (c *treeFlags) memoryLimit(cacheBytes int64, getenv func(string) string) (int64, error) {
	if getenv("GOMEMLIMIT") != "" {
		return 0, nil // the runtime has read it already
	}
	switch strings.ToLower(strings.TrimSpace(c.MemoryLimit)) {
	case "":
		return cacheBytes + memoryHeadroom, nil
	case "off", "0":
		return 0, nil
	}
	n, err := parseSize(c.MemoryLimit)
	if err != nil {
		return 0, &usageError{"--memory-limit: " + err.Error()}
	}
	if n < minMemoryLimit {
		return 0, &usageError{fmt.Sprintf("--memory-limit: %s is below the minimum of 64MiB (off turns the limit off)", c.MemoryLimit)}
	}
	return n, nil
}

var sizeRE = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z]*)$`)

// parseSize reads a human size: a number with an optional unit. K, M, G, T (with or without
// "iB") are powers of 1024, KB, MB, GB, TB powers of 1000, B or nothing bytes.
func parseSize(s string) (int64, error) {
	if strings.HasPrefix(strings.TrimSpace(s), "-") {
		return 0, fmt.Errorf("%q: a size cannot be negative", s)
	}
	m := sizeRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, fmt.Errorf("%q is not a size such as 256MiB, 512M or 1G", s)
	}
	n, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, fmt.Errorf("%q: %v", s, err)
	}
	unit := strings.ToLower(m[2])
	mult := map[string]float64{
		"": 1, "b": 1,
		"k": 1 << 10, "kib": 1 << 10, "kb": 1e3,
		"m": 1 << 20, "mib": 1 << 20, "mb": 1e6,
		"g": 1 << 30, "gib": 1 << 30, "gb": 1e9,
		"t": 1 << 40, "tib": 1 << 40, "tb": 1e12,
	}[unit]
	if mult == 0 {
		return 0, fmt.Errorf("%q: unknown unit %q (use B, K, M, G, T, KiB … or KB …)", s, m[2])
	}
	v := n * mult
	if v < 1 || v > 1<<62 {
		return 0, fmt.Errorf("%q is out of range", s)
	}
	return int64(v), nil
}

// logStats logs the mount's counters: what SIGUSR1 asks for, as dd(1) answers it.
func logStats(log *slog.Logger, st vfs.Stats) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	log.Info("stats", "translations", st.Translations, "failures", st.Failures, "reused", st.Reused,
		"versions", st.Versions, "memory-bytes", st.Memory.Bytes, "memory-hits", st.Memory.Hits,
		"disk-entries", st.Disk.Entries, "disk-bytes", st.Disk.Bytes, "disk-hits", st.Disk.Hits,
		"heap-live", ms.HeapAlloc, "go-sys", ms.Sys, "gc", ms.NumGC)
}
