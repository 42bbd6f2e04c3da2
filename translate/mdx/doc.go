// Package mdx decodes Warcraft III models in both of their forms, the text MDL and the binary
// MDX (version 800), into one raw Model, and builds a scene.Scene from it.
//
// The two readers (ReadMDL, ReadMDX) fill the same Model structures, so the two forms of one
// model translate to the same scene. EncodeMDL and EncodeMDX write a Model back out; tests use
// them to build fixtures and fuzz seeds.
package mdx
