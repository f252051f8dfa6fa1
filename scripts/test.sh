#!/usr/bin/env bash
# The whole test suite: installs what it needs, then formatting, lints and every test.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh test
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
# The Windows exe and zip, which tests/windows_wine.rs runs under Wine (with
# the packaged app's entry, holoterrain-packaged.exe, for tests/hololens_package.rs).
scripts/build-windows.sh
# Clippy for the Windows target (the code only it compiles), in the same
# target directory, after the build so it reuses the build scripts' output.
scripts/clippy-windows.sh
# The HoloLens 2 package: the signed .msix that tests/hololens_package.rs
# checks (docs/hololens.md, "On the device"), then clippy for its target,
# which reuses the build's build-script output.
scripts/build-hololens.sh
scripts/build-hololens.sh --clippy
# The ARM64 build and unit tests, which tests/aarch64_qemu.rs runs under qemu.
scripts/build-aarch64.sh
# The test OpenXR runtime, Linux and Windows builds (docs/testrt.md), which
# tests/xr_testrt.rs, tests/windows_wine.rs and tests/testrt run on.
scripts/build-test-runtime.sh
cargo test --workspace --locked
