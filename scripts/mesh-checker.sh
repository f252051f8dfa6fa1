#!/usr/bin/env bash
# The mesh checker tests/print.rs holds generate's STL and 3MF to: trimesh
# (with numpy, and lxml and networkx, which its 3MF reader needs) from PyPI,
# versions pinned below, installed once into a Python venv in a cache
# folder that every test run shares, and reused from there while it holds
# the pinned versions.
#
# Usage: scripts/mesh-checker.sh
#   Installs the checker unless it is there, then prints the venv's python
#   (tests/data/print/check_mesh.py runs under it).
#
# Needs python3 with its venv module (scripts/install-deps.sh test installs
# python3-venv) and, the first time, PyPI. A second run while the first
# installs waits for it (flock on the folder's .lock); an install that fails
# or is interrupted leaves nothing that counts as installed: a venv's
# scripts name their own folder, so it cannot be filled elsewhere and
# renamed; it is made where it stays, and what counts is the marker of a
# finished install, written last and renamed into place.
#
# Environment:
#   HOLOTERRAIN_MESH_CHECKER  the install folder (default /var/cache/holoterrain/mesh-checker)
set -euo pipefail

# The latest of each on Debian 12's Python 3.11 when pinned; pure Python
# apart from numpy's and lxml's manylinux wheels.
REQUIREMENTS=(trimesh==5.2.0 numpy==2.4.6 lxml==6.1.3 networkx==3.6.1)
DIR=${HOLOTERRAIN_MESH_CHECKER:-/var/cache/holoterrain/mesh-checker}
MARKER="$DIR/installed.txt"

die() {
    echo "mesh-checker: $*" >&2
    exit 1
}

installed() {
    [ -x "$DIR/bin/python" ] && [ -f "$MARKER" ] &&
        [ "$(cat "$MARKER")" = "${REQUIREMENTS[*]}" ]
}

[ $# -eq 0 ] || die "takes no arguments; usage: $0"
command -v python3 >/dev/null || die "python3 is missing (Debian: python3; scripts/install-deps.sh test installs it)"
if ! installed; then
    python3 -c 'import venv, ensurepip' 2>/dev/null ||
        die "python3's venv module is missing (Debian: python3-venv; scripts/install-deps.sh test installs it)"
    mkdir -p "$(dirname "$DIR")"
    exec 9>"$DIR.lock"
    flock 9
    if ! installed; then
        echo "mesh-checker: installing ${REQUIREMENTS[*]} into $DIR" >&2
        rm -rf "$DIR"
        python3 -m venv "$DIR" || die "python3 -m venv $DIR failed"
        "$DIR/bin/python" -m pip install -q --disable-pip-version-check --no-input \
            "${REQUIREMENTS[@]}" >&2 || die "pip install ${REQUIREMENTS[*]} failed (no PyPI?)"
        staging=$(mktemp "$MARKER.XXXXXX")
        chmod 644 "$staging"
        echo "${REQUIREMENTS[*]}" >"$staging"
        mv "$staging" "$MARKER"
        installed || die "installed, but $MARKER does not name ${REQUIREMENTS[*]}"
    fi
fi
echo "$DIR/bin/python"
