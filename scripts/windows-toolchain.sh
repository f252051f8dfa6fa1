# The cross toolchain for the Windows target, shared by scripts/build-windows.sh
# and scripts/build-test-runtime.sh: the environment that makes Debian's Rust
# 1.96 build std for Windows from source, and windows_cargo, which runs
# cargo that way, linting as it builds. Sourced (bash), not run; the sourcing
# script installs the packages first (scripts/install-deps.sh windows).

WINDOWS_TARGET=x86_64-pc-windows-gnu
source scripts/cross-target-dir.sh
# Cargo's target directory for the Windows builds (see cross-target-dir.sh).
WINDOWS_TARGET_DIR=$(cross_target_dir)

# Debian's toolchain, not rustup's (first on PATH, and without a Windows std).
# RUSTC_BOOTSTRAP lets this stable compiler take -Zbuild-std.
# The posix-thread MinGW compilers: the loader's C++ needs std::mutex.
export RUSTC=/usr/bin/rustc
export RUSTC_BOOTSTRAP=1
export CC_x86_64_pc_windows_gnu=x86_64-w64-mingw32-gcc-posix
export CXX_x86_64_pc_windows_gnu=x86_64-w64-mingw32-g++-posix
export AR_x86_64_pc_windows_gnu=x86_64-w64-mingw32-gcc-ar-posix

# Runs `cargo SUBCOMMAND --release --locked --target WINDOWS_TARGET
# --target-dir WINDOWS_TARGET_DIR -Zbuild-std ARGS...` with Debian's cargo,
# warnings denied for the target's code, and Debian's clippy-driver as the
# workspace wrapper: the code only the Windows target compiles
# (src/render/d3d11/, src/xr/graphics/d3d11.rs, src/xr/run/console_close.rs)
# is held to clippy and the unsafe rules of Cargo.toml's [lints] while it
# compiles, with no second pass over the dependencies. Release, the same
# rustflags and the same wrapper in every script, so they share every
# compiled crate and build script output (the OpenXR loader's cmake build
# above all).
windows_cargo() {
  local subcommand=$1
  shift
  RUSTC_WORKSPACE_WRAPPER=/usr/bin/clippy-driver \
    CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__" \
    /usr/bin/cargo "$subcommand" --release --locked --target "$WINDOWS_TARGET" --target-dir "$WINDOWS_TARGET_DIR" \
    -Zbuild-std=std,panic_abort \
    --config "target.$WINDOWS_TARGET.rustflags=['-D', 'warnings']" "$@"
}
