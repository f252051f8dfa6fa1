#!/usr/bin/env bash
# The Khronos glTF validator (the npm package gltf-validator, version
# pinned below), installed once into a cache folder that every test run
# shares, and reused from there while it holds the pinned version.
#
# Usage: scripts/gltf-validator.sh
#   Installs the validator unless it is there, then prints the folder whose
#   node_modules holds it (tests/data/gltf/validate.mjs takes that folder).
#
# Needs node and npm (scripts/install-deps.sh test) and, the first time, the
# npm registry. A second run while the first installs waits for it; an
# install that fails or is interrupted leaves nothing that counts as
# installed (npm fills a temporary folder that is renamed into place).
#
# Environment:
#   HOLOTERRAIN_GLTF_VALIDATOR  the install folder (default /var/cache/holoterrain/gltf-validator)
set -euo pipefail

# 2.0.0-dev.3.10, the package's latest: Dart compiled to JavaScript with no
# dependencies and no install scripts; it runs on Debian 12's node 18.
VERSION=2.0.0-dev.3.10
DIR=${HOLOTERRAIN_GLTF_VALIDATOR:-/var/cache/holoterrain/gltf-validator}
PACKAGE_JSON="$DIR/node_modules/gltf-validator/package.json"

die() {
    echo "gltf-validator: $*" >&2
    exit 1
}

installed() {
    [ -f "$PACKAGE_JSON" ] &&
        [ "$(node -p 'require(process.argv[1]).version' "$PACKAGE_JSON")" = "$VERSION" ]
}

[ $# -eq 0 ] || die "takes no arguments; usage: $0"
command -v node >/dev/null || die "node is missing (Debian: nodejs; scripts/install-deps.sh test installs it)"
if ! installed; then
    command -v npm >/dev/null || die "npm is missing (Debian: npm; scripts/install-deps.sh test installs it)"
    mkdir -p "$(dirname "$DIR")"
    exec 9>"$DIR.lock"
    flock 9
    if ! installed; then
        echo "gltf-validator: installing gltf-validator@$VERSION into $DIR" >&2
        staging=$(mktemp -d "$DIR.new.XXXXXX")
        # mktemp makes it private; the cache is shared.
        chmod 755 "$staging"
        trap 'rm -rf "$staging"' EXIT
        npm install --prefix "$staging" --ignore-scripts --no-audit --no-fund --loglevel=error \
            "gltf-validator@$VERSION" >&2 || die "npm install gltf-validator@$VERSION failed"
        rm -rf "$DIR"
        mv "$staging" "$DIR"
        installed || die "installed, but $PACKAGE_JSON does not name version $VERSION"
    fi
fi
echo "$DIR"
