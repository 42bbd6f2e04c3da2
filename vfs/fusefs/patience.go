//go:build linux || darwin

package fusefs

import (
	"context"
	"sync"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"
)

// The kernel sends an INTERRUPT for a request whenever its caller gets a signal it does not
// ignore (SIGCHLD in a shell, SIGALRM, a Go program's preemption), and go-fuse then ends the
// request's context. A translation takes milliseconds to seconds, so a caller waiting for one
// meets signals often; answering EINTR would fail its stat or open for a signal it survives,
// which no disk file system does (a shell would call the file missing). So a request waits on
// a patient context instead: an interrupt ends it only once the caller is dying (a fatal
// signal pending, or gone) or the mount is closing. The translation itself runs on, shared by
// everyone asking, whatever its callers do.

// pollGone is how often an interrupted request looks whether its caller is dying.
const pollGone = 20 * time.Millisecond

// patient is the context of one request: its caller's, ended only as described above. Its
// Done channel, and the goroutine that watches the caller, are made only when someone waits
// on it (a request that finds its answer known costs nothing more).
type patient struct {
	req    context.Context // go-fuse's: ended by an INTERRUPT, or the connection's end
	pid    uint32          // the calling thread, 0 when unknown
	closed <-chan struct{} // the mount's end

	once   sync.Once
	done   chan struct{}
	over   chan struct{} // the request was answered: stop watching
	mu     sync.Mutex
	err    error
	answer sync.Once
}

// patient returns the context the work of a request of ctx waits on, and what to call once the
// request is answered.
func (m *mount) patient(ctx context.Context) (context.Context, func()) {
	p := &patient{req: ctx, closed: m.closed, over: make(chan struct{})}
	if c, ok := fuse.FromContext(ctx); ok {
		p.pid = c.Pid
	}
	return p, p.answered
}

func (p *patient) answered() { p.answer.Do(func() { close(p.over) }) }

func (p *patient) Deadline() (time.Time, bool) { return time.Time{}, false }
func (p *patient) Value(key any) any           { return p.req.Value(key) }

func (p *patient) Done() <-chan struct{} {
	p.once.Do(func() {
		p.done = make(chan struct{})
		go p.watch()
	})
	return p.done
}

func (p *patient) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// watch ends the context once the request was interrupted and its caller is dying, or the
// mount closes; it stops when the request is answered.
func (p *patient) watch() {
	select {
	case <-p.over:
		return
	case <-p.closed:
		p.end()
		return
	case <-p.req.Done():
	}
	t := time.NewTicker(pollGone)
	defer t.Stop()
	for !callerDying(p.pid) {
		select {
		case <-p.over:
			return
		case <-p.closed:
			p.end()
			return
		case <-t.C:
		}
	}
	p.end()
}

func (p *patient) end() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.err = context.Canceled
	close(p.done)
}
