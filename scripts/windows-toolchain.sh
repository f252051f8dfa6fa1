# The cross toolchain for the Windows target, shared by scripts/build-windows.sh
# and scripts/clippy-windows.sh: the environment that makes Debian's Rust
# 1.96 build std for Windows from source, and windows_cargo, which runs
# cargo that way. Sourced (bash), not run; the sourcing script installs the
# packages first (scripts/install-deps.sh windows or windows-lint).

WINDOWS_TARGET=x86_64-pc-windows-gnu
source scripts/cross-target-dir.sh
# Cargo's target directory for the Windows builds (see cross-target-dir.sh).
WINDOWS_TARGET_DIR=$(cross_target_dir windows)

# Debian's toolchain, not rustup's (first on PATH, and without a Windows std).
# RUSTC_BOOTSTRAP lets this stable compiler take -Zbuild-std.
# The posix-thread MinGW compilers: the loader's C++ needs std::mutex.
export RUSTC=/usr/bin/rustc
export RUSTC_BOOTSTRAP=1
export CC_x86_64_pc_windows_gnu=x86_64-w64-mingw32-gcc-posix
export CXX_x86_64_pc_windows_gnu=x86_64-w64-mingw32-g++-posix
export AR_x86_64_pc_windows_gnu=x86_64-w64-mingw32-gcc-ar-posix

# Runs `cargo SUBCOMMAND --release --locked --target WINDOWS_TARGET
# --target-dir WINDOWS_TARGET_DIR -Zbuild-std ARGS...` with Debian's cargo (or its cargo-clippy), warnings
# denied for the target's code. Release and the same rustflags in both
# scripts, so they share every build script's output (the OpenXR loader's
# cmake build above all).
windows_cargo() {
  local subcommand=$1
  shift
  local cargo=(/usr/bin/cargo "$subcommand")
  # Debian's cargo-clippy, not rustup's proxy that cargo would find first on PATH.
  [ "$subcommand" != clippy ] || cargo=(env CARGO=/usr/bin/cargo /usr/bin/cargo-clippy clippy)
  "${cargo[@]}" --release --locked --target "$WINDOWS_TARGET" --target-dir "$WINDOWS_TARGET_DIR" \
    -Zbuild-std=std,panic_abort \
    --config "target.$WINDOWS_TARGET.rustflags=['-D', 'warnings']" "$@"
}
