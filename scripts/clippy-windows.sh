#!/usr/bin/env bash
# Lints the Windows build with clippy, warnings denied: the code only the
# Windows target compiles (src/render/d3d11/, src/xr/graphics/d3d11.rs,
# src/xr/run/console_close.rs) is held to the same lints as the rest, the unsafe
# rules of Cargo.toml's [lints] included. Uses Debian's clippy of the same
# Rust 1.96 toolchain and the same target directory as
# scripts/build-windows.sh, so the two share their build scripts' output.
#
# Run as root to install the Debian packages it needs; as another user it
# names the missing ones.
set -euo pipefail
cd "$(dirname "$0")/.."

# The Windows cross toolchain and Debian's clippy for it.
scripts/install-deps.sh windows-lint
# The cross toolchain's environment and windows_cargo.
source scripts/windows-toolchain.sh

started=$(date +%s)
windows_cargo clippy -p holoterrain -p holoterrain-hlsl-interface -- -D warnings
echo "clippy-windows: $WINDOWS_TARGET clean in $(($(date +%s) - started)) s" >&2
