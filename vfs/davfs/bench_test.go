package davfs

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelfs/modelfs/translate/wc3/wc3test"
	"github.com/modelfs/modelfs/vfs"
)

// throughputVertices makes a grid model whose .glb is about 25 MB.
const throughputVertices = 420000

// BenchmarkThroughput reads a .glb of about 25 MB already in the cache through `serve webdav`,
// against `rclone serve webdav` serving a plain folder holding the same bytes: both over
// loopback, read by the same client, one after the other in each iteration. ratio is
// modelfs's throughput over rclone's. Target: ratio ≥ 0.8.
func BenchmarkThroughput(b *testing.B) {
	rclone, err := exec.LookPath("rclone")
	if err != nil {
		b.Skip("rclone not installed")
	}
	src := b.TempDir()
	data, err := wc3test.MDX(wc3test.GridModel(throughputVertices))
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "grid.mdx"), data, 0o644); err != nil {
		b.Fatal(err)
	}
	srv := serve(b, src, vfs.Options{CacheBytes: 256 << 20})
	ours := srv.URL + "/grid.mdx.glb"
	glb, err := get(ours) // translated once, outside the timing
	if err != nil {
		b.Fatal(err)
	}

	plain := b.TempDir()
	if err := os.WriteFile(filepath.Join(plain, "grid.mdx.glb"), glb, 0o644); err != nil {
		b.Fatal(err)
	}
	addr := freeAddr(b)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, rclone, "serve", "webdav", plain, "--addr", addr, "--read-only", "--config", "/dev/null")
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cancel(); cmd.Wait() })
	theirs := "http://" + addr + "/grid.mdx.glb"
	deadline := time.Now().Add(20 * time.Second)
	for {
		if got, err := get(theirs); err == nil && len(got) == len(glb) {
			break
		}
		if time.Now().After(deadline) {
			b.Fatal("rclone serve webdav did not answer within 20 s")
		}
		time.Sleep(50 * time.Millisecond)
	}

	var tOurs, tTheirs time.Duration
	b.SetBytes(int64(len(glb)))
	b.ResetTimer()
	for range b.N {
		for _, c := range []struct {
			url string
			d   *time.Duration
		}{{ours, &tOurs}, {theirs, &tTheirs}} {
			start := time.Now()
			n, err := drain(c.url)
			*c.d += time.Since(start)
			if err != nil || n != int64(len(glb)) {
				b.Fatalf("%s: %d bytes, %v", c.url, n, err)
			}
		}
	}
	mb := float64(len(glb)) * float64(b.N) / 1e6
	b.ReportMetric(mb/tOurs.Seconds(), "modelfs-MB/s")
	b.ReportMetric(mb/tTheirs.Seconds(), "rclone-MB/s")
	b.ReportMetric(tTheirs.Seconds()/tOurs.Seconds(), "ratio")
}

func get(url string) ([]byte, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("%s", resp.Status)
	}
	return io.ReadAll(resp.Body)
}

func drain(url string) (int64, error) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	return io.Copy(io.Discard, resp.Body)
}

// freeAddr returns a loopback address with a port free at the time of asking.
func freeAddr(b *testing.B) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
