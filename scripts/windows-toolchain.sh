# The cross toolchain for the Windows target, shared by scripts/build-windows.sh
# and scripts/clippy-windows.sh: Debian's packages (installed when missing,
# as root; named otherwise) and the environment that makes Debian's Rust 1.96
# build std for Windows from source. Sourced (bash), not run; the sourcing
# script may add packages to WINDOWS_PACKAGES first. After it, WINDOWS_TARGET
# names the target and WINDOWS_CARGO runs cargo with std built from source
# (-Zbuild-std) for it, in release (so the two scripts share every build
# script's output, the OpenXR loader's cmake build above all).

WINDOWS_TARGET=x86_64-pc-windows-gnu
WINDOWS_PACKAGES+=(
  rustc-web                 # Rust 1.96 as /usr/bin/rustc: builds std for Windows from source
  cargo-web                 # its cargo, /usr/bin/cargo
  rust-web-src              # std's sources, which -Zbuild-std compiles
  gcc-mingw-w64-x86-64      # MinGW-w64 C compiler and linker (posix-thread variant used)
  g++-mingw-w64-x86-64      # MinGW-w64 C++ compiler: the OpenXR loader is C++
  cmake                     # builds the OpenXR loader (openxr-sys, feature static)
)

windows_missing=()
for package in "${WINDOWS_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \
    || windows_missing+=("$package")
done
if [ ${#windows_missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "error: missing packages: ${windows_missing[*]}; install them with: sudo apt-get install ${windows_missing[*]}" >&2
    exit 1
  fi
  echo "${0##*/}: installing ${windows_missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${windows_missing[@]}" >/dev/null
fi

# Debian's toolchain, not rustup's (first on PATH, and without a Windows std).
# RUSTC_BOOTSTRAP lets this stable compiler take -Zbuild-std.
# The posix-thread MinGW compilers: the loader's C++ needs std::mutex.
export RUSTC=/usr/bin/rustc
export RUSTC_BOOTSTRAP=1
export CC_x86_64_pc_windows_gnu=x86_64-w64-mingw32-gcc-posix
export CXX_x86_64_pc_windows_gnu=x86_64-w64-mingw32-g++-posix
export AR_x86_64_pc_windows_gnu=x86_64-w64-mingw32-gcc-ar-posix

# Runs `cargo SUBCOMMAND --release --locked --target WINDOWS_TARGET -Zbuild-std
# ARGS...` with Debian's cargo (or the cargo-SUBCOMMAND beside it), warnings
# denied for the target's code.
windows_cargo() {
  local subcommand=$1
  shift
  local cargo=(/usr/bin/cargo "$subcommand")
  # Debian's cargo-clippy, not rustup's proxy that cargo would find first on PATH.
  [ "$subcommand" != clippy ] || cargo=(env CARGO=/usr/bin/cargo /usr/bin/cargo-clippy clippy)
  "${cargo[@]}" --release --locked --target "$WINDOWS_TARGET" -Zbuild-std=std,panic_abort \
    --config "target.$WINDOWS_TARGET.rustflags=['-D', 'warnings']" "$@"
}
