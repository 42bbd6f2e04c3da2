// Package m2 reads World of Warcraft models (.m2, magic MD20, versions 256–272) with their
// companions — NameNN.skin skin profiles and Name<id>-<variation>.anim files (v ≥ 264), opened
// through translate.Source.Companion so that the mount re-translates a model when one changes —
// and builds the scene modelfs encodes. It registers the format "m2" for ".m2"; a chunked MD21
// file (Legion and later) is refused with a translate.UnsupportedError.
//
// Reading (Read) follows ../shared/formats/wow-m2.md. Versions 256–257 keep their views inside
// the file, one timeline cut by per-sequence key ranges, float quaternions and 108-byte bones;
// 264–272 keep one key array per sequence, compressed quaternions and their views in .skin files
// (profile 00 by default, Options.Profile for another, the lowest present when it is missing).
// For 260–263 no real file was at hand and the sources disagree, so the reader tries the layouts
// in turn (LayoutTBC, LayoutTBCShort, LayoutTBCEarly) and keeps the first whose offsets and
// counts fit the file. Every array is checked against its file before anything is allocated for
// it; what is missing or out of range either fails the read with a translate.FormatError
// (header, sequences, bones, vertices) or is left out with a warning (everything else), and the
// key data all tracks decode is bounded by the size of the files.
//
// Building (Build) makes:
//   - one node per bone, with the pivot rest pose (translation pivot − parent pivot, inverse
//     bind matrix translate(−pivot)), named Bone<i> plus its key-bone role, and one node per
//     attachment under its bone; one skin over all nodes;
//   - one mesh per submesh of the view (drawn by at least one texture unit), with the material
//     of its lowest-layer texture unit (blend mode → alpha mode, with alpha-key cutoff 224/255;
//     unlit and two-sided render flags; base colour from the unit's colour and texture weight at
//     the start of the first sequence) and the others listed as overlays; weights are the
//     vertex's byte weights / 255 over the bone indices it names (direct bone indices). A
//     triangle over the same vertices as an earlier one (a face drawn from both sides) gets
//     copies of its vertices, degenerate triangles are dropped;
//   - for a character model (under Character/, or using a character skin or hair texture), only
//     geoset 0 and the lowest id of each group id/100 — the other geosets are alternatives
//     (hairstyles, glove shapes) the game shows one at a time; Options.AllGeosets keeps them
//     all; the metadata lists every geoset;
//   - the texture table as written: files by path (Replaceable 0), runtime slots by their type
//     (Replaceable = type: 11–13 creature skins, 1 character skin, 6 hair, …), described in the
//     metadata;
//   - one animation per sequence, named by animation id (AnimationName) with "_<n>" for
//     variations; an alias plays its target's keys; a sequence whose .anim file is missing holds
//     the rest pose and the metadata names the file.
//
// Animation semantics (checked against the real files and proved by a read-back test against an
// independent glTF sampler): interpolation 0 steps (glTF STEP), 1 is linear (LINEAR; slerp for
// quaternions). 2 and 3 are spline types whose tangents live in M2SplineKey values; bone tracks
// hold plain values, so there is nothing to interpolate with and they are taken as linear, with a
// warning (unlike Warcraft III, whose tracks carry tangents). Before v264 a sequence's curve is
// made of the keys in its range on the timeline, which real files let reach outside the
// sequence's window (a bone holds a value set by keys before and after it); the curve is cut at
// the window's edges, with keys there holding its value, and rebased to 0. Global-sequence
// tracks run on their own clock and are baked repeating across each clip by package anim.
// Compressed quaternions decode as (s + 32768)/32767 for negative s, (s − 32767)/32767
// otherwise, then normalised.
//
// Everything glTF has no place for goes to the scene's extras: sequences' ids, flags, speeds and
// windows, global sequences, skin profiles, geosets, colours, texture weights and transforms,
// texture slots, events, lights, cameras, particle and ribbon emitters, collision data.
//
// Package m2test writes the same models back as any of these versions, for tests and
// benchmarks.
package m2
