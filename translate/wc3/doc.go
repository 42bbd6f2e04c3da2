// Package wc3 holds the raw Warcraft III model that both of its file forms decode to — the text
// MDL (package mdl) and the binary MDX (package mdx), version 800 — and Build, which turns that
// raw model into a scene.Scene.
//
// Keeping one raw model for both forms means the two forms of one model translate to the same
// scene by construction, and the equivalence can be tested on the raw data directly.
package wc3
