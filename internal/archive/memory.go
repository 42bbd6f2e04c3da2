package archive

import "sync/atomic"

// charged is the memory formats hold for their open members beyond the archive's own tables:
// the windows of members read as streams. The tree counts it in its memory budget.
var charged atomic.Int64

// Charge adds n bytes (less, when negative) to what open members hold.
func Charge(n int64) { charged.Add(n) }

// Charged returns the bytes open members hold, of every archive of the process.
func Charged() int64 { return charged.Load() }
