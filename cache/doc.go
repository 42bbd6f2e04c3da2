// Package cache holds what the mount has translated, in two tiers, and makes sure each document
// is made once.
//
//   - Memory is a byte-budgeted LRU of documents in memory.
//   - Disk is a persistent tier in a directory: content-addressed entries (every document of
//     one model version, with the caller's metadata), written atomically, verified by length and
//     checksum on every read, kept under a byte budget least recently used first, and safe to
//     share between processes (and machines, on a shared directory); Lock keeps two processes
//     from making one entry at once, Journal keeps a process's own small records across runs.
//   - Group coalesces concurrent loads of one key into one, each caller waiting on its own
//     context.
//
// The LRU lists are written here rather than taken from a library because they need byte
// weights and exact accounting; the well-kept LRU packages offer counts, not weights, and the
// weighted ones use admission policies that may refuse a fresh entry.
package cache
