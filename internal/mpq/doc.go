// Package mpq reads MPQ archives — the containers of World of Warcraft's data (formats 1 to 4)
// and of Warcraft III, its maps included — and serves their members as an io/fs.FS.
//
// The reader trusts nothing it reads: headers, table sizes and member sizes are checked
// against the archive's real length before anything is read or allocated, so protected maps
// (headers and tables that lie) list what can be listed, and a broken member costs only
// itself. Reads are random access: a read decodes only the sectors it covers.
package mpq
