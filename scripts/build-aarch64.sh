#!/usr/bin/env bash
# Builds holoterrain and its library's unit tests for 64-bit ARM Linux
# (aarch64-unknown-linux-gnu), which tests/aarch64_qemu.rs runs under
# qemu-aarch64 to show the terrain is bit-identical on ARM64, the
# HoloLens 2's architecture. Outputs, in the target directory:
#   aarch64-unknown-linux-gnu/release/holoterrain
#   aarch64-unknown-linux-gnu/release/engine-tests  (the library's unit tests)
#
# Run as root to install the Debian packages it needs; as another user it
# names the missing ones. Only Debian packages and crates.io are downloaded.
set -euo pipefail
cd "$(dirname "$0")/.."

target=aarch64-unknown-linux-gnu
target_dir=${CARGO_TARGET_DIR:-target}
source scripts/cross-target-dir.sh
# Where cargo builds (see cross-target-dir.sh); the outputs are copied to
# target_dir, where the tests look for them.
build_dir=$(cross_target_dir)
# Debian's Rust 1.96 and std sources, the ARM64 cross linker and C library, qemu.
scripts/install-deps.sh aarch64

# Debian's toolchain, not rustup's (first on PATH, and without an ARM64
# std). RUSTC_BOOTSTRAP lets this stable compiler take -Zbuild-std, which
# builds std (and the test harness) for ARM64 from rust-web-src.
export RUSTC=/usr/bin/rustc
export RUSTC_BOOTSTRAP=1
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc
export AR_aarch64_unknown_linux_gnu=aarch64-linux-gnu-ar
started=$(date +%s)
common=(--release --locked --target "$target" --target-dir "$build_dir" -Zbuild-std
  --config "target.$target.rustflags=['-D', 'warnings']")
/usr/bin/cargo build "${common[@]}" --bin holoterrain
# The unit tests in the release profile, so they share every dependency
# with the binary above and the build is paid once.
tests=$(/usr/bin/cargo test "${common[@]}" --lib --no-run --message-format=json |
  sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)
if [ -z "$tests" ]; then
  echo "error: cargo did not report the ARM64 unit test executable" >&2
  exit 1
fi
mkdir -p "$target_dir/$target/release"
cp "$tests" "$target_dir/$target/release/engine-tests"
if [ "$build_dir" != "$target_dir" ]; then
  cp "$build_dir/$target/release/holoterrain" "$target_dir/$target/release/holoterrain"
fi
echo "build-aarch64: built $target_dir/$target/release/holoterrain and engine-tests in $(($(date +%s) - started)) s" >&2
