// Package meteor reads Meteor Blade (流星蝴蝶剑, 2000) characters: each skin (.skc, at three
// levels of detail) is a model, with its skeleton (.bnc), animation frames (.amb), action table
// (.pos) and the shared character.amb as companions found case-insensitively beside it.
//
// The skeleton's bones and dummies become joints of one skin (dummies as attachment nodes),
// vertices keep every influence, and the action table cuts the frames into one animation per
// pose. Everything the scene has no place for — materials' raw colours, the pose table with its
// comments, skipped poses — goes into the scene's extras. Layouts: ../shared/formats/meteor-blade.md.
package meteor
