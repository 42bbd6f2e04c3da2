#!/usr/bin/env bash
# convert-tree.sh ROOT OUT: translate every Warcraft III model (*.mdl, *.mdx) under ROOT into OUT
# with the names the modelfs mount will serve beside each source: X.mdx.gltf, X.mdx.glb,
# X.mdx.obj (+ X.mdx.mtl) and X.mdx.json. A model that fails to translate gets only an error document
# {"modelfs": 1, "error": "...", "source": {...}} as X.mdx.json, as the mount will serve it.
# MODELFS names the modelfs binary (default: built from this checkout into a temp dir).
set -euo pipefail
if [ $# -ne 2 ]; then
	echo "usage: $0 ROOT OUT" >&2
	exit 2
fi
root=$1 out=$2
repo=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "${MODELFS:-}" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	if ! (cd "$repo" && go build -o "$tmp/modelfs" ./cmd/modelfs); then
		echo "convert-tree.sh: cannot build ./cmd/modelfs; set MODELFS=/path/to/modelfs" >&2
		exit 3
	fi
	MODELFS=$tmp/modelfs
fi
mkdir -p "$out"
find "$root" -type f \( -iname '*.mdl' -o -iname '*.mdx' \) -print0 | sort -z |
	while IFS= read -r -d '' src; do
		rel=${src#"$root"/}
		dst=$out/$rel
		mkdir -p "$(dirname "$dst")"
		if err=$("$MODELFS" convert --root "$root" "$src" -o "$dst.json" 2>&1); then
			"$MODELFS" convert --root "$root" "$src" -o "$dst.gltf"
			"$MODELFS" convert --root "$root" "$src" -o "$dst.glb"
			"$MODELFS" convert --root "$root" "$src" -o "$dst.obj"
			echo "converted $rel"
		else
			python3 -c 'import json, sys; print(json.dumps({"modelfs": 1, "error": sys.argv[1], "source": {"path": sys.argv[2], "format": ""}}))' \
				"$err" "$rel" >"$dst.json"
			echo "failed    $rel: $err"
		fi
	done
