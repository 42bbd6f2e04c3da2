package blendercheck

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelfs/modelfs/internal/testkit/corpus"
)

// Binary returns the Blender binary (MODELFS_BLENDER, else blender on PATH), or skips: under
// -short, as starting Blender is slow, and when there is none, except under CI (CI=true) or
// with MODELFS_BLENDER_REQUIRED=1, where a missing Blender is a failure.
func Binary(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("blendercheck: starting Blender is slow; skipped under -short")
	}
	if b := os.Getenv("MODELFS_BLENDER"); b != "" {
		return b
	}
	b, err := exec.LookPath("blender")
	if err != nil {
		if os.Getenv("MODELFS_BLENDER_REQUIRED") == "1" || os.Getenv("CI") == "true" {
			t.Fatalf("blendercheck: %v (CI needs Blender: apt-get install blender python3-numpy)", err)
		}
		t.Skip("blendercheck: blender not found (apt-get install blender python3-numpy, or scripts/blender/run.sh)")
	}
	return b
}

// Result is what one run of the import check printed.
type Result struct {
	Output string // everything Blender and check.py printed
	Passed int    // files check.py passed
	Err    error  // from running Blender: an *exec.ExitError when a check failed
}

// Run runs scripts/blender/check.py in headless Blender with args (options, then folders),
// within timeout. Every line is logged, and every FAIL line fails t.
func Run(t testing.TB, bin string, timeout time.Duration, args ...string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	script := filepath.Join(corpus.RepoRoot(t), "scripts", "blender", "check.py")
	cmd := exec.CommandContext(ctx, bin, append([]string{"-b", "--factory-startup", "--python-exit-code", "1",
		"--python", script, "--"}, args...)...)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	r := Result{Err: cmd.Run()}
	r.Output = buf.String()
	for _, line := range strings.Split(strings.TrimRight(r.Output, "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "FAIL "):
			t.Error(line)
		case strings.HasPrefix(line, "PASS "):
			r.Passed++
			t.Log(line)
		default:
			t.Log(line)
		}
	}
	return r
}
