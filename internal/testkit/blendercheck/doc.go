// Package blendercheck holds the test that opens modelfs output the way artists do: it mounts
// the sample models (testdata/sample), the hand-written Elfreina fixtures (translate/elem/elemtest/files)
// and the corpus (../shared/corpus) with the vfs package,
// runs the Khronos glTF Validator over every .gltf and .glb read through the mounts, and runs
// scripts/blender/check.py in headless Blender, which imports every .gltf, .glb and .obj of the
// mounts and compares what Blender built with the counts of the .json beside each.
//
// The test needs Blender 3.4 or later and numpy (Debian: apt-get install blender python3-numpy;
// scripts/blender/run.sh and .ci/run install them). It looks for MODELFS_BLENDER, then blender on
// PATH, and skips when neither is there — but fails under CI=true or MODELFS_BLENDER_REQUIRED=1.
// It is skipped under -short, as starting Blender takes seconds. Binary and Run find Blender and
// run the import check for the other packages' Blender tests too.
package blendercheck
