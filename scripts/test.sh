#!/usr/bin/env bash
# The whole test suite: installs what it needs, then formatting, lints and every test.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh test
cargo fmt --all -- --check
cargo clippy --all-targets --locked -- -D warnings
# The Windows exe and zip, which tests/windows_wine.rs runs under Wine.
scripts/build-windows.sh
# The ARM64 build and unit tests, which tests/aarch64_qemu.rs runs under qemu.
scripts/build-aarch64.sh
cargo test --locked
