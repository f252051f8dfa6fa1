#!/usr/bin/env bash
# Installs the Debian packages holoterrain needs, if any are missing.
#
# Usage: scripts/install-deps.sh [run|test|windows|hololens|aarch64|profile]
#   run           what building and `holoterrain sim` need: a Vulkan loader, a CPU Vulkan
#                 driver, alsa-lib (sound)
#   test          (default) all of that plus what the test suite needs
#   windows       the cross toolchain of scripts/build-windows.sh, with the
#                 clippy that lints as it builds
#   hololens      the Debian part of scripts/build-hololens.sh's toolchain
#   aarch64       the ARM64 Linux toolchain and qemu of scripts/build-aarch64.sh
#   profile       perf and what reads its samples, for scripts/profile-iteration.sh
# Run as root on Debian 12 (or Ubuntu); as another user it names what to install.
set -euo pipefail

run_packages=(
  mesa-vulkan-drivers      # lavapipe: Vulkan on the CPU, so the simulator runs without a GPU
  libvulkan1               # the Vulkan loader
  libasound2-dev           # alsa-lib and its headers: cpal (the clicks' sound output) links it
  pkg-config               # how alsa-sys finds alsa-lib when building
)

test_packages=(
  "${run_packages[@]}"
  vulkan-validationlayers  # VK_LAYER_KHRONOS_validation: tests require zero messages
  glslang-tools            # glslangValidator: proves the committed SPIR-V matches its GLSL
  spirv-tools              # spirv-val
  libopenxr-loader1        # the OpenXR loader the xr platform opens
  libopenxr-dev            # openxr.h: the unit tests compile C against it to check extension layouts
  openxr-layer-corevalidation
  debootstrap              # builds the Debian trixie chroot that holds Monado
  xvfb                     # an X server for Monado's windows in tests/xr_desktop.rs
  xdotool                  # types keys and clicks into Monado's debug window there
  imagemagick              # import: screenshots of Monado's window there
  dpkg-dev                 # dpkg-shlibdeps: cargo-deb works out the package's libc dependency with it
  lintian                  # judges the .deb (tests/package_deb.rs)
  desktop-file-utils       # desktop-file-validate checks the desktop entry (tests/manifests.rs)
  appstream                # appstreamcli validates the AppStream metainfo (tests/manifests.rs)
  nodejs                   # node runs the Khronos glTF validator on generate's glb (tests/glb.rs)
  npm                      # installs that validator, once (scripts/gltf-validator.sh)
  python3-venv             # the venv of the mesh checker (trimesh) for generate's STL and 3MF (scripts/mesh-checker.sh, tests/print.rs)
)

windows_packages=(
  rustc-web                 # Rust 1.96 as /usr/bin/rustc: builds std for Windows from source
  cargo-web                 # its cargo, /usr/bin/cargo
  rust-web-src              # std's sources, which -Zbuild-std compiles
  gcc-mingw-w64-x86-64      # MinGW-w64 C compiler and linker (posix-thread variant used)
  g++-mingw-w64-x86-64      # MinGW-w64 C++ compiler: the OpenXR loader is C++
  cmake                     # builds the OpenXR loader (openxr-sys, feature static)
  zip                       # packs the distribution zip
  rust-web-clippy           # clippy-driver of Debian's Rust 1.96: lints the build as it compiles
)

hololens_packages=(
  rustc-web                 # Rust 1.96 as /usr/bin/rustc: builds std for the HoloLens target from source
  cargo-web                 # its cargo, /usr/bin/cargo
  rust-web-src              # std's sources, which -Zbuild-std compiles
  rust-web-clippy           # clippy-driver of that toolchain: lints the build as it compiles
  llvm-14                   # llvm-dlltool, llvm-ar, llvm-nm, llvm-windres
  mingw-w64-x86-64-dev      # its libwindowsapp.a lists the APIs a UWP app may import
  cmake                     # builds the OpenXR loader (openxr-sys, feature static)
  python3-venv              # the venv for the pinned PyPI packages (zig, openappx)
  openssl                   # makes the test certificate, reads certificate subjects
)

aarch64_packages=(
  rustc-web                 # Rust 1.96 as /usr/bin/rustc: builds std for ARM64 from source
  cargo-web                 # its cargo, /usr/bin/cargo
  rust-web-src              # std's sources, which -Zbuild-std compiles
  gcc-aarch64-linux-gnu     # the ARM64 linker (and C compiler)
  libc6-dev-arm64-cross     # the ARM64 C library to link against
  qemu-user                 # qemu-aarch64: runs ARM64 Linux programs here
)

profile_packages=(
  linux-perf                # perf: samples a run on its cpu-clock
  binutils                  # nm and addr2line: the samples' functions, inlining included
  python3                   # sums the samples by function
)

case "${1:-test}" in
  run) packages=("${run_packages[@]}") ;;
  test) packages=("${test_packages[@]}") ;;
  windows) packages=("${windows_packages[@]}") ;;
  hololens) packages=("${hololens_packages[@]}") ;;
  aarch64) packages=("${aarch64_packages[@]}") ;;
  profile) packages=("${profile_packages[@]}") ;;
  *) echo "error: unknown package set '$1'; use 'run', 'test', 'windows', 'hololens', 'aarch64' or 'profile'" >&2; exit 2 ;;
esac

# Whether package $1 is installed, or provided by one that is (NodeSource's
# nodejs provides npm and conflicts with Debian's).
installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed" && return 0
  dpkg-query -W -f='${Status}|${Provides}\n' 2>/dev/null |
    grep "^install ok installed|" | cut -d'|' -f2 | tr ',' '\n' | sed 's/ *(.*//; s/^ *//' |
    grep -x -- "$1" >/dev/null # not -q: under pipefail an early exit fails the pipe
}

missing=()
for p in "${packages[@]}"; do
  installed "$p" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "error: missing packages: ${missing[*]}; install them with: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
echo "${0##*/}: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
