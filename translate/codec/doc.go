// Package codec is what a format package needs to plug into modelfs: the Source a decoder
// reads (the file, and the tree its companions live in, as an fs.FS), the registry of formats
// sniffed by content (Register, Sniff), decoder options each format declares, and the typed
// errors decoders return. It imports no encoder: the pipeline that runs decoders and encoders is
// package translate, above it.
package codec
