// Package translate is the pipeline that turns game model files into glTF, OBJ, JSON and PNG
// documents: Decode sniffs a source among the formats registered with package codec, runs the
// format's pure decoder, resolves its textures through the source's tree and validates the
// scene; Encode serialises a scene to one output kind; Output and Outputs check or load the
// textures an output needs first. `modelfs convert` and the mount both call it, so both make
// the same bytes.
package translate
