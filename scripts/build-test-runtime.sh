#!/usr/bin/env bash
# Builds holoterrain's HoloLens 2-like test OpenXR runtime (tests/testrt,
# docs/testrt.md) for Linux and for Windows, each beside its loader manifest:
#
#   target/testrt/linux/holoterrain_testrt.json     libholoterrain_testrt.so  (XR_KHR_vulkan_enable2)
#   target/testrt/windows/holoterrain_testrt.json   holoterrain_testrt.dll    (XR_KHR_D3D11_enable)
#
# Each manifest names its library by a path relative to itself, so a folder
# works wherever it is copied. Point the loader at one with
# XR_RUNTIME_JSON=.../holoterrain_testrt.json (Linux); under Wine, which runs
# programs elevated, make it the active runtime in the registry instead
# (docs/testrt.md).
#
# The Linux library comes out of the host's test build (scripts/test.sh's
# first cargo run: every target of the workspace, linted as it compiles), so
# it is built with the `cargo test` binaries it runs with and shares every
# compiled crate with them; the Windows DLL is built the way
# scripts/build-windows.sh builds the exe (Debian's Rust 1.96, std from
# source, release, in the same cargo run there), so after that script it is
# only placed.
#
# Usage: scripts/build-test-runtime.sh [linux|windows]   (default: both)
set -euo pipefail
cd "$(dirname "$0")/.."

target_dir=${CARGO_TARGET_DIR:-target}
out="$target_dir/testrt"

# Writes DIR/holoterrain_testrt.json naming LIBRARY (relative to DIR),
# through a temp file so a reader never sees half of it.
write_manifest() {
  local dir=$1 library=$2
  cat >"$dir/holoterrain_testrt.json.tmp" <<EOF
{
    "file_format_version": "1.0.0",
    "runtime": {
        "name": "holoterrain-testrt (HoloLens 2-like test runtime)",
        "library_path": "$library"
    }
}
EOF
  mv "$dir/holoterrain_testrt.json.tmp" "$dir/holoterrain_testrt.json"
}

build_linux() {
  # The host's test build, as scripts/test.sh runs it (nothing to do after it).
  source scripts/test-phases.sh
  host_cargo test --workspace --all-targets --locked --no-run --quiet
  mkdir -p "$out/linux"
  # Built as the integration tests' dependency, it stays among the deps.
  cp "$target_dir/debug/deps/libholoterrain_testrt.so" "$out/linux/"
  write_manifest "$out/linux" "./libholoterrain_testrt.so"
}

build_windows() {
  # The cross toolchain (Debian's Rust 1.96, MinGW-w64, cmake) and windows_cargo.
  source scripts/windows-toolchain.sh
  windows_cargo build -p holoterrain-testrt
  mkdir -p "$out/windows"
  cp "$WINDOWS_TARGET_DIR/$WINDOWS_TARGET/release/holoterrain_testrt.dll" "$out/windows/"
  # A path with a separator: the loader then reads it relative to the
  # manifest rather than searching the system's library path.
  write_manifest "$out/windows" '.\\holoterrain_testrt.dll'
}

started=$(date +%s)
case "${1:-both}" in
  linux) build_linux ;;
  windows) build_windows ;;
  both) build_linux; build_windows ;;
  *) echo "error: unknown platform '$1'; use linux, windows or nothing for both" >&2; exit 2 ;;
esac
echo "build-test-runtime: built $out in $(($(date +%s) - started)) s" >&2
