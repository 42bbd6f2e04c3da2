package zipfs

import "time"

// SetBudget sets the memory the streams of open members may take at once, returning what
// sets it back.
func SetBudget(limit int64) (restore func()) {
	budget.mu.Lock()
	defer budget.mu.Unlock()
	old := budget.limit
	budget.limit = limit
	return func() {
		budget.mu.Lock()
		defer budget.mu.Unlock()
		budget.limit = old
	}
}

// StateCost is what one open member's stream holds.
const StateCost = stateCost

// Window is how far back a stream serves without starting again.
const Window = window

// SetIdleAfter sets how long a stream goes unread before the budget may take it back,
// returning what sets it back.
func SetIdleAfter(d time.Duration) (restore func()) {
	budget.mu.Lock()
	defer budget.mu.Unlock()
	old := idleAfter
	idleAfter = d
	return func() {
		budget.mu.Lock()
		defer budget.mu.Unlock()
		idleAfter = old
	}
}
