package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/modelfs/modelfs/vfs"
)

// convert -r: every document the mount would show of a tree, written to a folder under the
// mount's names, by the tree core the mount serves from (so the bytes are the mount's).

// treeDoc is one document to write.
type treeDoc struct {
	out  string    // its path under the output folder, slash-separated
	node *vfs.Node // the document in the tree shown
}

// treeConvert walks a tree and writes its documents.
type treeConvert struct {
	tree *vfs.Tree
	dest string
	docs []treeDoc
}

// runTree is `convert -r SRC OUTDIR`.
func (c *convertCmd) runTree(e *env) error {
	dest := string(c.Out)
	if dest == "" {
		dest = string(c.Dest)
	}
	if dest == "" {
		return &usageError{"convert -r: name the output folder (convert -r SRC OUTDIR)"}
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
	kinds, err := parseKinds(c.Kinds)
	if err != nil {
		return err
	}
	opt := vfs.Options{Kinds: kinds, MaxParallel: c.Jobs, DecoderOptions: c.Decoder, Game: string(c.Game)}
	if opt.CacheDir, err = cacheDir(string(c.CacheDir), os.Getenv, os.UserHomeDir); err != nil {
		return err
	}
	for _, lf := range c.ListFiles {
		b, err := os.ReadFile(lf)
		if err != nil {
			return &usageError{"--listfile: " + err.Error()}
		}
		opt.ListFiles = append(opt.ListFiles, b)
	}
	src, archive := vfs.SplitSource(string(c.In))
	absSrc, err := vfs.CheckDir(src)
	if err != nil {
		return err
	}
	absDest, err := filepath.Abs(dest)
	if err != nil {
		return err
	}
	if absDest == absSrc || strings.HasPrefix(absDest, absSrc+string(filepath.Separator)) {
		return &usageError{fmt.Sprintf("convert -r: the output folder %s is inside the tree %s, which is never written to", dest, src)}
	}
	opt.Logger = discardLogger()
	tree, err := vfs.Open(absSrc, opt)
	if err != nil {
		return err
	}
	defer tree.Close()
	w := &treeConvert{tree: tree, dest: absDest}
	shown, err := tree.Shown(archive)
	if err != nil {
		return err
	}
	root, err := shown.Resolve("/", false)
	if err != nil {
		return err
	}
	err = w.walk(root)
	root.Release()
	defer func() {
		for _, d := range w.docs {
			d.node.Release()
		}
	}()
	if err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	prog := newProgress(e.stderr, len(w.docs), c.Progress)
	var (
		mu       sync.Mutex
		failures []string
		written  int
		next     = make(chan treeDoc)
		wg       sync.WaitGroup
	)
	start := time.Now()
	for range tree.Options().MaxParallel {
		wg.Go(func() {
			for d := range next {
				wrote, err := w.write(ctx, d)
				func() {
					mu.Lock()
					defer mu.Unlock()
					if err != nil && ctx.Err() == nil {
						failures = append(failures, fmt.Sprintf("%s: %v", d.out, err))
					}
					if wrote {
						written++
					}
					prog.step(d.out, err)
				}()
			}
		})
	}
	for _, d := range w.docs {
		select {
		case next <- d:
			continue
		case <-ctx.Done():
		}
		break
	}
	close(next)
	wg.Wait()
	prog.finish()
	fmt.Fprintf(e.stdout, "%d documents of %s in %s: %d written, %d up to date, %d failed\n", len(w.docs), string(c.In),
		time.Since(start).Round(10*time.Millisecond), written, len(w.docs)-written-len(failures), len(failures))
	slices.Sort(failures)
	for i, f := range failures {
		if i == maxListedFailures {
			fmt.Fprintf(e.stdout, "  … and %d more\n", len(failures)-i)
			break
		}
		fmt.Fprintf(e.stdout, "  %s\n", f)
	}
	if ctx.Err() != nil {
		return errors.New("interrupted")
	}
	if len(failures) > 0 {
		return fmt.Errorf("%d documents could not be made", len(failures))
	}
	return nil
}

// walk lists the documents of the folder n and of its subfolders and archives. Symlinks to
// folders are not followed (a loop would never end); a symlink to a model is translated as the
// mount does.
func (w *treeConvert) walk(n *vfs.Node) error {
	ents, err := n.Entries()
	if err != nil {
		return err
	}
	for _, e := range ents {
		switch {
		case e.Virtual:
			if d, err := n.VirtualChild(e.Name); err == nil {
				w.docs = append(w.docs, treeDoc{out: strings.TrimPrefix(d.Path(), "/"), node: d})
			}
		case e.Type.IsDir():
			child, err := n.Child(e.Name)
			if err != nil {
				continue // gone since the listing
			}
			if child.IsDir() { // an archive that cannot be opened is the plain file it is
				err = w.walk(child)
			}
			child.Release()
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// write makes the document d and writes it, unless the output already holds it: it reports
// whether it wrote. An output whose size and time are those of the document's current version
// (as a cache knows them) is up to date without translating; else the document is made, and
// an output with the same bytes is left alone. Outputs get the time of their version: the
// newest of the source and of everything its translation read.
func (w *treeConvert) write(ctx context.Context, d treeDoc) (bool, error) {
	dst := filepath.Join(w.dest, filepath.FromSlash(d.out))
	size, mtime, known := d.node.Known()
	old, err := os.Stat(dst)
	if known && err == nil && old.Size() == size && old.ModTime().Equal(mtime) {
		return false, nil
	}
	data, mtime, err := d.node.Made(ctx)
	if err != nil {
		return false, err
	}
	if old != nil && old.Mode().IsRegular() && old.Size() == data.Size() {
		if cur, err := os.ReadFile(dst); err == nil && data.Equal(cur) {
			if !old.ModTime().Equal(mtime) {
				os.Chtimes(dst, mtime, mtime)
			}
			return false, nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return false, err
	}
	if err := writeAtomicWith(dst, func(w io.Writer) error { _, err := data.WriteTo(w); return err }); err != nil {
		return false, err
	}
	return true, os.Chtimes(dst, mtime, mtime)
}

// progress shows how far convert -r is: a bar on a terminal, else a line at every tenth done
// and one per failure.
type progress struct {
	w     io.Writer
	bar   *progressbar.ProgressBar
	total int
	done  int
}

func newProgress(w io.Writer, total int, mode string) *progress {
	p := &progress{w: w, total: total}
	if mode == "bar" || mode == "auto" && isTerminal(w) {
		p.bar = newBar(w, total, "converting")
	}
	return p
}

func (p *progress) step(name string, err error) {
	p.done++
	if p.bar != nil {
		p.bar.Set(p.done)
		return
	}
	if err != nil {
		fmt.Fprintf(p.w, "failed: %s: %v\n", name, err)
	}
	if tenth := max(p.total/10, 1); p.done%tenth == 0 || p.done == p.total {
		fmt.Fprintf(p.w, "converted %d/%d\n", p.done, p.total)
	}
}

func (p *progress) finish() {
	if p.bar != nil {
		p.bar.Finish()
	}
}

// discardLogger drops what the tree core logs: convert -r reports failures itself.
func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
