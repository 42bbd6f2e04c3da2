// Package gltfvalidate runs the Khronos glTF Validator (tools/gltf-validator, a Node script) from
// Go tests.
//
// The validator needs node and npm. When tools/gltf-validator/node_modules is missing it runs
// `npm ci` there first. When node or npm are not installed the test is skipped, except under
// CI=true, where that is a failure.
package gltfvalidate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Severities as the validator reports them.
const (
	SeverityError   = 0
	SeverityWarning = 1
	SeverityInfo    = 2
	SeverityHint    = 3
)

// Message is one issue the validator found.
type Message struct {
	Code     string `json:"code"`
	Severity int    `json:"severity"`
	Pointer  string `json:"pointer"`
	Message  string `json:"message"`
}

// String formats the message as "CODE at POINTER: text".
func (m Message) String() string {
	p := m.Pointer
	if p == "" {
		p = "/"
	}
	return m.Code + " at " + p + ": " + m.Message
}

// Report is the validator's verdict on one file.
type Report struct {
	File      string    `json:"file"`
	Errors    int       `json:"errors"`
	Warnings  int       `json:"warnings"`
	Infos     int       `json:"infos"`
	Hints     int       `json:"hints"`
	Truncated bool      `json:"truncated"`
	IOError   string    `json:"ioError,omitempty"`
	Messages  []Message `json:"messages"`
}

// Codes returns the sorted-by-appearance codes of the messages with the given severity.
func (r Report) Codes(severity int) []string {
	var out []string
	for _, m := range r.Messages {
		if m.Severity == severity {
			out = append(out, m.Code)
		}
	}
	return out
}

// runTimeout bounds one validator run (npm ci is bounded separately).
const runTimeout = 10 * time.Minute

// Check validates every path in one validator run, fails t for each error-severity message
// (code, pointer and text), logs warnings, and returns the reports.
func Check(t testing.TB, paths ...string) []Report {
	t.Helper()
	reports := Reports(t, paths...)
	for _, r := range reports {
		for _, m := range r.Messages {
			switch m.Severity {
			case SeverityError:
				t.Errorf("glTF validator: %s: error %s", r.File, m)
			case SeverityWarning:
				t.Logf("glTF validator: %s: warning %s", r.File, m)
			}
		}
		if r.Truncated {
			t.Errorf("glTF validator: %s: report truncated (%d errors, %d warnings)", r.File, r.Errors, r.Warnings)
		} else if n := len(r.Codes(SeverityError)); n != r.Errors {
			t.Errorf("glTF validator: %s: %d errors counted but %d listed", r.File, r.Errors, n)
		}
	}
	return reports
}

// Reports runs the validator once over all paths and returns one report per path, in order. It
// skips t when node/npm are unavailable (fails it under CI=true) and fails t when the validator
// cannot be run or a file cannot be read.
func Reports(t testing.TB, paths ...string) []Report {
	t.Helper()
	if len(paths) == 0 {
		return nil
	}
	dir, err := toolDir()
	if err != nil {
		t.Fatalf("gltfvalidate: %v", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		unavailable(t, "node is not installed")
	}
	if err := ensureInstalled(t, dir); err != nil {
		t.Fatalf("gltfvalidate: %v", err)
	}
	var stdin bytes.Buffer
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			t.Fatalf("gltfvalidate: %v", err)
		}
		if strings.ContainsAny(abs, "\r\n") {
			t.Fatalf("gltfvalidate: path %q contains a line break", abs)
		}
		stdin.WriteString(abs)
		stdin.WriteByte('\n')
	}
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "validate.mjs", "-")
	cmd.Dir = dir
	cmd.Stdin = &stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	reports, parseErr := parse(stdout.Bytes())
	if runErr != nil && !(exitCode(runErr) == 1 && parseErr == nil && len(reports) == len(paths)) {
		t.Fatalf("gltfvalidate: node validate.mjs: %v\n%s", runErr, stderr.Bytes())
	}
	if parseErr != nil {
		t.Fatalf("gltfvalidate: %v\nstderr:\n%s", parseErr, stderr.Bytes())
	}
	if len(reports) != len(paths) {
		t.Fatalf("gltfvalidate: %d reports for %d files\nstderr:\n%s", len(reports), len(paths), stderr.Bytes())
	}
	for i := range reports {
		reports[i].File = paths[i]
		if reports[i].IOError != "" {
			t.Fatalf("gltfvalidate: %s: %s", paths[i], reports[i].IOError)
		}
	}
	return reports
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// parse reads the script's JSON lines.
func parse(out []byte) ([]Report, error) {
	var reports []Report
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64<<10), 256<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var r Report
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, fmt.Errorf("bad report line %q: %w", line, err)
		}
		reports = append(reports, r)
	}
	return reports, sc.Err()
}

// unavailable skips t, or fails it under CI=true.
func unavailable(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("gltfvalidate: %s (required when CI=true)", why)
	}
	t.Skipf("gltfvalidate: %s; skipping glTF validation", why)
}

// toolDir finds tools/gltf-validator by walking up from the working directory to go.mod.
func toolDir() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			tool := filepath.Join(d, "tools", "gltf-validator")
			if _, err := os.Stat(filepath.Join(tool, "validate.mjs")); err != nil {
				return "", fmt.Errorf("validator script not found: %w", err)
			}
			return tool, nil
		}
		up := filepath.Dir(d)
		if up == d {
			return "", fmt.Errorf("no go.mod above %s", wd)
		}
		d = up
	}
}

var installMu sync.Mutex

// installed reports whether the validator package is present under dir.
func installed(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "node_modules", "gltf-validator", "package.json"))
	return err == nil
}

// ensureInstalled runs `npm ci` in dir unless the validator is already installed. A lock file
// keeps test binaries running in parallel from installing over each other.
func ensureInstalled(t testing.TB, dir string) error {
	t.Helper()
	installMu.Lock()
	defer installMu.Unlock()
	if installed(dir) {
		return nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		unavailable(t, "node_modules missing and npm is not installed")
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return err
	}
	defer unlock()
	if installed(dir) {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("npm ci in %s: %v\n%s", dir, err, out)
	}
	if !installed(dir) {
		return fmt.Errorf("npm ci in %s did not install gltf-validator", dir)
	}
	return nil
}

// lockDir takes an exclusive lock file in dir, waiting for another holder (a stale lock older
// than staleLock is broken).
func lockDir(dir string) (unlock func(), err error) {
	const staleLock = 10 * time.Minute
	name := filepath.Join(dir, ".npm-ci.lock")
	deadline := time.Now().Add(staleLock + time.Minute)
	for {
		f, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			f.Close()
			return func() { os.Remove(name) }, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, err
		}
		if fi, serr := os.Stat(name); serr == nil && time.Since(fi.ModTime()) > staleLock {
			os.Remove(name)
			continue
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("timed out waiting for %s", name)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
