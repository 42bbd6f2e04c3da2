// Package translate turns game model files into glTF, OBJ and JSON documents.
//
// Source formats register themselves here (see Register), much like image.RegisterFormat: each
// names its extensions and a content sniffer, and detection is by content, not by extension
// alone. Decode sniffs a source, runs the format's pure decoder and validates the resulting
// scene.Scene; Encode serialises a scene to one output kind. Translate is the two together and
// is what both `modelfs convert` and the mount call, so both produce the same bytes.
package translate
