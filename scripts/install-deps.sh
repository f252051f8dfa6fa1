#!/usr/bin/env bash
# Installs the Debian packages holoterrain needs, if any are missing.
#
# Usage: scripts/install-deps.sh [run|test]
#   run   what `holoterrain sim` needs: a Vulkan loader and a CPU Vulkan driver
#   test  (default) all of that plus what the test suite needs
# Run as root on Debian 12 (or Ubuntu); as another user it names what to install.
set -euo pipefail

run_packages=(
  mesa-vulkan-drivers      # lavapipe: Vulkan on the CPU, so the simulator runs without a GPU
  libvulkan1               # the Vulkan loader
)

test_packages=(
  "${run_packages[@]}"
  vulkan-validationlayers  # VK_LAYER_KHRONOS_validation: tests require zero messages
  glslang-tools            # glslangValidator: proves the committed SPIR-V matches its GLSL
  spirv-tools              # spirv-val
  libopenxr-loader1        # the OpenXR loader the xr platform opens
  openxr-layer-corevalidation
  debootstrap              # builds the Debian trixie chroot that holds Monado
  xvfb                     # an X server for Monado's windows in tests/xr_desktop.rs
  xdotool                  # types keys and clicks into Monado's debug window there
  imagemagick              # import: screenshots of Monado's window there
  dpkg-dev                 # dpkg-shlibdeps: cargo-deb works out the package's libc dependency with it
  lintian                  # judges the .deb (tests/package_deb.rs)
  desktop-file-utils       # desktop-file-validate checks the desktop entry (tests/manifests.rs)
  appstream                # appstreamcli validates the AppStream metainfo (tests/manifests.rs)
)

case "${1:-test}" in
  run) packages=("${run_packages[@]}") ;;
  test) packages=("${test_packages[@]}") ;;
  *) echo "error: unknown package set '$1'; use 'run' or 'test'" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "error: missing packages: ${missing[*]}; install them with: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
echo "installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
