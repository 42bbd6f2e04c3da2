// Package blendercheck holds a test that opens modelfs outputs in the real Blender: it translates
// the sample models (testdata/sample) and the Warcraft III corpus models (../shared/corpus/wc3)
// into a temporary tree with the names the mount serves (X.mdx.gltf, X.mdx.glb, X.mdx.obj,
// X.mdx.mtl, X.mdx.json) and runs scripts/blender/check.py over it, which imports every file
// and compares what Blender built with the counts of the .json beside it.
//
// The test needs Blender 3.4 or later and numpy (Debian: apt-get install blender python3-numpy;
// scripts/blender/run.sh and .ci/run install them). It looks for MODELFS_BLENDER, then blender on
// PATH, and skips when neither is there — but fails under CI=true or MODELFS_BLENDER_REQUIRED=1.
// It is skipped under -short, as starting Blender takes seconds.
package blendercheck
