#!/usr/bin/env bash
# run.sh [CHECK OPTIONS] DIR...: open every .gltf, .glb and .obj under the DIRs in Blender and
# compare each with the .json beside it (scripts/blender/check.py; its docstring says what is
# compared). The DIRs hold modelfs outputs under the mount's names (X.mdx.gltf, X.mdx.obj,
# X.mdx.mtl, X.mdx.json): a modelfs mount, or a tree made by convert-tree.sh.
#
# Installs Debian's blender and python3-numpy with apt-get when they are missing (needs root or
# sudo). BLENDER=/path/to/blender picks another Blender and skips the installation.
# Exit status: 0 every file passed, 1 a file failed or none was found, 2 bad usage, other: the
# installation failed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

if [ $# -eq 0 ]; then
	echo "usage: $0 [--require-image-data] [--obj-importer new|legacy] DIR..." >&2
	exit 2
fi

have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

if [ -z "${BLENDER:-}" ]; then
	missing=()
	command -v blender >/dev/null || missing+=(blender)
	if command -v dpkg-query >/dev/null; then
		have_pkg python3-numpy || missing+=(python3-numpy)
	fi
	if [ ${#missing[@]} -gt 0 ]; then
		sudo=()
		if [ "$(id -u)" -ne 0 ]; then
			command -v sudo >/dev/null || { echo "run.sh: need root (or sudo) to install ${missing[*]}" >&2; exit 3; }
			sudo=(sudo)
		fi
		echo "run.sh: installing ${missing[*]} with apt-get" >&2
		export DEBIAN_FRONTEND=noninteractive
		"${sudo[@]}" apt-get update -qq
		"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	fi
	BLENDER=blender
fi

# --python-exit-code 1: an uncaught error in check.py (and its sys.exit(1)) ends Blender with 1.
exec "$BLENDER" -b --factory-startup --python-exit-code 1 --python "$here/check.py" -- "$@"
