#!/usr/bin/env bash
# Builds the Debian package target/debian/holoterrain_<version>-<revision>_amd64.deb
# with cargo-deb (configured in Cargo.toml's [package.metadata.deb]) and prints
# its path as the last line on stdout.
#
# Installs cargo-deb from crates.io when it is missing. Needs dpkg-dev
# (dpkg-shlibdeps works out the Depends on libc): scripts/install-deps.sh test.
set -euo pipefail
cd "$(dirname "$0")/.."

# The cargo-deb release this packaging was written and checked against.
CARGO_DEB_VERSION=3.8.0
# The man pages and shell completions made from the clap definition.
ASSETS_DIR=target/package-assets

if ! cargo deb --version >/dev/null 2>&1; then
  echo "build-deb: installing cargo-deb $CARGO_DEB_VERSION from crates.io (about 2 minutes)" >&2
  cargo install cargo-deb --locked --version "$CARGO_DEB_VERSION" >&2
fi
if ! command -v dpkg-shlibdeps >/dev/null; then
  echo "error: dpkg-shlibdeps is missing; install dpkg-dev (scripts/install-deps.sh test)" >&2
  exit 1
fi

# Release profile, like the binary: the library is compiled once for both.
rm -rf "$ASSETS_DIR"
cargo run --release --locked --quiet --example package_assets -- "$ASSETS_DIR" >&2
cargo deb --locked --quiet
